/* all.h: the engine of `gpuvet all`: the whole story of a machine in a couple of minutes on
 * two CPU cores. It calls the other engines in-process with small sizes: probe, smoke (when
 * a GPU is among the devices), check, soak, bench train, bench matmul and an emulation step
 * on our own ROMs (built into the binary: demo_roms.h), and gathers their sections into one
 * record. Each step's own record is written atomically beside it (DIR/STEP.json); the first
 * write that fails stops the run (a full disk is one line, not six). Verdicts and the
 * report are views of the record (report.h). */
#ifndef GV_APP_ALL_H
#define GV_APP_ALL_H

#include <cJSON.h>

#include "dev/dev.h"
#include "sys/telemetry.h"

typedef struct {
    const dev_id *devs;
    int ndev;
    const char *dir;       /* the run's folder (exists) */
    int verbose;           /* the engines' own lines go to stdout too */
    gv_telemetry *tel;
} all_opts;

typedef struct {
    const char *step;      /* "probe", "smoke", "check", "soak", "train", "matmul", "emulation" */
    char line[768];        /* what it found, in one line */
    int code;              /* its exit code (GV_EXIT_*) */
} all_step;

typedef void (*all_step_fn)(void *ctx, const all_step *s);

/* Runs the steps, calling fn after each; *worst gets the worst step exit code. Returns an
 * error only for what stops the run (a record that cannot be written). */
gv_status all_run(const all_opts *o, cJSON *rec, all_step_fn fn, void *ctx, int *worst, gv_err *err);

#endif
