/* ref.c: the float64 reference trainer: the network of nn.h in plain loops over NCHW
 * arrays, one unfused op at a time, no BLAS. It is the truth the float32 CPU path and the
 * GPU paths are checked against, and it is itself checked against PyTorch's float64
 * reference vectors (tests/nn/test_nn_ref.c). Loops over independent outputs are spread
 * over OpenMP threads; every sum runs in a fixed order, so results do not depend on the
 * thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn_backend.h"
#include "nn/ops.h"

#define P NN_CELLS /* positions on the 7x7 board */

typedef struct {
    size_t w;     /* offset of the weight (Cout, Cin, k, k) in params */
    int cin, cout, k;
} ref_conv;

typedef struct {
    int c;
    size_t w, b;       /* gamma and beta offsets in params */
    size_t rm, rv;     /* running stats offsets in buffers (BatchNorm) */
    int nb;            /* num_batches_tracked index (BatchNorm) */
    double *xhat;      /* (n, c, P) normalised input of the last forward */
    double *rstd;      /* per (n, group) for GroupNorm, per channel for BatchNorm */
} ref_norm;

typedef struct {
    size_t w, b;
    int in, out;
} ref_linear;

typedef struct {
    ref_conv c1, c2;
    ref_norm n1, n2;
    double *h1, *a1, *h2, *out; /* (n, C, P): conv1 out, relu(norm1), conv2 out, block out */
} ref_block;

typedef struct {
    nn_state s;
    double *grads;
    int n, cap, C, nblocks, threads;
    nn_norm kind;
    /* batch */
    double *x;            /* (n, 12, P) */
    int64_t *policy;
    double *vtarget;
    /* layers and activations */
    ref_conv stem, pc, vc;
    ref_norm sn, pn, vn;
    ref_linear pf, vf1, vf2;
    ref_block *blocks;
    double *h0, *a0;          /* stem conv out, relu(norm) (n, C, P) */
    double *hp, *ap, *hv, *av;/* head conv outs and relu(norm) (n, 32, P) */
    double *logits, *u, *r, *value; /* (n,7), vf1 out (n,128), relu(u), (n) */
    /* backward scratch */
    double *g_big[3];         /* (n, C, P) */
    double *g_head[2];        /* (n, 32, P) */
    double *dlogits, *dvalue, *du;
    /* ReLU masks to follow instead of deciding (nn_ref_follow_masks), or NULL: one per
     * ReLU site, pointing into masks (which the trainer owns) */
    uint8_t *masks;
    int mask_n;
    const uint8_t *mk_a0, *mk_ap, *mk_av, *mk_r, **mk_a1, **mk_out;
} ref_impl;

/* ---- plain ops --------------------------------------------------------------------- */

/* For each tap (ky, kx) of a k x k convolution with zero padding k/2, the board positions
 * it connects: output position op[tap][j] reads input position ip[tap][j], j < cnt[tap]. */
typedef struct {
    int cnt[9], op[9][P], ip[9][P];
} ref_taps;

static void taps_init(ref_taps *t, int k)
{
    int pad = k / 2;
    for (int tap = 0; tap < k * k; tap++) {
        t->cnt[tap] = 0;
        for (int y = 0; y < NN_BOARD; y++)
            for (int x = 0; x < NN_BOARD; x++) {
                int iy = y + tap / k - pad, ix = x + tap % k - pad;
                if (iy >= 0 && iy < NN_BOARD && ix >= 0 && ix < NN_BOARD) {
                    t->op[tap][t->cnt[tap]] = y * NN_BOARD + x;
                    t->ip[tap][t->cnt[tap]++] = iy * NN_BOARD + ix;
                }
            }
    }
}

/* The tap loop of the convolution and of its data gradient, for w (co, ci, k, k), zero
 * padding k/2, no bias:
 *   transpose 0: y (n, co, P) = conv(x (n, ci, P), w)
 *   transpose 1: y (n, ci, P) = conv^T(x (n, co, P), w), the gradient of the input
 * Each output plane sums over x's channels, then the taps, in that order. */
static void conv_apply(double *y, const double *x, const double *w, int n, int ci, int co, int k, int transpose,
                       int threads)
{
    ref_taps tp;
    taps_init(&tp, k);
    const int cy = transpose ? ci : co, cx = transpose ? co : ci;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
    for (int b = 0; b < n; b++)
        for (int oy = 0; oy < cy; oy++) {
            double *yp = y + ((size_t)b * cy + oy) * P;
            for (int p = 0; p < P; p++)
                yp[p] = 0;
            for (int ix = 0; ix < cx; ix++) {
                const double *xp = x + ((size_t)b * cx + ix) * P;
                const double *wk = w + (transpose ? (size_t)ix * ci + oy : (size_t)oy * ci + ix) * k * k;
                for (int tap = 0; tap < k * k; tap++) {
                    const int *to = transpose ? tp.ip[tap] : tp.op[tap], *from = transpose ? tp.op[tap] : tp.ip[tap];
                    for (int j = 0; j < tp.cnt[tap]; j++)
                        yp[to[j]] += wk[tap] * xp[from[j]];
                }
            }
        }
}

/* out (n, co, P) = conv(in (n, ci, P), w (co, ci, k, k)), zero padding k/2, no bias. */
static void conv_fwd(double *out, const double *in, const double *w, int n, int ci, int co, int k, int threads)
{
    conv_apply(out, in, w, n, ci, co, k, 0, threads);
}

/* Gradients of conv_fwd: dw (co, ci, k, k) = sum over the batch; din (n, ci, P) when not NULL. */
static void conv_bwd(double *din, double *dw, const double *dout, const double *in, const double *w, int n, int ci,
                     int co, int k, int threads)
{
    ref_taps tp;
    taps_init(&tp, k);
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
    for (int o = 0; o < co; o++)
        for (int i = 0; i < ci; i++)
            for (int tap = 0; tap < k * k; tap++) {
                double acc = 0;
                for (int b = 0; b < n; b++) {
                    const double *dp = dout + ((size_t)b * co + o) * P, *inp = in + ((size_t)b * ci + i) * P;
                    for (int j = 0; j < tp.cnt[tap]; j++)
                        acc += dp[tp.op[tap][j]] * inp[tp.ip[tap][j]];
                }
                dw[((size_t)o * ci + i) * k * k + tap] = acc;
            }
    if (din)
        conv_apply(din, dout, w, n, ci, co, k, 1, threads);
}

/* y (n, c, P) = norm(x); train selects batch statistics for BatchNorm (and updates the
 * running stats); GroupNorm is the same in both modes. Keeps xhat and rstd for backward. */
static void norm_fwd(ref_impl *m, ref_norm *nm, double *y, const double *x, int n, int train)
{
    int c = nm->c;
    const double *gamma = m->s.params + nm->w, *beta = m->s.params + nm->b;
    if (m->kind == NN_NORM_GROUP) {
        int cg = c / NN_GROUPS;
        size_t cnt = (size_t)cg * P;
        for (int b = 0; b < n; b++)
            for (int g = 0; g < NN_GROUPS; g++) {
                size_t base = ((size_t)b * c + (size_t)g * cg) * P;
                double mean = 0, var = 0;
                for (size_t i = 0; i < cnt; i++)
                    mean += x[base + i];
                mean /= (double)cnt;
                for (size_t i = 0; i < cnt; i++)
                    var += (x[base + i] - mean) * (x[base + i] - mean);
                var /= (double)cnt;
                double rstd = 1.0 / sqrt(var + NN_EPS);
                nm->rstd[b * NN_GROUPS + g] = rstd;
                for (size_t i = 0; i < cnt; i++) {
                    int ch = g * cg + (int)(i / P);
                    double xh = (x[base + i] - mean) * rstd;
                    nm->xhat[base + i] = xh;
                    y[base + i] = xh * gamma[ch] + beta[ch];
                }
            }
        return;
    }
    double *rm = m->s.buffers + nm->rm, *rv = m->s.buffers + nm->rv;
    size_t cnt = (size_t)n * P;
    for (int ch = 0; ch < c; ch++) {
        double mean, var;
        if (train) {
            mean = 0, var = 0;
            for (int b = 0; b < n; b++)
                for (int p = 0; p < P; p++)
                    mean += x[((size_t)b * c + ch) * P + p];
            mean /= (double)cnt;
            for (int b = 0; b < n; b++)
                for (int p = 0; p < P; p++) {
                    double d = x[((size_t)b * c + ch) * P + p] - mean;
                    var += d * d;
                }
            var /= (double)cnt;
            /* running stats: the unbiased batch variance, momentum 0.1 */
            rm[ch] = (1.0 - NN_BN_MOMENTUM) * rm[ch] + NN_BN_MOMENTUM * mean;
            rv[ch] = (1.0 - NN_BN_MOMENTUM) * rv[ch] + NN_BN_MOMENTUM * var * (double)cnt / (double)(cnt - 1);
        } else {
            mean = rm[ch];
            var = rv[ch];
        }
        double rstd = 1.0 / sqrt(var + NN_EPS);
        nm->rstd[ch] = rstd;
        for (int b = 0; b < n; b++)
            for (int p = 0; p < P; p++) {
                size_t i = ((size_t)b * c + ch) * P + p;
                nm->xhat[i] = (x[i] - mean) * rstd;
                y[i] = nm->xhat[i] * gamma[ch] + beta[ch];
            }
    }
    if (train)
        m->s.num_batches[nm->nb]++;
}

/* Backward of a training-mode norm: dx from dy, and dgamma, dbeta into the gradients. */
static void norm_bwd(ref_impl *m, ref_norm *nm, double *dx, const double *dy, int n)
{
    int c = nm->c;
    const double *gamma = m->s.params + nm->w;
    double *dgamma = m->grads + nm->w, *dbeta = m->grads + nm->b;
    for (int ch = 0; ch < c; ch++) {
        double sg = 0, sb = 0;
        for (int b = 0; b < n; b++)
            for (int p = 0; p < P; p++) {
                size_t i = ((size_t)b * c + ch) * P + p;
                sg += dy[i] * nm->xhat[i];
                sb += dy[i];
            }
        dgamma[ch] = sg;
        dbeta[ch] = sb;
    }
    /* dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) over each group
     * (GroupNorm: one sample's channels of a group; BatchNorm: one channel over the batch). */
    if (m->kind == NN_NORM_GROUP) {
        int cg = c / NN_GROUPS;
        size_t cnt = (size_t)cg * P;
        for (int b = 0; b < n; b++)
            for (int g = 0; g < NN_GROUPS; g++) {
                size_t base = ((size_t)b * c + (size_t)g * cg) * P;
                double s1 = 0, s2 = 0;
                for (size_t i = 0; i < cnt; i++) {
                    double dxh = dy[base + i] * gamma[g * cg + (int)(i / P)];
                    s1 += dxh;
                    s2 += dxh * nm->xhat[base + i];
                }
                double rstd = nm->rstd[b * NN_GROUPS + g];
                for (size_t i = 0; i < cnt; i++) {
                    double dxh = dy[base + i] * gamma[g * cg + (int)(i / P)];
                    dx[base + i] = rstd * (dxh - s1 / (double)cnt - nm->xhat[base + i] * s2 / (double)cnt);
                }
            }
        return;
    }
    size_t cnt = (size_t)n * P;
    for (int ch = 0; ch < c; ch++) {
        double s1 = 0, s2 = 0;
        for (int b = 0; b < n; b++)
            for (int p = 0; p < P; p++) {
                size_t i = ((size_t)b * c + ch) * P + p;
                s1 += dy[i] * gamma[ch];
                s2 += dy[i] * gamma[ch] * nm->xhat[i];
            }
        for (int b = 0; b < n; b++)
            for (int p = 0; p < P; p++) {
                size_t i = ((size_t)b * c + ch) * P + p;
                double dxh = dy[i] * gamma[ch];
                dx[i] = nm->rstd[ch] * (dxh - s1 / (double)cnt - nm->xhat[i] * s2 / (double)cnt);
            }
    }
}

/* y = relu(x); with a mask mk (nn_ref_follow_masks), y = x where mk is 1, else 0. */
static void relu(double *y, const double *x, size_t len, const uint8_t *mk)
{
    for (size_t i = 0; i < len; i++)
        y[i] = (mk ? mk[i] != 0 : x[i] > 0) ? x[i] : 0;
}

/* dx = dy where the ReLU's output y is positive, else 0 (PyTorch's threshold_backward);
 * with a mask, where the mask is 1. */
static void relu_bwd(double *dx, const double *dy, const double *y, size_t len, const uint8_t *mk)
{
    for (size_t i = 0; i < len; i++)
        dx[i] = (mk ? mk[i] != 0 : y[i] > 0) ? dy[i] : 0;
}

/* out (n, o) = in (n, i) W^T + b, W (o, i). */
static void linear_fwd(double *out, const double *in, const double *params, const ref_linear *l, int n)
{
    const double *W = params + l->w, *bias = params + l->b;
    for (int r = 0; r < n; r++)
        for (int o = 0; o < l->out; o++) {
            double acc = bias[o];
            for (int i = 0; i < l->in; i++)
                acc += in[(size_t)r * l->in + i] * W[(size_t)o * l->in + i];
            out[(size_t)r * l->out + o] = acc;
        }
}

static void linear_bwd(double *din, double *grads, const double *dout, const double *in, const double *params,
                       const ref_linear *l, int n)
{
    const double *W = params + l->w;
    double *dW = grads + l->w, *db = grads + l->b;
    for (int o = 0; o < l->out; o++) {
        double acc = 0;
        for (int r = 0; r < n; r++)
            acc += dout[(size_t)r * l->out + o];
        db[o] = acc;
        for (int i = 0; i < l->in; i++) {
            double a = 0;
            for (int r = 0; r < n; r++)
                a += dout[(size_t)r * l->out + o] * in[(size_t)r * l->in + i];
            dW[(size_t)o * l->in + i] = a;
        }
    }
    if (!din)
        return;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < l->in; i++) {
            double a = 0;
            for (int o = 0; o < l->out; o++)
                a += dout[(size_t)r * l->out + o] * W[(size_t)o * l->in + i];
            din[(size_t)r * l->in + i] = a;
        }
}

/* ---- the network --------------------------------------------------------------------- */

static const nn_tensor *need(const nn_layout *L, const char *name)
{
    const nn_tensor *t = nn_layout_find(L, name);
    if (!t) {
        fprintf(stderr, "gpuvet: internal error: layout has no tensor '%s'\n", name);
        abort();
    }
    return t;
}

static ref_conv conv_of(const nn_layout *L, const char *mod)
{
    char n[64];
    snprintf(n, sizeof n, "%s.weight", mod);
    const nn_tensor *t = need(L, n);
    return (ref_conv){t->offset, t->shape[1], t->shape[0], t->shape[2]};
}

static ref_linear linear_of(const nn_layout *L, const char *mod)
{
    char n[64];
    snprintf(n, sizeof n, "%s.weight", mod);
    const nn_tensor *w = need(L, n);
    snprintf(n, sizeof n, "%s.bias", mod);
    return (ref_linear){w->offset, need(L, n)->offset, w->shape[1], w->shape[0]};
}

static ref_norm norm_of(const nn_layout *L, const char *mod)
{
    char n[64];
    ref_norm r = {0};
    snprintf(n, sizeof n, "%s.weight", mod);
    const nn_tensor *w = need(L, n);
    r.c = w->shape[0];
    r.w = w->offset;
    snprintf(n, sizeof n, "%s.bias", mod);
    r.b = need(L, n)->offset;
    if (L->cfg.norm == NN_NORM_BATCH) {
        snprintf(n, sizeof n, "%s.running_mean", mod);
        r.rm = need(L, n)->offset;
        snprintf(n, sizeof n, "%s.running_var", mod);
        r.rv = need(L, n)->offset;
        snprintf(n, sizeof n, "%s.num_batches_tracked", mod);
        r.nb = (int)need(L, n)->offset;
    }
    return r;
}

static double *act(int n, int c)
{
    return gv_xcalloc((size_t)n * c * P, sizeof(double));
}

static void norm_alloc(ref_norm *nm, int n)
{
    nm->xhat = act(n, nm->c);
    nm->rstd = gv_xcalloc((size_t)n * NN_GROUPS + (size_t)nm->c, sizeof(double));
}

static void norm_release(ref_norm *nm)
{
    free(nm->xhat);
    free(nm->rstd);
}

static void ref_free_acts(ref_impl *m)
{
    for (int i = 0; i < m->nblocks && m->blocks; i++) {
        ref_block *b = &m->blocks[i];
        free(b->h1), free(b->a1), free(b->h2), free(b->out);
        norm_release(&b->n1), norm_release(&b->n2);
    }
    norm_release(&m->sn), norm_release(&m->pn), norm_release(&m->vn);
    free(m->h0), free(m->a0), free(m->hp), free(m->ap), free(m->hv), free(m->av);
    free(m->logits), free(m->u), free(m->r), free(m->value);
    for (int i = 0; i < 3; i++)
        free(m->g_big[i]);
    for (int i = 0; i < 2; i++)
        free(m->g_head[i]);
    free(m->dlogits), free(m->dvalue), free(m->du);
    free(m->x), free(m->policy), free(m->vtarget);
}

static void ref_alloc_acts(ref_impl *m, int n)
{
    int C = m->C;
    for (int i = 0; i < m->nblocks; i++) {
        ref_block *b = &m->blocks[i];
        b->h1 = act(n, C), b->a1 = act(n, C), b->h2 = act(n, C), b->out = act(n, C);
        norm_alloc(&b->n1, n), norm_alloc(&b->n2, n);
    }
    norm_alloc(&m->sn, n), norm_alloc(&m->pn, n), norm_alloc(&m->vn, n);
    m->h0 = act(n, C), m->a0 = act(n, C);
    m->hp = act(n, NN_HEAD_CH), m->ap = act(n, NN_HEAD_CH), m->hv = act(n, NN_HEAD_CH), m->av = act(n, NN_HEAD_CH);
    m->logits = gv_xcalloc((size_t)n * NN_POLICY, sizeof(double));
    m->u = gv_xcalloc((size_t)n * NN_VALUE_HIDDEN, sizeof(double));
    m->r = gv_xcalloc((size_t)n * NN_VALUE_HIDDEN, sizeof(double));
    m->value = gv_xcalloc((size_t)n, sizeof(double));
    for (int i = 0; i < 3; i++)
        m->g_big[i] = act(n, C);
    for (int i = 0; i < 2; i++)
        m->g_head[i] = act(n, NN_HEAD_CH);
    m->dlogits = gv_xcalloc((size_t)n * NN_POLICY, sizeof(double));
    m->dvalue = gv_xcalloc((size_t)n, sizeof(double));
    m->du = gv_xcalloc((size_t)n * NN_VALUE_HIDDEN, sizeof(double));
    m->x = gv_xcalloc((size_t)n * NN_IN_PLANES * P, sizeof(double));
    m->policy = gv_xcalloc((size_t)n, sizeof(int64_t));
    m->vtarget = gv_xcalloc((size_t)n, sizeof(double));
    m->cap = n;
}

/* Forward of the resident batch; returns the loss. */
static double ref_forward(ref_impl *m, int train)
{
    int n = m->n, C = m->C, th = m->threads;
    const double *prm = m->s.params;
    size_t big = (size_t)n * C * P, head = (size_t)n * NN_HEAD_CH * P;
    const int mk = m->masks && m->mask_n == n; /* follow the masks of another run */
    conv_fwd(m->h0, m->x, prm + m->stem.w, n, NN_IN_PLANES, C, 3, th);
    norm_fwd(m, &m->sn, m->a0, m->h0, n, train);
    relu(m->a0, m->a0, big, mk ? m->mk_a0 : NULL);
    const double *x = m->a0;
    for (int i = 0; i < m->nblocks; i++) {
        ref_block *b = &m->blocks[i];
        conv_fwd(b->h1, x, prm + b->c1.w, n, C, C, 3, th);
        norm_fwd(m, &b->n1, b->a1, b->h1, n, train);
        relu(b->a1, b->a1, big, mk ? m->mk_a1[i] : NULL);
        conv_fwd(b->h2, b->a1, prm + b->c2.w, n, C, C, 3, th);
        norm_fwd(m, &b->n2, b->out, b->h2, n, train);
        for (size_t k = 0; k < big; k++)
            b->out[k] += x[k];
        relu(b->out, b->out, big, mk ? m->mk_out[i] : NULL);
        x = b->out;
    }
    conv_fwd(m->hp, x, prm + m->pc.w, n, C, NN_HEAD_CH, 1, th);
    norm_fwd(m, &m->pn, m->ap, m->hp, n, train);
    relu(m->ap, m->ap, head, mk ? m->mk_ap : NULL);
    linear_fwd(m->logits, m->ap, prm, &m->pf, n); /* flatten (n, 32*49) in c*49 + y*7 + x order */
    conv_fwd(m->hv, x, prm + m->vc.w, n, C, NN_HEAD_CH, 1, th);
    norm_fwd(m, &m->vn, m->av, m->hv, n, train);
    relu(m->av, m->av, head, mk ? m->mk_av : NULL);
    linear_fwd(m->u, m->av, prm, &m->vf1, n);
    relu(m->r, m->u, (size_t)n * NN_VALUE_HIDDEN, mk ? m->mk_r : NULL);
    linear_fwd(m->value, m->r, prm, &m->vf2, n);
    return nn_loss_f64(m->logits, m->value, m->policy, m->vtarget, n, n, m->dlogits, m->dvalue);
}

/* Backward after a training-mode forward: every parameter's gradient into m->grads. */
static void ref_backward(ref_impl *m)
{
    int n = m->n, C = m->C, th = m->threads;
    const double *prm = m->s.params;
    double *gr = m->grads;
    size_t big = (size_t)n * C * P, head = (size_t)n * NN_HEAD_CH * P;
    const double *trunk = m->nblocks ? m->blocks[m->nblocks - 1].out : m->a0;
    double *dx = m->g_big[0], *t1 = m->g_big[1], *t2 = m->g_big[2];
    double *gh0 = m->g_head[0], *gh1 = m->g_head[1];
    const int mk = m->masks && m->mask_n == n;
    /* policy head */
    linear_bwd(gh0, gr, m->dlogits, m->ap, prm, &m->pf, n);
    relu_bwd(gh0, gh0, m->ap, head, mk ? m->mk_ap : NULL);
    norm_bwd(m, &m->pn, gh1, gh0, n);
    conv_bwd(dx, gr + m->pc.w, gh1, trunk, prm + m->pc.w, n, C, NN_HEAD_CH, 1, th);
    /* value head */
    linear_bwd(m->du, gr, m->dvalue, m->r, prm, &m->vf2, n);
    relu_bwd(m->du, m->du, m->r, (size_t)n * NN_VALUE_HIDDEN, mk ? m->mk_r : NULL);
    linear_bwd(gh0, gr, m->du, m->av, prm, &m->vf1, n);
    relu_bwd(gh0, gh0, m->av, head, mk ? m->mk_av : NULL);
    norm_bwd(m, &m->vn, gh1, gh0, n);
    conv_bwd(t1, gr + m->vc.w, gh1, trunk, prm + m->vc.w, n, C, NN_HEAD_CH, 1, th);
    for (size_t k = 0; k < big; k++)
        dx[k] += t1[k];
    /* blocks, last first: dx is the gradient at the block's output */
    for (int i = m->nblocks - 1; i >= 0; i--) {
        ref_block *b = &m->blocks[i];
        const double *bin = i ? m->blocks[i - 1].out : m->a0;
        relu_bwd(dx, dx, b->out, big, mk ? m->mk_out[i] : NULL); /* gradient at x + norm2(h2) */
        norm_bwd(m, &b->n2, t1, dx, n);         /* t1 = dh2 */
        conv_bwd(t2, gr + b->c2.w, t1, b->a1, prm + b->c2.w, n, C, C, 3, th); /* t2 = da1 */
        relu_bwd(t2, t2, b->a1, big, mk ? m->mk_a1[i] : NULL);
        norm_bwd(m, &b->n1, t1, t2, n);         /* t1 = dh1 */
        conv_bwd(t2, gr + b->c1.w, t1, bin, prm + b->c1.w, n, C, C, 3, th); /* t2 = dx via conv1 */
        for (size_t k = 0; k < big; k++)
            dx[k] += t2[k];                     /* plus the residual path */
    }
    relu_bwd(dx, dx, m->a0, big, mk ? m->mk_a0 : NULL);
    norm_bwd(m, &m->sn, t1, dx, n);
    conv_bwd(NULL, gr + m->stem.w, t1, m->x, prm + m->stem.w, n, NN_IN_PLANES, C, 3, th);
}

/* ---- trainer interface --------------------------------------------------------------- */

static ref_impl *impl_of(nn_trainer *t)
{
    return t->impl;
}

static gv_status need_batch(ref_impl *m, gv_err *err)
{
    if (m->n <= 0)
        return gv_fail(err, GV_ERR_INPUT, "cpu-fp64: no batch set (call set_batch first)");
    return GV_OK;
}

static gv_status ref_set_state(nn_trainer *t, const nn_state *s, gv_err *err)
{
    nn_state_copy(&impl_of(t)->s, s);
    return GV_OK;
}

static gv_status ref_get_state(nn_trainer *t, nn_state *s, gv_err *err)
{
    nn_state_copy(s, &impl_of(t)->s);
    return GV_OK;
}

static gv_status ref_set_batch(nn_trainer *t, const nn_batch *b, gv_err *err)
{
    ref_impl *m = impl_of(t);
    GV_TRY(nn_batch_check(b, t->opts.max_batch, "cpu-fp64", err));
    if (b->n > m->cap) {
        ref_free_acts(m);
        ref_alloc_acts(m, b->n);
    }
    m->n = b->n;
    const size_t per = (size_t)NN_IN_PLANES * P;
    if (b->x) {
        memcpy(m->x, b->x, sizeof(double) * b->n * per);
    } else { /* float32 planes or cells: their float32 values, widened */
        float f[NN_IN_PLANES * P];
        for (int i = 0; i < b->n; i++) {
            nn_batch_x_f32(b, (size_t)i, 1, f, 1);
            for (size_t k = 0; k < per; k++)
                m->x[i * per + k] = f[k];
        }
    }
    memcpy(m->policy, b->policy, sizeof(int64_t) * (size_t)b->n);
    memcpy(m->vtarget, b->value, sizeof(double) * (size_t)b->n);
    return GV_OK;
}

static gv_status ref_forward_op(nn_trainer *t, int train, double *logits, double *value, double *loss, gv_err *err)
{
    ref_impl *m = impl_of(t);
    if (need_batch(m, err) != GV_OK)
        return GV_ERR_INPUT;
    double l = ref_forward(m, train);
    nn_forward_out(m->n, m->logits, m->value, l, logits, value, loss);
    return GV_OK;
}

static gv_status ref_gradients(nn_trainer *t, double *grads, double *loss, gv_err *err)
{
    ref_impl *m = impl_of(t);
    if (need_batch(m, err) != GV_OK)
        return GV_ERR_INPUT;
    double l = ref_forward(m, 1);
    ref_backward(m);
    if (grads)
        memcpy(grads, m->grads, sizeof(double) * t->L->nparams);
    if (loss)
        *loss = l;
    return GV_OK;
}

static gv_status ref_step(nn_trainer *t, double *loss, gv_err *err)
{
    ref_impl *m = impl_of(t);
    gv_status s = ref_gradients(t, NULL, loss, err);
    if (s != GV_OK)
        return s;
    m->s.adam_step++;
    nn_adamw_f64(m->s.params, m->grads, m->s.adam_m, m->s.adam_v, t->L->nparams, m->s.adam_step, nn_trainer_lr(t));
    return GV_OK;
}

static gv_status ref_sync(nn_trainer *t, gv_err *err)
{
    return GV_OK;
}

static size_t ref_peak_bytes(nn_trainer *t)
{
    return 0;
}

static void ref_destroy(nn_trainer *t)
{
    ref_impl *m = impl_of(t);
    ref_free_acts(m);
    GV_FREE(m->blocks, m->grads, m->masks, m->mk_a1, m->mk_out);
    nn_state_free(&m->s);
    free(m);
    free(t);
}

static void put_mask(uint8_t **p, const double *a, size_t len)
{
    for (size_t i = 0; i < len; i++)
        *(*p)++ = a[i] > 0;
}

/* The reference's own ReLU masks of the last forward (nn_relu_masks_len's order). */
static gv_status ref_relu_masks(nn_trainer *t, uint8_t *masks, gv_err *err)
{
    ref_impl *m = impl_of(t);
    gv_status s = need_batch(m, err);
    if (s != GV_OK)
        return s;
    const size_t big = (size_t)m->n * m->C * P, head = (size_t)m->n * NN_HEAD_CH * P;
    uint8_t *p = masks;
    put_mask(&p, m->a0, big);
    for (int i = 0; i < m->nblocks; i++) {
        put_mask(&p, m->blocks[i].a1, big);
        put_mask(&p, m->blocks[i].out, big);
    }
    put_mask(&p, m->ap, head);
    put_mask(&p, m->av, head);
    put_mask(&p, m->r, (size_t)m->n * NN_VALUE_HIDDEN);
    return GV_OK;
}

static const nn_trainer_ops ref_ops = {
    "cpu-fp64", ref_set_state, ref_get_state, ref_set_batch, ref_forward_op, ref_gradients, ref_step,
    ref_sync, ref_peak_bytes, ref_destroy, ref_relu_masks,
    NULL, /* infer: nn_trainer_infer runs the eval-mode forward */
    NULL, /* conv_path: no GPU convolutions to name */
    NULL, /* profile: the GPU trainer's alone */
    NULL, /* pin_batch: nothing to pin (self-play does not pad batches on the CPU) */
};

gv_status nn_ref_follow_masks(nn_trainer *t, const uint8_t *masks, int n, gv_err *err)
{
    if (!t || t->ops != &ref_ops)
        return gv_fail(err, GV_ERR_INTERNAL, "internal error: ReLU masks can only be followed by the float64 reference trainer");
    ref_impl *m = impl_of(t);
    free(m->masks);
    m->masks = NULL;
    if (!masks)
        return GV_OK;
    if (n <= 0)
        return gv_fail(err, GV_ERR_INPUT, "ReLU masks for a batch of %d", n);
    size_t len = nn_relu_masks_len(t->L, n);
    m->masks = gv_xmalloc(len);
    memcpy(m->masks, masks, len);
    m->mask_n = n;
    if (!m->mk_a1) {
        m->mk_a1 = gv_xcalloc((size_t)m->nblocks + 1, sizeof(uint8_t *));
        m->mk_out = gv_xcalloc((size_t)m->nblocks + 1, sizeof(uint8_t *));
    }
    /* the order of nn_relu_masks_len */
    const size_t big = (size_t)n * m->C * P, head = (size_t)n * NN_HEAD_CH * P;
    const uint8_t *p = m->masks;
    m->mk_a0 = p, p += big;
    for (int i = 0; i < m->nblocks; i++) {
        m->mk_a1[i] = p, p += big;
        m->mk_out[i] = p, p += big;
    }
    m->mk_ap = p, p += head;
    m->mk_av = p, p += head;
    m->mk_r = p;
    return GV_OK;
}

gv_status nn_ref_create(const nn_layout *L, const nn_trainer_opts *opts, nn_trainer **out, gv_err *err)
{
    *out = NULL;
    ref_impl *m = gv_xcalloc(1, sizeof *m);
    m->C = L->cfg.channels;
    m->nblocks = L->cfg.blocks;
    m->kind = L->cfg.norm;
    m->threads = opts->threads > 0 ? opts->threads : gv_cpu_count();
    nn_state_alloc(&m->s, L);
    m->grads = gv_xcalloc(L->nparams, sizeof(double));
    m->stem = conv_of(L, "stem");
    m->sn = norm_of(L, "sn");
    m->blocks = gv_xcalloc((size_t)m->nblocks + 1, sizeof(ref_block));
    for (int i = 0; i < m->nblocks; i++) {
        char n[32];
        ref_block *b = &m->blocks[i];
        snprintf(n, sizeof n, "blocks.%d.c1", i), b->c1 = conv_of(L, n);
        snprintf(n, sizeof n, "blocks.%d.n1", i), b->n1 = norm_of(L, n);
        snprintf(n, sizeof n, "blocks.%d.c2", i), b->c2 = conv_of(L, n);
        snprintf(n, sizeof n, "blocks.%d.n2", i), b->n2 = norm_of(L, n);
    }
    m->pc = conv_of(L, "pc"), m->pn = norm_of(L, "pn"), m->pf = linear_of(L, "pf");
    m->vc = conv_of(L, "vc"), m->vn = norm_of(L, "vn");
    m->vf1 = linear_of(L, "vf1"), m->vf2 = linear_of(L, "vf2");
    *out = nn_trainer_new(&ref_ops, L, opts, m);
    return GV_OK;
}
