/* gemm_bench.h: the engine of `gpuvet bench matmul`: square GEMM throughput (GFLOP/s =
 * 2n^3/s) per device, dtype and size through the one measurement harness, every result
 * spot-checked against long double dot products; and that spot check itself, which
 * `check` also uses on the host's float64 GEMM (so that a wrong BLAS cannot vouch for
 * itself). Adds "bench_matmul" entries to the record (docs/RECORD.md). */
#ifndef GV_BENCH_GEMM_BENCH_H
#define GV_BENCH_GEMM_BENCH_H

#include <cJSON.h>

#include "core/rng.h"
#include "dev/dev.h"
#include "sys/telemetry.h"

/* C = A*B (n x n; C given as doubles Cd or floats Cf) against long double dot products at
 * `samples` random entries: the worst |error| / sum |a*b| (INFINITY for NaN). */
double dev_gemm_sample_error(const float *A, const float *B, const double *Cd, const float *Cf, int n, gv_rng *r,
                             int samples);

#define GEMM_BENCH_MAX 64

typedef struct {
    const dev_id *devs;
    int ndev;
    dev_gemm_dtype dtypes[3];
    int ndtypes;
    int sizes[GEMM_BENCH_MAX];
    int nsizes;
    int repeats, threads;
    double min_time;          /* seconds per timed run at least */
    gv_telemetry *tel;
} gemm_bench_opts;

typedef struct {
    int entries, wrong;       /* configurations measured; of them with a failed spot check */
    int skipped;              /* device/dtype pairs the device cannot run (the CPU runs fp32) */
} gemm_bench_result;

/* GV_ERR_INPUT when no device runs any dtype asked for (nothing would be measured). */
gv_status gemm_bench_run(const gemm_bench_opts *o, cJSON *rec, gemm_bench_result *r, gv_err *err);

#endif
