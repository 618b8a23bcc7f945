/* test_gpu_refs.c: the float64 host references that the GPU kernel self-test compares the
 * norm, AdamW and head kernels with (src/nn/gpu/selftest_ref.c), checked on the CPU: every
 * backward against central finite differences of its own forward, the norms' forward by
 * what a normalised output must satisfy (mean beta, variance gamma^2 var/(var+eps); eval
 * mode on the batch's statistics equals train mode), the running statistics by their
 * formula, AdamW against nn_adamw_f64 (the float64 trainer's, itself checked against
 * PyTorch) and against the closed form of a first step. The GPU kernels have no host twin:
 * these references are what the device is held to. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/rng.h"
#include "nn/gpu/selftest_ref.h"
#include "nn/nn.h"
#include "nn/ops.h"

/* Central differences in double: step H on values of order 1 (truncation ~H^2, rounding
 * ~1e-16/H, both far below the tolerance). */
#define H 1e-6
#define TOL 1e-6

static gv_rng rng;

static double *rnd(size_t n, double lo, double hi)
{
    double *a = malloc(sizeof(double) * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        a[i] = lo + (hi - lo) * gv_rng_uniform(&rng);
    return a;
}

static double *zeros(size_t n)
{
    return calloc(n ? n : 1, sizeof(double));
}

/* ---- norms: backward against finite differences ------------------------------------- */
typedef struct {
    nn_kref_norm k;
    double *x, *res, *gamma, *beta, *dout;
    double *mean, *rstd, *y; /* scratch of the forward */
} norm_case;

/* L = sum dout * y(x, gamma, beta, res): the quantity whose gradient the backward gives. */
static double norm_loss(norm_case *c)
{
    const size_t cnt = (size_t)c->k.n * NN_CELLS * c->k.C;
    nn_kref_norm_forward(&c->k, c->x, c->res, c->gamma, c->beta, NULL, NULL, c->mean, c->rstd, c->y);
    double l = 0;
    for (size_t i = 0; i < cnt; i++)
        l += c->dout[i] * c->y[i];
    return l;
}

/* The central difference of norm_loss in element i of v, into fd[i]. */
static void norm_fd(norm_case *c, double *v, size_t n, double *fd)
{
    for (size_t i = 0; i < n; i++) {
        const double keep = v[i];
        v[i] = keep + H;
        const double lp = norm_loss(c);
        v[i] = keep - H;
        const double lm = norm_loss(c);
        v[i] = keep;
        fd[i] = (lp - lm) / (2 * H);
    }
}

static void test_norm_backward(int group, int relu, int with_res, int n, int C)
{
    const size_t cnt = (size_t)n * NN_CELLS * C, ns = group ? (size_t)n * NN_GROUPS : (size_t)C;
    norm_case c = {{group, 1, relu, n, C}, rnd(cnt, -1, 1), with_res ? rnd(cnt, -1, 1) : NULL, rnd(C, 0.5, 1.5),
                   rnd(C, -0.5, 0.5), rnd(cnt, -1, 1), zeros(ns), zeros(ns), zeros(cnt)};
    double *dx = zeros(cnt), *dres = zeros(cnt), *dg = zeros(C), *db = zeros(C);
    double *fx = zeros(cnt), *fr = zeros(cnt), *fg = zeros(C), *fb = zeros(C);
    norm_loss(&c); /* the forward: statistics and the mask (y) */
    nn_kref_norm_backward(&c.k, c.x, relu ? c.y : NULL, c.dout, c.gamma, c.mean, c.rstd, dx, dres, dg, db);
    norm_fd(&c, c.x, cnt, fx);
    norm_fd(&c, c.gamma, C, fg);
    norm_fd(&c, c.beta, C, fb);
    if (with_res)
        norm_fd(&c, c.res, cnt, fr);
    const double ex = t_rel_l2(dx, fx, cnt), eg = t_rel_l2(dg, fg, C), eb = t_rel_l2(db, fb, C);
    const double er = with_res ? t_rel_l2(dres, fr, cnt) : 0;
    char name[96];
    snprintf(name, sizeof name, "%s backward n=%d C=%d%s%s", group ? "GroupNorm" : "BatchNorm", n, C,
             relu ? " relu" : "", with_res ? " res" : "");
    t_check(ex <= TOL && eg <= TOL && eb <= TOL && er <= TOL, name,
            "against central differences of the forward (step %g): rel_l2 dx %.2e dgamma %.2e dbeta %.2e dres %.2e "
            "(tolerance %.0e)",
            H, ex, eg, eb, er, TOL);
    free(c.x), free(c.res), free(c.gamma), free(c.beta), free(c.dout), free(c.mean), free(c.rstd), free(c.y);
    free(dx), free(dres), free(dg), free(db), free(fx), free(fr), free(fg), free(fb);
}

/* ---- norms: the forward's properties ------------------------------------------------ */
/* Without ReLU and residual, every statistic's set of outputs has the mean beta and the
 * (biased) variance gamma^2 var / (var + eps), var the set's input variance; BatchNorm in
 * eval mode with the batch's mean and biased variance as running stats gives the training
 * output; the running stats move by momentum toward the batch mean and unbiased variance. */
static void test_norm_forward(int group, int n, int C)
{
    const size_t M = (size_t)n * NN_CELLS, cnt = M * C, ns = group ? (size_t)n * NN_GROUPS : (size_t)C;
    const int cg = group ? C / NN_GROUPS : 1;
    double *x = rnd(cnt, -2, 3), *gamma = rnd(C, 0.5, 1.5), *beta = rnd(C, -0.5, 0.5), *y = zeros(cnt);
    double *mean = zeros(ns), *rstd = zeros(ns), *rm = rnd(C, -0.5, 0.5), *rv = rnd(C, 0.5, 1.5);
    double *rm0 = zeros(C), *rv0 = zeros(C), *y2 = zeros(cnt), *bm = zeros(C), *bv = zeros(C);
    if (group) /* one gamma and beta per group, so that a set's outputs share them */
        for (int c = 0; c < C; c++)
            gamma[c] = gamma[c - c % cg], beta[c] = beta[c - c % cg];
    memcpy(rm0, rm, sizeof(double) * C), memcpy(rv0, rv, sizeof(double) * C);
    nn_kref_norm k = {group, 1, 0, n, C};
    nn_kref_norm_forward(&k, x, NULL, gamma, beta, rm, rv, mean, rstd, y);
    double worst = 0, worst_run = 0;
    for (size_t s = 0; s < ns; s++) {
        /* the set's rows and channels, as the definitions of the two norms give them */
        const size_t r0 = group ? s / NN_GROUPS * NN_CELLS : 0, nr = group ? NN_CELLS : M;
        const int c0 = group ? (int)(s % NN_GROUPS) * cg : (int)s;
        double sx = 0, sy = 0, k2 = (double)nr * cg;
        for (size_t r = r0; r < r0 + nr; r++)
            for (int c = c0; c < c0 + cg; c++)
                sx += x[r * C + c], sy += y[r * C + c];
        const double mx = sx / k2, my = sy / k2;
        double vx = 0, vy = 0;
        for (size_t r = r0; r < r0 + nr; r++)
            for (int c = c0; c < c0 + cg; c++) {
                vx += (x[r * C + c] - mx) * (x[r * C + c] - mx);
                vy += (y[r * C + c] - my) * (y[r * C + c] - my);
            }
        vx /= k2, vy /= k2;
        const double g = gamma[c0], want_v = g * g * vx / (vx + NN_EPS);
        worst = fmax(worst, fmax(fabs(my - beta[c0]), fabs(vy - want_v) / want_v));
        if (!group) {
            bm[s] = mx, bv[s] = vx;
            const double wm = 0.9 * rm0[s] + 0.1 * mx, wv = 0.9 * rv0[s] + 0.1 * vx * k2 / (k2 - 1);
            worst_run = fmax(worst_run, fmax(fabs(rm[s] - wm), fabs(rv[s] - wv)));
        }
    }
    char name[96];
    snprintf(name, sizeof name, "%s forward n=%d C=%d", group ? "GroupNorm" : "BatchNorm", n, C);
    t_check(worst <= 1e-12, name,
            "each statistic's outputs: |mean - beta| and relative |var - gamma^2 var_x/(var_x+eps)| at most %.2e "
            "(tolerance 1e-12)",
            worst);
    if (!group) {
        t_check(worst_run <= 1e-15, "BatchNorm running stats",
                "0.9 run + 0.1 batch mean / unbiased variance (%zu rows): max |diff| %.2e (tolerance 1e-15)", M,
                worst_run);
        nn_kref_norm ke = {0, 0, 0, n, C};
        nn_kref_norm_forward(&ke, x, NULL, gamma, beta, bm, bv, mean, rstd, y2);
        double d = 0;
        for (size_t i = 0; i < cnt; i++)
            d = fmax(d, fabs(y2[i] - y[i]));
        t_check(d <= 1e-13, "BatchNorm eval forward",
                "with the batch's mean and biased variance as running stats, equal to the training forward: max "
                "|diff| %.2e (tolerance 1e-13)",
                d);
    }
    free(x), free(gamma), free(beta), free(y), free(mean), free(rstd), free(rm), free(rv), free(rm0), free(rv0);
    free(y2), free(bm), free(bv);
}

/* ---- the heads: backward against finite differences --------------------------------- */
typedef struct {
    const char *name;
    double *p;
    size_t n;
    const double *grad; /* the reference's gradient (in the output) */
} head_tensor;

/* The loss of the heads (forward only). */
static double heads_loss(const nn_kref_heads *in, nn_kref_heads_out *scratch)
{
    nn_kref_heads_run(in, 0, scratch);
    return scratch->loss;
}

static void test_heads(int group, int n, int C)
{
    const size_t M = (size_t)n * NN_CELLS, Hc = NN_HEAD_CH, F = NN_HEAD_FLAT, V = NN_VALUE_HIDDEN;
    double *trunk = rnd(M * C, -1, 1), *pc_w = rnd(Hc * C, -0.5, 0.5), *pn_g = rnd(Hc, 0.5, 1.5);
    double *pn_b = rnd(Hc, -0.5, 0.5), *pf_w = rnd(NN_POLICY * F, -0.05, 0.05), *pf_b = rnd(NN_POLICY, -0.2, 0.2);
    double *vc_w = rnd(Hc * C, -0.5, 0.5), *vn_g = rnd(Hc, 0.5, 1.5), *vn_b = rnd(Hc, -0.5, 0.5);
    double *vf1_w = rnd(V * F, -0.05, 0.05), *vf1_b = rnd(V, -0.2, 0.2), *vf2_w = rnd(V, -0.2, 0.2);
    double *vf2_b = rnd(1, -0.2, 0.2), *vt = rnd(n, -1, 1);
    int64_t *pt = malloc(sizeof(int64_t) * n);
    for (int i = 0; i < n; i++)
        pt[i] = (int64_t)(gv_rng_uniform(&rng) * NN_POLICY);
    nn_kref_heads in = {n, C, group, trunk, pc_w, pn_g, pn_b, pf_w, pf_b, vc_w, vn_g, vn_b, vf1_w, vf1_b, vf2_w,
                        vf2_b, NULL, NULL, NULL, NULL, pt, vt, NULL, NULL, NULL};
    nn_kref_heads_out *o = nn_kref_heads_out_alloc(n, C), *s = nn_kref_heads_out_alloc(n, C);
    nn_kref_heads_out *o2 = nn_kref_heads_out_alloc(n, C);
    if (!o || !s || !o2) {
        t_check(0, "heads reference", "out of memory");
        return;
    }
    nn_kref_heads_run(&in, 1, o);
    const head_tensor ts[] = {
        {"trunk", trunk, M * C, o->g_trunk},      {"pc.weight", pc_w, Hc * C, o->g_pc_w},
        {"pn.weight", pn_g, Hc, o->g_pn_g},       {"pn.bias", pn_b, Hc, o->g_pn_b},
        {"pf.weight", pf_w, NN_POLICY * F, o->g_pf_w}, {"pf.bias", pf_b, NN_POLICY, o->g_pf_b},
        {"vc.weight", vc_w, Hc * C, o->g_vc_w},   {"vn.weight", vn_g, Hc, o->g_vn_g},
        {"vn.bias", vn_b, Hc, o->g_vn_b},         {"vf1.weight", vf1_w, V * F, o->g_vf1_w},
        {"vf1.bias", vf1_b, V, o->g_vf1_b},       {"vf2.weight", vf2_w, V, o->g_vf2_w},
        {"vf2.bias", vf2_b, 1, o->g_vf2_b}};
    /* up to 24 entries of each tensor, spread over it */
    char line[1024];
    int at = 0;
    double worst = 0;
    for (size_t t = 0; t < GV_ARRAY_LEN(ts); t++) {
        const size_t k = ts[t].n < 24 ? ts[t].n : 24;
        double a[24], f[24];
        for (size_t j = 0; j < k; j++) {
            const size_t i = k == ts[t].n ? j : (size_t)(gv_rng_uniform(&rng) * ts[t].n);
            const double keep = ts[t].p[i];
            ts[t].p[i] = keep + H;
            const double lp = heads_loss(&in, s);
            ts[t].p[i] = keep - H;
            const double lm = heads_loss(&in, s);
            ts[t].p[i] = keep;
            f[j] = (lp - lm) / (2 * H);
            a[j] = ts[t].grad[i];
        }
        const double e = t_rel_l2(a, f, k);
        worst = fmax(worst, e);
        at += snprintf(line + at, sizeof line - at, "%s%s %.1e", t ? ", " : "", ts[t].name, e);
    }
    char name[96];
    snprintf(name, sizeof name, "heads backward %s n=%d C=%d", group ? "GroupNorm" : "BatchNorm", n, C);
    t_check(worst <= TOL, name, "against central differences of the loss, rel_l2 at up to 24 entries each: %s "
            "(tolerance %.0e)", line, TOL);
    /* the masks handed in are the ones followed: the reference's own, given explicitly, change nothing */
    in.mask_p = o->hp_a, in.mask_v = o->hv_a, in.mask_h = o->vh;
    nn_kref_heads_run(&in, 1, o2);
    const int same = !memcmp(o2->g_trunk, o->g_trunk, sizeof(double) * M * C) &&
                     !memcmp(o2->g_vf1_w, o->g_vf1_w, sizeof(double) * V * F) &&
                     !memcmp(o2->g_pn_g, o->g_pn_g, sizeof(double) * Hc);
    /* and other masks change the gradients: all-zero masks leave nothing to pass */
    double *none = zeros(M * Hc > (size_t)n * V ? M * Hc : (size_t)n * V);
    in.mask_p = none, in.mask_v = none, in.mask_h = none;
    nn_kref_heads_run(&in, 1, o2);
    double gmax = 0;
    for (size_t i = 0; i < M * C; i++)
        gmax = fmax(gmax, fabs(o2->g_trunk[i]));
    snprintf(name, sizeof name, "heads masks %s", group ? "GroupNorm" : "BatchNorm");
    t_check(same && gmax == 0, name,
            "the reference's own ReLU masks handed in give the same gradients bit for bit (%s); all-zero masks give a "
            "zero trunk gradient (max |g| %.1e)",
            same ? "yes" : "no", gmax);
    nn_kref_heads_out_free(o), nn_kref_heads_out_free(s), nn_kref_heads_out_free(o2);
    free(trunk), free(pc_w), free(pn_g), free(pn_b), free(pf_w), free(pf_b), free(vc_w), free(vn_g), free(vn_b);
    free(vf1_w), free(vf1_b), free(vf2_w), free(vf2_b), free(vt), free(pt), free(none);
}

/* ---- AdamW -------------------------------------------------------------------------- */
/* nn_kref_adamw with the trainer's hyperparameters against nn_adamw_f64, steps t0+1 ..
 * t0+steps from moments m0 (zero when t0 is 0). */
static void test_adamw_trainer(double lr, int64_t t0, int steps)
{
    const size_t n = 1000;
    double *p = rnd(n, -0.1, 0.1), *m = t0 ? rnd(n, -0.01, 0.01) : zeros(n), *v = t0 ? rnd(n, 0, 1e-4) : zeros(n);
    double *p2 = zeros(n), *m2 = zeros(n), *v2 = zeros(n);
    memcpy(p2, p, sizeof(double) * n), memcpy(m2, m, sizeof(double) * n), memcpy(v2, v, sizeof(double) * n);
    for (int s = 1; s <= steps; s++) {
        double *g = rnd(n, -0.1, 0.1);
        nn_kref_adamw(p, g, m, v, n, t0 + s, lr, NN_BETA1, NN_BETA2, NN_ADAM_EPS, NN_WEIGHT_DECAY);
        nn_adamw_f64(p2, g, m2, v2, n, t0 + s, lr);
        free(g);
    }
    const double ep = t_rel_l2(p, p2, n), em = t_rel_l2(m, m2, n), ev = t_rel_l2(v, v2, n);
    char name[64];
    snprintf(name, sizeof name, "AdamW lr %g steps %lld..%lld", lr, (long long)t0 + 1, (long long)t0 + steps);
    t_check(ep <= 1e-14 && em <= 1e-14 && ev <= 1e-14, name,
            "against nn_adamw_f64 (the trainer's hyperparameters): rel_l2 p %.1e m %.1e v %.1e (tolerance 1e-14)", ep,
            em, ev);
    free(p), free(m), free(v), free(p2), free(m2), free(v2);
}

/* The first step from zero moments, any hyperparameters: m/(1-b1) = g and
 * sqrt(v/(1-b2)) = |g|, so p1 = p0 (1 - lr wd) - lr g / (|g| + eps). */
static void test_adamw_first_step(void)
{
    const size_t n = 1000;
    const double lr = 1e-2, b1 = 0.8, b2 = 0.99, eps = 1e-6, wd = 0.5;
    double *p = rnd(n, -1, 1), *g = rnd(n, -1, 1), *m = zeros(n), *v = zeros(n), *want = zeros(n);
    for (size_t i = 0; i < n; i++)
        want[i] = p[i] * (1 - lr * wd) - lr * g[i] / (fabs(g[i]) + eps);
    nn_kref_adamw(p, g, m, v, n, 1, lr, b1, b2, eps, wd);
    const double e = t_rel_l2(p, want, n);
    t_check(e <= 1e-14, "AdamW first step",
            "lr %g b1 %g b2 %g eps %g wd %g from zero moments against p (1 - lr wd) - lr g / (|g| + eps): rel_l2 "
            "%.1e (tolerance 1e-14)",
            lr, b1, b2, eps, wd, e);
    free(p), free(g), free(m), free(v), free(want);
}

int main(void)
{
    gv_rng_seed(&rng, 20261208);
    test_norm_backward(1, 1, 1, 2, 16);
    test_norm_backward(1, 0, 0, 2, 16);
    test_norm_backward(0, 1, 1, 2, 8);
    test_norm_backward(0, 0, 0, 3, 8);
    test_norm_forward(1, 3, 16);
    test_norm_forward(0, 3, 8);
    test_heads(1, 2, 8);
    test_heads(0, 2, 8);
    test_adamw_trainer(NN_LR, 0, 1);
    test_adamw_trainer(3e-4, 5, 10);
    test_adamw_first_step();
    return t_done();
}
