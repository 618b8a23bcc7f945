/* selftest_ref.c: float64 host references of the GPU trainer's norms, AdamW, heads and loss
 * (selftest_ref.h): plain loops in the order of the formulas, one output at a time. */
#include "nn/gpu/selftest_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn.h"
#include "nn/ops.h"

/* ---- norms ------------------------------------------------------------------------------ */
/* The elements one statistic covers: rows [r0, r0 + nr) and channels [c0, c0 + nc).
 * GroupNorm: set s = sample * 8 + group; BatchNorm: set s = channel. */
typedef struct {
    int r0, nr, c0, nc;
} norm_set;

static int norm_nsets(const nn_kref_norm *k)
{
    return k->group ? k->n * NN_GROUPS : k->C;
}

static norm_set norm_set_of(const nn_kref_norm *k, int s)
{
    norm_set z;
    if (k->group) {
        const int cg = k->C / NN_GROUPS;
        z.r0 = (s / NN_GROUPS) * NN_CELLS, z.nr = NN_CELLS, z.c0 = (s % NN_GROUPS) * cg, z.nc = cg;
    } else {
        z.r0 = 0, z.nr = k->n * NN_CELLS, z.c0 = s, z.nc = 1;
    }
    return z;
}

void nn_kref_norm_forward(const nn_kref_norm *k, const double *x, const double *res, const double *gamma,
                          const double *beta, double *run_mean, double *run_var, double *mean, double *rstd,
                          double *y)
{
    const int C = k->C;
    for (int s = 0; s < norm_nsets(k); s++) {
        const norm_set z = norm_set_of(k, s);
        const double cnt = (double)z.nr * z.nc;
        double mu, var;
        if (k->group || k->train) { /* two passes: the mean, then the squared deviations */
            double sum = 0, sq = 0;
            for (int r = z.r0; r < z.r0 + z.nr; r++)
                for (int c = z.c0; c < z.c0 + z.nc; c++)
                    sum += x[(size_t)r * C + c];
            mu = sum / cnt;
            for (int r = z.r0; r < z.r0 + z.nr; r++)
                for (int c = z.c0; c < z.c0 + z.nc; c++) {
                    const double d = x[(size_t)r * C + c] - mu;
                    sq += d * d;
                }
            var = sq / cnt;
            if (!k->group && run_mean && run_var) {
                const double unbiased = cnt > 1 ? var * cnt / (cnt - 1) : var;
                run_mean[s] = (1 - NN_BN_MOMENTUM) * run_mean[s] + NN_BN_MOMENTUM * mu;
                run_var[s] = (1 - NN_BN_MOMENTUM) * run_var[s] + NN_BN_MOMENTUM * unbiased;
            }
        } else {
            mu = run_mean[s];
            var = run_var[s];
        }
        mean[s] = mu;
        rstd[s] = 1.0 / sqrt(var + NN_EPS);
        for (int r = z.r0; r < z.r0 + z.nr; r++)
            for (int c = z.c0; c < z.c0 + z.nc; c++) {
                const size_t o = (size_t)r * C + c;
                double v = (x[o] - mu) * rstd[s] * gamma[c] + beta[c] + (res ? res[o] : 0);
                y[o] = k->relu && !(v > 0) ? 0 : v;
            }
    }
}

void nn_kref_norm_backward(const nn_kref_norm *k, const double *x, const double *mask, const double *dout,
                           const double *gamma, const double *mean, const double *rstd, double *dx, double *dres,
                           double *dgamma, double *dbeta)
{
    const int C = k->C;
    for (int s = 0; s < norm_nsets(k); s++) {
        const norm_set z = norm_set_of(k, s);
        const double cnt = (double)z.nr * z.nc;
        /* g: the gradient at the ReLU's input; xhat: the normalised input. With
         * a1 = mean(g*gamma), a2 = mean(g*gamma*xhat) over the set:
         * dx = rstd * (g*gamma - a1 - xhat*a2); dgamma += sum g*xhat; dbeta += sum g. */
        double a1 = 0, a2 = 0;
        for (int r = z.r0; r < z.r0 + z.nr; r++)
            for (int c = z.c0; c < z.c0 + z.nc; c++) {
                const size_t o = (size_t)r * C + c;
                const double g = !mask || mask[o] > 0 ? dout[o] : 0, xh = (x[o] - mean[s]) * rstd[s];
                a1 += g * gamma[c];
                a2 += g * gamma[c] * xh;
                dgamma[c] += g * xh;
                dbeta[c] += g;
                if (dres)
                    dres[o] = g;
            }
        a1 /= cnt;
        a2 /= cnt;
        for (int r = z.r0; r < z.r0 + z.nr; r++)
            for (int c = z.c0; c < z.c0 + z.nc; c++) {
                const size_t o = (size_t)r * C + c;
                const double g = !mask || mask[o] > 0 ? dout[o] : 0, xh = (x[o] - mean[s]) * rstd[s];
                dx[o] = rstd[s] * (g * gamma[c] - a1 - xh * a2);
            }
    }
}

/* ---- AdamW ------------------------------------------------------------------------------ */
void nn_kref_adamw(double *p, const double *g, double *m, double *v, size_t n, int64_t t, double lr, double b1,
                   double b2, double eps, double wd)
{
    const double bc1 = 1 - pow(b1, (double)t), bc2 = 1 - pow(b2, (double)t);
    for (size_t i = 0; i < n; i++) {
        p[i] *= 1 - lr * wd;
        m[i] = b1 * m[i] + (1 - b1) * g[i];
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
        p[i] -= lr / bc1 * m[i] / (sqrt(v[i]) / sqrt(bc2) + eps);
    }
}

/* ---- the heads -------------------------------------------------------------------------- */
nn_kref_heads_out *nn_kref_heads_out_alloc(int n, int C)
{
    const size_t M = (size_t)n * NN_CELLS, H = NN_HEAD_CH, F = NN_HEAD_FLAT, V = NN_VALUE_HIDDEN;
    const size_t st = (size_t)n * NN_GROUPS > H ? (size_t)n * NN_GROUPS : H; /* norm statistics */
    /* element counts of the arrays below, in their order */
    const size_t sizes[] = {(size_t)n * NN_POLICY, (size_t)n, (size_t)n, M * H, M * H, M * H, M * H, (size_t)n * V,
                            st, st, st, st, (size_t)n * NN_POLICY, (size_t)n,
                            H * C, H, H, NN_POLICY * F, NN_POLICY,
                            H * C, H, H, V * F, V, V, 1,
                            M * C, (size_t)n * V + 4 * M * H};
    nn_kref_heads_out *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    double **order[] = {&o->logits, &o->value, &o->value_scale, &o->hp_x, &o->hp_a, &o->hv_x, &o->hv_a, &o->vh,
                        &o->pmean, &o->prstd, &o->vmean, &o->vrstd, &o->dlogits, &o->dvalue,
                        &o->g_pc_w, &o->g_pn_g, &o->g_pn_b, &o->g_pf_w, &o->g_pf_b,
                        &o->g_vc_w, &o->g_vn_g, &o->g_vn_b, &o->g_vf1_w, &o->g_vf1_b, &o->g_vf2_w, &o->g_vf2_b,
                        &o->g_trunk, &o->scratch};
    _Static_assert(sizeof sizes / sizeof sizes[0] == sizeof order / sizeof order[0], "one size per array");
    size_t total = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        total += sizes[i];
    double *all = calloc(total, sizeof(double));
    if (!all) {
        free(o);
        return NULL;
    }
    for (size_t i = 0, at = 0; i < sizeof sizes / sizeof sizes[0]; at += sizes[i], i++)
        *order[i] = all + at;
    o->n = n, o->C = C;
    return o;
}

void nn_kref_heads_out_free(nn_kref_heads_out *o)
{
    if (o)
        free(o->logits); /* the first pointer holds the one allocation */
    free(o);
}

/* y (M, 32) = x (M, C) W^T for W (32, C): a 1x1 convolution on NHWC rows. */
static void conv1x1(const double *x, const double *w, double *y, size_t M, int C)
{
    for (size_t m = 0; m < M; m++)
        for (int o = 0; o < NN_HEAD_CH; o++) {
            double a = 0;
            for (int c = 0; c < C; c++)
                a += x[m * C + c] * w[(size_t)o * C + c];
            y[m * NN_HEAD_CH + o] = a;
        }
}

/* Element k = c*49 + pos of sample s's flattened head (PyTorch's NCHW flatten), read from
 * the NHWC activations a (n*49, 32). */
static double flat_at(const double *a, int s, int k)
{
    return a[((size_t)s * NN_CELLS + k % NN_CELLS) * NN_HEAD_CH + k / NN_CELLS];
}

static double *flat_ptr(double *a, int s, int k)
{
    return &a[((size_t)s * NN_CELLS + k % NN_CELLS) * NN_HEAD_CH + k / NN_CELLS];
}

/* The 1x1 convolution's backward: gw (32, C) = dy^T x; dx (M, C) += dy W. */
static void conv1x1_backward(const double *x, const double *w, const double *dy, double *gw, double *dx, size_t M,
                             int C)
{
    for (int o = 0; o < NN_HEAD_CH; o++)
        for (int c = 0; c < C; c++) {
            double a = 0;
            for (size_t m = 0; m < M; m++)
                a += dy[m * NN_HEAD_CH + o] * x[m * C + c];
            gw[(size_t)o * C + c] = a;
        }
    for (size_t m = 0; m < M; m++)
        for (int c = 0; c < C; c++) {
            double a = 0;
            for (int o = 0; o < NN_HEAD_CH; o++)
                a += dy[m * NN_HEAD_CH + o] * w[(size_t)o * C + c];
            dx[m * C + c] += a;
        }
}

/* out (n, rows) = b + W f for W (rows, 1568) over each sample's flattened head a. */
static void linear_fwd(const double *a, const double *w, const double *b, double *out, int n, int rows)
{
    for (int s = 0; s < n; s++)
        for (int j = 0; j < rows; j++) {
            double acc = b[j];
            for (int k = 0; k < NN_HEAD_FLAT; k++)
                acc += w[(size_t)j * NN_HEAD_FLAT + k] * flat_at(a, s, k);
            out[(size_t)s * rows + j] = acc;
        }
}

/* The backward of linear_fwd for its output gradient d (n, rows): gw = d^T f, gb = sum d,
 * da (the flattened head's gradient, NHWC) = d W. */
static void linear_bwd(const double *a, const double *w, const double *d, double *gw, double *gb, double *da, int n,
                       int rows)
{
    for (int j = 0; j < rows; j++) {
        gb[j] = 0;
        for (int s = 0; s < n; s++)
            gb[j] += d[(size_t)s * rows + j];
        for (int k = 0; k < NN_HEAD_FLAT; k++) {
            double acc = 0;
            for (int s = 0; s < n; s++)
                acc += d[(size_t)s * rows + j] * flat_at(a, s, k);
            gw[(size_t)j * NN_HEAD_FLAT + k] = acc;
        }
    }
    for (int s = 0; s < n; s++)
        for (int k = 0; k < NN_HEAD_FLAT; k++) {
            double acc = 0;
            for (int j = 0; j < rows; j++)
                acc += d[(size_t)s * rows + j] * w[(size_t)j * NN_HEAD_FLAT + k];
            *flat_ptr(da, s, k) = acc;
        }
}

void nn_kref_heads_run(const nn_kref_heads *in, int backward, nn_kref_heads_out *o)
{
    const int n = in->n, C = in->C, V = NN_VALUE_HIDDEN;
    const size_t M = (size_t)n * NN_CELLS, MH = M * NN_HEAD_CH;
    const nn_kref_norm nk = {in->group, 1, 1, n, NN_HEAD_CH};
    /* policy head */
    conv1x1(in->trunk, in->pc_w, o->hp_x, M, C);
    nn_kref_norm_forward(&nk, o->hp_x, NULL, in->pn_g, in->pn_b, in->pn_rm, in->pn_rv, o->pmean, o->prstd, o->hp_a);
    linear_fwd(o->hp_a, in->pf_w, in->pf_b, o->logits, n, NN_POLICY);
    /* value head */
    conv1x1(in->trunk, in->vc_w, o->hv_x, M, C);
    nn_kref_norm_forward(&nk, o->hv_x, NULL, in->vn_g, in->vn_b, in->vn_rm, in->vn_rv, o->vmean, o->vrstd, o->hv_a);
    linear_fwd(o->hv_a, in->vf1_w, in->vf1_b, o->vh, n, V);
    for (size_t i = 0; i < (size_t)n * V; i++)
        o->vh[i] = o->vh[i] > 0 ? o->vh[i] : 0;
    for (int s = 0; s < n; s++) {
        double v = in->vf2_b[0], sc = fabs(in->vf2_b[0]);
        for (int i = 0; i < V; i++) {
            v += in->vf2_w[i] * o->vh[(size_t)s * V + i];
            sc += fabs(in->vf2_w[i] * o->vh[(size_t)s * V + i]);
        }
        o->value[s] = v;
        o->value_scale[s] = sc;
    }
    o->loss = nn_loss_f64(o->logits, o->value, in->ptarget, in->vtarget, n, n, o->dlogits, o->dvalue);
    if (!backward)
        return;

    double *dvh = o->scratch, *dhp_a = dvh + (size_t)n * V, *dhp_x = dhp_a + MH, *dhv_a = dhp_x + MH,
           *dhv_x = dhv_a + MH;
    const double *mp = in->mask_p ? in->mask_p : o->hp_a, *mv = in->mask_v ? in->mask_v : o->hv_a;
    const double *mh = in->mask_h ? in->mask_h : o->vh;
    memset(o->g_trunk, 0, sizeof(double) * M * C);
    /* value head: vf2, its hidden ReLU, vf1, the norm, the 1x1 convolution */
    o->g_vf2_b[0] = 0;
    o->g_vf2_b_scale = 0;
    for (int s = 0; s < n; s++) {
        o->g_vf2_b[0] += o->dvalue[s];
        o->g_vf2_b_scale += fabs(o->dvalue[s]);
    }
    for (int i = 0; i < V; i++) {
        o->g_vf2_w[i] = 0;
        for (int s = 0; s < n; s++)
            o->g_vf2_w[i] += o->dvalue[s] * o->vh[(size_t)s * V + i];
    }
    for (int s = 0; s < n; s++)
        for (int i = 0; i < V; i++)
            dvh[(size_t)s * V + i] = mh[(size_t)s * V + i] > 0 ? o->dvalue[s] * in->vf2_w[i] : 0;
    linear_bwd(o->hv_a, in->vf1_w, dvh, o->g_vf1_w, o->g_vf1_b, dhv_a, n, V);
    memset(o->g_vn_g, 0, sizeof(double) * NN_HEAD_CH);
    memset(o->g_vn_b, 0, sizeof(double) * NN_HEAD_CH);
    nn_kref_norm_backward(&nk, o->hv_x, mv, dhv_a, in->vn_g, o->vmean, o->vrstd, dhv_x, NULL, o->g_vn_g, o->g_vn_b);
    conv1x1_backward(in->trunk, in->vc_w, dhv_x, o->g_vc_w, o->g_trunk, M, C);
    /* policy head: pf, the norm, the 1x1 convolution */
    linear_bwd(o->hp_a, in->pf_w, o->dlogits, o->g_pf_w, o->g_pf_b, dhp_a, n, NN_POLICY);
    memset(o->g_pn_g, 0, sizeof(double) * NN_HEAD_CH);
    memset(o->g_pn_b, 0, sizeof(double) * NN_HEAD_CH);
    nn_kref_norm_backward(&nk, o->hp_x, mp, dhp_a, in->pn_g, o->pmean, o->prstd, dhp_x, NULL, o->g_pn_g, o->g_pn_b);
    conv1x1_backward(in->trunk, in->pc_w, dhp_x, o->g_pc_w, o->g_trunk, M, C);
}
