/* telemetry.h: a background sampler that runs during benchmarks and soaks (default 5 Hz):
 * GPU clocks, power, temperature, utilisation and throttle reasons (NVML through dlopen,
 * amdgpu sysfs/hwmon), CPU package power from RAPL energy_uj, CPU frequency and load
 * average. The record layout is in docs/RECORD.md ("telemetry").
 *
 * Use:  t = gv_telemetry_start(&opts);
 *       gv_telemetry_phase_begin(t, "cuda bf16 c128 b8192");
 *       ... timed work ...
 *       gv_telemetry_phase_end(t, samples_processed);   (energy per sample from this)
 *       gv_telemetry_stop(t, rec);    adds rec.telemetry, prints throttling warnings, frees t */
#ifndef GV_SYS_TELEMETRY_H
#define GV_SYS_TELEMETRY_H

#include <cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double hz;       /* samples per second; 0 means the default 5 */
    int gpu_index;   /* GPU to sample, -1 for none */
    const char *sysfs_root;  /* "" or NULL for "/"; tests point it at a fixture tree */
    const char *nvml_lib;    /* NULL: libnvidia-ml.so.1 (or $GPUVET_NVML); tests name another */
} gv_telemetry_opts;

/* The flag every benchmark and soak offers to change the rate (bound to a double that
 * starts at 0, meaning the default 5 Hz). */
#define GV_TELEMETRY_HZ_SPEC(hz_ptr)                                                              \
    {"--telemetry-hz", ARGS_DOUBLE, (hz_ptr), "HZ", "telemetry samples per second during measurements (default 5)", \
     0, 0, 0.2, 100, NULL}

typedef struct gv_telemetry gv_telemetry;

/* Starts the sampler thread; never fails (signals that cannot be read are recorded with the
 * reason). Returns NULL only when hz < 0. */
gv_telemetry *gv_telemetry_start(const gv_telemetry_opts *opts);
void gv_telemetry_phase_begin(gv_telemetry *t, const char *label);
void gv_telemetry_phase_end(gv_telemetry *t, double work_units);
/* One-line summary of the last finished phase for tables, e.g.
 * "gpu 1980 MHz, 412-455 W (med 440), 61 C, 0.21 mJ/sample; cpu 3.1 GHz, load 1.02". */
void gv_telemetry_last_phase_line(gv_telemetry *t, char *buf, int len);
/* Stops sampling, adds "telemetry" to rec (if not NULL), warns on stderr when the GPU was
 * throttled during a phase, and frees t. */
void gv_telemetry_stop(gv_telemetry *t, cJSON *rec);

/* Whether the GPU lowered its clocks (power or thermal limits) during the last finished
 * phase; benchmarks may print this next to the row. */
int gv_telemetry_last_phase_throttled(gv_telemetry *t);

#ifdef __cplusplus
}
#endif

#endif
