/* telemetry.h: a background sampler that runs during benchmarks and soaks (default 5 Hz):
 * GPU clocks, power, temperature, utilisation and throttle reasons (NVML through dlopen,
 * amdgpu sysfs/hwmon), CPU package power from RAPL energy_uj, CPU frequency and load
 * average. The record layout is in docs/RECORD.md ("telemetry").
 *
 * Use:  t = gv_telemetry_start(&opts);
 *       gv_telemetry_phase_begin(t, "cuda bf16 c128 b8192", GV_PHASE_GPU);
 *       ... timed work ...
 *       gv_telemetry_phase_end(t, samples_processed);   (energy per sample from this)
 *       gv_telemetry_stop(t, rec);    adds rec.telemetry, prints at most one throttling
 *                                     warning for the whole run (gv_throttle_judge), frees t */
#ifndef GV_SYS_TELEMETRY_H
#define GV_SYS_TELEMETRY_H

#include <cJSON.h>
#include <stdint.h>

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
/* What a phase asks of the GPU: GV_PHASE_CPU phases (the work runs on the CPU; the GPU is
 * sampled but idle or serving someone else) never count as throttled. */
enum { GV_PHASE_CPU = 0, GV_PHASE_GPU = 1 };
void gv_telemetry_phase_begin(gv_telemetry *t, const char *label, int gpu_work);
void gv_telemetry_phase_end(gv_telemetry *t, double work_units);
/* One-line summary of the last finished phase for tables, e.g.
 * "gpu 1980 MHz, 412-455 W (med 440), 61 C, 0.21 mJ/sample; cpu 3.1 GHz, load 1.02". */
void gv_telemetry_last_phase_line(gv_telemetry *t, char *buf, int len);
/* Stops sampling, adds "telemetry" to rec (if not NULL), prints on stderr at most ONE
 * warning line naming every step (phase label) that gv_throttle_judge found throttled,
 * with its clock drop, and frees t. The details are in rec.telemetry ("throttle" and each
 * phase's "throttle"). */
void gv_telemetry_stop(gv_telemetry *t, cJSON *rec);

/* Whether gv_throttle_judge finds the last finished phase throttled; benchmarks may print
 * this next to the row. */
int gv_telemetry_last_phase_throttled(gv_telemetry *t);

/* ---- the throttle rule (docs/RECORD.md, "telemetry") ------------------------------------
 * A phase counts as throttled -- its figures understate the GPU -- only when
 *   1. it is a GPU phase (GV_PHASE_GPU), and
 *   2a. a thermal or hardware slowdown reason was seen in any of its samples (hw_slowdown,
 *       sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown), or
 *   2b. the GPU was busy (median utilisation of the phase's samples >= GV_THROTTLE_BUSY_PCT)
 *       and a busy sample that carries a slowdown reason (sw_power_cap) shows an SM clock at
 *       least GV_THROTTLE_DROP below the phase's steady clock: the median SM clock of its
 *       busy samples (a busy sample: utilisation >= GV_THROTTLE_BUSY_PCT).
 * An idle or lightly loaded data-centre GPU reports sw_power_cap while it sits at low clocks
 * by design; a GPU that holds one clock, capped or not, for a whole phase ran that phase at
 * the clock it sustains: neither is throttling that cost the benchmark anything. */
#define GV_THROTTLE_BUSY_PCT 50.0
#define GV_THROTTLE_DROP 0.05

typedef struct {
    int throttled;        /* the verdict */
    int gpu_work;         /* the phase ran on the GPU */
    int busy;             /* median utilisation >= GV_THROTTLE_BUSY_PCT */
    int busy_samples;     /* samples with utilisation >= GV_THROTTLE_BUSY_PCT and a clock */
    double util_median;   /* NAN when unknown */
    double steady_mhz;    /* median SM clock of the busy samples; NAN without any */
    double low_mhz;       /* lowest SM clock of a busy sample with a slowdown reason; NAN: none */
    double drop;          /* 1 - low/steady, NAN without both */
    uint64_t reasons;     /* NVML clock-event bits seen in any sample */
    uint64_t cause;       /* the bits behind the verdict (0 when not throttled) */
} gv_throttle;

/* Applies the rule to a phase's n samples (SM clock in MHz, utilisation in %, NVML reason
 * bits as numbers; NAN where not read). */
void gv_throttle_judge(const double *sm_mhz, const double *util_pct, const double *reasons, int n, int gpu_work,
                       gv_throttle *v);

#ifdef __cplusplus
}
#endif

#endif
