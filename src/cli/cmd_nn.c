/* cmd_nn.c: the network's commands: `check` (GEMM and the network's forward, gradients,
 * AdamW step and eval forward on each device against the float64 host path, or against a
 * PyTorch reference file), `soak` (N steps on a fixed batch), `bench train` (samples/s)
 * and `bench matmul` (GFLOP/s). Every device goes through nn_trainer_create and dev_gemm_*,
 * so the GPU backend plugs in unchanged. Exit codes: 0 ok, 1 wrong results, 2 bad usage or
 * input, 3 environment. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/gv.h"
#include "core/progress.h"
#include "core/record.h"
#include "core/rng.h"
#include "core/stats.h"
#include "dev/dev.h"
#include "nn/ckpt.h"
#include "nn/nn.h"
#include "nn/ops.h"
#include "report/report.h"
#include "sys/telemetry.h"

#define MAX_DEV 8

/* ---- shared helpers ---------------------------------------------------------------------- */

static int fail_msg(const char *cmd, gv_status s, const gv_err *err)
{
    fprintf(stderr, "gpuvet %s: %s\n", cmd, err->msg);
    return gv_status_exit(s);
}

static int usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "gpuvet %s: %s\n", cmd, msg);
    return GV_EXIT_USAGE;
}

static double loadavg1(void)
{
    double l[1];
    return getloadavg(l, 1) == 1 ? l[0] : NAN;
}

/* Writes the record when --json was given; returns the exit code to use. */
static int finish(cJSON *rec, int code, const char *json, const char *cmd)
{
    if (json) {
        gv_err err = {{0}};
        if (gv_record_finish_write(rec, code, json, &err) != GV_OK) {
            fprintf(stderr, "gpuvet %s: %s\n", cmd, err.msg);
            code = code ? code : GV_EXIT_ENV;
        }
    }
    cJSON_Delete(rec);
    return code;
}

static int parse_devices(const char *cmd, const char *spec, dev_id *ids, int *n)
{
    gv_err err = {{0}};
    gv_status s = dev_parse_list(spec, ids, MAX_DEV, n, &err);
    return s == GV_OK ? 0 : fail_msg(cmd, s, &err);
}

static int dtype_of(const char *s, nn_dtype *d)
{
    if (!strcmp(s, "fp32"))
        *d = NN_FP32;
    else if (!strcmp(s, "bf16"))
        *d = NN_BF16;
    else if (!strcmp(s, "fp64"))
        *d = NN_FP64;
    else
        return 0;
    return 1;
}

/* Validates a network configuration from the command line; prints the one-line error. */
static int config_ok(const char *cmd, const nn_config *cfg)
{
    gv_err err = {{0}};
    if (nn_config_check(cfg, &err) != GV_OK) {
        char msg[GV_ERRLEN + 32];
        snprintf(msg, sizeof msg, "--channels/--blocks: %s", err.msg);
        usage_error(cmd, msg);
        return 0;
    }
    return 1;
}

/* Does a device train in this dtype? (fp64 and fp32 on the CPU, fp32 and bf16 on a GPU.) */
static int dtype_on(const dev_id *d, nn_dtype dt)
{
    return d->kind == DEV_CPU ? (dt == NN_FP32 || dt == NN_FP64) : (dt == NN_FP32 || dt == NN_BF16);
}

static gv_status trainer_open(const dev_id *d, const nn_layout *L, nn_dtype dt, int max_batch, int threads, int tf32,
                              int fault, nn_trainer **t, gv_err *err)
{
    nn_trainer_opts o = {.dtype = dt, .tf32 = tf32, .max_batch = max_batch, .threads = threads,
                         .device_index = d->index, .fault = fault};
    return nn_trainer_create(d->label, L, &o, t, err);
}

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

static void state_poison(nn_state *s)
{
    const nn_layout *L = s->L;
    fill_nan(s->params, L->nparams);
    fill_nan(s->buffers, L->nbuffers);
    fill_nan(s->adam_m, L->nparams);
    fill_nan(s->adam_v, L->nparams);
    for (int i = 0; i < L->nbn; i++)
        s->num_batches[i] = -1;
    s->adam_step = -1;
}

/* ---- check: comparisons -------------------------------------------------------------------- */

typedef struct {
    cJSON *arr; /* the record's "check" array */
    int n, nfail, quiet;
    const char *device, *dtype, *norm;
} chk;

/* One comparison: a line with the metric, the tolerance and PASS/FAIL (failures even under
 * --quiet) and an entry in the record. NaN never passes. */
static cJSON *chk_add(chk *c, const char *what, const char *metric, double value, double tol)
{
    int pass = value <= tol;
    c->n++;
    c->nfail += !pass;
    if (!c->quiet || !pass)
        printf("%s  %-6s %-4s %-5s %-38s %-7s %10.3e  tolerance %.0e\n", pass ? "PASS" : "FAIL", c->device, c->dtype,
               c->norm, what, metric, value, tol);
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
        const char *w = cJSON_GetObjectItem(e, "what")->valuestring;
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

/* Tolerances per dtype (relative L2 error; GEMM: max |error| / max |C|). */
typedef struct {
    double fwd, grad, gemm;
} tolerances;

static tolerances tol_of(nn_dtype dt, int tf32)
{
    if (dt == NN_FP64)
        return (tolerances){1e-10, 1e-10, 1e-12};
    if (dt == NN_BF16)
        return (tolerances){2e-2, 2e-2, 2e-2};
    if (tf32)
        return (tolerances){5e-3, 1e-2, 5e-3};
    return (tolerances){1e-5, 1e-4, 1e-5};
}

static void chk_grads(chk *c, const nn_layout *L, const double *g, const double *ref, double tol)
{
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        if (t->kind != NN_T_PARAM)
            continue;
        char what[80];
        snprintf(what, sizeof what, "grad %s", t->name);
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
    nn_state_alloc(&o->after, L);
}

static void net_out_free(net_out *o)
{
    free(o->logits), free(o->value), free(o->eval_logits), free(o->eval_value), free(o->grads);
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
    const nn_layout *L = t->L;
    size_t nl = (size_t)b->n * NN_POLICY;
    gv_status s = t->ops->set_batch(t, b, err);
    if (s == GV_OK)
        s = t->ops->set_state(t, s0, err);
    fill_nan(o->logits, nl), fill_nan(o->value, (size_t)b->n), o->loss = NAN;
    if (s == GV_OK)
        s = t->ops->forward(t, 1, o->logits, o->value, &o->loss, err);
    if (s == GV_OK)
        s = t->ops->set_state(t, s0, err);
    fill_nan(o->grads, L->nparams);
    if (s == GV_OK)
        s = t->ops->gradients(t, o->grads, NULL, err);
    if (got_masks)
        *got_masks = 0;
    if (s == GV_OK && masks && t->ops->relu_masks) {
        memset(masks, 2, nn_relu_masks_len(L, b->n)); /* neither 0 nor 1: unwritten bytes show */
        s = t->ops->relu_masks(t, masks, err);
        *got_masks = s == GV_OK;
    }
    if (s == GV_OK)
        s = t->ops->set_state(t, s0, err);
    if (s == GV_OK)
        s = t->ops->step(t, NULL, err);
    state_poison(&o->after);
    if (s == GV_OK)
        s = t->ops->get_state(t, &o->after, err);
    if (s == GV_OK && eval_state)
        s = t->ops->set_state(t, eval_state, err);
    fill_nan(o->eval_logits, nl), fill_nan(o->eval_value, (size_t)b->n);
    if (s == GV_OK)
        s = t->ops->forward(t, 0, o->eval_logits, o->eval_value, NULL, err);
    if (s == GV_OK)
        s = t->ops->sync(t, err);
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
    chk_rel(c, "forward value (train mode)", o->value, r->value, (size_t)o->n, tl.fwd);
    chk_rel(c, "loss", &o->loss, &r->loss, 1, tl.fwd);
    chk_grads(c, L, o->grads, rg->grads, tl.grad);
    chk_rel(c, "adamw m after 1 step", o->after.adam_m, rg->after.adam_m, L->nparams, tl.grad);
    chk_rel(c, "adamw v after 1 step", o->after.adam_v, rg->after.adam_v, L->nparams, tl.grad);
    chk_adamw_update(c, s0, &o->after, tl.fwd);
    chk_add(c, "adamw step count", "steps", fabs((double)o->after.adam_step - (double)r->after.adam_step), 0);
    chk_rel(c, "bn running stats after 1 step", o->after.buffers, r->after.buffers, L->nbuffers, tl.fwd);
    chk_batches(c, "bn num_batches_tracked", &o->after, &r->after);
    chk_rel(c, "eval logits", o->eval_logits, r->eval_logits, nl, tl.fwd);
    chk_rel(c, "eval value", o->eval_value, r->eval_value, (size_t)o->n, tl.fwd);
}

/* ---- check: GEMM ----------------------------------------------------------------------------- */

/* Checks C = A*B (n x n; C given as doubles Cd or floats Cf) against long double dot
 * products at `samples` random entries. Returns the worst |error| / sum |a*b| (INFINITY for
 * NaN). `check` uses it on the host dgemm, so that a wrong BLAS cannot vouch for itself,
 * and `bench matmul` on every result it times. */
static double gemm_sample_error(const float *A, const float *B, const double *Cd, const float *Cf, int n, gv_rng *r,
                                int samples)
{
    double worst = 0;
    for (int s = 0; s < samples; s++) {
        int i = (int)gv_rng_below(r, (uint64_t)n), j = (int)gv_rng_below(r, (uint64_t)n);
        long double acc = 0, mag = 0;
        for (int k = 0; k < n; k++) {
            long double p = (long double)A[(size_t)i * n + k] * B[(size_t)k * n + j];
            acc += p;
            mag += fabsl(p);
        }
        long double c = Cd ? (long double)Cd[(size_t)i * n + j] : (long double)Cf[(size_t)i * n + j];
        double e = (double)(fabsl(c - acc) / (mag > 0 ? mag : 1));
        if (!(e <= worst))
            worst = e;
    }
    return worst;
}

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
        if (!c->quiet)
            printf("SKIP  %-6s %-4s %-5s %-38s %s\n", c->device, dev_gemm_dtype_name(dt), "-", what, err.msg);
        return;
    }
    size_t nn = (size_t)size * size;
    float *C = malloc(sizeof(float) * nn);
    double secs = 0;
    if (!C) {
        dev_gemm_close(g);
        fprintf(stderr, "gpuvet check: out of memory for the GEMM check\n");
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
        fprintf(stderr, "gpuvet check: %s gemm: %s\n", d->label, err.msg);
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
    if (!c->quiet)
        printf("      %-6s max |error| %.3e, max |C| %.3e, relative %.3e (%.2f s)\n", "", maxerr, maxc, maxerr / maxc,
               secs);
    free(C);
    dev_gemm_close(g);
}

/* The GEMM part of check: float64 reference on the host, verified by long double samples,
 * then every device and GEMM dtype against it. */
static int check_gemm(chk *c, const dev_id *devs, int ndev, const args_str_list *dtypes, int tf32, int size,
                      uint64_t seed, int threads, gv_progress *pg)
{
    size_t nn = (size_t)size * size;
    float *A = malloc(sizeof(float) * nn), *B = malloc(sizeof(float) * nn);
    double *Ad = malloc(sizeof(double) * nn), *Bd = malloc(sizeof(double) * nn), *Cd = malloc(sizeof(double) * nn);
    if (!A || !B || !Ad || !Bd || !Cd) {
        free(A), free(B), free(Ad), free(Bd), free(Cd);
        fprintf(stderr, "gpuvet check: out of memory for a %dx%d GEMM check (try --gemm-size 1024)\n", size, size);
        return GV_EXIT_ENV;
    }
    gv_rng r;
    gv_rng_seed(&r, seed ^ 0x6e6d6d);
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
    chk_add(c, what, "max_rel", gemm_sample_error(A, B, Cd, NULL, size, &r, 256), 1e-12);
    for (int d = 0; d < ndev; d++) {
        c->device = devs[d].label;
        for (int k = 0; k < dtypes->n; k++) {
            nn_dtype nd;
            dtype_of(dtypes->v[k], &nd);
            int tf = tf32 && devs[d].kind == DEV_GPU; /* TF32 is a GPU matrix-unit mode */
            dev_gemm_dtype gd = nd == NN_BF16 ? DEV_GEMM_BF16 : tf ? DEV_GEMM_TF32 : DEV_GEMM_FP32;
            gv_progress_update(pg, "check: %s GEMM %s", devs[d].label, dev_gemm_dtype_name(gd));
            chk_gemm(c, &devs[d], gd, size, A, B, Cd, threads, tol_of(nd, tf).gemm);
        }
    }
    free(A), free(B), free(Ad), free(Bd), free(Cd);
    return 0;
}

/* ---- check: the network ---------------------------------------------------------------------- */

typedef struct {
    int channels, blocks, batch, threads, tf32, fault;
    uint64_t seed;
} net_args;

/* One draw of the network check: a state and a batch from a seed, and the float64 host
 * path's outputs on them with its own ReLU masks. */
typedef struct {
    nn_layout L;
    nn_state s0;
    nn_batch b;
    net_out ref;
    uint8_t *masks; /* the float64 path's ReLU masks */
} net_draw;

static gv_status draw_make(net_draw *d, nn_norm norm, const net_args *a, gv_err *err)
{
    nn_config cfg = {a->channels, a->blocks, norm};
    nn_layout_init(&d->L, &cfg);
    nn_state_alloc(&d->s0, &d->L);
    nn_state_init_random(&d->s0, a->seed);
    perturb_state(&d->s0, a->seed + 7);
    nn_batch_alloc(&d->b, a->batch);
    nn_batch_random(&d->b, a->seed + 1);
    net_out_alloc(&d->ref, &d->L, d->b.n);
    d->masks = gv_xmalloc(nn_relu_masks_len(&d->L, d->b.n));
    nn_trainer *t;
    int got = 0;
    gv_status s = trainer_open(&(dev_id){DEV_CPU, 0, "cpu"}, &d->L, NN_FP64, d->b.n, a->threads, 0, 0, &t, err);
    if (s == GV_OK) {
        s = net_run(t, &d->s0, &d->b, NULL, &d->ref, d->masks, &got, err);
        nn_trainer_destroy(t);
    }
    if (s == GV_OK && !got)
        s = gv_fail(err, GV_ERR_ENV, "the float64 path did not report its ReLU masks");
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
static gv_status masked_ref(const nn_layout *L, const nn_state *s0, const nn_batch *b, const net_args *a,
                            const uint8_t *masks, net_out *rg, gv_err *err)
{
    nn_trainer *t;
    gv_status s = trainer_open(&(dev_id){DEV_CPU, 0, "cpu"}, L, NN_FP64, b->n, a->threads, 0, 0, &t, err);
    if (s != GV_OK)
        return s;
    s = nn_ref_follow_masks(t, masks, b->n, err);
    if (s == GV_OK)
        s = t->ops->set_batch(t, b, err);
    if (s == GV_OK)
        s = t->ops->set_state(t, s0, err);
    if (s == GV_OK)
        s = t->ops->gradients(t, rg->grads, NULL, err);
    if (s == GV_OK)
        s = t->ops->set_state(t, s0, err);
    if (s == GV_OK)
        s = t->ops->step(t, NULL, err);
    if (s == GV_OK)
        s = t->ops->get_state(t, &rg->after, err);
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
static gv_status draw_device(chk *c, const net_draw *d, const dev_id *dev, nn_dtype dt, const net_args *a, gv_err *err)
{
    net_out o, rg;
    nn_trainer *t;
    int tf = a->tf32 && dev->kind == DEV_GPU, got = 0;
    size_t mlen = nn_relu_masks_len(&d->L, d->b.n);
    uint8_t *masks = gv_xmalloc(mlen);
    net_out_alloc(&o, &d->L, d->b.n);
    net_out_alloc(&rg, &d->L, d->b.n);
    gv_status s = trainer_open(dev, &d->L, dt, d->b.n, a->threads, a->tf32, a->fault, &t, err);
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
        } else if (!c->quiet) {
            printf("note  %-6s %-4s %-5s this backend does not report its ReLU masks: gradients are compared with "
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
static int check_net(chk *c, const dev_id *devs, int ndev, const args_str_list *dtypes, nn_norm norm,
                     const net_args *a, gv_progress *pg)
{
    net_draw d = {0};
    gv_err err = {{0}};
    c->norm = nn_norm_name(norm);
    gv_progress_update(pg, "check: float64 host path, %s norm", c->norm);
    gv_status s = draw_make(&d, norm, a, &err);
    for (int i = 0; i < ndev && s == GV_OK; i++) {
        for (int k = 0; k < dtypes->n && s == GV_OK; k++) {
            nn_dtype dt;
            dtype_of(dtypes->v[k], &dt);
            c->device = devs[i].label, c->dtype = dtypes->v[k];
            if (!dtype_on(&devs[i], dt)) {
                if (!c->quiet)
                    printf("SKIP  %-6s %-4s %-5s the %s trains in %s; no %s path to check\n", c->device, c->dtype,
                           c->norm, devs[i].kind == DEV_CPU ? "CPU" : "GPU",
                           devs[i].kind == DEV_CPU ? "fp64 and fp32" : "fp32 and bf16", c->dtype);
                continue;
            }
            gv_progress_update(pg, "check: %s %s, %s norm", c->device, c->dtype, c->norm);
            s = draw_device(c, &d, &devs[i], dt, a, &err);
        }
    }
    draw_free(&d);
    return s == GV_OK ? 0 : fail_msg("check", s, &err);
}

/* check --reference FILE: the float64 path, then each device and dtype, against a PyTorch
 * reference file. */
static int check_reference(chk *c, const char *path, const dev_id *devs, int ndev, const args_str_list *dtypes,
                           const net_args *a, gv_progress *pg)
{
    nn_refdata r;
    gv_err err = {{0}};
    gv_status s = nn_refdata_load(&r, path, &err);
    if (s != GV_OK)
        return fail_msg("check", s, &err);
    const nn_layout *L = &r.L;
    int n = r.batch.n, code = 0;
    size_t nl = (size_t)n * NN_POLICY;
    if (!c->quiet)
        printf("reference %s: channels %d, blocks %d, %s norm, batch %d\n", path, r.cfg.channels, r.cfg.blocks,
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
    s = trainer_open(&(dev_id){DEV_CPU, 0, "cpu"}, L, NN_FP64, n, a->threads, 0, 0, &t, &err);
    if (s == GV_OK)
        s = net_run(t, &r.init, &r.batch, &r.step10, &o, rmasks, &rgot, &err);
    if (s == GV_OK && !rgot)
        memset(rmasks, 0, mlen);
    double losses[10];
    fill_nan(losses, 10);
    if (s == GV_OK) {
        chk_rel(c, "forward logits (train mode)", o.logits, r.logits, nl, t64.fwd);
        chk_rel(c, "forward value (train mode)", o.value, r.value, (size_t)n, t64.fwd);
        chk_rel(c, "loss", &o.loss, &r.loss, 1, t64.fwd);
        chk_grads(c, L, o.grads, r.grads, t64.grad);
        chk_rel(c, "eval logits (step10 state)", o.eval_logits, r.eval_logits, nl, t64.fwd);
        chk_rel(c, "eval value (step10 state)", o.eval_value, r.eval_value, (size_t)n, t64.fwd);
        s = t->ops->set_state(t, &r.init, &err);
        for (int k = 0; k < 10 && s == GV_OK; k++) {
            s = t->ops->step(t, &losses[k], &err);
            if (s == GV_OK && (k == 0 || k == 9)) {
                const nn_state *want = k ? &r.step10 : &r.step1;
                state_poison(&st);
                s = t->ops->get_state(t, &st, &err);
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
    if (s != GV_OK)
        code = fail_msg("check", s, &err);
    /* each device and dtype: forward, gradients, AdamW moments and update, eval */
    for (int d = 0; d < ndev && !code; d++) {
        for (int k = 0; k < dtypes->n && !code; k++) {
            nn_dtype dt;
            dtype_of(dtypes->v[k], &dt);
            c->device = devs[d].label, c->dtype = dtypes->v[k];
            if (!dtype_on(&devs[d], dt) || dt == NN_FP64)
                continue;
            gv_progress_update(pg, "check: %s %s against %s", c->device, c->dtype, path);
            tolerances tl = tol_of(dt, a->tf32 && devs[d].kind == DEV_GPU);
            int got = 0;
            s = trainer_open(&devs[d], L, dt, n, a->threads, a->tf32, a->fault, &t, &err);
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
                code = fail_msg("check", s, &err);
                break;
            }
            const double *gref = got ? rg.grads : r.grads;
            int first = cJSON_GetArraySize(c->arr);
            chk_rel(c, "forward logits (train mode)", o.logits, r.logits, nl, tl.fwd);
            chk_rel(c, "forward value (train mode)", o.value, r.value, (size_t)n, tl.fwd);
            chk_rel(c, "loss", &o.loss, &r.loss, 1, tl.fwd);
            chk_grads(c, L, o.grads, gref, tl.grad);
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
            chk_rel(c, "eval value (step10 state)", o.eval_value, r.eval_value, (size_t)n, tl.fwd);
            if (chk_kink_pattern(c, first))
                printf("note  %-6s %-4s %-5s only gradient comparisons fail while the forward passes: this reference's "
                       "inputs may put a ReLU input within rounding of zero (a kink, where the gradient jumps); try "
                       "another file (make_reference.py --seed N) before suspecting the device\n", c->device, c->dtype,
                       c->norm);
        }
    }
    net_out_free(&o);
    net_out_free(&rg);
    free(rmasks);
    free(dmasks);
    nn_state_free(&st);
    nn_refdata_free(&r);
    return code;
}

int cmd_check(int argc, char **argv)
{
    args_common com = {0};
    args_str_list dtypes = {0}, norms = {0};
    long channels = 64, blocks = 2, batch = 16, gemm = 4096, threads = 0, seed = -1;
    int tf32 = 0, fault = 0;
    const char *reference = NULL;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        {"--dtype", ARGS_CHOICE_LIST, &dtypes, "LIST", "dtypes to check: fp32, bf16 (default fp32,bf16; the CPU checks fp32)", 0, 0, 0, 0, "fp32,bf16"},
        {"--tf32", ARGS_FLAG, &tf32, NULL, "let fp32 use TF32 matrix units on the GPU (tolerances become 5e-3/1e-2)", 0, 0, 0, 0, NULL},
        {"--norm", ARGS_CHOICE_LIST, &norms, "LIST", "norms to check: group, batch (default group,batch)", 0, 0, 0, 0, "group,batch"},
        {"--channels", ARGS_INT, &channels, "C", "channels, a multiple of 8 (default 64)", 1, 4096, 0, 0, NULL},
        {"--blocks", ARGS_INT, &blocks, "N", "residual blocks (default 2)", 0, 64, 0, 0, NULL},
        {"--batch", ARGS_INT, &batch, "N", "batch size of the network check (default 16)", 1, 65536, 0, 0, NULL},
        {"--gemm-size", ARGS_INT, &gemm, "N", "size of the square GEMM check, 0 skips it (default 4096)", 0, 16384, 0, 0, NULL},
        {"--seed", ARGS_INT, &seed, "N", "seed of the inputs (default: fresh each run, printed)", 0, (1L << 62), 0, 0, NULL},
        {"--reference", ARGS_STR, &reference, "FILE", "check against a PyTorch reference file (format of ../shared/ref/)", 0, 0, 0, 0, NULL},
        {"--threads", ARGS_INT, &threads, "N", "CPU threads (default: all cores)", 0, 1024, 0, 0, NULL},
        {"--inject-fault", ARGS_FLAG, &fault, NULL, "test hook: a kernel skips part of its output, so the check must fail", 0, 0, 0, 0, NULL},
    };
    int code;
    if (!cli_parse("check", "gpuvet check [--devices cpu,cuda] [--reference FILE] [options]",
                   "Checks each device's results against the float64 host path: a square float32 GEMM (the\n"
                   "float64 reference is itself verified by long double samples), then the Drop7 network's\n"
                   "training-mode forward, loss, every gradient, one AdamW step and the eval-mode forward,\n"
                   "for GroupNorm and BatchNorm. Gradients are compared on the device's own ReLU masks\n"
                   "(docs/NN.md). Each line prints the metric, the tolerance and PASS/FAIL; the exit code\n"
                   "is 1 when any comparison fails. Inputs are drawn fresh each run.",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, NULL, 0, NULL, &com.quiet, &code))
        return code;
    if (!dtypes.n)
        dtypes = (args_str_list){2, {"fp32", "bf16"}};
    if (!norms.n)
        norms = (args_str_list){2, {"group", "batch"}};
    nn_config cfg = {(int)channels, (int)blocks, NN_NORM_GROUP};
    if (!config_ok("check", &cfg))
        return GV_EXIT_USAGE;
    dev_id devs[MAX_DEV];
    int ndev;
    if ((code = parse_devices("check", com.devices, devs, &ndev)))
        return code;
    uint64_t sd = seed >= 0 ? (uint64_t)seed : gv_rng_fresh_seed() >> 2;
    cJSON *rec = gv_record_new("check", argc, argv);
    cJSON_AddNumberToObject(rec, "seed", (double)sd);
    chk c = {.arr = gv_json_add_arr(rec, "check"), .quiet = com.quiet};
    if (!com.quiet)
        printf("check: seed %llu (repeat with --seed %llu)%s\n", (unsigned long long)sd, (unsigned long long)sd,
               fault ? ", fault injected (--inject-fault): failures expected" : "");
    gv_progress pg;
    gv_progress_init(&pg);
    net_args na = {(int)channels, (int)blocks, (int)batch, (int)threads, tf32, fault, sd};
    if (reference) {
        code = check_reference(&c, reference, devs, ndev, &dtypes, &na, &pg);
    } else {
        code = gemm ? check_gemm(&c, devs, ndev, &dtypes, tf32, (int)gemm, sd, (int)threads, &pg) : 0;
        if (!com.quiet)
            printf("network: channels %ld, blocks %ld, batch %ld (float64 host path is the reference)\n", channels,
                   blocks, batch);
        for (int i = 0; i < norms.n && !code; i++)
            code = check_net(&c, devs, ndev, &dtypes, strcmp(norms.v[i], "batch") ? NN_NORM_GROUP : NN_NORM_BATCH,
                             &na, &pg);
    }
    gv_progress_done(&pg);
    if (!code && c.n == 0) {
        fprintf(stderr, "gpuvet check: nothing was compared (no device runs the dtypes asked for)\n");
        code = GV_EXIT_USAGE;
    }
    if (!code) {
        printf("check: %d comparisons, %d failed\n", c.n, c.nfail);
        code = c.nfail ? GV_EXIT_FAIL : GV_EXIT_OK;
    }
    cJSON *sum = gv_json_add_obj(rec, "check_summary");
    cJSON_AddNumberToObject(sum, "comparisons", c.n);
    cJSON_AddNumberToObject(sum, "failed", c.nfail);
    return finish(rec, code, com.json, "check");
}

/* ---- telemetry ------------------------------------------------------------------------------------ */

/* Starts the sampler for a measuring command: the first GPU of the device list (if any) is
 * sampled along with the host. */
static gv_telemetry *telemetry_for(const dev_id *devs, int ndev, double hz)
{
    int gpu = -1;
    for (int i = 0; i < ndev && gpu < 0; i++)
        if (devs[i].kind == DEV_GPU)
            gpu = devs[i].index;
    gv_telemetry_opts o = {hz, gpu, NULL, NULL};
    return gv_telemetry_start(&o);
}

/* "  telemetry: ..." under a table row, from the phase that just ended. */
static void telemetry_line(gv_telemetry *tel)
{
    char line[512];
    gv_telemetry_last_phase_line(tel, line, sizeof line);
    if (line[0] && !gv_quiet)
        printf("       telemetry: %s%s\n", line, gv_telemetry_last_phase_throttled(tel) ? " (THROTTLED)" : "");
}

/* Ends a benchmark's record: the telemetry series and summaries, then the verdicts. */
static void bench_finish_record(cJSON *rec, gv_telemetry *tel)
{
    gv_telemetry_stop(tel, rec);
    report_add_verdicts(rec);
    report_print_verdicts(rec, stdout);
}

/* ---- soak ----------------------------------------------------------------------------------------- */

/* Finds a non-finite parameter, AdamW moment or running stat: returns 1 and describes it
 * in what (tensor name and index), or 0 when everything is finite. */
static int state_nonfinite(const nn_state *s, char *what, size_t len)
{
    const nn_layout *L = s->L;
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        if (t->kind == NN_T_NUM_BATCHES)
            continue;
        for (size_t k = 0; k < t->numel; k++) {
            size_t o = t->offset + k;
            const char *bad = NULL;
            if (t->kind != NN_T_PARAM)
                bad = isfinite(s->buffers[o]) ? NULL : "value";
            else
                bad = !isfinite(s->params[o]) ? "value" : !isfinite(s->adam_m[o]) ? "AdamW m" : !isfinite(s->adam_v[o]) ? "AdamW v" : NULL;
            if (bad) {
                snprintf(what, len, "%s of %s[%zu]", bad, t->name, k);
                return 1;
            }
        }
    }
    return 0;
}

typedef struct {
    long steps, threads;
    double min_drop;
    int batch;
    uint64_t seed;
    const char *save;
} soak_args;

/* One soak run on device d: returns an exit code; the run's record into e. */
static int soak_one(const dev_id *d, nn_dtype dt, const nn_layout *L, const nn_state *s0, const soak_args *a,
                    cJSON *e, int quiet)
{
    gv_err err = {{0}};
    nn_trainer *t;
    gv_status s = trainer_open(d, L, dt, a->batch, (int)a->threads, 0, 0, &t, &err);
    if (s != GV_OK)
        return fail_msg("soak", s, &err);
    nn_batch b;
    nn_batch_alloc(&b, a->batch);
    nn_batch_random(&b, a->seed + 1);
    nn_state st;
    nn_state_alloc(&st, L);
    double *curve = gv_xmalloc(sizeof(double) * (size_t)a->steps);
    fill_nan(curve, (size_t)a->steps);
    s = t->ops->set_state(t, s0, &err);
    if (s == GV_OK)
        s = t->ops->set_batch(t, &b, &err);
    gv_progress pg;
    gv_progress_init(&pg);
    int finite = 1;
    long bad_step = -1;
    char bad_what[160] = "the loss";
    double t0 = gv_now();
    for (long i = 0; i < a->steps && s == GV_OK; i++) {
        s = t->ops->step(t, &curve[i], &err);
        if (s == GV_OK && !isfinite(curve[i])) {
            finite = 0, bad_step = i;
            break;
        }
        if (s == GV_OK && ((i + 1) % 50 == 0 || i + 1 == a->steps)) {
            state_poison(&st);
            s = t->ops->get_state(t, &st, &err);
            if (s == GV_OK && state_nonfinite(&st, bad_what, sizeof bad_what)) {
                finite = 0, bad_step = i;
                break;
            }
        }
        gv_progress_update(&pg, "soak %s %s: step %ld/%ld, loss %.4f", d->label, nn_dtype_name(dt), i + 1, a->steps,
                           curve[i]);
    }
    double secs = gv_now() - t0;
    gv_progress_done(&pg);
    int code = 0;
    if (s != GV_OK) {
        code = fail_msg("soak", s, &err);
    } else {
        double first = curve[0], last = finite ? curve[a->steps - 1] : NAN;
        double ratio = first / last;
        int pass = finite && ratio >= a->min_drop;
        printf("soak %s %s: %ld steps in %.1f s, loss %.4f -> %.4f (fell %.1fx, need %.0fx), %s: %s\n", d->label,
               nn_dtype_name(dt), a->steps, secs, first, last, ratio, a->min_drop,
               finite ? "all finite" : "NON-FINITE", pass ? "PASS" : "FAIL");
        if (!finite)
            printf("soak %s: non-finite %s after step %ld\n", d->label, bad_what, bad_step + 1);
        cJSON_AddStringToObject(e, "device", d->label);
        cJSON_AddStringToObject(e, "dtype", nn_dtype_name(dt));
        cJSON_AddNumberToObject(e, "channels", L->cfg.channels);
        cJSON_AddNumberToObject(e, "blocks", L->cfg.blocks);
        cJSON_AddStringToObject(e, "norm", nn_norm_name(L->cfg.norm));
        cJSON_AddNumberToObject(e, "batch", a->batch);
        cJSON_AddNumberToObject(e, "steps", (double)a->steps);
        cJSON_AddNumberToObject(e, "seed", (double)a->seed);
        gv_json_add_num(e, "loss_first", first);
        gv_json_add_num(e, "loss_last", last);
        gv_json_add_num(e, "loss_ratio", ratio);
        cJSON_AddNumberToObject(e, "min_drop", a->min_drop);
        cJSON_AddBoolToObject(e, "finite", finite);
        if (!finite) {
            cJSON_AddNumberToObject(e, "nonfinite_step", (double)bad_step + 1);
            cJSON_AddStringToObject(e, "nonfinite_what", bad_what);
        }
        cJSON_AddBoolToObject(e, "pass", pass);
        gv_json_add_num(e, "seconds", secs);
        cJSON_AddItemToObject(e, "curve", gv_json_doubles(curve, (int)a->steps));
        code = pass ? GV_EXIT_OK : GV_EXIT_FAIL;
        if (a->save && finite) {
            s = t->ops->get_state(t, &st, &err);
            if (s == GV_OK)
                s = nn_ckpt_save(a->save, &st, dt == NN_FP64 ? NN_ST_F64 : NN_ST_F32, &err);
            if (s != GV_OK)
                code = fail_msg("soak", s, &err);
            else if (!quiet)
                printf("soak: saved the trained state_dict to %s\n", a->save);
        }
    }
    free(curve);
    nn_state_free(&st);
    nn_batch_free(&b);
    nn_trainer_destroy(t);
    return code;
}

int cmd_soak(int argc, char **argv)
{
    args_common com = {0};
    args_str_list dtypes = {0};
    long channels = -1, blocks = -1, batch = 256, steps = 200, threads = 0, seed = 1;
    double min_drop = 10, hz = 0;
    const char *norm = NULL, *init = NULL, *save = NULL;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--dtype", ARGS_CHOICE_LIST, &dtypes, "LIST", "fp32, bf16 (GPU) or fp64 (CPU) (default fp32)", 0, 0, 0, 0, "fp64,fp32,bf16"},
        {"--channels", ARGS_INT, &channels, "C", "channels, a multiple of 8 (default 64)", 1, 4096, 0, 0, NULL},
        {"--blocks", ARGS_INT, &blocks, "N", "residual blocks (default 2)", 0, 64, 0, 0, NULL},
        {"--norm", ARGS_CHOICE, &norm, "NORM", "group or batch (default group)", 0, 0, 0, 0, "group,batch"},
        {"--batch", ARGS_INT, &batch, "N", "the fixed batch's size (default 256)", 1, 1 << 20, 0, 0, NULL},
        {"--steps", ARGS_INT, &steps, "N", "AdamW steps (default 200)", 1, 1000000, 0, 0, NULL},
        {"--min-drop", ARGS_DOUBLE, &min_drop, "X", "the loss must fall by this factor (default 10)", 0, 0, 1, 1e12, NULL},
        {"--seed", ARGS_INT, &seed, "N", "seed of the weights and the batch (default 1)", 0, (1L << 62), 0, 0, NULL},
        {"--init", ARGS_STR, &init, "FILE", "start from a checkpoint (safetensors, PyTorch state_dict names)", 0, 0, 0, 0, NULL},
        {"--save", ARGS_STR, &save, "FILE", "write the trained state_dict as safetensors (atomically)", 0, 0, 0, 0, NULL},
        {"--threads", ARGS_INT, &threads, "N", "CPU threads (default: all cores)", 0, 1024, 0, 0, NULL},
    };
    int code;
    if (!cli_parse("soak", "gpuvet soak [--devices cpu,cuda] [--channels C] [--batch N] [--steps N] [options]",
                   "Trains the Drop7 network on one fixed batch for N AdamW steps on each device. Fails\n"
                   "(exit 1) when a parameter, moment or the loss becomes non-finite, or when the loss does\n"
                   "not fall by --min-drop. Prints the first and last loss; the loss curve goes to --json.\n"
                   "Defaults (channels 64, blocks 2, batch 256, 200 steps) take about half a minute on two\n"
                   "CPU cores.",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, NULL, 0, NULL, &com.quiet, &code))
        return code;
    if (!dtypes.n)
        dtypes = (args_str_list){1, {"fp32"}};
    nn_config cfg = {channels < 0 ? 64 : (int)channels, blocks < 0 ? 2 : (int)blocks,
                     norm && !strcmp(norm, "batch") ? NN_NORM_BATCH : NN_NORM_GROUP};
    nn_st_file f = {0};
    gv_err err = {{0}};
    if (init) {
        nn_config fc;
        gv_status s = nn_ckpt_open(init, &f, &fc, &err);
        if (s != GV_OK)
            return fail_msg("soak", s, &err);
        if ((channels >= 0 && channels != fc.channels) || (blocks >= 0 && blocks != fc.blocks) ||
            (norm && strcmp(norm, nn_norm_name(fc.norm)))) {
            nn_st_free(&f);
            snprintf(err.msg, sizeof err.msg, "--init %s holds channels %d, blocks %d, %s norm: drop the flags that "
                     "differ", init, fc.channels, fc.blocks, nn_norm_name(fc.norm));
            return usage_error("soak", err.msg);
        }
        cfg = fc;
    }
    if (!config_ok("soak", &cfg)) {
        nn_st_free(&f);
        return GV_EXIT_USAGE;
    }
    dev_id devs[MAX_DEV];
    int ndev;
    if ((code = parse_devices("soak", com.devices, devs, &ndev))) {
        nn_st_free(&f);
        return code;
    }
    if (save && ndev * dtypes.n != 1) {
        nn_st_free(&f);
        return usage_error("soak", "--save needs a single device and dtype (one trained state to write)");
    }
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s0;
    nn_state_alloc(&s0, &L);
    nn_state_init_random(&s0, (uint64_t)seed);
    if (init) {
        gv_status s = nn_ckpt_read_state(&f, "", &s0, &err);
        nn_st_free(&f);
        if (s != GV_OK) {
            nn_state_free(&s0);
            nn_layout_free(&L);
            return fail_msg("soak", s, &err);
        }
    }
    cJSON *rec = gv_record_new("soak", argc, argv);
    gv_telemetry *tel = telemetry_for(devs, ndev, hz);
    cJSON *runs = gv_json_add_arr(rec, "soak_runs");
    soak_args sa = {steps, threads, min_drop, (int)batch, (uint64_t)seed, save};
    if (!com.quiet)
        printf("soak: channels %d, blocks %d, %s norm, batch %ld, %ld steps%s%s\n", cfg.channels, cfg.blocks,
               nn_norm_name(cfg.norm), batch, steps, init ? ", from " : "", init ? init : "");
    code = 0;
    int worst = 0;
    for (int d = 0; d < ndev && code != GV_EXIT_USAGE && code != GV_EXIT_ENV; d++)
        for (int k = 0; k < dtypes.n; k++) {
            nn_dtype dt;
            dtype_of(dtypes.v[k], &dt);
            if (!dtype_on(&devs[d], dt)) {
                printf("soak %s %s: skipped (this device trains in %s)\n", devs[d].label, dtypes.v[k],
                       devs[d].kind == DEV_CPU ? "fp64 and fp32" : "fp32 and bf16");
                continue;
            }
            cJSON *e = cJSON_CreateObject();
            char phase[64];
            snprintf(phase, sizeof phase, "soak %s %s", devs[d].label, nn_dtype_name(dt));
            gv_telemetry_phase_begin(tel, phase);
            code = soak_one(&devs[d], dt, &L, &s0, &sa, e, com.quiet);
            gv_telemetry_phase_end(tel, (double)sa.batch * (double)sa.steps);
            cJSON_AddStringToObject(e, "telemetry_phase", phase);
            telemetry_line(tel);
            cJSON_AddItemToArray(runs, e);
            if (!cJSON_GetObjectItem(rec, "soak"))
                cJSON_AddItemReferenceToObject(rec, "soak", e);
            if (code > worst)
                worst = code;
            if (code == GV_EXIT_USAGE || code == GV_EXIT_ENV)
                break;
        }
    if (!cJSON_GetArraySize(runs) && !worst) {
        fprintf(stderr, "gpuvet soak: no device trains in the dtypes asked for\n");
        worst = GV_EXIT_USAGE;
    }
    nn_state_free(&s0);
    nn_layout_free(&L);
    gv_telemetry_stop(tel, rec);
    return finish(rec, worst, com.json, "soak");
}

/* ---- bench train ------------------------------------------------------------------------------------ */

typedef struct {
    long blocks, repeats, steps, warmup, threads;
    int tf32;
    uint64_t seed;
} bench_args;

/* Times one configuration: warm-up (untimed), then `repeats` timed runs of `steps` steps,
 * synchronised before each clock read. Fills e; returns an exit code. */
static int bench_one(const dev_id *d, nn_dtype dt, int channels, nn_norm norm, int batch, const bench_args *a,
                     cJSON *e, double *median_out, gv_progress *pg, gv_telemetry *tel)
{
    nn_config cfg = {channels, (int)a->blocks, norm};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s0;
    nn_state_alloc(&s0, &L);
    nn_state_init_random(&s0, a->seed);
    nn_batch b;
    nn_batch_alloc(&b, batch);
    nn_batch_random(&b, a->seed + 1);
    gv_err err = {{0}};
    nn_trainer *t = NULL;
    gv_status s = trainer_open(d, &L, dt, batch, (int)a->threads, a->tf32, 0, &t, &err);
    if (s == GV_OK)
        s = t->ops->set_state(t, &s0, &err);
    if (s == GV_OK)
        s = t->ops->set_batch(t, &b, &err);
    double tw = gv_now(), loss = NAN;
    for (long i = 0; i < a->warmup && s == GV_OK; i++) {
        gv_progress_update(pg, "bench train %s C=%d batch %d: warm-up step %ld", d->label, channels, batch, i + 1);
        s = t->ops->step(t, &loss, &err);
    }
    if (s == GV_OK)
        s = t->ops->sync(t, &err);
    /* steps per repeat: given, or enough for about half a second per repeat (measured on one
     * more untimed step when there was no warm-up) */
    long steps = a->steps;
    if (s == GV_OK && steps <= 0) {
        /* On the GPU the first step also captures the step's graph and sets up the BLAS, so
         * one more step after the warm-up gives the step time. */
        if (a->warmup == 0 || d->kind == DEV_GPU) {
            tw = gv_now();
            s = t->ops->step(t, &loss, &err);
            if (s == GV_OK)
                s = t->ops->sync(t, &err);
        }
        double per = (gv_now() - tw) / (double)(a->warmup > 0 && d->kind != DEV_GPU ? a->warmup : 1);
        steps = per > 0 ? (long)ceil(0.5 / per) : 1;
        steps = steps < 1 ? 1 : steps > 1000 ? 1000 : steps;
    }
    double *rate = gv_xcalloc((size_t)a->repeats, sizeof(double)), *secs = gv_xcalloc((size_t)a->repeats, sizeof(double));
    char phase[96];
    snprintf(phase, sizeof phase, "%s %s %s c%d b%d", d->label, nn_dtype_name(dt), nn_norm_name(norm), channels, batch);
    gv_telemetry_phase_begin(tel, phase);
    for (long r = 0; r < a->repeats && s == GV_OK; r++) {
        gv_progress_update(pg, "bench train %s C=%d batch %d: repeat %ld/%ld (%ld steps)", d->label, channels, batch,
                           r + 1, a->repeats, steps);
        double t0 = gv_now();
        for (long i = 0; i < steps && s == GV_OK; i++)
            s = t->ops->step(t, NULL, &err);
        if (s == GV_OK)
            s = t->ops->sync(t, &err);
        secs[r] = gv_now() - t0;
        rate[r] = (double)batch * (double)steps / secs[r];
    }
    gv_telemetry_phase_end(tel, (double)batch * (double)steps * (double)a->repeats);
    if (s == GV_OK && !isfinite(loss)) {
        s = gv_fail(&err, GV_ERR_WRONG, "%s %s: the warm-up loss is not finite", d->label, nn_dtype_name(dt));
    }
    int code = 0;
    if (s != GV_OK) {
        code = fail_msg("bench train", s, &err);
    } else {
        gv_stats st, ts;
        gv_stats_compute(rate, (int)a->repeats, &st);
        gv_stats_compute(secs, (int)a->repeats, &ts);
        *median_out = st.median;
        cJSON_AddStringToObject(e, "device", d->label);
        cJSON_AddStringToObject(e, "impl", "gpuvet");
        cJSON_AddNumberToObject(e, "channels", channels);
        cJSON_AddNumberToObject(e, "blocks", (double)a->blocks);
        cJSON_AddStringToObject(e, "norm", nn_norm_name(norm));
        cJSON_AddStringToObject(e, "dtype", nn_dtype_name(dt));
        cJSON_AddBoolToObject(e, "tf32", a->tf32 && d->kind == DEV_GPU && dt == NN_FP32);
        cJSON_AddNumberToObject(e, "batch", batch);
        cJSON_AddNumberToObject(e, "steps", (double)steps);
        cJSON_AddNumberToObject(e, "repeats", (double)a->repeats);
        cJSON_AddNumberToObject(e, "warmup_steps", (double)a->warmup);
        cJSON_AddNumberToObject(e, "threads", a->threads > 0 ? (double)a->threads : gv_cpu_count());
        cJSON_AddNumberToObject(e, "samples_per_s_best", st.max);
        cJSON_AddNumberToObject(e, "samples_per_s_median", st.median);
        cJSON_AddNumberToObject(e, "samples_per_s_max", st.max);
        cJSON_AddNumberToObject(e, "samples_per_s_min", st.min);
        cJSON_AddNumberToObject(e, "cv", ts.cv);
        cJSON_AddNumberToObject(e, "step_ms_median", 1000.0 * ts.median / (double)steps);
        cJSON_AddItemToObject(e, "samples_per_s", gv_json_doubles(rate, (int)a->repeats));
        gv_json_add_num(e, "loss_warmup", loss);
        cJSON_AddStringToObject(e, "telemetry_phase", phase);
        if (d->kind == DEV_GPU) {
            dev_gpu_info gi;
            gv_err e2 = {{0}};
            size_t peak = t->ops->peak_bytes(t);
            gv_json_add_num(e, "peak_device_bytes", peak ? (double)peak : NAN);
            if (dev_gpu_query(d->index, &gi, &e2) == GV_OK && gi.mem_total) {
                cJSON_AddNumberToObject(e, "device_pool_bytes", (double)gi.mem_total);
                gv_json_add_num(e, "peak_share", peak ? (double)peak / (double)gi.mem_total : NAN);
            }
        } else {
            cJSON_AddNullToObject(e, "peak_device_bytes");
            cJSON_AddNumberToObject(e, "host_bytes", (double)t->ops->peak_bytes(t));
        }
    }
    free(rate), free(secs);
    if (t)
        nn_trainer_destroy(t);
    nn_batch_free(&b);
    nn_state_free(&s0);
    nn_layout_free(&L);
    return code;
}

static void print_bytes(char *buf, size_t len, double b)
{
    if (!isfinite(b) || b <= 0)
        snprintf(buf, len, "-");
    else if (b >= 1 << 30)
        snprintf(buf, len, "%.2f GiB", b / (1 << 30));
    else
        snprintf(buf, len, "%.0f MiB", b / (1 << 20));
}

static double jnum(const cJSON *e, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *jstr(const cJSON *e, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

int cmd_bench_train(int argc, char **argv)
{
    args_common com = {0};
    args_int_list chans = {0}, batches = {0};
    args_str_list dtypes = {0}, norms = {0};
    bench_args a = {6, 3, 0, 1, 0, 0, 1};
    long seed = 1;
    double hz = 0;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--channels", ARGS_INT_LIST, &chans, "LIST", "channel counts, multiples of 8 (default 64,128)", 1, 4096, 0, 0, NULL},
        {"--blocks", ARGS_INT, &a.blocks, "N", "residual blocks (default 6, as torch_drop7.py)", 0, 64, 0, 0, NULL},
        {"--batches", ARGS_INT_LIST, &batches, "LIST", "batch sizes (default 256,1024)", 1, 1 << 20, 0, 0, NULL},
        {"--norm", ARGS_CHOICE_LIST, &norms, "LIST", "group, batch (default group)", 0, 0, 0, 0, "group,batch"},
        {"--dtype", ARGS_CHOICE_LIST, &dtypes, "LIST", "fp32, bf16 (bf16 on the GPU; default fp32)", 0, 0, 0, 0, "fp32,bf16"},
        {"--tf32", ARGS_FLAG, &a.tf32, NULL, "let fp32 use TF32 matrix units on the GPU", 0, 0, 0, 0, NULL},
        {"--repeats", ARGS_INT, &a.repeats, "N", "timed repeats (default 3)", 1, 1000, 0, 0, NULL},
        {"--steps", ARGS_INT, &a.steps, "N", "training steps per repeat (default: enough for ~0.5 s)", 1, 100000, 0, 0, NULL},
        {"--warmup", ARGS_INT, &a.warmup, "N", "untimed warm-up steps (default 1)", 0, 1000, 0, 0, NULL},
        {"--seed", ARGS_INT, &seed, "N", "seed of the weights and the batch (default 1)", 0, (1L << 62), 0, 0, NULL},
        {"--threads", ARGS_INT, &a.threads, "N", "CPU threads (default: all cores)", 0, 1024, 0, 0, NULL},
    };
    int code;
    if (!cli_parse("bench train", "gpuvet bench train [--devices cpu,cuda] [--channels 64,128] [--batches 256,1024] [options]",
                   "Measures Drop7 training throughput (forward, backward, AdamW) in samples/s on each\n"
                   "device: untimed warm-up, then best, median and min over the repeats. The host load\n"
                   "average is recorded before and after each table. On two CPU cores the defaults take\n"
                   "about a minute (a 128-channel step at batch 1024 takes several seconds there).",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, NULL, 0, NULL, &com.quiet, &code))
        return code;
    if (!chans.n)
        chans = (args_int_list){2, {64, 128}};
    if (!batches.n)
        batches = (args_int_list){2, {256, 1024}};
    if (!dtypes.n)
        dtypes = (args_str_list){1, {"fp32"}};
    if (!norms.n)
        norms = (args_str_list){1, {"group"}};
    a.seed = (uint64_t)seed;
    for (int i = 0; i < chans.n; i++) {
        nn_config cfg = {(int)chans.v[i], (int)a.blocks, NN_NORM_GROUP};
        if (!config_ok("bench train", &cfg))
            return GV_EXIT_USAGE;
    }
    dev_id devs[MAX_DEV];
    int ndev;
    if ((code = parse_devices("bench train", com.devices, devs, &ndev)))
        return code;
    cJSON *rec = gv_record_new("bench train", argc, argv);
    cJSON *arr = gv_json_add_arr(rec, "bench_train");
    gv_telemetry *tel = telemetry_for(devs, ndev, hz);
    dev_blas_info bi;
    dev_blas_query(&bi);
    cJSON *cpu = gv_json_add_obj(rec, "cpu");
    cJSON_AddStringToObject(cpu, "blas", bi.name);
    cJSON_AddStringToObject(cpu, "blas_version", bi.version);
    cJSON_AddStringToObject(cpu, "blas_core", bi.core);
    gv_progress pg;
    gv_progress_init(&pg);
    code = 0;
    for (int d = 0; d < ndev && !code; d++) {
        double l0 = loadavg1();
        int first_row = cJSON_GetArraySize(arr);
        printf("\nbench train on %s (%s), blocks %ld, load average %.2f before\n", devs[d].label,
               devs[d].kind == DEV_CPU ? "CPU" : "GPU", a.blocks, l0);
        printf("%-6s %-5s %-5s %8s %7s %6s %12s %12s %12s %9s %10s %8s\n", "device", "dtype", "norm", "channels",
               "batch", "steps", "best/s", "median/s", "min/s", "step ms", "memory", "vs cpu");
        for (int k = 0; k < dtypes.n && !code; k++) {
            nn_dtype dt;
            dtype_of(dtypes.v[k], &dt);
            if (!dtype_on(&devs[d], dt)) {
                printf("%-6s %-5s (skipped: the %s trains in %s)\n", devs[d].label, dtypes.v[k],
                       devs[d].kind == DEV_CPU ? "CPU" : "GPU", devs[d].kind == DEV_CPU ? "fp32" : "fp32 and bf16");
                continue;
            }
            for (int nm = 0; nm < norms.n && !code; nm++)
                for (int ci = 0; ci < chans.n && !code; ci++)
                    for (int bi2 = 0; bi2 < batches.n && !code; bi2++) {
                        nn_norm norm = strcmp(norms.v[nm], "batch") ? NN_NORM_GROUP : NN_NORM_BATCH;
                        cJSON *e = cJSON_CreateObject();
                        double med = 0;
                        code = bench_one(&devs[d], dt, (int)chans.v[ci], norm, (int)batches.v[bi2], &a, e, &med, &pg,
                                         tel);
                        gv_progress_done(&pg);
                        if (code) {
                            cJSON_Delete(e);
                            break;
                        }
                        /* GPU/CPU speedup against the CPU fp32 entry of the same configuration */
                        double sp = NAN;
                        const cJSON *o;
                        cJSON_ArrayForEach(o, arr)
                        {
                            if (!strcmp(jstr(o, "device"), "cpu") && !strcmp(jstr(o, "dtype"), "fp32") &&
                                jnum(o, "channels") == chans.v[ci] && jnum(o, "batch") == batches.v[bi2] &&
                                !strcmp(jstr(o, "norm"), norms.v[nm]))
                                sp = med / jnum(o, "samples_per_s_median");
                        }
                        if (devs[d].kind == DEV_GPU)
                            gv_json_add_num(e, "speedup_vs_cpu", sp);
                        char mem[32], spd[16] = "-";
                        print_bytes(mem, sizeof mem,
                                    devs[d].kind == DEV_GPU ? jnum(e, "peak_device_bytes") : jnum(e, "host_bytes"));
                        if (isfinite(sp) && devs[d].kind == DEV_GPU)
                            snprintf(spd, sizeof spd, "%.2fx", sp);
                        printf("%-6s %-5s %-5s %8ld %7ld %6.0f %12.1f %12.1f %12.1f %9.1f %10s %8s\n", devs[d].label,
                               dtypes.v[k], norms.v[nm], chans.v[ci], batches.v[bi2], jnum(e, "steps"),
                               jnum(e, "samples_per_s_best"), med, jnum(e, "samples_per_s_min"),
                               jnum(e, "step_ms_median"), mem, spd);
                        telemetry_line(tel);
                        fflush(stdout);
                        cJSON_AddItemToArray(arr, e);
                    }
        }
        double l1 = loadavg1();
        printf("load average %.2f after (%s)\n", l1,
               devs[d].kind == DEV_CPU ? "memory: host bytes the trainer holds" : "memory: peak device bytes");
        for (int i = first_row; i < cJSON_GetArraySize(arr); i++) {
            cJSON *e = cJSON_GetArrayItem(arr, i);
            gv_json_add_num(e, "load_before", l0);
            gv_json_add_num(e, "load_after", l1);
        }
    }
    bench_finish_record(rec, tel);
    return finish(rec, code, com.json, "bench train");
}

/* ---- bench matmul ------------------------------------------------------------------------------------ */

int cmd_bench_matmul(int argc, char **argv)
{
    args_common com = {0};
    args_int_list sizes = {0};
    args_str_list dtypes = {0};
    long repeats = 5, threads = 0;
    double min_time = 0.1, hz = 0;
    args_spec specs[] = {
        ARGS_COMMON_SPECS(&com),
        GV_TELEMETRY_HZ_SPEC(&hz),
        {"--sizes", ARGS_INT_LIST, &sizes, "LIST", "square sizes (default 256,512,1024,2048,4096)", 1, 32768, 0, 0, NULL},
        {"--dtype", ARGS_CHOICE_LIST, &dtypes, "LIST", "fp32, tf32, bf16 (default all; the CPU runs fp32)", 0, 0, 0, 0, "fp32,tf32,bf16"},
        {"--repeats", ARGS_INT, &repeats, "N", "timed repeats (default 5)", 1, 1000, 0, 0, NULL},
        {"--min-time", ARGS_DOUBLE, &min_time, "S", "seconds per repeat at least (default 0.1)", 0, 0, 0, 60, NULL},
        {"--threads", ARGS_INT, &threads, "N", "CPU BLAS threads (default: all cores)", 0, 1024, 0, 0, NULL},
    };
    int code;
    if (!cli_parse("bench matmul", "gpuvet bench matmul [--devices cpu,cuda] [--sizes 256,...,4096] [--dtype fp32,tf32,bf16]",
                   "Measures square GEMM throughput (GFLOP/s = 2n^3/s) per device, dtype and size: one\n"
                   "untimed run, then repeats of enough back-to-back GEMMs to last --min-time, each\n"
                   "synchronised. Every result is spot-checked against long double dot products (a wrong\n"
                   "result exits 1). The CPU runs fp32 only; tf32 and bf16 are skipped there with a note.",
                   specs, (int)GV_ARRAY_LEN(specs), argc, argv, NULL, 0, NULL, &com.quiet, &code))
        return code;
    if (!sizes.n)
        sizes = (args_int_list){5, {256, 512, 1024, 2048, 4096}};
    if (!dtypes.n)
        dtypes = (args_str_list){3, {"fp32", "tf32", "bf16"}};
    dev_id devs[MAX_DEV];
    int ndev;
    if ((code = parse_devices("bench matmul", com.devices, devs, &ndev)))
        return code;
    int nthreads = threads > 0 ? (int)threads : gv_cpu_count();
    cJSON *rec = gv_record_new("bench matmul", argc, argv);
    gv_telemetry *tel = telemetry_for(devs, ndev, hz);
    cJSON *arr = gv_json_add_arr(rec, "bench_matmul");
    gv_progress pg;
    gv_progress_init(&pg);
    gv_rng r;
    gv_rng_seed(&r, 12345);
    int wrong = 0;
    code = 0;
    for (int d = 0; d < ndev && !code; d++) {
        double l0 = loadavg1();
        int first_row = cJSON_GetArraySize(arr);
        printf("\nbench matmul on %s%s, load average %.2f before\n", devs[d].label,
               devs[d].kind == DEV_CPU ? "" : " (GPU)", l0);
        if (devs[d].kind == DEV_CPU)
            printf("(%d BLAS threads)\n", nthreads);
        printf("%-6s %-5s %6s %6s %12s %12s %12s %10s %s\n", "device", "dtype", "size", "reps", "best GF/s", "median",
               "min", "check", "");
        for (int k = 0; k < dtypes.n && !code; k++) {
            dev_gemm_dtype dt = !strcmp(dtypes.v[k], "bf16") ? DEV_GEMM_BF16 : !strcmp(dtypes.v[k], "tf32") ? DEV_GEMM_TF32 : DEV_GEMM_FP32;
            if (devs[d].kind == DEV_CPU && dt != DEV_GEMM_FP32) {
                printf("%-6s %-5s (skipped: the CPU GEMM runs fp32 only)\n", devs[d].label, dtypes.v[k]);
                continue;
            }
            double tol = dt == DEV_GEMM_BF16 ? 2e-2 : dt == DEV_GEMM_TF32 ? 5e-3 : 1e-5;
            for (int si = 0; si < sizes.n && !code; si++) {
                int n = (int)sizes.v[si];
                size_t nn = (size_t)n * n;
                float *A = malloc(sizeof(float) * nn), *B = malloc(sizeof(float) * nn), *C = malloc(sizeof(float) * nn);
                gv_err err = {{0}};
                dev_gemm *g = NULL;
                gv_status s = (A && B && C) ? GV_OK : gv_fail(&err, GV_ERR_ENV, "out of memory for %dx%d matrices", n, n);
                for (size_t i = 0; s == GV_OK && i < nn; i++) {
                    A[i] = (float)(2 * gv_rng_uniform(&r) - 1);
                    B[i] = (float)(2 * gv_rng_uniform(&r) - 1);
                }
                if (s == GV_OK)
                    s = dev_gemm_open(&devs[d], n, n, n, dt, nthreads, &g, &err);
                if (s == GV_OK)
                    s = dev_gemm_set_inputs(g, A, B, &err);
                if (s == GV_OK)
                    s = dev_gemm_poison(g, &err);
                double t1 = 0;
                gv_progress_update(&pg, "bench matmul %s %s %d", devs[d].label, dtypes.v[k], n);
                if (s == GV_OK)
                    s = dev_gemm_run(g, 1, &t1, &err);
                if (s == GV_OK)
                    s = dev_gemm_get_output(g, C, &err);
                double spot = s == GV_OK ? gemm_sample_error(A, B, NULL, C, n, &r, 32) : NAN;
                long reps = t1 > 0 ? (long)ceil(min_time / t1) : 1;
                reps = reps < 1 ? 1 : reps > 100000 ? 100000 : reps;
                double *gf = gv_xcalloc((size_t)repeats, sizeof(double)), *sec = gv_xcalloc((size_t)repeats, sizeof(double));
                char phase[64];
                snprintf(phase, sizeof phase, "%s %s %d", devs[d].label, dtypes.v[k], n);
                gv_telemetry_phase_begin(tel, phase);
                for (long rr = 0; rr < repeats && s == GV_OK; rr++) {
                    s = dev_gemm_run(g, (int)reps, &sec[rr], &err);
                    gf[rr] = 2.0 * n * (double)n * n * (double)reps / sec[rr] / 1e9;
                }
                /* work units: GFLOP, so energy per unit is joules per GFLOP */
                gv_telemetry_phase_end(tel, 2.0 * n * (double)n * n * (double)reps * (double)repeats / 1e9);
                gv_progress_done(&pg);
                if (s != GV_OK) {
                    code = fail_msg("bench matmul", s, &err);
                } else {
                    gv_stats st;
                    gv_stats_compute(gf, (int)repeats, &st);
                    int ok = spot <= tol;
                    wrong += !ok;
                    printf("%-6s %-5s %6d %6ld %12.1f %12.1f %12.1f %10.1e %s\n", devs[d].label, dtypes.v[k], n, reps,
                           st.max, st.median, st.min, spot, ok ? "" : "WRONG RESULTS");
                    fflush(stdout);
                    cJSON *e = cJSON_CreateObject();
                    cJSON_AddStringToObject(e, "device", devs[d].label);
                    cJSON_AddStringToObject(e, "dtype", dtypes.v[k]);
                    cJSON_AddNumberToObject(e, "m", n);
                    cJSON_AddNumberToObject(e, "n", n);
                    cJSON_AddNumberToObject(e, "k", n);
                    cJSON_AddNumberToObject(e, "reps", (double)reps);
                    cJSON_AddNumberToObject(e, "repeats", (double)repeats);
                    cJSON_AddNumberToObject(e, "threads", devs[d].kind == DEV_CPU ? nthreads : 0);
                    cJSON_AddNumberToObject(e, "gflops_best", st.max);
                    cJSON_AddNumberToObject(e, "gflops_median", st.median);
                    cJSON_AddNumberToObject(e, "gflops_min", st.min);
                    cJSON_AddNumberToObject(e, "seconds_median", gv_median(sec, (int)repeats));
                    gv_json_add_num(e, "spot_check_rel_err", spot);
                    cJSON_AddNumberToObject(e, "spot_check_tolerance", tol);
                    cJSON_AddBoolToObject(e, "spot_check_pass", ok);
                    cJSON_AddNumberToObject(e, "device_bytes", (double)dev_gemm_bytes(g));
                    cJSON_AddStringToObject(e, "telemetry_phase", phase);
                    cJSON_AddItemToArray(arr, e);
                    telemetry_line(tel);
                }
                free(gf), free(sec), free(A), free(B), free(C);
                dev_gemm_close(g);
            }
        }
        double l1 = loadavg1();
        printf("load average %.2f after\n", l1);
        for (int i = first_row; i < cJSON_GetArraySize(arr); i++) {
            cJSON *e = cJSON_GetArrayItem(arr, i);
            gv_json_add_num(e, "load_before", l0);
            gv_json_add_num(e, "load_after", l1);
        }
    }
    if (!code && wrong) {
        fprintf(stderr, "gpuvet bench matmul: %d configuration(s) gave wrong results (see the check column)\n", wrong);
        code = GV_EXIT_FAIL;
    }
    bench_finish_record(rec, tel);
    return finish(rec, code, com.json, "bench matmul");
}
