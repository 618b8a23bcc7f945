/* harness.h: the one measurement harness of every benchmark (train, matmul, each
 * console, ...). A benchmark is a list of configurations behind four callbacks; the
 * harness sets them all up, runs untimed warm-ups of each, then takes the timed runs in
 * rounds across the configurations (run r of every configuration before run r+1 of any),
 * so that a drift of the machine (clocks, heat, other load) falls on all of them alike.
 * Each run is timed by the wall clock around the run callback, which must return only
 * once its work is finished (device work synchronised), or by the callback itself. Per configuration it keeps the
 * rates (units of work per second), their best/median/min/CV, the median seconds, the
 * rate per CPU-second of this process, and one telemetry phase per run; for the whole
 * benchmark, the load average before, during (after each round) and after, with a warning
 * when it exceeds the cores the process may use (someone else is loading the machine).
 *
 * Record keys (docs/RECORD.md), added to each configuration's entry by bench_entry_add,
 * with K the plan's rate_key ("fps", "samples_per_s", "gflops"):
 *   K_best K_median K_min K_max K (every run) cv seconds_median K_per_cpu_second_median
 *   repeats warmup_runs load_before load_after load_max telemetry_phase */
#ifndef GV_BENCH_HARNESS_H
#define GV_BENCH_HARNESS_H

#include <cJSON.h>
#include <stddef.h>

#include "core/gv.h"
#include "core/progress.h"
#include "core/stats.h"
#include "sys/telemetry.h"

typedef struct {
    const char *name;      /* for progress and messages: "bench gb" */
    const char *rate_key;  /* the record's key prefix for rates */
    double rate_scale;     /* rate = units / seconds * rate_scale (1e-9 for GFLOP/s) */
    int nconfigs;
    int warmup;            /* untimed runs of each configuration before the rounds */
    int repeats;           /* timed runs of each configuration */
    void *ctx;
    /* Prepares configuration k (untimed; may be NULL). */
    gv_status (*setup)(void *ctx, int k, gv_err *err);
    /* One run of configuration k; *units is the work it did. timed is 0 for warm-ups. The
     * harness times the run with the wall clock unless the run sets *seconds itself (> 0:
     * a device's own events around its work). */
    gv_status (*run)(void *ctx, int k, int timed, double *units, double *seconds, gv_err *err);
    /* Releases configuration k (may be NULL); called for every k set up. */
    void (*teardown)(void *ctx, int k);
    /* The configuration in a few words, for progress and telemetry ("native 64 inst"). */
    void (*label)(void *ctx, int k, char *buf, size_t len);
    gv_telemetry *tel;     /* phases go here, or NULL */
    /* Whether configuration k runs on the GPU (its telemetry phases are GV_PHASE_GPU, which
     * alone can count as throttled: sys/telemetry.h); NULL: every configuration may. */
    int (*on_gpu)(void *ctx, int k);
} bench_plan;

typedef struct {
    double *rates;         /* repeats values */
    int n;
    gv_stats st;           /* of the rates */
    double secs_median;
    double per_cpu_median; /* units per CPU-second of this process, median */
    char phase[96];        /* its telemetry phase label */
} bench_stat;

typedef struct {
    bench_stat *st;        /* one per configuration */
    double load_before, load_max, load_after;
    int cores;             /* what the process may use */
    int busy;              /* the load exceeded them before or during the runs */
    char warning[256];     /* the busy-machine warning, or "" */
} bench_outcome;

/* Runs the plan. On the first error stops (tearing down what was set up) and returns it.
 * Prints a progress line on a terminal; the busy-machine warning is the caller's to show
 * (bench_outcome_record puts it in the record's "warnings"). */
gv_status bench_run(const bench_plan *p, bench_outcome *o, gv_err *err);
void bench_outcome_free(bench_outcome *o);
/* The common keys of configuration k's entry. */
void bench_entry_add(const bench_plan *p, const bench_outcome *o, int k, cJSON *entry);
/* Adds the benchmark-wide keys to the record: "load" {before, max, after, cores, busy}
 * and, when busy, the warning to the "warnings" array. */
void bench_outcome_record(const bench_outcome *o, cJSON *rec);

/* Every GPU entry of arr (device other than "cpu") gets "speedup_vs_cpu": its value of
 * rate over that of the CPU entry equal to it on every twin key (null without one). */
void bench_speedups(cJSON *arr, const char *rate, const char *const *twin_keys, int nkeys);

/* The crossover of each GPU series of arr (entries equal on every series key, which
 * includes "device"), appended to out: the series' keys, "batches_compared" and
 * "gpu_faster_from_batch", the smallest "batch" from which speedup_vs_cpu exceeds 1 at
 * that batch and at every larger one measured (null when it never does). */
void bench_crossover(const cJSON *arr, cJSON *out, const char *const *series_keys, int nkeys);

/* The load average above which the machine counts as busy: before a benchmark, more than
 * the usable cores; during it, more than one above them (the benchmark's own threads
 * count in the load). */
int bench_load_busy(double load, int cores, int during);

#endif
