/* emu_bench.h: the engine of `gpuvet bench ROM`: emulation throughput (instance-frames per
 * second) of any console per video renderer, audio renderer and instance count, through
 * the one measurement harness (bench/harness.h). Every timed run starts from power-on,
 * and every instance's hashes after it must equal those of the native renderers run for
 * the same number of frames (a reference kept beside the benchmark); a difference is a
 * wrong result. Adds "bench_<console>" entries to the record (docs/RECORD.md). */
#ifndef GV_EMU_EMU_BENCH_H
#define GV_EMU_EMU_BENCH_H

#include <cJSON.h>

#include "emu/common/emu_batch.h"
#include "sys/telemetry.h"

#define EMU_BENCH_MAX 64

typedef struct {
    const char *rom;
    const char *console;       /* NULL: from the file */
    emu_opts opts;
    emu_renderer video[4], audio[4];
    int nvideo, naudio;
    int instances[EMU_BENCH_MAX];
    int ninstances;
    long frames;               /* per run; 0: sized from the warm-up to take about `seconds` */
    double seconds;
    int repeats, warmup, threads;
    dev_id dev;                /* the GPU of the device renderers (dev/dev.h) */
    int device_default;        /* the device video renderer was chosen by default: a console
                                * without device renderers is measured on the host renderer */
    const char *input;         /* controller input movie, or NULL */
    gv_telemetry *tel;         /* or NULL */
} emu_bench_opts;

typedef struct {
    const emu_console *con;
    char cart[256];
    char warning[256];         /* "" or the cartridge's one-line warning (cart_warning) */
    int entries;               /* configurations measured */
    int mismatched;            /* configurations whose hashes differ from the native ones */
    const char *gpu_name;      /* the device's name when one was used (static storage) */
    char gpu_buf[256];
} emu_bench_result;

/* Runs the benchmark; adds "bench_<console>" (and "gpu") to rec. Errors (bad ROM or flag,
 * no device, out of memory) stop it; a hash mismatch is recorded and counted. */
gv_status emu_bench(const emu_bench_opts *o, emu_bench_result *r, cJSON *rec, gv_err *err);

#endif
