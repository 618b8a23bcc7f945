/* nn_check.c: the engine of `gpuvet check`: GEMM and the network's forward, gradients,
 * AdamW step and eval forward on each device against the float64 host path, or against a
 * PyTorch reference file (see nn_check.h). Every device goes through nn_trainer_create and
 * dev_gemm_*, so the GPU backend plugs in unchanged. */
#include "nn/nn_check.h"

#include <cblas.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm_bench.h"
#include "core/progress.h"
#include "core/record.h"
#include "core/rng.h"
#include "nn/ckpt.h"
#include "nn/ops.h"

/* Is tensor t a norm's weight or bias? (Norm modules: sn, pn, vn, blocks.K.n1, blocks.K.n2.) */
static int is_norm_param(const nn_tensor *t)
{
    const char *end = strrchr(t->name, '.'), *mod = t->name;
    for (const char *p = t->name; p < end; p++)
        if (*p == '.')
            mod = p + 1;
    return t->kind == NN_T_PARAM && end - mod == 2 &&
           (!strncmp(mod, "sn", 2) || !strncmp(mod, "pn", 2) || !strncmp(mod, "vn", 2) || !strncmp(mod, "n1", 2) ||
            !strncmp(mod, "n2", 2));
}

/* Gives norm weights, biases and running stats values away from PyTorch's defaults (1, 0,
 * 0, 1) so that a backend that ignores one of them cannot pass a check. */
static void perturb_state(nn_state *s, uint64_t seed)
{
    const nn_layout *L = s->L;
    gv_rng r;
    gv_rng_seed(&r, seed);
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        for (size_t k = 0; k < t->numel; k++) {
            if (is_norm_param(t))
                s->params[t->offset + k] += 0.2 * (gv_rng_uniform(&r) - 0.5);
            else if (t->kind == NN_T_RUNNING_MEAN)
                s->buffers[t->offset + k] = 0.1 * (gv_rng_uniform(&r) - 0.5);
            else if (t->kind == NN_T_RUNNING_VAR)
                s->buffers[t->offset + k] = 0.5 + gv_rng_uniform(&r);
        }
    }
}

static void fill_nan(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = NAN;
}


/* ---- check: comparisons -------------------------------------------------------------------- */

typedef struct {
    cJSON *arr; /* the record's "check" array */
    int n, nfail, quiet;
    FILE *out;  /* the lines, or NULL */
    const char *device, *dtype, *norm;
} chk;

/* A line for the reader (notes and skips are not printed under quiet). */
__attribute__((format(printf, 3, 4))) static void say(const chk *c, int always, const char *fmt, ...)
{
    if (!c->out || (c->quiet && !always))
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->out, fmt, ap);
    va_end(ap);
}

/* One comparison: a line with the metric, the tolerance and PASS/FAIL (failures even under
 * --quiet) and an entry in the record. NaN never passes. */
static cJSON *chk_add(chk *c, const char *what, const char *metric, double value, double tol)
{
    int pass = value <= tol;
    c->n++;
    c->nfail += !pass;
    say(c, !pass, "%s  %-6s %-4s %-5s %-38s %-7s %10.3e  tolerance %.0e\n", pass ? "PASS" : "FAIL", c->device,
        c->dtype, c->norm, what, metric, value, tol);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "device", c->device);
    cJSON_AddStringToObject(e, "what", what);
    cJSON_AddStringToObject(e, "norm", c->norm);
    cJSON_AddStringToObject(e, "dtype", c->dtype);
    cJSON_AddStringToObject(e, "metric", metric);
    gv_json_add_num(e, "value", isnan(value) ? INFINITY : value);
    if (!isfinite(value))
        cJSON_AddStringToObject(e, "value_why", "not finite (NaN or Inf in the output)");
    cJSON_AddNumberToObject(e, "tolerance", tol);
    cJSON_AddBoolToObject(e, "pass", pass);
    cJSON_AddItemToArray(c->arr, e);
    return e;
}

/* Do the comparisons from index `first` of the record fail only in gradient-derived ones
 * (gradients, AdamW moments) while the forward, loss, eval, update and running stats pass?
 * That is the signature of a ReLU kink: an input within rounding of zero that two paths put
 * on different sides. */
static int chk_kink_pattern(const chk *c, int first)
{
    int grad_fail = 0, other_fail = 0;
    for (int i = first; i < cJSON_GetArraySize(c->arr); i++) {
        const cJSON *e = cJSON_GetArrayItem(c->arr, i);
        if (cJSON_IsTrue(cJSON_GetObjectItem(e, "pass")))
            continue;
        const char *w = gv_json_str(e, "what", "");
        if (!strncmp(w, "grad ", 5) || !strncmp(w, "adamw m ", 8) || !strncmp(w, "adamw v ", 8))
            grad_fail++;
        else
            other_fail++;
    }
    return grad_fail > 0 && other_fail == 0;
}

static void chk_rel(chk *c, const char *what, const double *a, const double *b, size_t n, double tol)
{
    if (n)
        chk_add(c, what, "rel_l2", nn_rel_l2(a, b, n), tol);
}

/* The value head's output v = sum_i w_i r_i + b (its last layer, over 128 hidden units
 * r_i >= 0 after a ReLU) is one number per sample: a float32 (or bf16) sum is accurate to a
 * few roundings of the scale sum_i |w_i r_i| + |b| it is summed at, not of v, and at a small
 * batch with a value near 0 (the terms cancel) the plain relative error grows by
 * scale/|v| (a 128-channel batch of one on the H200: 1.2e-5 against 1e-5 on the CPU and
 * 1.6e-5 on the GPU, in fp32). The value is therefore compared as
 * ||a - b|| / max(||b||, ||scale||), the metric `rel_l2_scale`; where the values are not
 * small against their scale it is the plain relative error. */
static void chk_value(chk *c, const char *what, const double *a, const double *b, const double *scale, size_t n,
                      double tol)
{
    if (n)
        chk_add(c, what, "rel_l2_scale", nn_rel_l2_scale(a, b, scale, n), tol);
}

/* The float64 reference trainer on the CPU, for a batch of up to n. */
static gv_status ref_open(const nn_layout *L, int n, int threads, nn_trainer **t, gv_err *err)
{
    return nn_trainer_open(&(dev_id){DEV_CPU, 0, "cpu"}, L, (nn_trainer_opts){.dtype = NN_FP64, .max_batch = n,
                                                                             .threads = threads}, t, err);
}

/* A checked device's trainer options: dtype dt, batch n, and the check's threads, TF32
 * and injected fault. */
static nn_trainer_opts check_opts(const nn_check_opts *a, nn_dtype dt, int n)
{
    return (nn_trainer_opts){.dtype = dt, .tf32 = a->tf32, .max_batch = n, .threads = a->threads, .fault = a->fault};
}

gv_status nn_value_scale(const nn_layout *L, const nn_state *s, const nn_batch *b, int train, int threads,
                         double *scale, gv_err *err)
{
    nn_state a;
    nn_state_alloc(&a, L);
    nn_state_copy(&a, s);
    const char *names[] = {"vf2.weight", "vf2.bias"};
    for (int k = 0; k < 2; k++) {
        const nn_tensor *w = nn_layout_find(L, names[k]);
        for (size_t i = 0; w && i < w->numel; i++)
            a.params[w->offset + i] = fabs(a.params[w->offset + i]);
    }
    double *logits = gv_xmalloc(sizeof(double) * (size_t)b->n * NN_POLICY), loss;
    nn_trainer *t;
    gv_status st = ref_open(L, b->n, threads, &t, err);
    if (st == GV_OK) {
        st = nn_trainer_set_batch(t, b, err);
        if (st == GV_OK)
            st = nn_trainer_set_state(t, &a, err);
        if (st == GV_OK)
            st = nn_trainer_forward(t, train, logits, scale, train ? &loss : NULL, err);
        nn_trainer_destroy(t);
    }
    free(logits);
    nn_state_free(&a);
    return st;
}

/* Tolerances per dtype (relative L2 error; GEMM: max |error| / max |C|). */
typedef struct {
    double fwd, grad, gemm;
} tolerances;

static tolerances tol_of(nn_dtype dt, int tf32)
{
    if (dt == NN_FP64)
        return (tolerances){1e-10, 1e-10, 1e-12};
    /* bf16 (unit roundoff 2^-8 = 3.9e-3): about ten roundoffs through the 6-block network.
     * Measured on the H200 (bench/results/2026-12-04-h200-bn-determinism.md): ours reach
     * 2.6e-2 on BatchNorm at 128 channels; PyTorch's own bf16 on the reference files 2.0e-2
     * on the logits and 3.4e-1 on gradients. The GEMM is one rounding deep: 2e-2. */
    if (dt == NN_BF16)
        return (tolerances){4e-2, 4e-2, 2e-2};
    if (tf32)
        return (tolerances){5e-3, 1e-2, 5e-3};
    return (tolerances){1e-5, 1e-4, 1e-5};
}

/* The value head's bias gradient is one number, sum_i dL/dv_i = sum_i 2 (v_i - t_i) / n over
 * the batch: each term carries its own value's error (chk_value), so the sum is accurate to
 * those errors at the scale sum_i |dL/dv_i|, not at its own size, and where the terms cancel
 * (values near their targets on average) the plain relative error grows by that ratio (a
 * 64-channel BatchNorm draw on the H200 in bf16: 1.5e-1 plain). It is compared as
 * rel_l2_scale with that scale, computed on the float64 path's values. */
static double value_bias_grad_scale(const double *value, const nn_batch *b)
{
    double *g = gv_xmalloc(sizeof(double) * (size_t)b->n), s = 0;
    double *logits = gv_xcalloc((size_t)b->n * NN_POLICY, sizeof(double));
    nn_loss_f64(logits, value, b->policy, b->value, b->n, b->n, NULL, g);
    for (int i = 0; i < b->n; i++)
        s += fabs(g[i]);
    free(g), free(logits);
    return s;
}

static void chk_grads(chk *c, const nn_layout *L, const double *g, const double *ref, double bias_scale, double tol)
{
    NN_FOR_EACH_PARAM(t, L) {
        char what[80];
        snprintf(what, sizeof what, "grad %s", t->name);
        if (!strcmp(t->name, "vf2.bias") && t->numel == 1)
            chk_add(c, what, "rel_l2_scale", nn_rel_l2_scale(g + t->offset, ref + t->offset, &bias_scale, 1), tol);
        else
            chk_rel(c, what, g + t->offset, ref + t->offset, t->numel, tol);
    }
}

static void chk_batches(chk *c, const char *what, const nn_state *got, const nn_state *want)
{
    int bad = 0;
    for (int i = 0; i < got->L->nbn; i++)
        bad += got->num_batches[i] != want->num_batches[i];
    if (got->L->nbn)
        chk_add(c, what, "layers", bad, 0);
}

/* The AdamW update of a trainer (p1 - p0) against float64 AdamW applied to p0 with the
 * trainer's own moments after its first step: checks the optimiser independently of the
 * gradient's precision. */
static void chk_adamw_update(chk *c, const nn_state *p0, const nn_state *p1, double tol)
{
    size_t n = p0->L->nparams;
    double *want = gv_xmalloc(sizeof(double) * n), *got = gv_xmalloc(sizeof(double) * n);
    double bc1 = 1.0 - pow(NN_BETA1, (double)p1->adam_step), bc2 = 1.0 - pow(NN_BETA2, (double)p1->adam_step);
    for (size_t i = 0; i < n; i++) {
        double p = p0->params[i] * (1.0 - NN_LR * NN_WEIGHT_DECAY);
        p -= NN_LR / bc1 * p1->adam_m[i] / (sqrt(p1->adam_v[i]) / sqrt(bc2) + NN_ADAM_EPS);
        want[i] = p - p0->params[i];
        got[i] = p1->params[i] - p0->params[i];
    }
    chk_rel(c, "adamw update (own moments, float64)", got, want, n, tol);
    free(want);
    free(got);
}

/* Outputs of one trainer on one state and batch. */
typedef struct {
    int n;
    double *logits, *value, loss, *grads, *eval_logits, *eval_value;
    double *vscale, *eval_vscale; /* the float64 path's: the scale of value and eval_value (nn_value_scale) */
    double vbias_scale;           /* the float64 path's: the scale of vf2.bias's gradient (chk_grads) */
    nn_state after; /* state after one AdamW step */
} net_out;

static void net_out_alloc(net_out *o, const nn_layout *L, int n)
{
    memset(o, 0, sizeof *o);
    o->n = n;
    o->logits = gv_xmalloc(sizeof(double) * (size_t)n * NN_POLICY);
    o->value = gv_xmalloc(sizeof(double) * (size_t)n);
    o->eval_logits = gv_xmalloc(sizeof(double) * (size_t)n * NN_POLICY);
    o->eval_value = gv_xmalloc(sizeof(double) * (size_t)n);
    o->grads = gv_xmalloc(sizeof(double) * L->nparams);
    o->vscale = gv_xmalloc(sizeof(double) * (size_t)n);
    o->eval_vscale = gv_xmalloc(sizeof(double) * (size_t)n);
    nn_state_alloc(&o->after, L);
}

static void net_out_free(net_out *o)
{
    free(o->logits), free(o->value), free(o->eval_logits), free(o->eval_value), free(o->grads);
    free(o->vscale), free(o->eval_vscale);
    nn_state_free(&o->after);
}

/* From state s0 on batch b: training-mode forward, gradients, one AdamW step (state after
 * it), then an eval-mode forward on eval_state (the trainer's own state when NULL). Host
 * outputs are filled with NaN before each call, so that anything not written fails. When
 * masks is not NULL and the backend reports them, the ReLU masks of the gradients' forward
 * go there and *got_masks is set. */
static gv_status net_run(nn_trainer *t, const nn_state *s0, const nn_batch *b, const nn_state *eval_state,
                         net_out *o, uint8_t *masks, int *got_masks, gv_err *err)
{
    const nn_layout *L = nn_trainer_layout(t);
    size_t nl = (size_t)b->n * NN_POLICY;
    gv_status s = nn_trainer_set_batch(t, b, err);
    if (s == GV_OK)
        s = nn_trainer_set_state(t, s0, err);
    fill_nan(o->logits, nl), fill_nan(o->value, (size_t)b->n), o->loss = NAN;
    if (s == GV_OK)
        s = nn_trainer_forward(t, 1, o->logits, o->value, &o->loss, err);
    if (s == GV_OK)
        s = nn_trainer_set_state(t, s0, err);
    fill_nan(o->grads, L->nparams);
    if (s == GV_OK)
        s = nn_trainer_gradients(t, o->grads, NULL, err);
    if (got_masks)
        *got_masks = 0;
    if (s == GV_OK && masks && nn_trainer_has_relu_masks(t)) {
        memset(masks, 2, nn_relu_masks_len(L, b->n)); /* neither 0 nor 1: unwritten bytes show */
        s = nn_trainer_relu_masks(t, masks, err);
        *got_masks = s == GV_OK;
    }
    if (s == GV_OK)
        s = nn_trainer_set_state(t, s0, err);
    if (s == GV_OK)
        s = nn_trainer_step(t, NULL, err);
    nn_state_poison(&o->after);
    if (s == GV_OK)
        s = nn_trainer_get_state(t, &o->after, err);
    if (s == GV_OK && eval_state)
        s = nn_trainer_set_state(t, eval_state, err);
    fill_nan(o->eval_logits, nl), fill_nan(o->eval_value, (size_t)b->n);
    if (s == GV_OK)
        s = nn_trainer_forward(t, 0, o->eval_logits, o->eval_value, NULL, err);
    if (s == GV_OK)
        s = nn_trainer_sync(t, err);
    return s;
}

/* Every comparison of a trainer's outputs o with the float64 outputs from the same s0: the
 * forward, loss, running stats and eval with r (free-running float64), the gradients and
 * AdamW moments with rg (float64 on the trainer's own ReLU masks when it reports them, else
 * r as well). */
static void chk_net(chk *c, const nn_layout *L, const nn_state *s0, const net_out *o, const net_out *r,
                    const net_out *rg, tolerances tl)
{
    size_t nl = (size_t)o->n * NN_POLICY;
    chk_rel(c, "forward logits (train mode)", o->logits, r->logits, nl, tl.fwd);
    chk_value(c, "forward value (train mode)", o->value, r->value, r->vscale, (size_t)o->n, tl.fwd);
    chk_rel(c, "loss", &o->loss, &r->loss, 1, tl.fwd);
    chk_grads(c, L, o->grads, rg->grads, r->vbias_scale, tl.grad);
    chk_rel(c, "adamw m after 1 step", o->after.adam_m, rg->after.adam_m, L->nparams, tl.grad);
    chk_rel(c, "adamw v after 1 step", o->after.adam_v, rg->after.adam_v, L->nparams, tl.grad);
    chk_adamw_update(c, s0, &o->after, tl.fwd);
    chk_add(c, "adamw step count", "steps", fabs((double)o->after.adam_step - (double)r->after.adam_step), 0);
    chk_rel(c, "bn running stats after 1 step", o->after.buffers, r->after.buffers, L->nbuffers, tl.fwd);
    chk_batches(c, "bn num_batches_tracked", &o->after, &r->after);
    chk_rel(c, "eval logits", o->eval_logits, r->eval_logits, nl, tl.fwd);
    chk_value(c, "eval value", o->eval_value, r->eval_value, r->eval_vscale, (size_t)o->n, tl.fwd);
}

/* ---- check: GEMM ----------------------------------------------------------------------------- */

/* C of one device and dtype against the float64 reference: max |error|, max |C|, ratio. */
static void chk_gemm(chk *c, const dev_id *d, dev_gemm_dtype dt, int size, const float *A, const float *B,
                     const double *Cref, int threads, double tol)
{
    gv_err err = {{0}};
    dev_gemm *g;
    char what[64];
    snprintf(what, sizeof what, "gemm %d (%s)", size, dev_gemm_dtype_name(dt));
    gv_status s = dev_gemm_open(d, size, size, size, dt, threads, &g, &err);
    if (s != GV_OK) {
        say(c, 0, "SKIP  %-6s %-4s %-5s %-38s %s\n", c->device, dev_gemm_dtype_name(dt), "-", what, err.msg);
        return;
    }
    size_t nn = (size_t)size * size;
    float *C = malloc(sizeof(float) * nn);
    double secs = 0;
    if (!C) {
        dev_gemm_close(g);
        chk_add(c, what, "max_rel", INFINITY, tol);
        say(c, 1, "      %-6s out of memory for the %dx%d result\n", "", size, size);
        return;
    }
    for (size_t i = 0; i < nn; i++)
        C[i] = NAN;
    s = dev_gemm_set_inputs(g, A, B, &err);
    if (s == GV_OK)
        s = dev_gemm_poison(g, &err);
    if (s == GV_OK)
        s = dev_gemm_run(g, 1, &secs, &err);
    if (s == GV_OK)
        s = dev_gemm_get_output(g, C, &err);
    if (s != GV_OK)
        say(c, 1, "      %-6s gemm: %s\n", d->label, err.msg);
    double maxerr = 0, maxc = 0;
    for (size_t i = 0; i < nn; i++) {
        double e = fabs((double)C[i] - Cref[i]);
        if (!(e <= maxerr))
            maxerr = e; /* NaN sticks */
        if (fabs(Cref[i]) > maxc)
            maxc = fabs(Cref[i]);
    }
    const char *saved = c->dtype;
    c->dtype = dev_gemm_dtype_name(dt);
    cJSON *e = chk_add(c, what, "max_rel", s == GV_OK ? maxerr / maxc : INFINITY, tol);
    c->dtype = saved;
    cJSON *ge = cJSON_AddObjectToObject(e, "gemm");
    gv_json_add_num(ge, "max_abs_err", maxerr);
    gv_json_add_num(ge, "max_abs_c", maxc);
    gv_json_add_num(ge, "rel_err", maxerr / maxc);
    gv_json_add_num(ge, "seconds", secs);
    say(c, 0, "      %-6s max |error| %.3e, max |C| %.3e, relative %.3e (%.2f s)\n", "", maxerr, maxc, maxerr / maxc, secs);
    free(C);
    dev_gemm_close(g);
}

/* The GEMM part of check: float64 reference on the host, verified by long double samples,
 * then every device and GEMM dtype against it. */
static gv_status check_gemm(chk *c, const nn_check_opts *o, gv_progress *pg, gv_err *err)
{
    const int size = o->gemm_size, threads = o->threads;
    size_t nn = (size_t)size * size;
    float *A = malloc(sizeof(float) * nn), *B = malloc(sizeof(float) * nn);
    double *Ad = malloc(sizeof(double) * nn), *Bd = malloc(sizeof(double) * nn), *Cd = malloc(sizeof(double) * nn);
    if (!A || !B || !Ad || !Bd || !Cd) {
        free(A), free(B), free(Ad), free(Bd), free(Cd);
        return gv_fail(err, GV_ERR_ENV, "out of memory for a %dx%d GEMM check (try --gemm-size 1024)", size, size);
    }
    gv_rng r;
    gv_rng_seed(&r, o->seed ^ 0x6e6d6d);
    for (size_t i = 0; i < nn; i++) {
        A[i] = (float)(2 * gv_rng_uniform(&r) - 1);
        B[i] = (float)(2 * gv_rng_uniform(&r) - 1);
        Ad[i] = A[i];
        Bd[i] = B[i];
    }
    gv_progress_update(pg, "check: float64 reference GEMM %dx%d", size, size);
    dev_blas_set_threads(threads > 0 ? threads : gv_cpu_count());
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, size, size, size, 1.0, Ad, size, Bd, size, 0.0, Cd, size);
    c->device = "host", c->dtype = "fp64", c->norm = "-";
    char what[64];
    snprintf(what, sizeof what, "gemm %d dgemm vs long double", size);
    chk_add(c, what, "max_rel", dev_gemm_sample_error(A, B, Cd, NULL, size, &r, 256), 1e-12);
    for (int d = 0; d < o->ndev; d++) {
        c->device = o->devs[d].label;
        for (int k = 0; k < o->ndtypes; k++) {
            nn_dtype nd = o->dtypes[k];
            int tf = o->tf32 && o->devs[d].kind == DEV_GPU; /* TF32 is a GPU matrix-unit mode */
            dev_gemm_dtype gd = nd == NN_BF16 ? DEV_GEMM_BF16 : tf ? DEV_GEMM_TF32 : DEV_GEMM_FP32;
            gv_progress_update(pg, "check: %s GEMM %s", o->devs[d].label, dev_gemm_dtype_name(gd));
            chk_gemm(c, &o->devs[d], gd, size, A, B, Cd, threads, tol_of(nd, tf).gemm);
        }
    }
    free(A), free(B), free(Ad), free(Bd), free(Cd);
    return GV_OK;
}

/* ---- check: the network ---------------------------------------------------------------------- */


/* One draw of the network check: a state and a batch from a seed, and the float64 host
 * path's outputs on them with its own ReLU masks. */
typedef struct {
    nn_layout L;
    nn_state s0;
    nn_batch b;
    net_out ref;
    uint8_t *masks; /* the float64 path's ReLU masks */
} net_draw;

static gv_status draw_make(net_draw *d, nn_norm norm, const nn_check_opts *a, gv_err *err)
{
    nn_config cfg = {a->channels, a->blocks, norm};
    nn_layout_init(&d->L, &cfg);
    /* the float64 host path holds the most of any device checked */
    gv_status s = nn_fits(&(dev_id){DEV_CPU, 0, "cpu"}, &d->L, &(nn_trainer_opts){.dtype = NN_FP64, .max_batch = a->batch},
                          err);
    if (s != GV_OK) {
        nn_layout_free(&d->L);
        return s;
    }
    nn_state_alloc(&d->s0, &d->L);
    nn_state_init_random(&d->s0, a->seed);
    perturb_state(&d->s0, a->seed + 7);
    nn_batch_alloc(&d->b, a->batch);
    nn_batch_random(&d->b, a->seed + 1);
    net_out_alloc(&d->ref, &d->L, d->b.n);
    d->masks = gv_xmalloc(nn_relu_masks_len(&d->L, d->b.n));
    nn_trainer *t;
    int got = 0;
    s = ref_open(&d->L, d->b.n, a->threads, &t, err);
    if (s == GV_OK) {
        s = net_run(t, &d->s0, &d->b, NULL, &d->ref, d->masks, &got, err);
        nn_trainer_destroy(t);
    }
    if (s == GV_OK && !got)
        s = gv_fail(err, GV_ERR_INTERNAL, "internal error: the float64 path did not report its ReLU masks");
    if (s == GV_OK)
        s = nn_value_scale(&d->L, &d->s0, &d->b, 1, a->threads, d->ref.vscale, err);
    if (s == GV_OK)
        d->ref.vbias_scale = value_bias_grad_scale(d->ref.value, &d->b);
    if (s == GV_OK)
        s = nn_value_scale(&d->L, &d->ref.after, &d->b, 0, a->threads, d->ref.eval_vscale, err);
    return s;
}

static void draw_free(net_draw *d)
{
    if (!d->L.t)
        return;
    free(d->masks);
    net_out_free(&d->ref);
    nn_batch_free(&d->b);
    nn_state_free(&d->s0);
    nn_layout_free(&d->L);
    memset(d, 0, sizeof *d);
}

/* The float64 path's gradients and AdamW step from d's state on the ReLU masks of another
 * run: the same linear piece of the network that run differentiated. */
static gv_status masked_ref(const nn_layout *L, const nn_state *s0, const nn_batch *b, const nn_check_opts *a,
                            const uint8_t *masks, net_out *rg, gv_err *err)
{
    nn_trainer *t;
    gv_status s = ref_open(L, b->n, a->threads, &t, err);
    if (s != GV_OK)
        return s;
    s = nn_ref_follow_masks(t, masks, b->n, err);
    if (s == GV_OK)
        s = nn_trainer_set_batch(t, b, err);
    if (s == GV_OK)
        s = nn_trainer_set_state(t, s0, err);
    if (s == GV_OK)
        s = nn_trainer_gradients(t, rg->grads, NULL, err);
    if (s == GV_OK)
        s = nn_trainer_set_state(t, s0, err);
    if (s == GV_OK)
        s = nn_trainer_step(t, NULL, err);
    if (s == GV_OK)
        s = nn_trainer_get_state(t, &rg->after, err);
    nn_trainer_destroy(t);
    return s;
}

/* Tolerated share of ReLU masks on which a dtype's run and the float64 path disagree (inputs
 * within the dtype's rounding of zero: about 1e-6 of them in fp32, 1% in bf16). */
static double mask_tolerance(nn_dtype dt, int tf32)
{
    return dt == NN_BF16 ? 5e-2 : tf32 ? 1e-2 : 1e-4;
}

/* Runs device `dev` in dtype dt on draw d and compares. Gradients are not continuous where a
 * ReLU's input is zero, and a few inputs always lie within rounding of zero, on different
 * sides for different arithmetic (one such flip moves fp32 gradients by ~1e-3). So when the
 * device reports its ReLU masks, its gradients and AdamW moments are compared with float64
 * on the device's own masks (the same linear piece), and the masks themselves with float64's
 * own: only a small share may differ. The forward, loss and eval are compared with the
 * free-running float64 path. */
static gv_status draw_device(chk *c, const net_draw *d, const dev_id *dev, nn_dtype dt, const nn_check_opts *a, gv_err *err)
{
    net_out o, rg;
    nn_trainer *t;
    int tf = a->tf32 && dev->kind == DEV_GPU, got = 0;
    size_t mlen = nn_relu_masks_len(&d->L, d->b.n);
    uint8_t *masks = gv_xmalloc(mlen);
    net_out_alloc(&o, &d->L, d->b.n);
    net_out_alloc(&rg, &d->L, d->b.n);
    gv_status s = nn_trainer_open(dev, &d->L, check_opts(a, dt, d->b.n), &t, err);
    if (s == GV_OK) {
        s = net_run(t, &d->s0, &d->b, &d->ref.after, &o, masks, &got, err);
        nn_trainer_destroy(t);
    }
    if (s == GV_OK && got)
        s = masked_ref(&d->L, &d->s0, &d->b, a, masks, &rg, err);
    if (s == GV_OK) {
        chk_net(c, &d->L, &d->s0, &o, &d->ref, got ? &rg : &d->ref, tol_of(dt, tf));
        if (got) {
            size_t diff = 0;
            for (size_t i = 0; i < mlen; i++)
                diff += masks[i] != d->masks[i];
            chk_add(c, "relu masks differing from float64", "share", (double)diff / (double)mlen,
                    mask_tolerance(dt, tf));
        } else {
            say(c, 0, "note  %-6s %-4s %-5s this backend does not report its ReLU masks: gradients are compared with "
                "float64's own, where an input within rounding of zero can flip (a kink)\n", c->device, c->dtype,
                c->norm);
        }
    }
    free(masks);
    net_out_free(&o);
    net_out_free(&rg);
    return s;
}

/* All devices and dtypes against the float64 host path for one norm. */
static gv_status check_net(chk *c, nn_norm norm, const nn_check_opts *a, gv_progress *pg, gv_err *err)
{
    net_draw d = {0};
    c->norm = nn_norm_name(norm);
    gv_progress_update(pg, "check: float64 host path, %s norm", c->norm);
    gv_status s = draw_make(&d, norm, a, err);
    for (int i = 0; i < a->ndev && s == GV_OK; i++) {
        for (int k = 0; k < a->ndtypes && s == GV_OK; k++) {
            nn_dtype dt = a->dtypes[k];
            c->device = a->devs[i].label, c->dtype = nn_dtype_name(dt);
            if (!nn_dtype_on(&a->devs[i], dt)) {
                say(c, 0, "SKIP  %-6s %-4s %-5s the %s trains in %s; no %s path to check\n", c->device, c->dtype,
                    c->norm, a->devs[i].kind == DEV_CPU ? "CPU" : "GPU",
                    a->devs[i].kind == DEV_CPU ? "fp64 and fp32" : "fp32 and bf16", c->dtype);
                continue;
            }
            gv_progress_update(pg, "check: %s %s, %s norm", c->device, c->dtype, c->norm);
            s = draw_device(c, &d, &a->devs[i], dt, a, err);
        }
    }
    draw_free(&d);
    return s;
}

/* check --reference FILE: the float64 path, then each device and dtype, against a PyTorch
 * reference file. */
static gv_status check_reference(chk *c, const nn_check_opts *a, gv_progress *pg, gv_err *errp)
{
    const char *path = a->reference;
    nn_refdata r;
    gv_err err = {{0}};
    gv_status s = nn_refdata_load(&r, path, errp);
    if (s != GV_OK)
        return s;
    const nn_layout *L = &r.L;
    int n = r.batch.n;
    gv_status code = GV_OK;
    size_t nl = (size_t)n * NN_POLICY;
    say(c, 0, "reference %s: channels %d, blocks %d, %s norm, batch %d\n", path, r.cfg.channels, r.cfg.blocks,
        nn_norm_name(r.cfg.norm), n);
    c->norm = nn_norm_name(r.cfg.norm);
    /* float64 path: everything in the file, to 1e-10 */
    nn_trainer *t = NULL;
    net_out o;
    net_out_alloc(&o, L, n);
    nn_state st;
    nn_state_alloc(&st, L);
    c->device = "cpu", c->dtype = "fp64";
    gv_progress_update(pg, "check: float64 path against %s", path);
    tolerances t64 = tol_of(NN_FP64, 0);
    size_t mlen = nn_relu_masks_len(L, n);
    uint8_t *rmasks = gv_xmalloc(mlen), *dmasks = gv_xmalloc(mlen);
    net_out rg;
    net_out_alloc(&rg, L, n);
    int rgot = 0;
    s = ref_open(L, n, a->threads, &t, &err);
    if (s == GV_OK)
        s = net_run(t, &r.init, &r.batch, &r.step10, &o, rmasks, &rgot, &err);
    if (s == GV_OK && !rgot)
        memset(rmasks, 0, mlen);
    /* the scales of the file's values (chk_value) */
    double *vs = gv_xmalloc(sizeof(double) * (size_t)n), *evs = gv_xmalloc(sizeof(double) * (size_t)n);
    if (s == GV_OK)
        s = nn_value_scale(L, &r.init, &r.batch, 1, a->threads, vs, &err);
    if (s == GV_OK)
        s = nn_value_scale(L, &r.step10, &r.batch, 0, a->threads, evs, &err);
    double vbias_scale = value_bias_grad_scale(r.value, &r.batch);
    double losses[10];
    fill_nan(losses, 10);
    if (s == GV_OK) {
        chk_rel(c, "forward logits (train mode)", o.logits, r.logits, nl, t64.fwd);
        chk_value(c, "forward value (train mode)", o.value, r.value, vs, (size_t)n, t64.fwd);
        chk_rel(c, "loss", &o.loss, &r.loss, 1, t64.fwd);
        chk_grads(c, L, o.grads, r.grads, vbias_scale, t64.grad);
        chk_rel(c, "eval logits (step10 state)", o.eval_logits, r.eval_logits, nl, t64.fwd);
        chk_value(c, "eval value (step10 state)", o.eval_value, r.eval_value, evs, (size_t)n, t64.fwd);
        s = nn_trainer_set_state(t, &r.init, &err);
        for (int k = 0; k < 10 && s == GV_OK; k++) {
            s = nn_trainer_step(t, &losses[k], &err);
            if (s == GV_OK && (k == 0 || k == 9)) {
                const nn_state *want = k ? &r.step10 : &r.step1;
                nn_state_poison(&st);
                s = nn_trainer_get_state(t, &st, &err);
                chk_rel(c, k ? "params after 10 steps" : "params after 1 step", st.params, want->params,
                        L->nparams, t64.fwd);
                chk_rel(c, k ? "bn running stats after 10 steps" : "bn running stats after 1 step", st.buffers,
                        want->buffers, L->nbuffers, t64.fwd);
                chk_batches(c, k ? "bn num_batches_tracked after 10" : "bn num_batches_tracked after 1", &st, want);
            }
        }
        chk_rel(c, "loss.steps (10 losses)", losses, r.loss_steps, 10, t64.fwd);
    }
    if (t)
        nn_trainer_destroy(t);
    t = NULL;
    if (s != GV_OK) {
        code = s;
        *errp = err;
    }
    const dev_id *devs = a->devs;
    /* each device and dtype: forward, gradients, AdamW moments and update, eval */
    for (int d = 0; d < a->ndev && !code; d++) {
        for (int k = 0; k < a->ndtypes && !code; k++) {
            nn_dtype dt = a->dtypes[k];
            c->device = devs[d].label, c->dtype = nn_dtype_name(dt);
            if (!nn_dtype_on(&devs[d], dt) || dt == NN_FP64)
                continue;
            gv_progress_update(pg, "check: %s %s against %s", c->device, c->dtype, path);
            tolerances tl = tol_of(dt, a->tf32 && devs[d].kind == DEV_GPU);
            int got = 0;
            s = nn_trainer_open(&devs[d], L, check_opts(a, dt, n), &t, &err);
            if (s == GV_OK) {
                s = net_run(t, &r.init, &r.batch, &r.step10, &o, dmasks, &got, &err);
                nn_trainer_destroy(t);
            }
            /* Gradients on the device's own ReLU masks (the same linear piece; see draw_device):
             * the file's gradients follow PyTorch's masks, and an input within the dtype's
             * rounding of zero flips. */
            if (s == GV_OK && got)
                s = masked_ref(L, &r.init, &r.batch, a, dmasks, &rg, &err);
            if (s != GV_OK) {
                code = s;
                *errp = err;
                break;
            }
            const double *gref = got ? rg.grads : r.grads;
            int first = cJSON_GetArraySize(c->arr);
            chk_rel(c, "forward logits (train mode)", o.logits, r.logits, nl, tl.fwd);
            chk_value(c, "forward value (train mode)", o.value, r.value, vs, (size_t)n, tl.fwd);
            chk_rel(c, "loss", &o.loss, &r.loss, 1, tl.fwd);
            chk_grads(c, L, o.grads, gref, vbias_scale, tl.grad);
            /* after one step from zero moments: m = (1-b1) g and v = (1-b2) g^2 */
            double *mv = gv_xmalloc(sizeof(double) * L->nparams);
            for (size_t i = 0; i < L->nparams; i++)
                mv[i] = (1.0 - NN_BETA1) * gref[i];
            chk_rel(c, "adamw m after 1 step", o.after.adam_m, mv, L->nparams, tl.grad);
            for (size_t i = 0; i < L->nparams; i++)
                mv[i] = (1.0 - NN_BETA2) * gref[i] * gref[i];
            chk_rel(c, "adamw v after 1 step", o.after.adam_v, mv, L->nparams, tl.grad);
            free(mv);
            if (got) {
                size_t diff = 0;
                for (size_t i = 0; i < mlen; i++)
                    diff += dmasks[i] != rmasks[i];
                chk_add(c, "relu masks differing from float64", "share", (double)diff / (double)mlen,
                        mask_tolerance(dt, a->tf32 && devs[d].kind == DEV_GPU));
            }
            chk_adamw_update(c, &r.init, &o.after, tl.fwd);
            chk_rel(c, "bn running stats after 1 step", o.after.buffers, r.step1.buffers, L->nbuffers, tl.fwd);
            chk_rel(c, "eval logits (step10 state)", o.eval_logits, r.eval_logits, nl, tl.fwd);
            chk_value(c, "eval value (step10 state)", o.eval_value, r.eval_value, evs, (size_t)n, tl.fwd);
            if (chk_kink_pattern(c, first))
                say(c, 1, "note  %-6s %-4s %-5s only gradient comparisons fail while the forward passes: this "
                    "reference's inputs may put a ReLU input within rounding of zero (a kink, where the gradient "
                    "jumps); try another file (make_reference.py --seed N) before suspecting the device\n", c->device,
                    c->dtype, c->norm);
        }
    }
    net_out_free(&o);
    net_out_free(&rg);
    free(rmasks);
    free(dmasks);
    free(vs);
    free(evs);
    nn_state_free(&st);
    nn_refdata_free(&r);
    return code;
}


gv_status nn_check_run(const nn_check_opts *o, cJSON *rec, nn_check_result *res, gv_err *err)
{
    memset(res, 0, sizeof *res);
    cJSON_AddNumberToObject(rec, "seed", (double)o->seed);
    chk c = {.arr = gv_json_add_arr(rec, "check"), .quiet = o->quiet, .out = o->out};
    say(&c, 0, "check: seed %llu (repeat with --seed %llu)%s\n", (unsigned long long)o->seed,
        (unsigned long long)o->seed, o->fault ? ", fault injected (--inject-fault): failures expected" : "");
    gv_progress pg;
    gv_progress_init(&pg);
    gv_status s = GV_OK;
    if (o->reference) {
        s = check_reference(&c, o, &pg, err);
    } else {
        if (o->gemm_size)
            s = check_gemm(&c, o, &pg, err);
        say(&c, 0, "network: channels %d, blocks %d, batch %d (float64 host path is the reference)\n", o->channels,
            o->blocks, o->batch);
        for (int i = 0; i < o->nnorms && s == GV_OK; i++)
            s = check_net(&c, o->norms[i], o, &pg, err);
    }
    gv_progress_done(&pg);
    if (s == GV_OK && c.n == 0)
        s = gv_fail(err, GV_ERR_INPUT, "nothing was compared (no device runs the dtypes asked for)");
    cJSON *sum = gv_json_add_obj(rec, "check_summary");
    cJSON_AddNumberToObject(sum, "comparisons", c.n);
    cJSON_AddNumberToObject(sum, "failed", c.nfail);
    res->n = c.n;
    res->nfail = c.nfail;
    return s;
}
