/* nn_bench.h: the engine of `gpuvet bench train`: Drop7 training throughput (forward,
 * backward, AdamW) in samples/s per device, dtype, norm, channels and batch, through the
 * one measurement harness (untimed warm-up, then timed runs in rounds across the
 * configurations). GPU entries get their speedup over the CPU fp32 entry of the same
 * shape. Adds "bench_train" entries and "cpu" (the BLAS) to the record. */
#ifndef GV_NN_NN_BENCH_H
#define GV_NN_NN_BENCH_H

#include <cJSON.h>

#include "dev/dev.h"
#include "nn/nn.h"
#include "sys/telemetry.h"

#define NN_BENCH_MAX 64

typedef struct {
    const dev_id *devs;
    int ndev;
    nn_dtype dtypes[4];
    int ndtypes;
    nn_norm norms[2];
    int nnorms;
    int channels[NN_BENCH_MAX], nchannels;
    int batches[NN_BENCH_MAX], nbatches;
    int blocks;
    int repeats;
    long steps;            /* per timed run; 0: enough for about half a second */
    long warmup;           /* untimed steps before the first timed run (0 allowed) */
    int threads, tf32;
    uint64_t seed;
    gv_telemetry *tel;
} nn_bench_opts;

typedef struct {
    int entries, skipped;  /* configurations measured; device/dtype pairs a device cannot train */
} nn_bench_result;

/* GV_ERR_INPUT when no device trains in any dtype asked for. */
gv_status nn_bench_train(const nn_bench_opts *o, cJSON *rec, nn_bench_result *r, gv_err *err);

#endif
