/* blas_race.c: the multithreaded-GEMM fault detector of blas_race.h.
 *
 * Error bound: for any summation order, with or without FMA, a float32 dot product of
 * length K satisfies |c_hat - c| <= gamma_K * sum_k |a_ik| |b_kj| with gamma_K = K u /
 * (1 - K u), u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 3.1). A
 * result outside 1.5x that bound cannot come from a correct float32 GEMM. */
#include "sys/blas_race.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "core/rng.h"
#include "dev/dev.h"

gv_status blas_race_dev_gemm(void *ctx, int threads, int M, int N, int K, const float *A, const float *B,
                             float *C, gv_err *err)
{
    const dev_id *id = ctx;
    dev_gemm *g = NULL;
    double secs;
    gv_status s = dev_gemm_open(id, M, N, K, DEV_GEMM_FP32, threads, &g, err);
    if (s == GV_OK)
        s = dev_gemm_set_inputs(g, A, B, err);
    if (s == GV_OK)
        s = dev_gemm_poison(g, err);
    if (s == GV_OK)
        s = dev_gemm_run(g, 1, &secs, err);
    if (s == GV_OK)
        s = dev_gemm_get_output(g, C, err);
    dev_gemm_close(g);
    return s;
}

/* float64 reference and the per-element bound: ref (M x N), bound (M x N). */
static void reference(const float *A, const float *B, int M, int N, int K, double *ref, double *bound)
{
    const double u = ldexp(1.0, -24);
    const double gamma = K * u / (1 - K * u);
    memset(ref, 0, sizeof(double) * (size_t)M * N);
    memset(bound, 0, sizeof(double) * (size_t)M * N);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            double a = A[(size_t)i * K + k];
            const float *b = B + (size_t)k * N;
            double *r = ref + (size_t)i * N, *bd = bound + (size_t)i * N;
            for (int j = 0; j < N; j++) {
                r[j] += a * b[j];
                bd[j] += fabs(a * b[j]);
            }
        }
    for (size_t i = 0; i < (size_t)M * N; i++)
        bound[i] = 1.5 * gamma * bound[i] + 1e-30;
}

/* gpuvet's own GEMM for the control arm: plain float32, k ascending. */
static void naive_sgemm(const float *A, const float *B, int M, int N, int K, float *C)
{
    for (int i = 0; i < M; i++) {
        float *c = C + (size_t)i * N;
        for (int j = 0; j < N; j++)
            c[j] = 0.0f;
        for (int k = 0; k < K; k++) {
            float a = A[(size_t)i * K + k];
            const float *b = B + (size_t)k * N;
            for (int j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

/* Counts elements outside the bound (NaN counts); updates the worst figures. */
static long long count_wrong(const float *C, const double *ref, const double *bound, size_t n, double *worst_abs,
                             double *worst_ratio)
{
    long long wrong = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)C[i] - ref[i]);
        if (!(e <= bound[i])) {
            wrong++;
            if (!isfinite(e))
                e = INFINITY;
        }
        if (!(e <= *worst_abs))
            *worst_abs = e;
        double q = e / bound[i];
        if (!(q <= *worst_ratio))
            *worst_ratio = q;
    }
    return wrong;
}

gv_status blas_race_run(const blas_race_opts *o, blas_race_result *r, gv_err *err)
{
    memset(r, 0, sizeof *r);
    r->first_wrong_run = -1;
    if (o->M <= 0 || o->N <= 0 || o->K <= 0 || o->runs <= 0)
        return gv_fail(err, GV_ERR_INPUT, "blas-race: sizes and runs must be positive (got %dx%dx%d, %d runs)", o->M, o->N, o->K, o->runs);
    size_t na = (size_t)o->M * o->K, nb = (size_t)o->K * o->N, nc = (size_t)o->M * o->N;
    float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb);
    float *C = malloc(sizeof(float) * nc), *C1 = malloc(sizeof(float) * nc), *Cfirst = malloc(sizeof(float) * nc);
    double *ref = malloc(sizeof(double) * nc), *bound = malloc(sizeof(double) * nc);
    gv_status s = GV_OK;
    if (!A || !B || !C || !C1 || !Cfirst || !ref || !bound) {
        s = gv_fail(err, GV_ERR_ENV, "blas-race: out of memory for a %dx%dx%d GEMM", o->M, o->N, o->K);
        goto done;
    }
    gv_rng rng;
    gv_rng_seed(&rng, o->seed);
    for (size_t i = 0; i < na; i++)
        A[i] = (float)(2 * gv_rng_uniform(&rng) - 1);
    for (size_t i = 0; i < nb; i++)
        B[i] = (float)(2 * gv_rng_uniform(&rng) - 1);
    double t0 = gv_now();
    reference(A, B, o->M, o->N, o->K, ref, bound);
    double dummy = 0;
    naive_sgemm(A, B, o->M, o->N, o->K, C);
    r->ref_wrong = count_wrong(C, ref, bound, nc, &dummy, &r->ref_worst_bound_ratio) > 0;

    /* Control arm: the same GEMM on one thread, at the start and every eighth run. */
    int single_every = 8;
    for (int run = 0; run < o->runs; run++) {
        if (run % single_every == 0) {
            blas_race_gemm_fn ctl = o->control ? o->control : o->gemm;
            if ((s = ctl(o->control ? o->control_ctx : o->ctx, 1, o->M, o->N, o->K, A, B, C1, err)) != GV_OK)
                goto done;
            double wa = 0;
            r->single_runs++;
            r->single_wrong_runs += count_wrong(C1, ref, bound, nc, &wa, &r->single_worst_bound_ratio) > 0;
        }
        if ((s = o->gemm(o->ctx, o->threads, o->M, o->N, o->K, A, B, C, err)) != GV_OK)
            goto done;
        r->runs++;
        long long w = count_wrong(C, ref, bound, nc, &r->worst_abs_err, &r->worst_bound_ratio);
        if (w) {
            r->wrong_runs++;
            r->wrong_elements += w;
            if (r->first_wrong_run < 0)
                r->first_wrong_run = run;
            r->worst_wrong_fraction = GV_MAX(r->worst_wrong_fraction, (double)w / nc);
        }
        if (memcmp(C, C1, sizeof(float) * nc) != 0)
            r->differs_from_single_runs++;
        if (run == 0)
            memcpy(Cfirst, C, sizeof(float) * nc);
        else if (memcmp(C, Cfirst, sizeof(float) * nc) != 0)
            r->nondeterministic_runs++;
    }
    r->seconds = gv_now() - t0;
done:
    free(A), free(B), free(C), free(C1), free(Cfirst), free(ref), free(bound);
    return s;
}

cJSON *blas_race_json(const blas_race_opts *o, const blas_race_result *r)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "m", o->M);
    cJSON_AddNumberToObject(e, "n", o->N);
    cJSON_AddNumberToObject(e, "k", o->K);
    cJSON_AddNumberToObject(e, "threads", o->threads);
    cJSON_AddNumberToObject(e, "seed", (double)o->seed);
    cJSON_AddNumberToObject(e, "runs", r->runs);
    cJSON_AddNumberToObject(e, "wrong_runs", r->wrong_runs);
    cJSON_AddNumberToObject(e, "first_wrong_run", r->first_wrong_run);
    cJSON_AddNumberToObject(e, "wrong_elements", (double)r->wrong_elements);
    cJSON_AddNumberToObject(e, "worst_wrong_fraction", r->worst_wrong_fraction);
    gv_json_add_num(e, "worst_abs_err", r->worst_abs_err);
    gv_json_add_num(e, "worst_bound_ratio", r->worst_bound_ratio);
    cJSON_AddNumberToObject(e, "differs_from_single_runs", r->differs_from_single_runs);
    cJSON_AddNumberToObject(e, "nondeterministic_runs", r->nondeterministic_runs);
    cJSON_AddNumberToObject(e, "single_runs", r->single_runs);
    cJSON_AddNumberToObject(e, "single_wrong_runs", r->single_wrong_runs);
    gv_json_add_num(e, "single_worst_bound_ratio", r->single_worst_bound_ratio);
    cJSON_AddBoolToObject(e, "reference_gemm_ok", !r->ref_wrong);
    gv_json_add_num(e, "reference_worst_bound_ratio", r->ref_worst_bound_ratio);
    gv_json_add_num(e, "seconds", r->seconds);
    return e;
}
