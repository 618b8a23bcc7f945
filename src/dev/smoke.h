/* smoke.h: bringing a GPU up in five stages, each timed and reported on its own:
 *   1 open      the runtime sees the device and creates a context on it
 *   2 copy      [1,2,3] is copied to device memory
 *   3 compile   a kernel that adds 1 is compiled at run time (NVRTC / hipRTC)
 *   4 run       the compiled kernel is loaded and launched on the copied data
 *   5 readback  the device is synchronised and [2,3,4] is read back and checked
 * A stage runs only when the stages before it passed. */
#ifndef GV_DEV_SMOKE_H
#define GV_DEV_SMOKE_H

#include "core/gv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMOKE_STAGES 5

typedef struct {
    const char *name;      /* "open", "copy", "compile", "run", "readback" */
    int ran;               /* 0 when an earlier stage failed */
    int ok;
    double seconds;
    char detail[256];      /* what happened: device name, compiler log line, values read */
    char hint[256];        /* on failure: what to try */
} smoke_stage;

typedef struct {
    char backend[16];      /* "cuda", "hip", or "none" */
    char device[128];      /* device name when open succeeded */
    smoke_stage stage[SMOKE_STAGES];
} smoke_report;

/* Runs the stages on GPU index. Returns the number of stages that passed (5 = all). */
int dev_gpu_smoke(int index, smoke_report *r);

/* The report as a record entry (backend, index, device, stages, pass); the caller owns it. */
struct cJSON;
struct cJSON *dev_smoke_json(const smoke_report *r, int index);

#ifdef __cplusplus
}
#endif

#endif
