/* blas_race.h: looks for wrong results from a multithreaded GEMM (`gpuvet blas-race`).
 * The GEMM under test runs many times on fixed random inputs; every run is compared with a
 * float64 reference against a rigorous float32 error bound, and with single-threaded runs of
 * the same library. Control arms: the same GEMM single-threaded, and gpuvet's own naive
 * float32 GEMM, which must both pass (they also prove the bound is not too tight). */
#ifndef GV_SYS_BLAS_RACE_H
#define GV_SYS_BLAS_RACE_H

#include <stdint.h>

#include <cJSON.h>

#include "core/gv.h"

/* C (M x N) = A (M x K) * B (K x N), row-major floats, with `threads` CPU threads (ignored
 * by a GPU). Returns GV_OK or fills err. */
typedef gv_status (*blas_race_gemm_fn)(void *ctx, int threads, int M, int N, int K, const float *A,
                                       const float *B, float *C, gv_err *err);

/* The device layer's GEMM (dev_gemm_*) on the device ctx points to (a dev_id); C is
 * poisoned with NaN before each run so that elements left unwritten cannot pass. */
gv_status blas_race_dev_gemm(void *ctx, int threads, int M, int N, int K, const float *A, const float *B,
                             float *C, gv_err *err);

typedef struct {
    int M, N, K;
    int runs;             /* multithreaded runs */
    int threads;          /* threads of the arm under test */
    uint64_t seed;        /* inputs: uniform in [-1, 1) from this seed */
    blas_race_gemm_fn gemm;
    void *ctx;
    blas_race_gemm_fn control;  /* single-threaded control arm; NULL: gemm with one thread */
    void *control_ctx;
} blas_race_opts;

typedef struct {
    int runs, wrong_runs;          /* arm under test */
    int first_wrong_run;           /* -1 when none */
    long long wrong_elements;      /* over all runs */
    double worst_wrong_fraction;   /* largest share of wrong elements in one run */
    double worst_abs_err;          /* largest |C - reference| seen */
    double worst_bound_ratio;      /* largest |C - reference| / bound (> 1 is wrong) */
    int differs_from_single_runs;  /* runs not bit-identical to the single-threaded result */
    int nondeterministic_runs;     /* runs not bit-identical to the first run */
    int single_runs, single_wrong_runs;   /* control arm: the same GEMM, one thread */
    double single_worst_bound_ratio;
    int ref_wrong;                 /* control arm: gpuvet's naive GEMM (must be 0) */
    double ref_worst_bound_ratio;
    double seconds;
} blas_race_result;

/* Runs the comparison. GV_ERR_ENV when the GEMM cannot run, GV_ERR_INPUT on bad sizes;
 * wrong results are not an error here: they are counted in r. */
gv_status blas_race_run(const blas_race_opts *o, blas_race_result *r, gv_err *err);

/* One JSON object with the options and the result (an entry of the record's "blas_race"). */
cJSON *blas_race_json(const blas_race_opts *o, const blas_race_result *r);

struct dev_id;
struct gv_telemetry;
/* `gpuvet blas-race`: blas_race_run on each square size of sizes[0..nsizes) on device dev
 * (the control arm then the CPU on one thread), each a telemetry phase of tel (may be NULL);
 * a table row per size through gv_info; the record's "blas_race" entries and its verdict
 * (one sentence in rec.verdict, also printed). *wrong: wrong runs of the arm under test or
 * of gpuvet's own reference GEMM (0 when every run was right). */
gv_status blas_race_sweep(const struct dev_id *dev, const long *sizes, int nsizes, int runs, int threads, uint64_t seed,
                          struct gv_telemetry *tel, cJSON *rec, int *wrong, gv_err *err);

#endif
