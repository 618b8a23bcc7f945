/* nn_soak.h: the engine of `gpuvet soak`: trains the Drop7 network on one fixed batch for
 * N AdamW steps on each device and dtype; a run fails when a parameter, a moment or the
 * loss becomes non-finite, or when the loss does not fall by min_drop. Optionally starts
 * from a checkpoint and saves the trained state (safetensors, atomically). Adds
 * "soak_runs" (and "soak", the first run) to the record, each with the loss curve. */
#ifndef GV_NN_NN_SOAK_H
#define GV_NN_NN_SOAK_H

#include <cJSON.h>
#include <stdio.h>

#include "dev/dev.h"
#include "nn/nn.h"
#include "sys/telemetry.h"

typedef struct {
    const dev_id *devs;
    int ndev;
    nn_dtype dtypes[4];
    int ndtypes;
    nn_config cfg;          /* the network (from the checkpoint when init is given) */
    int cfg_given;          /* bits: 1 channels, 2 blocks, 4 norm were asked for (must match init) */
    int batch, threads;
    long steps;
    double min_drop;
    uint64_t seed;
    const char *init, *save;
    gv_telemetry *tel;
    FILE *out;              /* one line per run, or NULL */
    int quiet;
} nn_soak_opts;

typedef struct {
    int runs, failed;
} nn_soak_result;

/* Errors (bad checkpoint or flags, no device, I/O) stop it; a run that does not learn or
 * goes non-finite is counted in r->failed. */
gv_status nn_soak_run(const nn_soak_opts *o, cJSON *rec, nn_soak_result *r, gv_err *err);

#endif
