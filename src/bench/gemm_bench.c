/* gemm_bench.c: the GEMM benchmark engine and the GEMM spot check (see gemm_bench.h). */
#include "bench/gemm_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/harness.h"
#include "core/record.h"

double dev_gemm_sample_error(const float *A, const float *B, const double *Cd, const float *Cf, int n, gv_rng *r,
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

typedef struct {
    const dev_id *dev;
    dev_gemm_dtype dt;
    int n;
    long reps;        /* GEMMs per timed run */
    double spot, tol; /* the spot check of the first result */
    size_t bytes;
    dev_gemm *g;
} config;

typedef struct {
    const gemm_bench_opts *o;
    config *c;
    gv_rng rng;
} ctx_t;

static int on_gpu(void *cx, int k)
{
    return ((ctx_t *)cx)->c[k].dev->kind == DEV_GPU;
}

static void label(void *cx, int k, char *buf, size_t len)
{
    const config *c = &((ctx_t *)cx)->c[k];
    snprintf(buf, len, "%s %s %d", c->dev->label, dev_gemm_dtype_name(c->dt), c->n);
}

/* Opens the context, runs once untimed, spot-checks that result and sizes the timed runs. */
static gv_status setup(void *cx, int k, gv_err *err)
{
    ctx_t *x = cx;
    config *c = &x->c[k];
    int n = c->n;
    size_t nn = (size_t)n * n;
    float *A = malloc(sizeof(float) * nn), *B = malloc(sizeof(float) * nn), *C = malloc(sizeof(float) * nn);
    gv_status s = A && B && C ? GV_OK : gv_fail(err, GV_ERR_ENV, "out of memory for %dx%d matrices", n, n);
    for (size_t i = 0; s == GV_OK && i < nn; i++) {
        A[i] = (float)(2 * gv_rng_uniform(&x->rng) - 1);
        B[i] = (float)(2 * gv_rng_uniform(&x->rng) - 1);
    }
    int threads = x->o->threads > 0 ? x->o->threads : gv_cpu_count();
    if (s == GV_OK)
        s = dev_gemm_open(c->dev, n, n, n, c->dt, threads, &c->g, err);
    if (s == GV_OK)
        s = dev_gemm_set_inputs(c->g, A, B, err);
    if (s == GV_OK)
        s = dev_gemm_poison(c->g, err);
    double t1 = 0;
    if (s == GV_OK)
        s = dev_gemm_run(c->g, 1, &t1, err);
    if (s == GV_OK)
        s = dev_gemm_get_output(c->g, C, err);
    if (s == GV_OK) {
        c->spot = dev_gemm_sample_error(A, B, NULL, C, n, &x->rng, 32);
        c->bytes = dev_gemm_bytes(c->g);
        long reps = t1 > 0 ? (long)ceil(x->o->min_time / t1) : 1;
        c->reps = reps < 1 ? 1 : reps > 100000 ? 100000 : reps;
    }
    free(A), free(B), free(C);
    return s;
}

static gv_status run(void *cx, int k, int timed, double *units, double *seconds, gv_err *err)
{
    config *c = &((ctx_t *)cx)->c[k];
    long reps = timed ? c->reps : 1;
    gv_status s = dev_gemm_run(c->g, (int)reps, seconds, err); /* synchronised: device events on a GPU */
    *units = 2.0 * c->n * (double)c->n * c->n * (double)reps;
    return s;
}

static void teardown(void *cx, int k)
{
    config *c = &((ctx_t *)cx)->c[k];
    dev_gemm_close(c->g);
    c->g = NULL;
}

gv_status gemm_bench_run(const gemm_bench_opts *o, cJSON *rec, gemm_bench_result *r, gv_err *err)
{
    memset(r, 0, sizeof *r);
    ctx_t x = {o, gv_xcalloc((size_t)o->ndev * o->ndtypes * o->nsizes + 1, sizeof(config)), {{0}}};
    gv_rng_seed(&x.rng, 12345);
    int n = 0;
    for (int d = 0; d < o->ndev; d++)
        for (int t = 0; t < o->ndtypes; t++) {
            if (o->devs[d].kind == DEV_CPU && o->dtypes[t] != DEV_GEMM_FP32) {
                r->skipped++; /* the CPU GEMM runs fp32 only */
                continue;
            }
            for (int i = 0; i < o->nsizes; i++) {
                config *c = &x.c[n++];
                c->dev = &o->devs[d];
                c->dt = o->dtypes[t];
                c->n = o->sizes[i];
                c->tol = c->dt == DEV_GEMM_BF16 ? 2e-2 : c->dt == DEV_GEMM_TF32 ? 5e-3 : 1e-5;
            }
        }
    if (!n) {
        free(x.c);
        return gv_fail(err, GV_ERR_INPUT, "nothing to measure: the CPU runs fp32 GEMMs only and no GPU was asked for "
                       "(--dtype fp32, or --devices cuda)");
    }
    bench_plan p = {"bench matmul", "gflops", 1e-9, n, 1, o->repeats, &x, setup, run, teardown, label, o->tel, on_gpu};
    bench_outcome out;
    gv_status st = bench_run(&p, &out, err);
    if (st == GV_OK) {
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(rec, "bench_matmul");
        if (!arr)
            arr = gv_json_add_arr(rec, "bench_matmul");
        int threads = o->threads > 0 ? o->threads : gv_cpu_count();
        for (int k = 0; k < n; k++) {
            config *c = &x.c[k];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "device", c->dev->label);
            cJSON_AddStringToObject(e, "dtype", dev_gemm_dtype_name(c->dt));
            cJSON_AddNumberToObject(e, "m", c->n);
            cJSON_AddNumberToObject(e, "n", c->n);
            cJSON_AddNumberToObject(e, "k", c->n);
            cJSON_AddNumberToObject(e, "reps", (double)c->reps);
            cJSON_AddNumberToObject(e, "threads", c->dev->kind == DEV_CPU ? threads : 0);
            bench_entry_add(&p, &out, k, e);
            gv_json_add_num(e, "spot_check_rel_err", c->spot);
            cJSON_AddNumberToObject(e, "spot_check_tolerance", c->tol);
            cJSON_AddBoolToObject(e, "spot_check_pass", c->spot <= c->tol);
            cJSON_AddNumberToObject(e, "device_bytes", (double)c->bytes);
            cJSON_AddItemToArray(arr, e);
            r->entries++;
            r->wrong += !(c->spot <= c->tol);
        }
        bench_outcome_record(&out, rec);
    }
    bench_outcome_free(&out);
    free(x.c);
    return st;
}
