/* nn_bench.h: the engines of `gpuvet bench train` and `gpuvet bench infer`, through the one
 * measurement harness (untimed warm-up, then timed runs in rounds across the
 * configurations), per device, dtype, norm, channels and batch. GPU entries get their
 * speedup over the CPU fp32 entry of the same shape; the record gets "cpu" (the BLAS).
 *   train: training throughput (forward, backward, AdamW) in samples/s ("bench_train").
 *   infer: the self-play case ("bench_infer"): one call is the positions in (set_batch),
 *          the eval-mode forward (nn_trainer_infer) and logits and value out; per configuration the
 *          latency of every timed call (median, p99, min), samples/s, memory held; and per
 *          GPU series the batch from which the GPU is faster ("bench_infer_crossover"). */
#ifndef GV_NN_NN_BENCH_H
#define GV_NN_NN_BENCH_H

#include <cJSON.h>

#include "dev/dev.h"
#include "nn/nn.h"
#include "sys/telemetry.h"

#define NN_BENCH_MAX 64

typedef struct {
    NN_SWEEP_MEMBERS;
    int channels[NN_BENCH_MAX], nchannels;
    int batches[NN_BENCH_MAX], nbatches;
    int blocks;
    int repeats;
    long steps;            /* training steps or inference calls per timed run; 0: enough for
                              about half a second (train) or min_time (infer) */
    double min_time;       /* infer: seconds a timed run lasts at least (sizes steps) */
    long warmup;           /* untimed steps before the first timed run (0 allowed) */
    int threads, tf32;
    nn_cpu_conv cpu_conv;  /* the float32 CPU trainer's 3x3 convolutions */
    nn_positions positions; /* infer: how the positions come in (NN_POS_CELLS or NN_POS_F32) */
    uint64_t seed;
    gv_telemetry *tel;
} nn_bench_opts;

typedef struct {
    int entries, skipped;  /* configurations measured; device/dtype pairs a device cannot train */
} nn_bench_result;

/* GV_ERR_INPUT when no device runs any dtype asked for. */
gv_status nn_bench_train(const nn_bench_opts *o, cJSON *rec, nn_bench_result *r, gv_err *err);
gv_status nn_bench_infer(const nn_bench_opts *o, cJSON *rec, nn_bench_result *r, gv_err *err);

#endif
