/* harness.c: the measurement harness (see harness.h). */
#include "bench/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/record.h"
#include "sys/host.h"

int bench_load_busy(double load, int cores, int during)
{
    return isfinite(load) && load > (double)cores + (during ? 1.0 : 0.0);
}

void bench_outcome_free(bench_outcome *o)
{
    if (o->st)
        for (int k = 0; o->st[k].rates; k++)
            free(o->st[k].rates);
    free(o->st);
    memset(o, 0, sizeof *o);
}

gv_status bench_run(const bench_plan *p, bench_outcome *o, gv_err *err)
{
    memset(o, 0, sizeof *o);
    /* one more entry than configurations: rates == NULL ends the list for _free */
    o->st = gv_xcalloc((size_t)p->nconfigs + 1, sizeof *o->st);
    o->cores = gv_cpu_count();
    o->load_before = o->load_max = sys_loadavg1(NULL);
    int reps = p->repeats > 0 ? p->repeats : 1;
    for (int k = 0; k < p->nconfigs; k++) {
        o->st[k].rates = gv_xcalloc((size_t)reps, sizeof(double));
        p->label(p->ctx, k, o->st[k].phase, sizeof o->st[k].phase);
    }
    double *secs = gv_xcalloc((size_t)p->nconfigs * reps, sizeof *secs);
    double *cpu = gv_xcalloc((size_t)p->nconfigs * reps, sizeof *cpu);
    gv_progress pg;
    gv_progress_init(&pg);
    gv_status st = GV_OK;
    int set_up = 0;
    for (; set_up < p->nconfigs && st == GV_OK; set_up++) {
        gv_progress_update(&pg, "%s: setting up %s", p->name, o->st[set_up].phase);
        if (p->setup && (st = p->setup(p->ctx, set_up, err)) != GV_OK)
            break;
    }
    double units, own;
    for (int w = 0; w < p->warmup && st == GV_OK; w++)
        for (int k = 0; k < p->nconfigs && st == GV_OK; k++) {
            gv_progress_update(&pg, "%s: warm-up %d/%d, %s", p->name, w + 1, p->warmup, o->st[k].phase);
            st = p->run(p->ctx, k, 0, &units, &own, err);
        }
    for (int r = 0; r < reps && st == GV_OK; r++) {
        for (int k = 0; k < p->nconfigs && st == GV_OK; k++) {
            gv_progress_update(&pg, "%s: round %d/%d, %s", p->name, r + 1, reps, o->st[k].phase);
            gv_telemetry_phase_begin(p->tel, o->st[k].phase, !p->on_gpu || p->on_gpu(p->ctx, k) ? GV_PHASE_GPU : GV_PHASE_CPU);
            double c0 = gv_cpu_now(), t0 = gv_now();
            units = own = 0;
            st = p->run(p->ctx, k, 1, &units, &own, err);
            double dt = gv_now() - t0, dc = gv_cpu_now() - c0;
            if (own > 0)
                dt = own;
            gv_telemetry_phase_end(p->tel, units);
            if (st != GV_OK)
                break;
            secs[k * reps + r] = dt;
            cpu[k * reps + r] = dc > 0 ? units / dc : 0;
            o->st[k].rates[r] = dt > 0 ? units / dt * p->rate_scale : 0;
            o->st[k].n = r + 1;
        }
        double l = sys_loadavg1(NULL);
        if (isfinite(l) && (!isfinite(o->load_max) || l > o->load_max))
            o->load_max = l;
        if (bench_load_busy(l, o->cores, 1))
            o->busy = 1;
    }
    gv_progress_done(&pg);
    for (int k = 0; k < set_up; k++)
        if (p->teardown)
            p->teardown(p->ctx, k);
    o->load_after = sys_loadavg1(NULL);
    if (bench_load_busy(o->load_before, o->cores, 0))
        o->busy = 1;
    for (int k = 0; k < p->nconfigs; k++) {
        bench_stat *s = &o->st[k];
        gv_stats_compute(s->rates, s->n, &s->st);
        s->secs_median = gv_median(secs + (size_t)k * reps, s->n);
        s->per_cpu_median = gv_median(cpu + (size_t)k * reps, s->n) * p->rate_scale;
    }
    free(secs);
    free(cpu);
    if (o->busy) {
        snprintf(o->warning, sizeof o->warning,
                 "the machine was busy: load average %.1f before and up to %.1f during the runs on %d usable cores; "
                 "other work competes with the benchmark, so its figures are low and vary (run it on a quiet machine)",
                 o->load_before, o->load_max, o->cores);
    }
    return st;
}

void bench_entry_add(const bench_plan *p, const bench_outcome *o, int k, cJSON *e)
{
    const bench_stat *s = &o->st[k];
    char key[64];
#define K(suffix) (snprintf(key, sizeof key, "%s%s", p->rate_key, suffix), key)
    gv_json_add_num(e, K("_best"), s->st.max);
    gv_json_add_num(e, K("_median"), s->st.median);
    gv_json_add_num(e, K("_min"), s->st.min);
    gv_json_add_num(e, K("_max"), s->st.max);
    cJSON_AddItemToObject(e, K(""), gv_json_doubles(s->rates, s->n));
    gv_json_add_num(e, K("_per_cpu_second_median"), s->per_cpu_median);
#undef K
    gv_json_add_num(e, "cv", s->st.cv);
    gv_json_add_num(e, "seconds_median", s->secs_median);
    gv_json_add_num(e, "repeats", s->n);
    gv_json_add_num(e, "warmup_runs", p->warmup);
    gv_json_add_num(e, "load_before", o->load_before);
    gv_json_add_num(e, "load_after", o->load_after);
    gv_json_add_num(e, "load_max", o->load_max);
    if (p->tel)
        cJSON_AddStringToObject(e, "telemetry_phase", s->phase);
}

void bench_outcome_record(const bench_outcome *o, cJSON *rec)
{
    cJSON *l = cJSON_GetObjectItemCaseSensitive(rec, "load");
    if (!l)
        l = gv_json_add_obj(rec, "load");
    gv_json_add_num(l, "before", o->load_before);
    gv_json_add_num(l, "max", o->load_max);
    gv_json_add_num(l, "after", o->load_after);
    gv_json_add_num(l, "cores", o->cores);
    cJSON_AddBoolToObject(l, "busy", o->busy);
    if (o->busy) {
        cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "warnings");
        if (!w)
            w = gv_json_add_arr(rec, "warnings");
        cJSON_AddItemToArray(w, cJSON_CreateString(o->warning));
    }
}

/* Do a and b agree on every key of the series (strings or numbers)? */
static int same_series(const cJSON *a, const cJSON *b, const char *const *keys, int nkeys)
{
    for (int i = 0; i < nkeys; i++)
        if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a, keys[i]), cJSON_GetObjectItemCaseSensitive(b, keys[i]), 1))
            return 0;
    return 1;
}

static int on_cpu(const cJSON *e)
{
    const char *d = gv_json_str(e, "device", NULL);
    return d && !strcmp(d, "cpu");
}

void bench_speedups(cJSON *arr, const char *rate, const char *const *twin_keys, int nkeys)
{
    cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (on_cpu(e))
            continue;
        const cJSON *twin = NULL, *o;
        cJSON_ArrayForEach(o, arr)
            if (!twin && on_cpu(o) && same_series(o, e, twin_keys, nkeys))
                twin = o;
        double g = gv_json_num(e, rate);
        double c = twin ? gv_json_num(twin, rate) : NAN;
        cJSON_DeleteItemFromObjectCaseSensitive(e, "speedup_vs_cpu");
        gv_json_add_num(e, "speedup_vs_cpu", c > 0 ? g / c : NAN);
    }
}

void bench_crossover(const cJSON *arr, cJSON *out, const char *const *series_keys, int nkeys)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (on_cpu(e))
            continue;
        int seen = 0; /* one crossover object per series: skip series already done */
        const cJSON *c;
        cJSON_ArrayForEach(c, out)
            seen |= same_series(c, e, series_keys, nkeys);
        if (seen)
            continue;
        /* from: the smallest batch where the GPU wins that no batch at least as large where
         * the CPU wins (or ties) follows */
        double lose = -1, from = NAN;
        int compared = 0;
        for (int pass = 0; pass < 2; pass++) {
            const cJSON *g;
            cJSON_ArrayForEach(g, arr)
            {
                if (!same_series(g, e, series_keys, nkeys))
                    continue;
                double sp = gv_json_num(g, "speedup_vs_cpu");
                double b = gv_json_num(g, "batch");
                if (!isfinite(sp))
                    continue;
                if (pass == 0) {
                    compared++;
                    if (sp <= 1 && b > lose)
                        lose = b;
                } else if (sp > 1 && b > lose && !(from <= b)) {
                    from = b;
                }
            }
        }
        cJSON *c2 = cJSON_CreateObject();
        for (int i = 0; i < nkeys; i++)
            cJSON_AddItemToObject(c2, series_keys[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(e, series_keys[i]), 0));
        cJSON_AddNumberToObject(c2, "batches_compared", compared);
        gv_json_add_num(c2, "gpu_faster_from_batch", from);
        cJSON_AddItemToArray(out, c2);
    }
}
