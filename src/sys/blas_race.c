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
#include "sys/telemetry.h"

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

/* The sweep's one sentence: what its counts mean for the user, naming the library. */
static void sweep_verdict(const dev_blas_info *bi, const dev_id *dev, int wrong, int single_wrong, int ref_bad, char *v,
                          size_t len)
{
    if (ref_bad)
        snprintf(v, len, "gpuvet's own reference GEMM failed the error bound: the detector is miscalibrated (report this "
                 "as a gpuvet bug)");
    else if (wrong && !single_wrong)
        snprintf(v, len, "WRONG RESULTS: %d multithreaded runs of %s %s were wrong while the single-threaded runs were "
                 "right. Set OPENBLAS_NUM_THREADS=1 (or OMP_NUM_THREADS=1) until you upgrade %s past %s; if it persists, "
                 "force another kernel with OPENBLAS_CORETYPE (this one uses %s)", wrong, bi->name, bi->version, bi->name,
                 bi->version, bi->core);
    else if (wrong)
        snprintf(v, len, "WRONG RESULTS: %d multithreaded and %d single-threaded runs were wrong: the GEMM is broken "
                 "regardless of threads; try OPENBLAS_CORETYPE=Haswell (this one uses %s) or another %s version than %s",
                 wrong, single_wrong, bi->core, bi->name, bi->version);
    else
        snprintf(v, len, "no wrong results: every run of %s %s on %s was within the float32 error bound", bi->name,
                 bi->version, dev->label);
}

gv_status blas_race_sweep(const dev_id *dev, const long *sizes, int nsizes, int runs, int threads, uint64_t seed,
                          gv_telemetry *tel, cJSON *rec, int *wrong, gv_err *err)
{
    dev_blas_info bi;
    dev_blas_query(&bi);
    dev_id cpu = DEV_ID_CPU;
    cJSON *arr = gv_json_add_arr(rec, "blas_race");
    int bad = 0, single_wrong = 0, ref_bad = 0;
    *wrong = 0;
    gv_info("blas-race: %s %s (core %s) on %s, %d threads, %d runs per size\n", bi.name, bi.version, bi.core, dev->label,
            threads, runs);
    gv_info("%-16s %6s %7s %9s %12s %11s %10s %9s %8s\n", "size", "runs", "wrong", "worst-frac", "worst-err",
            "err/bound", "!=1thread", "1t-wrong", "ref-ok");
    for (int i = 0; i < nsizes; i++) {
        int n = (int)sizes[i];
        blas_race_opts o = {n, n, n, runs, threads, seed + (uint64_t)i, blas_race_dev_gemm, (void *)dev,
                            dev->kind == DEV_GPU ? blas_race_dev_gemm : NULL, &cpu};
        blas_race_result r;
        char sz[32], label[64];
        snprintf(sz, sizeof sz, "%dx%dx%d", n, n, n);
        snprintf(label, sizeof label, "blas-race %s %s", dev->label, sz);
        gv_telemetry_phase_begin(tel, label, dev->kind == DEV_GPU ? GV_PHASE_GPU : GV_PHASE_CPU);
        gv_status st = blas_race_run(&o, &r, err);
        gv_telemetry_phase_end(tel, (double)r.runs);
        if (st != GV_OK)
            return st;
        gv_info("%-16s %6d %7d %9.2g %12.3g %11.3g %10d %9d %8s\n", sz, r.runs, r.wrong_runs, r.worst_wrong_fraction,
                r.worst_abs_err, r.worst_bound_ratio, r.differs_from_single_runs, r.single_wrong_runs,
                r.ref_wrong ? "NO" : "yes");
        bad += r.wrong_runs;
        single_wrong += r.single_wrong_runs;
        ref_bad += r.ref_wrong;
        cJSON *entry = blas_race_json(&o, &r);
        cJSON_AddStringToObject(entry, "telemetry_phase", label);
        cJSON_AddItemToArray(arr, entry);
        if (tel && !gv_quiet) {
            char line[256];
            gv_telemetry_last_phase_line(tel, line, sizeof line);
            gv_info("%-16s telemetry: %s\n", "", line);
        }
    }
    char v[1024];
    sweep_verdict(&bi, dev, bad, single_wrong, ref_bad, v, sizeof v);
    cJSON_AddItemToArray(gv_json_add_arr(rec, "verdict"), cJSON_CreateString(v));
    printf("%s\n", v);
    *wrong = bad + ref_bad;
    return GV_OK;
}
