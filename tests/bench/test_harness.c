/* test_harness.c: the measurement harness (src/bench/harness.c) with fake configurations
 * whose runs report known work and known seconds (the run's own clock), so that every
 * figure it derives has an exact expected value: the order of set-ups, warm-ups, rounds
 * and tear-downs; warm-ups left out of the samples; the rates and their best, median,
 * min, max and CV; the median seconds; the wall clock and CPU clock when the run does not
 * time itself; one telemetry phase per timed run, labelled and with its work; the record's
 * keys; the error paths; and the pure helpers (busy load, speedups, crossover). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/harness.h"
#include "check.h"
#include "core/gv.h"

/* ---- the fake benchmark --------------------------------------------------------------- */
#define NCONF 3
#define MAXEV 128

/* Timed run r of configuration k reports units u and seconds s such that its rate is
 * rate_of(k, r): configuration k's rates are (k+1) * {10, 30, 20, 40, 50}[r]. Warm-ups report
 * 1e9 units in 1e-9 s, which would dominate every statistic if they were counted. */
static const double base_rate[] = {10, 30, 20, 40, 50};

static double rate_of(int k, int r)
{
    return (k + 1) * base_rate[r];
}

static double units_of(int k, int r)
{
    return 100.0 * (k + 1) + r; /* distinct per run: the telemetry phases carry it */
}

typedef struct {
    char ev[MAXEV][24]; /* "setup 0", "warm 1", "run 2", "teardown 0" */
    int nev;
    int runs[NCONF];    /* timed runs so far, per configuration */
    int wall;           /* configuration 0 times nothing itself: it spins for its CPU seconds */
    double spin;        /* seconds of CPU the wall-clock run spins */
    double own[8];      /* per wall-clock run: the CPU seconds of the spinning thread itself */
    int fail_setup;     /* the configuration whose setup fails, or -1 */
    int fail_run;       /* the configuration whose second timed run fails, or -1 */
} fake;

static void log_ev(fake *f, const char *what, int k)
{
    if (f->nev < MAXEV)
        snprintf(f->ev[f->nev++], sizeof f->ev[0], "%s %d", what, k);
}

static gv_status fake_setup(void *ctx, int k, gv_err *err)
{
    fake *f = ctx;
    log_ev(f, "setup", k);
    return k == f->fail_setup ? gv_fail(err, GV_ERR_ENV, "setup %d failed on purpose", k) : GV_OK;
}

static gv_status fake_run(void *ctx, int k, int timed, double *units, double *seconds, gv_err *err)
{
    fake *f = ctx;
    log_ev(f, timed ? "run" : "warm", k);
    if (!timed) {
        *units = 1e9, *seconds = 1e-9;
        return GV_OK;
    }
    const int r = f->runs[k]++;
    if (k == f->fail_run && r == 1)
        return gv_fail(err, GV_ERR_ENV, "run %d of configuration %d failed on purpose", r, k);
    *units = units_of(k, r);
    if (k == 0 && f->wall) { /* no seconds of its own: spin until this process used f->spin s of CPU */
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        const double c0 = gv_cpu_now();
        while (gv_cpu_now() - c0 < f->spin)
            ;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        if (r < 8)
            f->own[r] = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        return GV_OK;
    }
    *seconds = *units / rate_of(k, r);
    return GV_OK;
}

static void fake_teardown(void *ctx, int k)
{
    log_ev(ctx, "teardown", k);
}

static void fake_label(void *ctx, int k, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len, "conf %d", k);
}

/* Configuration 1 stands for a GPU one: its telemetry phases are GPU phases. */
static int fake_on_gpu(void *ctx, int k)
{
    (void)ctx;
    return k == 1;
}

static bench_plan plan_of(fake *f, int warmup, int repeats, double scale, gv_telemetry *tel)
{
    bench_plan p = {"bench fake", "things_per_s", scale, NCONF, warmup, repeats, f, fake_setup, fake_run,
                    fake_teardown, fake_label, tel, fake_on_gpu};
    return p;
}

/* The events a plan of NCONF configurations should log: every setup, `warmup` passes over
 * them, `rounds` rounds over them, every teardown. */
static int expected_events(char ev[][24], int warmup, int rounds)
{
    int n = 0;
    for (int k = 0; k < NCONF; k++)
        snprintf(ev[n++], 24, "setup %d", k);
    for (int w = 0; w < warmup; w++)
        for (int k = 0; k < NCONF; k++)
            snprintf(ev[n++], 24, "warm %d", k);
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < NCONF; k++)
            snprintf(ev[n++], 24, "run %d", k);
    for (int k = 0; k < NCONF; k++)
        snprintf(ev[n++], 24, "teardown %d", k);
    return n;
}

/* The log as one string, for the messages. */
static const char *joined(const fake *f)
{
    static char buf[4096];
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < f->nev && at < sizeof buf; i++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", i ? ", " : "", f->ev[i]);
    return buf;
}

static double num(const cJSON *o, const char *key)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1, fabs(b));
}

/* ---- the tests ------------------------------------------------------------------------ */
static void test_rounds_and_stats(void)
{
    const int warmup = 2, reps = 5;
    fake f = {.fail_setup = -1, .fail_run = -1};
    char dir[] = "/tmp/gv-harness-XXXXXX"; /* an empty sysfs root: telemetry phases, no signals */
    if (!mkdtemp(dir)) {
        t_check(0, "harness: temporary folder", "mkdtemp failed");
        return;
    }
    gv_telemetry_opts to = {1, -1, dir, "libgpuvet-no-such-nvml.so.1"};
    gv_telemetry *tel = gv_telemetry_start(&to);
    bench_plan p = plan_of(&f, warmup, reps, 0.5, tel);
    bench_outcome o;
    gv_err err = {{0}};
    gv_status st = bench_run(&p, &o, &err);
    t_check(st == GV_OK, "harness: run", "bench_run returned %d%s%s", (int)st, st ? ": " : "", st ? err.msg : "");

    char want[MAXEV][24];
    const int nw = expected_events(want, warmup, reps);
    int same = nw == f.nev;
    for (int i = 0; same && i < nw; i++)
        same = !strcmp(want[i], f.ev[i]);
    t_check(same, "harness: order", "%d events, expected %d: setups, %d warm-up passes, %d rounds across the "
            "configurations (run r of each before run r+1 of any), teardowns: %s", f.nev, nw, warmup, reps, joined(&f));

    /* the rates: exactly the timed runs' (rate_scale 0.5), none of the warm-ups' */
    int rates_ok = 1, stats_ok = 1;
    char line[1024];
    size_t at = 0;
    for (int k = 0; k < NCONF; k++) {
        const bench_stat *s = &o.st[k];
        rates_ok &= s->n == reps;
        for (int r = 0; r < reps && r < s->n; r++)
            rates_ok &= near(s->rates[r], 0.5 * rate_of(k, r));
        /* (k+1)/2 * {10, 30, 20, 40, 50}: min 10, median 30, max 50, mean 30, sample
         * stddev sqrt(1000/4) = 15.81, CV 0.527 */
        const double f2 = 0.5 * (k + 1);
        stats_ok &= near(s->st.min, 10 * f2) && near(s->st.median, 30 * f2) && near(s->st.max, 50 * f2) &&
                    near(s->st.cv, sqrt(1000.0 / 4) / 30);
        /* seconds: units / rate, the run's own; their median */
        double secs[5];
        for (int r = 0; r < reps; r++)
            secs[r] = units_of(k, r) / rate_of(k, r);
        stats_ok &= near(s->secs_median, gv_median(secs, reps));
        at += (size_t)snprintf(line + at, sizeof line - at, "%sconf %d: %d rates %g..%g median %g cv %.4f secs %.4g",
                               k ? "; " : "", k, s->n, s->st.min, s->st.max, s->st.median, s->st.cv, s->secs_median);
    }
    t_check(rates_ok, "harness: samples",
            "each configuration's %d rates are its timed runs' units / seconds * rate_scale 0.5, the warm-ups' "
            "(1e9 units in 1 ns) left out: %s", reps, line);
    t_check(stats_ok, "harness: statistics",
            "min, median, max, CV (sample stddev / mean) of (k+1)/2 * {10,30,20,40,50} = (k+1)/2 * {10, 30, 50}, "
            "CV %.4f; median seconds of the runs' own: %s", sqrt(1000.0 / 4) / 30, line);

    /* the record's keys (docs/RECORD.md) for configuration 1 */
    cJSON *e = cJSON_CreateObject();
    bench_entry_add(&p, &o, 1, e);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(e, "things_per_s");
    int arr_ok = cJSON_IsArray(arr) && cJSON_GetArraySize(arr) == reps;
    for (int r = 0; arr_ok && r < reps; r++)
        arr_ok = near(cJSON_GetArrayItem(arr, r)->valuedouble, 0.5 * rate_of(1, r));
    const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "telemetry_phase"));
    const int keys_ok = near(num(e, "things_per_s_best"), 50) && near(num(e, "things_per_s_median"), 30) &&
                        near(num(e, "things_per_s_min"), 10) && near(num(e, "things_per_s_max"), 50) && arr_ok &&
                        cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "things_per_s_per_cpu_second_median")) &&
                        near(num(e, "cv"), o.st[1].st.cv) && near(num(e, "seconds_median"), o.st[1].secs_median) &&
                        near(num(e, "repeats"), reps) && near(num(e, "warmup_runs"), warmup) &&
                        cJSON_GetObjectItemCaseSensitive(e, "load_before") &&
                        cJSON_GetObjectItemCaseSensitive(e, "load_after") &&
                        cJSON_GetObjectItemCaseSensitive(e, "load_max") && phase && !strcmp(phase, "conf 1");
    char *txt = cJSON_PrintUnformatted(e);
    t_check(keys_ok, "harness: record keys",
            "K_best/_median/_min/_max, K (every run), K_per_cpu_second_median, cv, seconds_median, repeats, "
            "warmup_runs, load_before/_after/_max, telemetry_phase: %s", txt);
    free(txt);
    cJSON_Delete(e);

    /* one telemetry phase per timed run, in round order, labelled, with the run's units */
    cJSON *rec = cJSON_CreateObject();
    gv_telemetry_stop(tel, rec);
    const cJSON *phases = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "telemetry"), "phases");
    int ph_ok = cJSON_GetArraySize(phases) == NCONF * reps, i = 0;
    const cJSON *ph;
    cJSON_ArrayForEach(ph, phases)
    {
        char lab[32];
        const int k = i % NCONF, r = i / NCONF;
        snprintf(lab, sizeof lab, "conf %d", k);
        const char *l = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ph, "label"));
        ph_ok &= l && !strcmp(l, lab) && near(num(ph, "work_units"), units_of(k, r)) && num(ph, "t1") >= num(ph, "t0") &&
                 cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(ph, "gpu_work")) &&
                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ph, "gpu_work")) == (k == 1);
        i++;
    }
    t_check(ph_ok, "harness: telemetry phases",
            "%d phases (expected %d: one per timed run, none for set-ups or warm-ups), labelled conf 0, 1, 2 in round "
            "order, each with its run's units and t0 <= t1; gpu_work true for conf 1 only (the plan's on_gpu)", cJSON_GetArraySize(phases), NCONF * reps);
    cJSON_Delete(rec);

    /* the benchmark-wide load keys */
    rec = cJSON_CreateObject();
    bench_outcome_record(&o, rec);
    const cJSON *load = cJSON_GetObjectItemCaseSensitive(rec, "load");
    const int load_ok = load && cJSON_GetObjectItemCaseSensitive(load, "before") &&
                        cJSON_GetObjectItemCaseSensitive(load, "max") && cJSON_GetObjectItemCaseSensitive(load, "after") &&
                        near(num(load, "cores"), o.cores) &&
                        cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(load, "busy")) &&
                        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(load, "busy")) == o.busy &&
                        (!isfinite(o.load_before) || o.load_max >= o.load_before) &&
                        !!cJSON_GetObjectItemCaseSensitive(rec, "warnings") == o.busy;
    txt = cJSON_PrintUnformatted(rec);
    t_check(load_ok, "harness: load record", "load {before, max >= before, after, cores, busy (%s)}, a warning only "
            "when busy: %s", o.busy ? "true" : "false", txt);
    free(txt);
    cJSON_Delete(rec);
    bench_outcome_free(&o);
    rmdir(dir);
}

/* A run that times nothing itself is timed by the wall clock around it, and its rate per
 * CPU-second by the process's CPU clock: configuration 0 spins for 20 ms of CPU. */
static void test_wall_clock(void)
{
    fake f = {.wall = 1, .spin = 0.02, .fail_setup = -1, .fail_run = -1};
    bench_plan p = plan_of(&f, 0, 3, 1.0, NULL);
    bench_outcome o;
    gv_err err = {{0}};
    gv_status st = bench_run(&p, &o, &err);
    const bench_stat *s = &o.st[0];
    /* the process's CPU time of a run is about 20 ms (at most the spin's last check later);
     * its wall time is at least the CPU time of the spinning thread itself: 20 ms when it is
     * the process's only busy thread, less when another one shares the process clock (an
     * idle BLAS worker spinning at start-up), so the median's bound is the spinner's own */
    const double want = units_of(0, 1) / 0.02;
    const double own = gv_median(f.own, 3);
    const int ok = st == GV_OK && s->n == 3 && own > 0.002 && s->secs_median >= own && s->secs_median < 5 &&
                   s->st.median <= units_of(0, 2) / own && s->per_cpu_median <= want * 1.01 &&
                   s->per_cpu_median >= want / 1.5;
    t_check(ok, "harness: wall clock",
            "a run without its own seconds spinning 20 ms of the process's CPU: median %.4f s by the wall clock (>= "
            "%.4f s, the spinning thread's own CPU time), rate %.0f/s, %.0f per CPU-second (about %.0f)",
            s->secs_median, own, s->st.median, s->per_cpu_median, want);
    bench_outcome_free(&o);
}

/* A failing setup stops the benchmark and tears down only what was set up; a failing run
 * stops it too (no run after it), every configuration is torn down, the error is returned. */
static void test_errors(void)
{
    fake f = {.fail_setup = 1, .fail_run = -1};
    bench_plan p = plan_of(&f, 1, 2, 1.0, NULL);
    bench_outcome o;
    gv_err err = {{0}};
    gv_status st = bench_run(&p, &o, &err);
    int ok = st == GV_ERR_ENV && strstr(err.msg, "setup 1 failed") && f.nev == 3 && !strcmp(f.ev[0], "setup 0") &&
             !strcmp(f.ev[1], "setup 1") && !strcmp(f.ev[2], "teardown 0");
    t_check(ok, "harness: failing setup", "status %d (%s); events %s (setup 0, setup 1, teardown 0 expected)", (int)st,
            err.msg, joined(&f));
    bench_outcome_free(&o);

    fake g = {.fail_setup = -1, .fail_run = 1};
    p = plan_of(&g, 1, 3, 1.0, NULL);
    memset(&err, 0, sizeof err);
    st = bench_run(&p, &o, &err);
    /* round 0 runs 0, 1, 2; round 1 runs 0 and then 1 fails */
    const char *tail[] = {"run 0", "run 1", "run 2", "run 0", "run 1", "teardown 0", "teardown 1", "teardown 2"};
    ok = st == GV_ERR_ENV && strstr(err.msg, "failed on purpose") && g.nev == 6 + 8;
    for (int i = 0; ok && i < 8; i++)
        ok = !strcmp(g.ev[6 + i], tail[i]);
    t_check(ok, "harness: failing run", "status %d (%s); events %s", (int)st, err.msg, joined(&g));
    bench_outcome_free(&o);
}

static void test_load_busy(void)
{
    const int ok = !bench_load_busy(NAN, 2, 0) && !bench_load_busy(2.0, 2, 0) && bench_load_busy(2.1, 2, 0) &&
                   !bench_load_busy(2.9, 2, 1) && !bench_load_busy(3.0, 2, 1) && bench_load_busy(3.1, 2, 1);
    t_check(ok, "harness: busy load", "2 cores: before the runs busy above 2 (2.0 no, 2.1 yes), during them above 3 "
            "(2.9 and 3.0 no, 3.1 yes); an unreadable load (NaN) never");
}

/* An entry of a speedup/crossover table. */
static cJSON *entry(const char *dev, int batch, double rate)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "device", dev);
    cJSON_AddNumberToObject(e, "batch", batch);
    cJSON_AddNumberToObject(e, "rate", rate);
    return e;
}

static void test_speedups_crossover(void)
{
    /* CPU at batches 1, 2, 4, 8 (and no CPU entry at 16); the GPU slower at 1, faster at 2,
     * slower at 4, faster from 8 on */
    const int batches[] = {1, 2, 4, 8, 16};
    const double cpu[] = {100, 100, 100, 100}, gpu[] = {50, 150, 90, 400, 800};
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < 4; i++)
        cJSON_AddItemToArray(arr, entry("cpu", batches[i], cpu[i]));
    for (int i = 0; i < 5; i++)
        cJSON_AddItemToArray(arr, entry("cuda", batches[i], gpu[i]));
    const char *twin[] = {"batch"};
    bench_speedups(arr, "rate", twin, 1);
    const double want[] = {0.5, 1.5, 0.9, 4.0};
    int ok = 1;
    char line[512];
    size_t at = 0;
    for (int i = 0; i < 5; i++) {
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, 4 + i), "speedup_vs_cpu");
        const double v = cJSON_GetNumberValue(sp);
        ok &= i < 4 ? near(v, want[i]) : cJSON_IsNull(sp);
        at += (size_t)snprintf(line + at, sizeof line - at, "%sbatch %d %s", i ? ", " : "", batches[i],
                               cJSON_IsNull(sp) ? "null" : "");
        if (!cJSON_IsNull(sp))
            at += (size_t)snprintf(line + at, sizeof line - at, "%.2f", v);
    }
    ok &= !cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, 0), "speedup_vs_cpu");
    t_check(ok, "harness: speedups", "GPU rate over the CPU entry of the same batch, null without one, none on CPU "
            "entries: %s", line);

    cJSON *out = cJSON_CreateArray();
    const char *series[] = {"device"};
    bench_crossover(arr, out, series, 1);
    const cJSON *c0 = cJSON_GetArrayItem(out, 0);
    const int cross_ok = cJSON_GetArraySize(out) == 1 && near(num(c0, "gpu_faster_from_batch"), 8) &&
                         near(num(c0, "batches_compared"), 4);
    char *txt = cJSON_PrintUnformatted(out);
    t_check(cross_ok, "harness: crossover",
            "faster at 2 but slower at 4, faster from 8 on: from batch 8, 4 batches compared (16 has no CPU twin): %s",
            txt);
    free(txt);
    cJSON_Delete(out);
    cJSON_Delete(arr);
}

int main(void)
{
    test_rounds_and_stats();
    test_wall_clock();
    test_errors();
    test_load_busy();
    test_speedups_crossover();
    return t_done();
}
