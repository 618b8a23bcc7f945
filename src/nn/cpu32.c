/* cpu32.c: the float32 CPU trainer. Activations are NHWC: a (n*49, C) row-major matrix, so
 * a 3x3 convolution is one GEMM over an im2col matrix whose rows are (tap, channel) runs
 * copied with memcpy, and 1x1 convolutions and linear layers are plain GEMMs (OpenBLAS,
 * single-threaded per call). Each OpenMP thread takes a fixed share of the batch and runs
 * the whole forward and backward on it, chunk by chunk (an im2col buffer of one chunk stays
 * in cache), with its own weight-gradient accumulators; the threads meet only where the
 * mathematics needs the whole batch (BatchNorm statistics) and once at the end, where the
 * accumulators are summed in thread order (results do not depend on timing). Norm, ReLU and
 * residual add are fused into one pass forward and two passes backward. Checked against
 * the float64 reference (ref.c) by tests/nn and `gpuvet check`. */
#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn_backend.h"
#include "nn/ops.h"
#include "nn/wino.h"

#define P NN_CELLS

extern int openblas_get_num_threads(void);
extern void openblas_set_num_threads(int);

/* A layer that is a matrix product per chunk of rows: a 3x3 convolution (k 3, 49 rows per
 * sample, im2col), a 1x1 convolution (k 1, 49 rows) or a linear layer (k 1, 1 row). */
typedef struct {
    int k, rows, in, out;
    size_t w, b;      /* parameter offsets; b == NO_BIAS when there is none */
    int perm;         /* linear layer over a flattened (32, 49) map: NHWC column order */
    float *wk;        /* (k*k*in, out): forward, wk[tap*in + ci][co] = W[co][ci][tap] */
    float *wb;        /* (k*k*out, in): backward data, wb[tap*out + co][ci] = W[co][ci][k*k-1-tap] */
    float *wu, *wbu;  /* 3x3 with Winograd: U of the forward (in to out) and of the input gradient (out to in), wino.h */
} c32_layer;
#define NO_BIAS ((size_t)-1)

typedef struct {
    int c;
    size_t w, b, rm, rv;  /* gamma, beta in params; running stats in buffers */
    int nb;
    float *mean, *rstd;   /* per (sample, group) for GroupNorm, per channel for BatchNorm */
} c32_norm;

typedef struct {
    c32_layer c1, c2;
    c32_norm n1, n2;
    float *h1, *a1, *h2, *out; /* (n*49, C) */
} c32_block;

/* GV_CPU_PROFILE=1: where the time of the trainer's runs goes, for thread scaling (the GPU
 * machines' hosts have no perf). Each thread adds the seconds of its calls per phase; the
 * runs' wall times are kept beside them; the table goes to stderr when the trainer is
 * destroyed. Off, a phase costs one test of m->prof. */
enum { PH_CONV, PH_GEMM, PH_NORM, PH_WGRAD, PH_DGRAD, PH_GEMM_BWD, PH_NORM_BWD, PH_UNIT, PH_REDUCE, PH_N };
static const char *const ph_name[PH_N] = {"3x3 forward (Winograd or im2col)", "1x1/linear forward", "norm forward",
                                          "3x3 weight gradient",             "3x3 input gradient",  "1x1/linear backward",
                                          "norm backward",                   "units (whole)",       "gradient sum"};
enum { PW_PACK, PW_REGION, PW_ADAM, PW_RUN, PW_N };
#define PROF(m, tc, phase, stmt)                       \
    do {                                               \
        double prof_t0_ = (m)->prof ? gv_now() : 0;    \
        stmt;                                          \
        if ((m)->prof)                                 \
            (tc)->ph[phase] += gv_now() - prof_t0_;    \
    } while (0)

/* What one thread works with. */
typedef struct {
    int t, s0, ns;   /* thread number, the samples [s0, s0+ns) of the work unit it runs */
    float *col;      /* im2col or Winograd buffer of one chunk */
    float *acc;      /* the unit's gradient accumulators, nparams: GEMM layout for weights (gmap) */
    double *d;       /* norm scratch: 4 slots of W doubles (team sums use fixed slots, see team_sum) */
    float *f;        /* norm scratch: 16*W floats */
    double ph[PH_N]; /* GV_CPU_PROFILE: seconds per phase */
} c32_thread;

typedef struct {
    /* float32 state */
    float *params, *grads, *m, *v, *buffers;
    int64_t *num_batches;
    int64_t step;
    size_t nparams;
    int C, W, nblocks, threads, cap, n, fault; /* W = max(C, 32), the widest norm */
    int wino;              /* 3x3 convolutions by Winograd (wino.h), else im2col + sgemm */
    int conv_threads;      /* threads each Winograd forward shares its work among (1, or all of them
                            * when an eval forward of fewer samples than threads runs as one unit) */
    int packed;            /* the layers' packed weights match params (cleared when params change) */
    int io;                /* opened for inference only (opts.infer_only): no gradients, and the
                            * blocks' activations in pool (share_activations) */
    float *pool[4];
    nn_norm kind;
    size_t bytes;
    size_t *gmap;          /* accumulator index -> parameter index (weights are permuted) */
    /* layers */
    c32_layer stem, pc, vc, pf, vf1, vf2;
    c32_norm sn, pn, vn;
    c32_block *blocks;
    /* batch */
    float *x;              /* (n*49, 12) */
    int64_t *policy;
    double *vtarget;
    /* activations */
    float *h0, *a0;        /* (n*49, C) */
    float *hp, *ap, *hv, *av; /* (n*49, 32) */
    float *logits, *r, *value; /* (n, 7), (n, 128) after ReLU, (n) */
    double *logits_d, *value_d, *dlogits_d, *dvalue_d;
    /* work units: the batch is cut into `units` parts, each run through the whole network by
     * one thread with its own gradient accumulators uacc[u]; the parts are summed in unit
     * order, so results do not depend on which thread ran which unit */
    int units, umax;
    float **uacc;
    double *loss_part;      /* per unit */
    /* backward */
    float *D, *T1, *T2;    /* (n*49, C) */
    float *G1, *G2;        /* (n*49, 32) */
    float *dlogits, *dvalue, *dr; /* (n, 7), (n), (n, 128) */
    /* per thread */
    int chunk_max;         /* samples per chunk at most */
    c32_thread *th;
    int prof;              /* GV_CPU_PROFILE */
    int taper;             /* unit sizes shrink in order (unit_share); GV_CPU_TAPER=0: equal */
    double pw[PW_N];       /* its wall seconds: packing, parallel regions, AdamW, whole runs */
    long prof_runs, prof_steps;
} c32;

/* ---- allocation ---------------------------------------------------------------------- */

static float *falloc(c32 *m, size_t n)
{
    float *p = gv_aligned_alloc(sizeof(float) * (n ? n : 1));
    if (!p) {
        fprintf(stderr, "gpuvet: out of memory (cpu-fp32 trainer, %zu floats)\n", n);
        exit(GV_EXIT_ENV);
    }
    memset(p, 0, sizeof(float) * n);
    m->bytes += sizeof(float) * n;
    return p;
}

/* Thread t's share of n samples: [*s0, *s0 + *ns). */
static void share(int n, int T, int t, int *s0, int *ns)
{
    int base = n / T, extra = n % T;
    *s0 = t * base + (t < extra ? t : extra);
    *ns = base + (t < extra);
}

/* Work unit u's samples. Tapered (the default; GV_CPU_TAPER=0 for equal units) for
 * GroupNorm with at least four samples per unit: the units shrink from 1.5x to 0.5x the
 * mean size in order, so the units the threads take last, whose lengths decide how long
 * the others wait, are the short ones. Unit u starts at n F(u/U), F(x) = x (3 - x) / 2,
 * rounded: F(0) = 0, F(1) = 1, and the last unit's n / (2U) >= 2 samples keep every unit
 * at least one sample after rounding. */
static int taper_start(int n, int U, int u)
{
    int64_t d = 2 * (int64_t)U * U;
    return (int)(((int64_t)n * u * (3 * U - u) + d / 2) / d);
}

static void unit_share(const c32 *m, int u, int *s0, int *ns)
{
    int n = m->n, U = m->units;
    if (!m->taper || m->kind == NN_NORM_BATCH || n < 4 * U) {
        share(n, U, u, s0, ns);
        return;
    }
    *s0 = taper_start(n, U, u);
    *ns = taper_start(n, U, u + 1) - *s0;
}

/* ---- layers: im2col + GEMM ------------------------------------------------------------- */

/* col (ns*49, 9*c) from x (ns*49, c): row (y, x) holds the 9 neighbours' channel vectors in
 * tap order (ky, kx), zeros outside the board. */
static void im2col3(float *col, const float *x, int ns, int c)
{
    for (int s = 0; s < ns; s++)
        for (int y = 0; y < NN_BOARD; y++)
            for (int xx = 0; xx < NN_BOARD; xx++) {
                float *dst = col + ((size_t)s * P + y * NN_BOARD + xx) * 9 * c;
                for (int ky = 0; ky < 3; ky++) {
                    int iy = y + ky - 1;
                    for (int kx = 0; kx < 3; kx++, dst += c) {
                        int ix = xx + kx - 1;
                        if (iy < 0 || iy >= NN_BOARD || ix < 0 || ix >= NN_BOARD)
                            memset(dst, 0, sizeof(float) * c);
                        else
                            memcpy(dst, x + ((size_t)s * P + iy * NN_BOARD + ix) * c, sizeof(float) * c);
                    }
                }
            }
}

/* Index into the PyTorch weight of layer l for output o and GEMM column j. */
static size_t w_src(const c32_layer *l, int o, int j)
{
    if (l->k == 3) {
        int tap = j / l->in, ci = j % l->in;
        return ((size_t)o * l->in + ci) * 9 + tap;
    }
    if (l->perm) { /* j = pos*32 + c  ->  c*49 + pos */
        int pos = j / NN_HEAD_CH, c = j % NN_HEAD_CH;
        return (size_t)o * l->in + (size_t)c * P + pos;
    }
    return (size_t)o * l->in + j;
}

/* Rebuilds l's packed weights (wk and wb, or the Winograd wu and wbu) from the float32
 * parameters. */
static void layer_pack(c32 *m, c32_layer *l)
{
    const float *W = m->params + l->w;
    int K = l->k * l->k * l->in;
    if (l->wu) {
        nn_wino_pack(W, l->in, l->out, 0, nn_wino_blocked(), l->wu);
        nn_wino_pack(W, l->in, l->out, 1, nn_wino_blocked(), l->wbu);
        return;
    }
    for (int o = 0; o < l->out; o++)
        for (int j = 0; j < K; j++)
            l->wk[(size_t)j * l->out + o] = W[w_src(l, o, j)];
    if (l->k == 3) {
        for (int o = 0; o < l->out; o++)
            for (int ci = 0; ci < l->in; ci++)
                for (int tap = 0; tap < 9; tap++)
                    l->wb[((size_t)(8 - tap) * l->out + o) * l->in + ci] = W[((size_t)o * l->in + ci) * 9 + tap];
    } else {
        for (int o = 0; o < l->out; o++)
            for (int j = 0; j < l->in; j++)
                l->wb[(size_t)o * l->in + j] = W[w_src(l, o, j)];
    }
}

/* out = layer(in) for samples [s0, s0+ns), chunk by chunk. in (n*rows, l->in), out (n*rows, l->out). */
static void layer_fwd(const c32 *m, const c32_layer *l, const float *in, float *out, c32_thread *tc)
{
    int K = l->k * l->k * l->in;
    const float *bias = l->b != NO_BIAS ? m->params + l->b : NULL;
    for (int s0 = tc->s0; s0 < tc->s0 + tc->ns; s0 += m->chunk_max) {
        int ns = GV_MIN(m->chunk_max, tc->s0 + tc->ns - s0), rows = ns * l->rows;
        const float *a = in + (size_t)s0 * l->rows * l->in;
        float *c = out + (size_t)s0 * l->rows * l->out;
        double t0 = m->prof ? gv_now() : 0;
        if (l->wu) {
            nn_wino_conv(a, ns, l->in, l->out, l->wu, c, 0, tc->col, m->conv_threads);
        } else {
            if (l->k == 3) {
                im2col3(tc->col, a, ns, l->in);
                a = tc->col;
            }
            if (bias)
                for (int r = 0; r < rows; r++)
                    memcpy(c + (size_t)r * l->out, bias, sizeof(float) * l->out);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, l->out, K, 1.0f, a, K, l->wk, l->out,
                        bias ? 1.0f : 0.0f, c, l->out);
        }
        if (m->prof)
            tc->ph[l->k == 3 ? PH_CONV : PH_GEMM] += gv_now() - t0;
    }
}

/* Backward of layer_fwd for samples [s0, s0+ns): the weight (and bias) gradient of these
 * samples into the thread's accumulators (weights in GEMM layout, (out, K), or (K, out) for
 * Winograd layers); when din is
 * not NULL, din = din_beta * din + dL/din. in is the forward input, dout the gradient at
 * the output. */
static void layer_bwd(const c32 *m, const c32_layer *l, const float *in, const float *dout, float *din,
                      float din_beta, c32_thread *tc)
{
    int K = l->k * l->k * l->in, KB = l->k * l->k * l->out;
    float *dw = tc->acc + l->w, *db = l->b != NO_BIAS ? tc->acc + l->b : NULL;
    memset(dw, 0, sizeof(float) * (size_t)l->out * K);
    if (db)
        memset(db, 0, sizeof(float) * l->out);
    for (int s0 = tc->s0; s0 < tc->s0 + tc->ns; s0 += m->chunk_max) {
        int ns = GV_MIN(m->chunk_max, tc->s0 + tc->ns - s0), rows = ns * l->rows;
        const float *a = in + (size_t)s0 * l->rows * l->in;
        const float *g = dout + (size_t)s0 * l->rows * l->out;
        if (l->wu) {
            PROF(m, tc, PH_WGRAD, nn_wino_wgrad(a, g, ns, l->in, l->out, s0 > tc->s0, tc->col));
            if (din) {
                assert(din_beta == 0.0f || din_beta == 1.0f);
                PROF(m, tc, PH_DGRAD,
                     nn_wino_conv(g, ns, l->out, l->in, l->wbu, din + (size_t)s0 * l->rows * l->in,
                                  din_beta != 0.0f, tc->col, 1));
            }
            continue;
        }
        double t0 = m->prof ? gv_now() : 0;
        if (l->k == 3) {
            im2col3(tc->col, a, ns, l->in);
            a = tc->col;
        }
        /* dW (out, K) += g^T (out, rows) a (rows, K) */
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l->out, K, rows, 1.0f, g, l->out, a, K, 1.0f, dw, K);
        if (db)
            for (int r = 0; r < rows; r++)
                for (int o = 0; o < l->out; o++)
                    db[o] += g[(size_t)r * l->out + o];
        if (din) {
            const float *gc = g;
            if (l->k == 3) {
                im2col3(tc->col, g, ns, l->out);
                gc = tc->col;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, l->in, KB, 1.0f, gc, KB, l->wb, l->in,
                        din_beta, din + (size_t)s0 * l->rows * l->in, l->in);
        }
        if (m->prof)
            tc->ph[l->k == 3 ? PH_WGRAD : PH_GEMM_BWD] += gv_now() - t0;
    }
    if (l->wu && tc->ns > 0) /* dU summed over the chunks */
        PROF(m, tc, PH_WGRAD, nn_wino_unpack_grad(tc->col, l->in, l->out, dw));
}

/* ---- norms ------------------------------------------------------------------------------ */

/* The row kernels below are built for several x86-64 levels (NN_HOT, ops.h). */
#define HOT NN_HOT

/* s[k] = sum over rows of x[r][k] */
HOT static void k_colsum(const float *x, int rows, int c, float *s)
{
    for (int k = 0; k < c; k++)
        s[k] = 0;
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * c;
#pragma omp simd
        for (int k = 0; k < c; k++)
            s[k] += xr[k];
    }
}

/* s[k] = sum over rows of (x[r][k] - mean[k])^2 */
HOT static void k_colsq(const float *x, const float *mean, int rows, int c, float *s)
{
    for (int k = 0; k < c; k++)
        s[k] = 0;
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * c;
#pragma omp simd
        for (int k = 0; k < c; k++) {
            float d = xr[k] - mean[k];
            s[k] += d * d;
        }
    }
}

/* y = relu(x * a + b [+ res]) over rows of c channels. */
HOT static void k_apply(float *y, const float *x, const float *res, const float *a, const float *b, int rows, int c)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * c;
        float *yr = y + (size_t)r * c;
        if (res) {
            const float *rr = res + (size_t)r * c;
#pragma omp simd
            for (int k = 0; k < c; k++) {
                float v = xr[k] * a[k] + b[k] + rr[k];
                yr[k] = v > 0 ? v : 0;
            }
        } else {
#pragma omp simd
            for (int k = 0; k < c; k++) {
                float v = xr[k] * a[k] + b[k];
                yr[k] = v > 0 ? v : 0;
            }
        }
    }
}

/* With g = dy*(y>0) and xhat = (h - mean)*rstd: sg[k] = sum g, sgx[k] = sum g*xhat over rows. */
HOT static void k_bwd_sums(const float *dy, const float *y, const float *h, const float *mean, const float *rstd,
                           int rows, int c, float *sg, float *sgx)
{
    for (int k = 0; k < c; k++)
        sg[k] = sgx[k] = 0;
    for (int r = 0; r < rows; r++) {
        const float *dr = dy + (size_t)r * c, *yr = y + (size_t)r * c, *hr = h + (size_t)r * c;
#pragma omp simd
        for (int k = 0; k < c; k++) {
            float g = yr[k] > 0 ? dr[k] : 0;
            sg[k] += g;
            sgx[k] += g * ((hr[k] - mean[k]) * rstd[k]);
        }
    }
}

/* dh = g*A + h*Pc + Q with g = dy*(y>0); gres (if not NULL, may alias dy) receives g. */
HOT static void k_bwd_apply(float *dh, float *gres, const float *dy, const float *y, const float *h, const float *A,
                            const float *Pc, const float *Q, int rows, int c)
{
    for (int r = 0; r < rows; r++) {
        const float *dr = dy + (size_t)r * c, *yr = y + (size_t)r * c, *hr = h + (size_t)r * c;
        float *o = dh + (size_t)r * c;
        if (gres) {
            float *gr = gres + (size_t)r * c;
#pragma omp simd
            for (int k = 0; k < c; k++) {
                float g = yr[k] > 0 ? dr[k] : 0;
                gr[k] = g;
                o[k] = g * A[k] + hr[k] * Pc[k] + Q[k];
            }
        } else {
#pragma omp simd
            for (int k = 0; k < c; k++) {
                float g = yr[k] > 0 ? dr[k] : 0;
                o[k] = g * A[k] + hr[k] * Pc[k] + Q[k];
            }
        }
    }
}

/* Sets a[k], b[k] so that x*a + b = gamma*(x - mean)*rstd + beta, for statistics given per
 * channel (mean[k], rstd[k]). */
static void norm_affine(const c32 *m, const c32_norm *nm, const float *mean, const float *rstd, float *a, float *b)
{
    const float *gamma = m->params + nm->w, *beta = m->params + nm->b;
    for (int k = 0; k < nm->c; k++) {
        a[k] = gamma[k] * rstd[k];
        b[k] = beta[k] - mean[k] * a[k];
    }
}

/* Expands a sample's group statistics to one value per channel. */
static void group_expand(const float *gv, int c, float *cv)
{
    int cg = c / NN_GROUPS;
    for (int k = 0; k < c; k++)
        cv[k] = gv[k / cg];
}

/* Sums channel values s into group totals (float64). */
static void group_sum(const float *s, int c, double *out)
{
    int cg = c / NN_GROUPS;
    for (int g = 0; g < NN_GROUPS; g++) {
        double t = 0;
        for (int k = g * cg; k < (g + 1) * cg; k++)
            t += s[k];
        out[g] = t;
    }
}

/* Writes y for sample s of n: the fault hook leaves half of the last sample unwritten. */
static int rows_written(const c32 *m, int s, int n)
{
    return (m->fault && s == n - 1) ? P / 2 : P;
}

/* GroupNorm forward of the thread's samples: y = relu(norm(h) [+ res]). */
static void group_fwd(const c32 *m, c32_norm *nm, const float *h, float *y, const float *res, const c32_thread *tc)
{
    int c = nm->c, cg = c / NN_GROUPS;
    double cnt = (double)cg * P;
    float *cs = tc->f, *mc = cs + c, *a = cs + 2 * c, *b = cs + 3 * c, *rc = cs + 4 * c;
    for (int s = tc->s0; s < tc->s0 + tc->ns; s++) {
        const float *hs = h + (size_t)s * P * c;
        float *mean = nm->mean + (size_t)s * NN_GROUPS, *rstd = nm->rstd + (size_t)s * NN_GROUPS;
        double gs[NN_GROUPS];
        k_colsum(hs, P, c, cs);
        group_sum(cs, c, gs);
        for (int g = 0; g < NN_GROUPS; g++)
            mean[g] = (float)(gs[g] / cnt);
        group_expand(mean, c, mc);
        k_colsq(hs, mc, P, c, cs);
        group_sum(cs, c, gs);
        for (int g = 0; g < NN_GROUPS; g++)
            rstd[g] = (float)(1.0 / sqrt(gs[g] / cnt + NN_EPS));
        group_expand(rstd, c, rc);
        norm_affine(m, nm, mc, rc, a, b);
        k_apply(y + (size_t)s * P * c, hs, res ? res + (size_t)s * P * c : NULL, a, b, rows_written(m, s, m->n), c);
    }
}

/* Sums over the team: every thread has put c doubles in slot `slot` of its tc->d (a slot is W
 * doubles); after the barrier each thread adds all threads' values in thread order into out
 * (identical in every thread). Slots are fixed, not sized by c: a thread that runs ahead to
 * the next norm writes slot 0 while a slower one may still read slot 1 of this one, and the
 * next write of slot 1 comes only after the next barrier. */
static void team_sum(c32 *m, c32_thread *tc, int slot, int c, double *out)
{
#pragma omp barrier
    for (int k = 0; k < c; k++) {
        double s = 0;
        for (int u = 0; u < m->threads; u++)
            s += m->th[u].d[(size_t)slot * m->W + k];
        out[k] = s;
    }
}

/* BatchNorm forward, called by every thread of the team: statistics over the whole batch
 * (train: mean, then variance around it, float per sample, float64 across samples and
 * threads; eval: the running stats), then y = relu(norm(h) [+ res]) on the thread's samples.
 * Thread 0 updates the running stats and keeps mean and rstd for backward. */
static void batch_fwd(c32 *m, c32_norm *nm, const float *h, float *y, const float *res, int train, c32_thread *tc)
{
    int c = nm->c;
    double M = (double)m->n * P;
    float *rm = m->buffers + nm->rm, *rv = m->buffers + nm->rv;
    float *cs = tc->f, *mean = cs + c, *rstd = cs + 2 * c, *a = cs + 3 * c, *b = cs + 4 * c;
    double *tot = tc->d + 2 * (size_t)m->W;
    if (train) {
        for (int pass = 0; pass < 2; pass++) {
            double *part = tc->d + (size_t)pass * m->W;
            for (int k = 0; k < c; k++)
                part[k] = 0;
            for (int s = tc->s0; s < tc->s0 + tc->ns; s++) {
                if (pass == 0)
                    k_colsum(h + (size_t)s * P * c, P, c, cs);
                else
                    k_colsq(h + (size_t)s * P * c, mean, P, c, cs);
                for (int k = 0; k < c; k++)
                    part[k] += cs[k];
            }
            team_sum(m, tc, pass, c, tot);
            for (int k = 0; k < c; k++) {
                if (pass == 0)
                    mean[k] = (float)(tot[k] / M);
                else
                    rstd[k] = (float)(1.0 / sqrt(tot[k] / M + NN_EPS));
            }
        }
        if (tc->t == 0) {
            for (int k = 0; k < c; k++) {
                double var = tot[k] / M;
                nm->mean[k] = mean[k];
                nm->rstd[k] = rstd[k];
                rm[k] = (float)((1.0 - NN_BN_MOMENTUM) * rm[k] + NN_BN_MOMENTUM * mean[k]);
                rv[k] = (float)((1.0 - NN_BN_MOMENTUM) * rv[k] + NN_BN_MOMENTUM * var * M / (M - 1));
            }
            m->num_batches[nm->nb]++;
        }
    } else {
        for (int k = 0; k < c; k++) {
            mean[k] = rm[k];
            rstd[k] = (float)(1.0 / sqrt((double)rv[k] + NN_EPS));
        }
    }
    norm_affine(m, nm, mean, rstd, a, b);
    for (int s = tc->s0; s < tc->s0 + tc->ns; s++)
        k_apply(y + (size_t)s * P * c, h + (size_t)s * P * c, res ? res + (size_t)s * P * c : NULL, a, b,
                rows_written(m, s, m->n), c);
}

/* y (n*49, c) = relu(norm(h) [+ res]); every thread of the team calls it. */
static void norm_fwd(c32 *m, c32_norm *nm, const float *h, float *y, const float *res, int train, c32_thread *tc)
{
    if (m->kind == NN_NORM_GROUP)
        PROF(m, tc, PH_NORM, group_fwd(m, nm, h, y, res, tc));
    else
        PROF(m, tc, PH_NORM, batch_fwd(m, nm, h, y, res, train, tc));
}

/* Coefficients of dh = g*A + h*Pc + Q for channels whose statistics are (mean, rstd) over
 * cnt values and whose sums are s1 = sum gamma*g, s2 = sum gamma*g*xhat: the norm's
 * backward dh = rstd*(gamma*g - s1/cnt - xhat*s2/cnt) with xhat = (h - mean)*rstd. */
static void bwd_coef(float gamma, double mean, double rstd, double s1, double s2, double cnt, float *A, float *Pc,
                     float *Q)
{
    double p = -rstd * rstd * s2 / cnt;
    *A = (float)(rstd * gamma);
    *Pc = (float)p;
    *Q = (float)(-rstd * s1 / cnt - mean * p);
}

/* Backward of norm_fwd (training mode) through the ReLU for the thread's samples; every
 * thread of the team calls it. dy is the gradient at y = relu(...), h the norm's input.
 * Writes dh; gres (if not NULL) receives dy*(y>0), the gradient of the residual branch (may
 * alias dy). dgamma and dbeta of these samples go to the thread's accumulators. */
static void norm_bwd_run(c32 *m, c32_norm *nm, const float *dy, const float *y, const float *h, float *dh,
                         float *gres, c32_thread *tc)
{
    int c = nm->c, cg = c / NN_GROUPS, group = m->kind == NN_NORM_GROUP;
    const float *gamma = m->params + nm->w;
    double cnt = group ? (double)cg * P : (double)m->n * P;
    double *acc = tc->d, *acc_g = tc->d + m->W; /* slot 0: sum g*xhat, slot 1: sum g, slots 2-3: totals */
    float *sg = tc->f, *sgx = sg + c, *mc = sg + 2 * c, *rc = sg + 3 * c, *co = sg + 4 * c; /* co: A, Pc, Q */
    for (int k = 0; k < c; k++)
        acc[k] = acc_g[k] = 0;
    for (int s = tc->s0; s < tc->s0 + tc->ns; s++) {
        size_t o = (size_t)s * P * c;
        if (group) {
            group_expand(nm->mean + (size_t)s * NN_GROUPS, c, mc);
            group_expand(nm->rstd + (size_t)s * NN_GROUPS, c, rc);
        }
        k_bwd_sums(dy + o, y + o, h + o, group ? mc : nm->mean, group ? rc : nm->rstd, P, c, sg, sgx);
        for (int k = 0; k < c; k++) {
            acc[k] += sgx[k];
            acc_g[k] += sg[k];
        }
        if (!group)
            continue;
        for (int g = 0; g < NN_GROUPS; g++) {
            double s1 = 0, s2 = 0;
            for (int k = g * cg; k < (g + 1) * cg; k++) {
                s1 += gamma[k] * sg[k];
                s2 += gamma[k] * sgx[k];
            }
            for (int k = g * cg; k < (g + 1) * cg; k++)
                bwd_coef(gamma[k], mc[k], rc[k], s1, s2, cnt, &co[k], &co[c + k], &co[2 * c + k]);
        }
        k_bwd_apply(dh + o, gres ? gres + o : NULL, dy + o, y + o, h + o, co, co + c, co + 2 * c, P, c);
    }
    float *dgamma = tc->acc + nm->w, *dbeta = tc->acc + nm->b;
    if (group) {
        for (int k = 0; k < c; k++) {
            dgamma[k] = (float)acc[k];
            dbeta[k] = (float)acc_g[k];
        }
        return;
    }
    /* BatchNorm: the sums over the whole batch give the coefficients */
    double *tot = tc->d + 2 * (size_t)m->W, *tot_g = tc->d + 3 * (size_t)m->W;
    team_sum(m, tc, 0, c, tot);
    for (int k = 0; k < c; k++) { /* slot 1 after the barrier team_sum just passed */
        double s = 0;
        for (int u = 0; u < m->threads; u++)
            s += m->th[u].d[(size_t)m->W + k];
        tot_g[k] = s;
    }
    for (int k = 0; k < c; k++) {
        dgamma[k] = tc->t == 0 ? (float)tot[k] : 0.0f;
        dbeta[k] = tc->t == 0 ? (float)tot_g[k] : 0.0f;
        bwd_coef(gamma[k], nm->mean[k], nm->rstd[k], gamma[k] * tot_g[k], gamma[k] * tot[k], cnt, &co[k], &co[c + k],
                 &co[2 * c + k]);
    }
    size_t o = (size_t)tc->s0 * P * c;
    k_bwd_apply(dh + o, gres ? gres + o : NULL, dy + o, y + o, h + o, co, co + c, co + 2 * c, tc->ns * P, c);
    /* the team sums of the next BatchNorm layer reuse tc->d: wait until all have read this one */
#pragma omp barrier
}

static void norm_bwd(c32 *m, c32_norm *nm, const float *dy, const float *y, const float *h, float *dh, float *gres,
                     c32_thread *tc)
{
    PROF(m, tc, PH_NORM_BWD, norm_bwd_run(m, nm, dy, y, h, dh, gres, tc));
}

/* ---- the network ------------------------------------------------------------------------- */

/* Rebuilds every layer's packed weights from the parameters (before a forward, when the
 * parameters have changed since the last packing). */
static void pack_all(c32 *m)
{
    int nl = 6 + 2 * m->nblocks;
#pragma omp parallel for schedule(dynamic) num_threads(m->threads)
    for (int i = 0; i < nl; i++) {
        c32_layer *ls[] = {&m->stem, &m->pc, &m->vc, &m->pf, &m->vf1, &m->vf2};
        c32_layer *l = i < 6 ? ls[i] : (i - 6) % 2 ? &m->blocks[(i - 6) / 2].c2 : &m->blocks[(i - 6) / 2].c1;
        layer_pack(m, l);
    }
}

/* Forward of the thread's samples; returns the thread's part of the loss and writes the
 * gradient of the loss at logits and value for its samples. */
static double thread_forward(c32 *m, int train, c32_thread *tc)
{
    layer_fwd(m, &m->stem, m->x, m->h0, tc);
    norm_fwd(m, &m->sn, m->h0, m->a0, NULL, train, tc);
    const float *x = m->a0;
    for (int i = 0; i < m->nblocks; i++) {
        c32_block *b = &m->blocks[i];
        layer_fwd(m, &b->c1, x, b->h1, tc);
        norm_fwd(m, &b->n1, b->h1, b->a1, NULL, train, tc);
        layer_fwd(m, &b->c2, b->a1, b->h2, tc);
        norm_fwd(m, &b->n2, b->h2, b->out, x, train, tc);
        x = b->out;
    }
    layer_fwd(m, &m->pc, x, m->hp, tc);
    norm_fwd(m, &m->pn, m->hp, m->ap, NULL, train, tc);
    layer_fwd(m, &m->pf, m->ap, m->logits, tc);
    layer_fwd(m, &m->vc, x, m->hv, tc);
    norm_fwd(m, &m->vn, m->hv, m->av, NULL, train, tc);
    layer_fwd(m, &m->vf1, m->av, m->r, tc);
    for (size_t i = (size_t)tc->s0 * NN_VALUE_HIDDEN; i < (size_t)(tc->s0 + tc->ns) * NN_VALUE_HIDDEN; i++)
        m->r[i] = m->r[i] > 0 ? m->r[i] : 0;
    layer_fwd(m, &m->vf2, m->r, m->value, tc);
    int s0 = tc->s0, ns = tc->ns;
    for (int i = s0 * NN_POLICY; i < (s0 + ns) * NN_POLICY; i++)
        m->logits_d[i] = m->logits[i];
    for (int i = s0; i < s0 + ns; i++)
        m->value_d[i] = m->value[i];
    double loss = nn_loss_f64(m->logits_d + (size_t)s0 * NN_POLICY, m->value_d + s0, m->policy + s0, m->vtarget + s0, ns,
                              m->n, m->dlogits_d + (size_t)s0 * NN_POLICY, m->dvalue_d + s0);
    for (int i = s0 * NN_POLICY; i < (s0 + ns) * NN_POLICY; i++)
        m->dlogits[i] = (float)m->dlogits_d[i];
    for (int i = s0; i < s0 + ns; i++)
        m->dvalue[i] = (float)m->dvalue_d[i];
    return loss;
}

/* Backward of the thread's samples into its accumulators. */
static void thread_backward(c32 *m, c32_thread *tc)
{
    const float *trunk = m->nblocks ? m->blocks[m->nblocks - 1].out : m->a0;
    /* BatchNorm's mean and rstd were stored by thread 0 during the forward (every thread of
     * the team runs one unit with BatchNorm, so all of them reach this barrier) */
    if (m->kind == NN_NORM_BATCH) {
#pragma omp barrier
    }
    /* policy head: G1 = d(ap), G2 = d(hp); D = d(trunk) */
    layer_bwd(m, &m->pf, m->ap, m->dlogits, m->G1, 0.0f, tc);
    norm_bwd(m, &m->pn, m->G1, m->ap, m->hp, m->G2, NULL, tc);
    layer_bwd(m, &m->pc, trunk, m->G2, m->D, 0.0f, tc);
    /* value head */
    layer_bwd(m, &m->vf2, m->r, m->dvalue, m->dr, 0.0f, tc);
    for (size_t i = (size_t)tc->s0 * NN_VALUE_HIDDEN; i < (size_t)(tc->s0 + tc->ns) * NN_VALUE_HIDDEN; i++)
        m->dr[i] = m->r[i] > 0 ? m->dr[i] : 0;
    layer_bwd(m, &m->vf1, m->av, m->dr, m->G1, 0.0f, tc);
    norm_bwd(m, &m->vn, m->G1, m->av, m->hv, m->G2, NULL, tc);
    layer_bwd(m, &m->vc, trunk, m->G2, m->D, 1.0f, tc);
    /* blocks, last first; D holds the gradient at the block's output */
    for (int i = m->nblocks - 1; i >= 0; i--) {
        c32_block *b = &m->blocks[i];
        const float *bin = i ? m->blocks[i - 1].out : m->a0;
        norm_bwd(m, &b->n2, m->D, b->out, b->h2, m->T1, m->D, tc); /* T1 = dh2, D = residual gradient */
        layer_bwd(m, &b->c2, b->a1, m->T1, m->T2, 0.0f, tc);       /* T2 = d(a1) */
        norm_bwd(m, &b->n1, m->T2, b->a1, b->h1, m->T1, NULL, tc);  /* T1 = dh1 */
        layer_bwd(m, &b->c1, bin, m->T1, m->D, 1.0f, tc);          /* D += d(bin) through conv1 */
    }
    norm_bwd(m, &m->sn, m->D, m->a0, m->h0, m->T1, NULL, tc);
    layer_bwd(m, &m->stem, m->x, m->T1, NULL, 0.0f, tc);
}

/* Runs work unit u (its share of the batch) on thread tc: forward, and backward into the
 * unit's accumulators. */
static void run_unit(c32 *m, c32_thread *tc, int u, int train, int backward)
{
    unit_share(m, u, &tc->s0, &tc->ns);
    tc->acc = m->uacc[u];
    double t0 = m->prof ? gv_now() : 0;
    m->loss_part[u] = thread_forward(m, train, tc);
    if (backward)
        thread_backward(m, tc);
    if (m->prof)
        tc->ph[PH_UNIT] += gv_now() - t0;
}

/* Parameters per block of the gradient sum (16 KiB of float sums, in L1). */
#define SUM_BLOCK 4096

/* One pass over the batch by the team: forward (train or eval), and with backward the
 * gradients summed over the work units into m->grads. Returns the loss. BatchNorm in train
 * mode needs the whole team at every norm, so each thread runs one unit (the units are the
 * threads' shares). GroupNorm, and BatchNorm in eval mode, are per sample: the threads take
 * units as they come free, so a thread slowed by another process on its core does less of
 * the work. */
static double c32_run_team(c32 *m, int train, int backward)
{
    if (!m->packed) {
        double t0 = m->prof ? gv_now() : 0;
        pack_all(m);
        if (m->prof)
            m->pw[PW_PACK] += gv_now() - t0;
    }
    m->packed = 1;
    /* a train-mode BatchNorm needs the whole team (its statistics are the batch's); otherwise
     * no more threads than units (a batch of one runs on the calling thread) */
    int team = m->kind == NN_NORM_BATCH && train;
    int T = team ? m->threads : GV_MIN(m->threads, GV_MIN(m->umax, m->n));
    m->units = team ? T : GV_MIN(m->umax, m->n);
    /* a forward alone reads every weight once per unit (about 1 MiB per 3x3 layer at 128
     * channels, as long as the products of a few samples take): fewer, larger units, one per
     * thread or 16 samples each, whichever is more */
    if (!team && !backward) {
        m->units = GV_MIN(m->units, GV_MAX(GV_MIN(m->n, m->threads), (m->n + 15) / 16));
        T = GV_MIN(T, m->units);
    }
    /* a forward alone of fewer samples than threads (the self-play case): one unit on the
     * calling thread, and the threads share each 3x3 convolution instead (nn_wino_conv), as
     * the other layers are cheap; the values are the same as on one thread. From 4 threads:
     * a shared convolution meets all its threads three times, and on 2 loaded cores a
     * descheduled partner stalls every meeting (measured at load 9 on the 2-core machine:
     * batch 1 on 2 threads 194 ms median, 1.1 ms on one) */
    if (!team && !backward && m->wino && nn_wino_blocked() && m->n < m->threads && m->threads >= 4) {
        m->units = 1;
        m->conv_threads = m->threads;
        c32_thread *tc = &m->th[0];
        run_unit(m, tc, 0, train, 0);
        m->conv_threads = 1;
        return m->loss_part[0];
    }
    double t_region = m->prof ? gv_now() : 0;
#pragma omp parallel num_threads(T)
    {
        c32_thread *tc = &m->th[omp_get_thread_num()];
        if (team) {
            run_unit(m, tc, tc->t, train, backward);
        } else {
#pragma omp for schedule(dynamic, 1)
            for (int u = 0; u < m->units; u++)
                run_unit(m, tc, u, train, backward);
        }
        if (backward) {
#pragma omp barrier
            double t0 = m->prof ? gv_now() : 0;
            /* in blocks of SUM_BLOCK parameters, one unit's block after the other: each
             * sum is still u0 + u1 + ... in unit order, but the loads stream through one
             * accumulator at a time (64 interleaved streams, one per unit, ran at a few
             * GB/s per thread on a 16-core Xeon: 11% of the threads' time at 64 units) */
            size_t nblk = (m->nparams + SUM_BLOCK - 1) / SUM_BLOCK;
#pragma omp for schedule(static) nowait
            for (size_t bi = 0; bi < nblk; bi++) {
                size_t i0 = bi * SUM_BLOCK, n = GV_MIN(SUM_BLOCK, m->nparams - i0);
                float sum[SUM_BLOCK];
                memcpy(sum, m->uacc[0] + i0, sizeof(float) * n);
                for (int u = 1; u < m->units; u++) {
                    const float *a = m->uacc[u] + i0;
                    for (size_t i = 0; i < n; i++)
                        sum[i] += a[i];
                }
                for (size_t i = 0; i < n; i++)
                    m->grads[m->gmap[i0 + i]] = sum[i];
            }
            if (m->prof)
                tc->ph[PH_REDUCE] += gv_now() - t0;
        }
    }
    if (m->prof)
        m->pw[PW_REGION] += (gv_now() - t_region) * T; /* thread-seconds the region held */
    double loss = 0;
    for (int u = 0; u < m->units; u++)
        loss += m->loss_part[u];
    return loss;
}

/* c32_run_team, timed for GV_CPU_PROFILE. */
static double c32_run(c32 *m, int train, int backward)
{
    if (!m->prof)
        return c32_run_team(m, train, backward);
    double t0 = gv_now();
    double loss = c32_run_team(m, train, backward);
    m->pw[PW_RUN] += gv_now() - t0;
    m->prof_runs++;
    return loss;
}

/* ---- construction -------------------------------------------------------------------------- */

static const nn_tensor *need(const nn_layout *L, const char *mod, const char *what)
{
    char name[64];
    snprintf(name, sizeof name, "%s.%s", mod, what);
    const nn_tensor *t = nn_layout_find(L, name);
    if (!t) {
        fprintf(stderr, "gpuvet: internal error: layout has no tensor '%s'\n", name);
        abort();
    }
    return t;
}

static c32_layer layer_of(c32 *m, const nn_layout *L, const char *mod, int linear)
{
    const nn_tensor *w = need(L, mod, "weight");
    c32_layer l = {0};
    l.out = w->shape[0];
    l.in = w->shape[1];
    l.k = linear ? 1 : w->shape[2];
    l.rows = linear ? 1 : P;
    l.w = w->offset;
    l.b = linear ? need(L, mod, "bias")->offset : NO_BIAS;
    l.perm = linear && l.in == NN_HEAD_CH * P;
    if (l.k == 3 && m->wino) {
        l.wu = falloc(m, nn_wino_packed(l.in, l.out));
        l.wbu = falloc(m, nn_wino_packed(l.out, l.in));
    } else {
        l.wk = falloc(m, (size_t)l.k * l.k * l.in * l.out);
        l.wb = falloc(m, (size_t)l.k * l.k * l.in * l.out);
    }
    return l;
}

static void layer_free(c32_layer *l)
{
    free(l->wk), free(l->wb), free(l->wu), free(l->wbu);
}

static c32_norm norm_of(const nn_layout *L, const char *mod)
{
    c32_norm r = {0};
    const nn_tensor *w = need(L, mod, "weight");
    r.c = w->shape[0];
    r.w = w->offset;
    r.b = need(L, mod, "bias")->offset;
    if (L->cfg.norm == NN_NORM_BATCH) {
        r.rm = need(L, mod, "running_mean")->offset;
        r.rv = need(L, mod, "running_var")->offset;
        r.nb = (int)need(L, mod, "num_batches_tracked")->offset;
    }
    return r;
}

static void norm_stats_alloc(c32 *m, c32_norm *nm, int n)
{
    size_t k = (size_t)n * NN_GROUPS + (size_t)nm->c;
    nm->mean = falloc(m, k);
    nm->rstd = falloc(m, k);
}

static void norm_stats_free(c32_norm *nm)
{
    free(nm->mean), free(nm->rstd);
    nm->mean = nm->rstd = NULL;
}

/* Inference alone: every block's activations in four arrays, as the GPU trainer keeps them
 * (trainer.cu, share_activations): a sample's block reads its input until its last norm, so
 * the block outputs alternate between pool[2] and pool[3] and the rest is one block's
 * scratch; the stem writes pool[0] and pool[3]. Each thread touches its own samples' rows
 * only, so the sharing holds for any split of the batch. */
static void share_activations(c32 *m)
{
    m->h0 = m->pool[0], m->a0 = m->pool[3];
    for (int i = 0; i < m->nblocks; i++) {
        c32_block *b = &m->blocks[i];
        b->h1 = b->h2 = m->pool[0];
        b->a1 = m->pool[1];
        b->out = m->pool[2 + (i & 1)];
    }
}

static void free_batch_arrays(c32 *m)
{
    if (m->io) { /* the activations are the pool's */
        for (int k = 0; k < 4; k++)
            free(m->pool[k]), m->pool[k] = NULL;
        m->h0 = m->a0 = NULL;
    }
    for (int i = 0; i < m->nblocks; i++) {
        c32_block *b = &m->blocks[i];
        if (!m->io)
            free(b->h1), free(b->a1), free(b->h2), free(b->out);
        b->h1 = b->a1 = b->h2 = b->out = NULL;
        norm_stats_free(&b->n1), norm_stats_free(&b->n2);
    }
    norm_stats_free(&m->sn), norm_stats_free(&m->pn), norm_stats_free(&m->vn);
    float *fs[] = {m->x, m->h0, m->a0, m->hp, m->ap, m->hv, m->av, m->logits, m->r, m->value, m->D, m->T1, m->T2,
                   m->G1, m->G2, m->dlogits, m->dvalue, m->dr};
    for (size_t i = 0; i < GV_ARRAY_LEN(fs); i++)
        free(fs[i]);
    free(m->policy), free(m->vtarget);
    free(m->logits_d), free(m->value_d), free(m->dlogits_d), free(m->dvalue_d);
}

static void alloc_batch_arrays(c32 *m, int n)
{
    size_t M = (size_t)n * P, C = (size_t)m->C, H = NN_HEAD_CH;
    for (int i = 0; i < m->nblocks; i++) {
        c32_block *b = &m->blocks[i];
        if (!m->io)
            b->h1 = falloc(m, M * C), b->a1 = falloc(m, M * C), b->h2 = falloc(m, M * C), b->out = falloc(m, M * C);
        norm_stats_alloc(m, &b->n1, n), norm_stats_alloc(m, &b->n2, n);
    }
    norm_stats_alloc(m, &m->sn, n), norm_stats_alloc(m, &m->pn, n), norm_stats_alloc(m, &m->vn, n);
    m->x = falloc(m, M * NN_IN_PLANES);
    if (m->io) {
        for (int k = 0; k < 4; k++)
            m->pool[k] = falloc(m, M * C);
        share_activations(m);
    } else {
        m->h0 = falloc(m, M * C), m->a0 = falloc(m, M * C);
    }
    m->hp = falloc(m, M * H), m->ap = falloc(m, M * H), m->hv = falloc(m, M * H), m->av = falloc(m, M * H);
    m->logits = falloc(m, (size_t)n * NN_POLICY), m->r = falloc(m, (size_t)n * NN_VALUE_HIDDEN);
    m->value = falloc(m, (size_t)n);
    /* the forward writes the loss's gradients at the outputs, in eval mode too */
    m->dlogits = falloc(m, (size_t)n * NN_POLICY), m->dvalue = falloc(m, (size_t)n);
    if (!m->io) {
        m->D = falloc(m, M * C), m->T1 = falloc(m, M * C), m->T2 = falloc(m, M * C);
        m->G1 = falloc(m, M * H), m->G2 = falloc(m, M * H);
        m->dr = falloc(m, (size_t)n * NN_VALUE_HIDDEN);
    }
    m->policy = gv_xcalloc((size_t)n, sizeof(int64_t));
    m->vtarget = gv_xcalloc((size_t)n, sizeof(double));
    m->logits_d = gv_xcalloc((size_t)n * NN_POLICY, sizeof(double));
    m->dlogits_d = gv_xcalloc((size_t)n * NN_POLICY, sizeof(double));
    m->value_d = gv_xcalloc((size_t)n, sizeof(double));
    m->dvalue_d = gv_xcalloc((size_t)n, sizeof(double));
    m->cap = n;
}

/* ---- trainer interface ---------------------------------------------------------------------- */

typedef struct {
    int prev;
} blas_guard;

/* The trainer runs BLAS single-threaded inside its own threads; the caller's setting is
 * restored afterwards. */
static blas_guard blas_enter(void)
{
    blas_guard g = {openblas_get_num_threads()};
    if (g.prev != 1)
        openblas_set_num_threads(1);
    return g;
}

static void blas_leave(blas_guard g)
{
    if (g.prev != 1)
        openblas_set_num_threads(g.prev);
}

static gv_status c32_set_state(nn_trainer *t, const nn_state *s, gv_err *err)
{
    c32 *m = t->impl;
    const nn_layout *L = t->L;
    for (size_t i = 0; i < L->nparams; i++) {
        m->params[i] = (float)s->params[i];
        m->m[i] = (float)s->adam_m[i];
        m->v[i] = (float)s->adam_v[i];
    }
    for (size_t i = 0; i < L->nbuffers; i++)
        m->buffers[i] = (float)s->buffers[i];
    memcpy(m->num_batches, s->num_batches, sizeof(int64_t) * (size_t)L->nbn);
    m->step = s->adam_step;
    m->packed = 0;
    return GV_OK;
}

static gv_status c32_get_state(nn_trainer *t, nn_state *s, gv_err *err)
{
    c32 *m = t->impl;
    const nn_layout *L = t->L;
    for (size_t i = 0; i < L->nparams; i++) {
        s->params[i] = m->params[i];
        s->adam_m[i] = m->m[i];
        s->adam_v[i] = m->v[i];
    }
    for (size_t i = 0; i < L->nbuffers; i++)
        s->buffers[i] = m->buffers[i];
    memcpy(s->num_batches, m->num_batches, sizeof(int64_t) * (size_t)L->nbn);
    s->adam_step = m->step;
    return GV_OK;
}

static gv_status c32_set_batch(nn_trainer *t, const nn_batch *b, gv_err *err)
{
    c32 *m = t->impl;
    GV_TRY(nn_batch_check(b, t->opts.max_batch, "cpu-fp32", err));
    if (b->n > m->cap) {
        free_batch_arrays(m);
        alloc_batch_arrays(m, b->n);
    }
    m->n = b->n;
    /* NCHW planes (or cells) -> NHWC float32 */
    float f[NN_IN_PLANES * P];
    for (int s = 0; s < b->n; s++) {
        nn_batch_x_f32(b, (size_t)s, 1, f, 1);
        for (int c = 0; c < NN_IN_PLANES; c++)
            for (int p = 0; p < P; p++)
                m->x[((size_t)s * P + p) * NN_IN_PLANES + c] = f[c * P + p];
    }
    memcpy(m->policy, b->policy, sizeof(int64_t) * (size_t)b->n);
    memcpy(m->vtarget, b->value, sizeof(double) * (size_t)b->n);
    if (m->fault) /* test hook: what the faulty kernel leaves unwritten reads as NaN */
        for (size_t i = 0; i < (size_t)m->cap * P * m->C; i++)
            m->a0[i] = NAN;
    return GV_OK;
}

static gv_status need_batch(c32 *m, gv_err *err)
{
    return m->n > 0 ? GV_OK : gv_fail(err, GV_ERR_INPUT, "cpu-fp32: no batch set (call set_batch first)");
}

/* The training calls (what: their name) need a trainer not opened for inference alone, and
 * a batch. */
static gv_status need_training(nn_trainer *t, const char *what, gv_err *err)
{
    c32 *m = t->impl;
    return m->io ? nn_refuse_training(t->ops->name, what, err) : need_batch(m, err);
}

static gv_status c32_forward_op(nn_trainer *t, int train, double *logits, double *value, double *loss, gv_err *err)
{
    c32 *m = t->impl;
    GV_TRY(train ? need_training(t, "a train-mode forward", err) : need_batch(m, err));
    blas_guard g = blas_enter();
    double l = c32_run(m, train, 0);
    blas_leave(g);
    nn_forward_out(m->n, m->logits_d, m->value_d, l, logits, value, loss);
    return GV_OK;
}

static gv_status c32_gradients(nn_trainer *t, double *grads, double *loss, gv_err *err)
{
    c32 *m = t->impl;
    GV_TRY(need_training(t, "gradients", err));
    blas_guard g = blas_enter();
    double l = c32_run(m, 1, 1);
    blas_leave(g);
    if (grads)
        for (size_t i = 0; i < t->L->nparams; i++)
            grads[i] = m->grads[i];
    if (loss)
        *loss = l;
    return GV_OK;
}

static gv_status c32_step(nn_trainer *t, double *loss, gv_err *err)
{
    c32 *m = t->impl;
    GV_TRY(need_training(t, "a training step", err));
    blas_guard g = blas_enter();
    double l = c32_run(m, 1, 1);
    m->step++;
    double t0 = m->prof ? gv_now() : 0;
    nn_adamw_f32(m->params, m->grads, m->m, m->v, t->L->nparams, m->step, nn_trainer_lr(t), m->threads);
    if (m->prof)
        m->pw[PW_ADAM] += gv_now() - t0, m->prof_steps++;
    m->packed = 0;
    blas_leave(g);
    if (loss)
        *loss = l;
    return GV_OK;
}

static gv_status c32_sync(nn_trainer *t, gv_err *err)
{
    return GV_OK;
}

static size_t c32_peak_bytes(nn_trainer *t)
{
    return ((c32 *)t->impl)->bytes;
}

/* The GV_CPU_PROFILE table: per run, the wall time and each phase's thread-seconds as a share
 * of the threads' time in the parallel regions (what is left is waiting: barriers, the end of
 * the last unit). */
static void prof_print(const c32 *m)
{
    long runs = m->prof_runs > 0 ? m->prof_runs : 1;
    double ph[PH_N] = {0};
    for (int t = 0; t < m->threads; t++)
        for (int i = 0; i < PH_N; i++)
            ph[i] += m->th[t].ph[i];
    double region = m->pw[PW_REGION] > 0 ? m->pw[PW_REGION] : 1;
    fprintf(stderr, "gpuvet: cpu-fp32 profile: %d threads, %d channels, batch %d, %ld runs (%ld steps), %d units,"
                    " %d samples per chunk\n",
            m->threads, m->C, m->n, m->prof_runs, m->prof_steps, m->units, m->chunk_max);
    fprintf(stderr, "  %-34s %10.3f ms per run\n", "wall", 1e3 * m->pw[PW_RUN] / runs);
    fprintf(stderr, "  %-34s %10.3f ms per run\n", "weight packing (wall)", 1e3 * m->pw[PW_PACK] / runs);
    fprintf(stderr, "  %-34s %10.3f ms per step\n", "AdamW (wall)", 1e3 * m->pw[PW_ADAM] / (m->prof_steps ? m->prof_steps : 1));
    fprintf(stderr, "  %-34s %10.3f thread-ms per run  (100%%)\n", "parallel regions", 1e3 * region / runs);
    for (int i = 0; i < PH_N; i++)
        fprintf(stderr, "  %-34s %10.3f thread-ms per run  %5.1f%%\n", ph_name[i], 1e3 * ph[i] / runs,
                100 * ph[i] / region);
    double busy = ph[PH_UNIT] + ph[PH_REDUCE];
    fprintf(stderr, "  %-34s %10.3f thread-ms per run  %5.1f%%\n", "waiting (regions - units - sum)",
            1e3 * (region - busy) / runs, 100 * (region - busy) / region);
}

static void c32_destroy(nn_trainer *t)
{
    c32 *m = t->impl;
    if (m->prof)
        prof_print(m);
    free_batch_arrays(m);
    c32_layer *ls[] = {&m->stem, &m->pc, &m->vc, &m->pf, &m->vf1, &m->vf2};
    for (size_t i = 0; i < GV_ARRAY_LEN(ls); i++)
        layer_free(ls[i]);
    for (int i = 0; i < m->nblocks; i++)
        layer_free(&m->blocks[i].c1), layer_free(&m->blocks[i].c2);
    free(m->blocks);
    for (int i = 0; i < m->threads; i++)
        free(m->th[i].col), free(m->th[i].d), free(m->th[i].f);
    for (int u = 0; u < m->umax; u++)
        free(m->uacc[u]);
    GV_FREE(m->uacc, m->th, m->loss_part, m->gmap, m->params, m->grads, m->m, m->v, m->buffers, m->num_batches, m, t);
}

/* Per-thread scratch (independent of the batch size): an im2col buffer for one chunk (the
 * widest row is 9*C, or 9*12 for the stem) or the Winograd buffers, and the norms' scratch; per work unit, gradient
 * accumulators for every parameter. */
static void alloc_threads(c32 *m)
{
    size_t C = (size_t)m->C, W = (size_t)m->W;
    m->th = gv_xcalloc((size_t)m->threads, sizeof(c32_thread));
    for (int t = 0; t < m->threads; t++) {
        c32_thread *tc = &m->th[t];
        tc->t = t;
        /* the stem's 12 input planes are wider than 8 channels */
        int cmax = (int)(C > NN_IN_PLANES ? C : NN_IN_PLANES);
        tc->col = falloc(m, m->wino ? nn_wino_scratch(m->chunk_max, cmax) : (size_t)m->chunk_max * P * 9 * cmax);
        tc->d = gv_xcalloc(4 * W, sizeof(double));
        tc->f = falloc(m, 16 * W);
    }
    /* work units: the threads' shares for BatchNorm; for GroupNorm enough units for the
     * threads to balance (8, or four per thread), at most 64. At 16 threads of a loaded
     * 16-core Xeon (GV_CPU_PROFILE), two per thread left the threads waiting for the last
     * units 17-30% of their time; four cut that to 11%, for a larger gradient sum
     * (128 channels: 2,000-2,250 -> 2,867 samples/s at batch 256, 2,300-2,450 -> 2,700 at 1024) */
    m->umax = GV_MIN(64, GV_MAX(8, 4 * m->threads));
    const char *e = getenv("GV_CPU_UNITS"); /* tuning: work units per thread */
    if (e && atoi(e) > 0)
        m->umax = GV_MIN(256, atoi(e) * m->threads);
    m->umax = GV_MAX(m->umax, m->threads);
    m->uacc = gv_xcalloc((size_t)m->umax, sizeof(float *));
    for (int u = 0; m->io == 0 && u < m->umax; u++) /* (no backward: no accumulators) */
        m->uacc[u] = falloc(m, m->nparams);
    m->loss_part = gv_xcalloc((size_t)m->umax, sizeof(double));
}

/* gmap[i]: the parameter that accumulator slot i holds. Weights of matrix layers are
 * accumulated in GEMM layout (out, K) at the weight's offset, those of Winograd layers
 * transposed, (K, out); everything else in place. */
static void build_gmap(c32 *m)
{
    m->gmap = gv_xmalloc(sizeof(size_t) * (m->nparams ? m->nparams : 1));
    for (size_t i = 0; i < m->nparams; i++)
        m->gmap[i] = i;
    int nl = 6 + 2 * m->nblocks;
    for (int i = 0; i < nl; i++) {
        c32_layer *ls[] = {&m->stem, &m->pc, &m->vc, &m->pf, &m->vf1, &m->vf2};
        c32_layer *l = i < 6 ? ls[i] : (i - 6) % 2 ? &m->blocks[(i - 6) / 2].c2 : &m->blocks[(i - 6) / 2].c1;
        int K = l->k * l->k * l->in;
        for (int o = 0; o < l->out; o++)
            for (int j = 0; j < K; j++) /* Winograd layers: (K, out), as nn_wino_unpack_grad writes */
                m->gmap[l->w + (l->wu ? (size_t)j * l->out + o : (size_t)o * K + j)] = l->w + w_src(l, o, j);
    }
}

/* Appends the masks of ReLU outputs y (n*49, c) NHWC in NCHW order: 1 where y > 0. */
static uint8_t *put_masks(uint8_t *p, const float *y, int n, int c)
{
    for (int s = 0; s < n; s++)
        for (int k = 0; k < c; k++)
            for (int q = 0; q < P; q++)
                *p++ = y[((size_t)s * P + q) * c + k] > 0;
    return p;
}

/* The ReLU masks of the last forward, in nn_relu_masks_len's order and layout. */
static gv_status c32_relu_masks(nn_trainer *t, uint8_t *masks, gv_err *err)
{
    c32 *m = t->impl;
    GV_TRY(need_training(t, "ReLU masks", err));
    uint8_t *p = put_masks(masks, m->a0, m->n, m->C);
    for (int i = 0; i < m->nblocks; i++) {
        p = put_masks(p, m->blocks[i].a1, m->n, m->C);
        p = put_masks(p, m->blocks[i].out, m->n, m->C);
    }
    p = put_masks(p, m->ap, m->n, NN_HEAD_CH);
    p = put_masks(p, m->av, m->n, NN_HEAD_CH);
    for (size_t i = 0; i < (size_t)m->n * NN_VALUE_HIDDEN; i++)
        *p++ = m->r[i] > 0;
    return GV_OK;
}

static const nn_trainer_ops c32_ops = {
    "cpu-fp32", c32_set_state, c32_get_state, c32_set_batch, c32_forward_op, c32_gradients, c32_step,
    c32_sync, c32_peak_bytes, c32_destroy, c32_relu_masks,
    NULL, /* infer: the eval-mode forward is the fast path (weights packed once, one thread at batch 1) */
    NULL, /* conv_path: no GPU convolutions to name (opts.cpu_conv says which CPU ones) */
    NULL, /* profile: the GPU trainer's alone */
    NULL, /* pin_batch: nothing to pin (self-play does not pad batches on the CPU) */
};

gv_status nn_cpu32_create(const nn_layout *L, const nn_trainer_opts *opts, nn_trainer **out, gv_err *err)
{
    *out = NULL;
    c32 *m = gv_xcalloc(1, sizeof *m);
    m->C = L->cfg.channels;
    m->W = m->C > NN_HEAD_CH ? m->C : NN_HEAD_CH;
    m->nblocks = L->cfg.blocks;
    m->kind = L->cfg.norm;
    m->threads = opts->threads > 0 ? opts->threads : gv_cpu_count();
    m->conv_threads = 1;
    m->fault = opts->fault;
    const char *e = getenv("GV_CPU_PROFILE");
    m->prof = e && *e && strcmp(e, "0") != 0;
    e = getenv("GV_CPU_TAPER"); /* tuning: 0 = equal units */
    m->taper = !(e && strcmp(e, "0") == 0);
    m->wino = opts->cpu_conv == NN_CONV_WINOGRAD;
    /* samples per chunk: a 16-sample im2col block stays in L2 (best measured on Zen 3); for
     * Winograd 4 to 32 measured within 5% of each other, 16 the best */
    m->chunk_max = 16;
    if ((e = getenv("GV_CPU_CHUNK")) && atoi(e) > 0) /* tuning: samples per chunk */
        m->chunk_max = GV_MIN(atoi(e), 256);
    m->io = opts->infer_only != 0;
    m->params = falloc(m, L->nparams), m->grads = m->io ? NULL : falloc(m, L->nparams);
    m->m = falloc(m, L->nparams), m->v = falloc(m, L->nparams);
    m->buffers = falloc(m, L->nbuffers);
    m->num_batches = gv_xcalloc((size_t)L->nbn + 1, sizeof(int64_t));
    m->stem = layer_of(m, L, "stem", 0);
    m->sn = norm_of(L, "sn");
    m->blocks = gv_xcalloc((size_t)m->nblocks + 1, sizeof(c32_block));
    for (int i = 0; i < m->nblocks; i++) {
        char n[32];
        c32_block *b = &m->blocks[i];
        snprintf(n, sizeof n, "blocks.%d.c1", i), b->c1 = layer_of(m, L, n, 0);
        snprintf(n, sizeof n, "blocks.%d.n1", i), b->n1 = norm_of(L, n);
        snprintf(n, sizeof n, "blocks.%d.c2", i), b->c2 = layer_of(m, L, n, 0);
        snprintf(n, sizeof n, "blocks.%d.n2", i), b->n2 = norm_of(L, n);
    }
    m->pc = layer_of(m, L, "pc", 0), m->pn = norm_of(L, "pn"), m->pf = layer_of(m, L, "pf", 1);
    m->vc = layer_of(m, L, "vc", 0), m->vn = norm_of(L, "vn");
    m->vf1 = layer_of(m, L, "vf1", 1), m->vf2 = layer_of(m, L, "vf2", 1);
    m->nparams = L->nparams;
    build_gmap(m);
    alloc_threads(m);
    *out = nn_trainer_new(&c32_ops, L, opts, m);
    return GV_OK;
}
