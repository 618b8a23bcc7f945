/* telemetry.c: the background sampler of telemetry.h. One thread reads the GPU (NVML or
 * amdgpu sysfs), RAPL, CPU frequency and load average at a fixed rate and sleeps between
 * samples; phase_begin/phase_end take one extra sample each so that every phase has its
 * edges and its energy, however short it is. */
#include "sys/telemetry.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/gv.h"
#include "core/record.h"
#include "core/stats.h"
#include "dev/dev.h"
#include "sys/gpuread.h"
#include "sys/host.h"

/* The signals of telemetry.series, in the order of docs/RECORD.md. */
enum { S_SM, S_MEM, S_POWER, S_TEMP, S_UTIL, S_THROTTLE, S_CPU_MHZ, S_CPU_W, S_LOAD, S_COUNT };
static const char *const sig_names[S_COUNT] = {"gpu_sm_mhz", "gpu_mem_mhz", "gpu_power_w", "gpu_temp_c",
                                               "gpu_util_pct", "gpu_throttle", "cpu_mhz", "cpu_package_w", "loadavg1"};

typedef struct {
    char label[96];
    double t0, t1, work_units;
    int i0, i1; /* first and last sample of the phase */
    int open;
    int gpu_work; /* GV_PHASE_GPU */
} phase;

struct gv_telemetry {
    gv_telemetry_opts opts;
    char root[512];
    double hz, start;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    /* sources */
    sys_nvml *nvml;
    void *nvml_dev;
    sys_amdgpu amd;
    int have_amd;
    char gpu_source[64], gpu_why[512], gpu_name[96];
    sys_rapl rapl;
    double rapl_prev[SYS_RAPL_MAX], rapl_total, rapl_prev_t;
    int rapl_have_prev;
    /* series: t, the signals, and the cumulative energy counters (for phases) */
    int n, cap;
    int edges;           /* samples taken at phase edges (not by the sampler's clock) */
    double *t, *sig[S_COUNT], *gpu_energy, *cpu_energy;
    phase *phases;
    int nphases, cap_phases;
};

static void grow(gv_telemetry *t)
{
    if (t->n < t->cap)
        return;
    t->cap = t->cap ? 2 * t->cap : 256;
    t->t = gv_xrealloc(t->t, sizeof(double) * (size_t)t->cap);
    for (int s = 0; s < S_COUNT; s++)
        t->sig[s] = gv_xrealloc(t->sig[s], sizeof(double) * (size_t)t->cap);
    t->gpu_energy = gv_xrealloc(t->gpu_energy, sizeof(double) * (size_t)t->cap);
    t->cpu_energy = gv_xrealloc(t->cpu_energy, sizeof(double) * (size_t)t->cap);
}

/* Takes one sample; the caller holds t->mu. */
static void sample_locked(gv_telemetry *t)
{
    grow(t);
    int i = t->n;
    double now = gv_now() - t->start;
    sys_gpu_sample g;
    if (t->nvml_dev)
        sys_nvml_sample(t->nvml, t->nvml_dev, &g);
    else if (t->have_amd)
        sys_amdgpu_sample(t->root, &t->amd, &g);
    else
        sys_gpu_sample_clear(&g);
    t->t[i] = now;
    t->sig[S_SM][i] = g.sm_mhz;
    t->sig[S_MEM][i] = g.mem_mhz;
    t->sig[S_POWER][i] = g.power_w;
    t->sig[S_TEMP][i] = g.temp_c;
    t->sig[S_UTIL][i] = g.util_pct;
    t->sig[S_THROTTLE][i] = g.throttle;
    t->gpu_energy[i] = g.energy_j;
    t->sig[S_CPU_MHZ][i] = sys_cpu_mhz(t->root);
    t->sig[S_LOAD][i] = sys_loadavg1(t->root);
    t->sig[S_CPU_W][i] = NAN;
    t->cpu_energy[i] = NAN;
    double e[SYS_RAPL_MAX];
    if (t->rapl.n && sys_rapl_read(t->root, &t->rapl, e) == 0) {
        if (t->rapl_have_prev) {
            double d = sys_rapl_delta_j(&t->rapl, t->rapl_prev, e);
            t->rapl_total += d;
            if (now > t->rapl_prev_t)
                t->sig[S_CPU_W][i] = d / (now - t->rapl_prev_t);
        }
        memcpy(t->rapl_prev, e, sizeof e);
        t->rapl_prev_t = now;
        t->rapl_have_prev = 1;
        t->cpu_energy[i] = t->rapl_total;
    }
    t->n++;
}

static void *sampler_main(void *arg)
{
    gv_telemetry *t = arg;
    double period = 1.0 / t->hz;
    long k = 0;
    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        sample_locked(t);
        /* Next tick on a fixed schedule, skipping ticks that a slow read overran. */
        double now = gv_now();
        do
            k++;
        while (t->start + k * period <= now);
        double due = t->start + k * period;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double wait = due - now;
        long long ns = ts.tv_nsec + (long long)(wait * 1e9);
        ts.tv_sec += (time_t)(ns / 1000000000LL);
        ts.tv_nsec = (long)(ns % 1000000000LL);
        while (!t->stop && gv_now() < due)
            if (pthread_cond_timedwait(&t->cv, &t->mu, &ts) != 0)
                break;
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* Chooses the GPU reader: NVML for the GPU at the runtime's PCI address (or index), else
 * the amdgpu card at that address (or the index-th AMD card). Records why neither works. */
static void open_gpu(gv_telemetry *t)
{
    int idx = t->opts.gpu_index;
    if (idx < 0) {
        snprintf(t->gpu_why, sizeof t->gpu_why, "no GPU was asked for");
        return;
    }
    /* The runtime's PCI address picks the same GPU in NVML or sysfs, on this machine; when a
     * fixture tree or another NVML library stands in for the machine (tests), the runtime's
     * GPUs are not the ones described, so the index alone is used. */
    char pci[32] = "";
    dev_gpu_info info;
    gv_err e = {{0}};
    if (!t->root[0] && !t->opts.nvml_lib && dev_gpu_query(idx, &info, &e) == GV_OK)
        sys_pci_normalise(info.pci_bus_id, pci, sizeof pci);
    t->nvml = sys_nvml_open(t->opts.nvml_lib);
    if (sys_nvml_ok(t->nvml)) {
        char nv_pci[40] = "";
        if (pci[0]) /* NVML wants the 8-digit domain form */
            snprintf(nv_pci, sizeof nv_pci, "0000%s", pci);
        t->nvml_dev = sys_nvml_device(t->nvml, idx, nv_pci);
        int by_index = 0;
        if (!t->nvml_dev && nv_pci[0]) /* NVML did not know the runtime's address: same ordinal */
            t->nvml_dev = sys_nvml_device(t->nvml, idx, NULL), by_index = 1;
        if (t->nvml_dev) {
            sys_nvml_info ni;
            sys_nvml_info_read(t->nvml, t->nvml_dev, &ni);
            snprintf(t->gpu_source, sizeof t->gpu_source, by_index ? "nvml (matched by index)" : "nvml");
            snprintf(t->gpu_name, sizeof t->gpu_name, "%s", ni.name);
            return;
        }
    }
    sys_amdgpu cards[16];
    int n = sys_amdgpu_find(t->root, cards, 16);
    for (int i = 0; i < n; i++) {
        if (pci[0] ? strcmp(cards[i].pci_slot, pci) != 0 : i != idx)
            continue;
        t->amd = cards[i];
        t->have_amd = 1;
        snprintf(t->gpu_source, sizeof t->gpu_source, "amdgpu sysfs (%s)", cards[i].card);
        return;
    }
    snprintf(t->gpu_why, sizeof t->gpu_why, "GPU %d: NVML: %s; amdgpu: %s", idx,
             sys_nvml_ok(t->nvml) ? "no such device" : sys_nvml_why(t->nvml),
             n < 0 ? "no /sys/class/drm" : "no matching amdgpu card");
}

gv_telemetry *gv_telemetry_start(const gv_telemetry_opts *opts)
{
    if (opts->hz < 0)
        return NULL;
    gv_telemetry *t = gv_xcalloc(1, sizeof *t);
    t->opts = *opts;
    snprintf(t->root, sizeof t->root, "%s", opts->sysfs_root ? opts->sysfs_root : "");
    t->opts.sysfs_root = t->root;
    t->hz = opts->hz == 0 ? 5.0 : GV_MIN(GV_MAX(opts->hz, 0.1), 100.0);
    open_gpu(t);
    sys_rapl_open(t->root, &t->rapl);
    pthread_mutex_init(&t->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cv, &ca);
    pthread_condattr_destroy(&ca);
    t->start = gv_now();
    if (pthread_create(&t->thread, NULL, sampler_main, t) != 0) {
        /* No thread: phases still get their edge samples. */
        gv_warn("telemetry: cannot start the sampler thread; only phase edges are sampled");
        t->stop = 1;
        t->thread = 0;
    }
    return t;
}

void gv_telemetry_phase_begin(gv_telemetry *t, const char *label, int gpu_work)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    if (t->nphases == t->cap_phases) {
        t->cap_phases = t->cap_phases ? 2 * t->cap_phases : 16;
        t->phases = gv_xrealloc(t->phases, sizeof(phase) * (size_t)t->cap_phases);
    }
    phase *p = &t->phases[t->nphases++];
    memset(p, 0, sizeof *p);
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    sample_locked(t);
    t->edges++;
    p->i0 = t->n - 1;
    p->t0 = t->t[p->i0];
    p->open = 1;
    p->gpu_work = gpu_work == GV_PHASE_GPU;
    pthread_mutex_unlock(&t->mu);
}

void gv_telemetry_phase_end(gv_telemetry *t, double work_units)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    if (t->nphases && t->phases[t->nphases - 1].open) {
        phase *p = &t->phases[t->nphases - 1];
        sample_locked(t);
        t->edges++;
        p->i1 = t->n - 1;
        p->t1 = t->t[p->i1];
        p->work_units = work_units;
        p->open = 0;
    }
    pthread_mutex_unlock(&t->mu);
}

/* What a phase's samples say, for the record and the one-line summary. */
typedef struct {
    double min[S_COUNT], med[S_COUNT], max[S_COUNT];
    int samples;
    double gpu_j, cpu_j;
    gv_throttle thr; /* the throttle rule's verdict */
} phase_summary;

/* The median of the finite values among v[0..n) (NAN without any). */
static double finite_median(const double *v, int n)
{
    double *w = gv_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]))
            w[m++] = v[i];
    double r = m ? gv_median(w, m) : NAN;
    free(w);
    return r;
}

/* The slowdown bits of mask that are not thermal or hardware ones (the power cap). */
static uint64_t power_bits(uint64_t mask)
{
    uint64_t m = 0;
    for (uint64_t b = 1; b && b <= mask; b <<= 1)
        if ((mask & b) && sys_nvml_throttle_is_slowdown(b) && !sys_nvml_throttle_thermal(b))
            m |= b;
    return m;
}

void gv_throttle_judge(const double *sm_mhz, const double *util_pct, const double *reasons, int n, int gpu_work,
                       gv_throttle *v)
{
    memset(v, 0, sizeof *v);
    v->gpu_work = gpu_work == GV_PHASE_GPU;
    v->util_median = v->steady_mhz = v->low_mhz = v->drop = NAN;
    if (n <= 0)
        return;
    for (int i = 0; i < n; i++)
        if (isfinite(reasons[i]) && reasons[i] >= 0)
            v->reasons |= (uint64_t)reasons[i];
    v->util_median = finite_median(util_pct, n);
    v->busy = v->util_median >= GV_THROTTLE_BUSY_PCT;
    double *clk = gv_xmalloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int busy = isfinite(util_pct[i]) && util_pct[i] >= GV_THROTTLE_BUSY_PCT && isfinite(sm_mhz[i]);
        clk[i] = busy ? sm_mhz[i] : NAN;
        v->busy_samples += busy;
    }
    v->steady_mhz = finite_median(clk, n);
    uint64_t power = 0;
    for (int i = 0; i < n; i++) {
        uint64_t r = isfinite(reasons[i]) && reasons[i] >= 0 ? (uint64_t)reasons[i] : 0;
        if (!isfinite(clk[i]) || !sys_nvml_throttle_is_slowdown(r) || !(clk[i] < v->steady_mhz * (1 - GV_THROTTLE_DROP)))
            continue;
        power |= power_bits(r);
        if (!(v->low_mhz <= clk[i]))
            v->low_mhz = clk[i];
    }
    free(clk);
    if (isfinite(v->low_mhz))
        v->drop = 1 - v->low_mhz / v->steady_mhz;
    if (!v->gpu_work)
        return;
    v->cause = sys_nvml_throttle_thermal(v->reasons);
    if (v->busy && isfinite(v->low_mhz))
        v->cause |= power;
    v->throttled = v->cause != 0;
}

static void summarise(const gv_telemetry *t, const phase *p, phase_summary *s)
{
    int n = p->i1 - p->i0 + 1;
    s->samples = n;
    double *v = gv_xmalloc(sizeof(double) * (size_t)n);
    for (int k = 0; k < S_COUNT; k++) {
        int m = 0;
        for (int i = p->i0; i <= p->i1; i++)
            if (isfinite(t->sig[k][i]))
                v[m++] = t->sig[k][i];
        s->min[k] = s->max[k] = s->med[k] = NAN;
        for (int i = 0; i < m; i++) {
            s->min[k] = i ? GV_MIN(s->min[k], v[i]) : v[i];
            s->max[k] = i ? GV_MAX(s->max[k], v[i]) : v[i];
        }
        if (m)
            s->med[k] = gv_median(v, m);
    }
    free(v);
    gv_throttle_judge(t->sig[S_SM] + p->i0, t->sig[S_UTIL] + p->i0, t->sig[S_THROTTLE] + p->i0, n, p->gpu_work, &s->thr);
    /* GPU energy: the driver's counter when it has one, else power integrated over the
     * samples (trapezoids; the edge samples bound the phase). */
    s->gpu_j = NAN;
    if (isfinite(t->gpu_energy[p->i0]) && isfinite(t->gpu_energy[p->i1])) {
        s->gpu_j = t->gpu_energy[p->i1] - t->gpu_energy[p->i0];
    } else {
        double acc = 0;
        int ok = 0;
        for (int i = p->i0; i < p->i1; i++)
            if (isfinite(t->sig[S_POWER][i]) && isfinite(t->sig[S_POWER][i + 1])) {
                acc += 0.5 * (t->sig[S_POWER][i] + t->sig[S_POWER][i + 1]) * (t->t[i + 1] - t->t[i]);
                ok = 1;
            }
        if (ok)
            s->gpu_j = acc;
    }
    s->cpu_j = NAN;
    if (isfinite(t->cpu_energy[p->i0]) && isfinite(t->cpu_energy[p->i1]))
        s->cpu_j = t->cpu_energy[p->i1] - t->cpu_energy[p->i0];
}

static const phase *last_closed(const gv_telemetry *t)
{
    for (int i = t->nphases - 1; i >= 0; i--)
        if (!t->phases[i].open)
            return &t->phases[i];
    return NULL;
}

void gv_telemetry_last_phase_line(gv_telemetry *t, char *buf, int len)
{
    buf[0] = 0;
    if (!t || len <= 0)
        return;
    pthread_mutex_lock(&t->mu);
    const phase *p = last_closed(t);
    if (!p) {
        pthread_mutex_unlock(&t->mu);
        snprintf(buf, (size_t)len, "no telemetry phase");
        return;
    }
    phase_summary s;
    summarise(t, p, &s);
    pthread_mutex_unlock(&t->mu);
    int u = 0;
#define ADD(...) u += snprintf(buf + u, (size_t)(len > u ? len - u : 0), __VA_ARGS__)
    if (isfinite(s.med[S_SM]) || isfinite(s.med[S_POWER])) {
        ADD("gpu");
        if (isfinite(s.med[S_SM]))
            ADD(" %.0f MHz", s.med[S_SM]);
        if (isfinite(s.med[S_POWER]))
            ADD(", %.0f-%.0f W (med %.0f)", s.min[S_POWER], s.max[S_POWER], s.med[S_POWER]);
        if (isfinite(s.med[S_TEMP]))
            ADD(", %.0f C", s.med[S_TEMP]);
        if (isfinite(s.gpu_j) && p->work_units > 0)
            ADD(", %.3g mJ/sample", 1e3 * s.gpu_j / p->work_units);
        if (s.thr.throttled)
            ADD(", THROTTLED");
        ADD("; ");
    }
    ADD("cpu");
    if (isfinite(s.med[S_CPU_MHZ]))
        ADD(" %.2f GHz", s.med[S_CPU_MHZ] / 1000);
    if (isfinite(s.med[S_CPU_W]))
        ADD(", %.0f W", s.med[S_CPU_W]);
    if (isfinite(s.cpu_j) && p->work_units > 0)
        ADD(", %.3g mJ/sample", 1e3 * s.cpu_j / p->work_units);
    if (isfinite(s.med[S_LOAD]))
        ADD(", load %.2f", s.med[S_LOAD]);
#undef ADD
}

int gv_telemetry_last_phase_throttled(gv_telemetry *t)
{
    if (!t)
        return 0;
    pthread_mutex_lock(&t->mu);
    const phase *p = last_closed(t);
    phase_summary s = {0};
    if (p)
        summarise(t, p, &s);
    pthread_mutex_unlock(&t->mu);
    return p && s.thr.throttled;
}

static void add_num_or_why(cJSON *o, const char *key, const char *value, const char *why)
{
    if (value && *value) {
        cJSON_AddStringToObject(o, key, value);
    } else {
        char k[64];
        cJSON_AddNullToObject(o, key);
        snprintf(k, sizeof k, "%s_why", key);
        cJSON_AddStringToObject(o, k, why);
    }
}

static void add_reasons(cJSON *o, const char *key, uint64_t mask)
{
    cJSON *rs = gv_json_add_arr(o, key);
    char names[256];
    sys_nvml_throttle_names(mask, names, sizeof names);
    char *save = NULL;
    for (char *tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        cJSON_AddItemToArray(rs, cJSON_CreateString(tok));
}

/* A step: the phases of one label (a benchmark's configuration runs once per repeat). */
typedef struct {
    const char *label;
    int runs, affected;
    uint64_t cause;
    double steady_mhz, low_mhz, drop; /* of the run with the largest drop */
} throttle_step;

static void step_add(throttle_step *steps, int *n, const char *label, const gv_throttle *th)
{
    int k = 0;
    while (k < *n && strcmp(steps[k].label, label))
        k++;
    if (k == *n) {
        steps[k] = (throttle_step){label, 0, 0, 0, NAN, NAN, NAN};
        (*n)++;
    }
    throttle_step *st = &steps[k];
    st->affected++;
    st->cause |= th->cause;
    if (isfinite(th->drop) && !(st->drop >= th->drop))
        st->steady_mhz = th->steady_mhz, st->low_mhz = th->low_mhz, st->drop = th->drop;
}

/* Appends to the string in buf (cap bytes), truncating. */
static void append(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t u = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + u, cap - u, fmt, ap);
    va_end(ap);
}

/* telemetry.throttle: the rule, the affected steps and the ONE warning line of the run,
 * which is printed here. */
static void throttle_summary(cJSON *tel, const throttle_step *steps, int n)
{
    cJSON *o = gv_json_add_obj(tel, "throttle");
    char rule[400];
    snprintf(rule, sizeof rule,
             "GPU phases only: a thermal or hardware slowdown reason in any sample, or a busy phase (median utilisation "
             ">= %.0f%%) with a power-capped busy sample whose SM clock is >= %.0f%% below the median clock of the busy samples",
             GV_THROTTLE_BUSY_PCT, 100 * GV_THROTTLE_DROP);
    cJSON_AddStringToObject(o, "rule", rule);
    cJSON *arr = gv_json_add_arr(o, "steps");
    char line[1024];
    snprintf(line, sizeof line, "the GPU was slowed in %d step%s, whose figures understate it: ", n, n == 1 ? "" : "s");
    for (int k = 0; k < n; k++) {
        const throttle_step *st = &steps[k];
        char names[256];
        sys_nvml_throttle_names(st->cause, names, sizeof names);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "label", st->label);
        cJSON_AddNumberToObject(e, "runs", st->runs);
        cJSON_AddNumberToObject(e, "runs_throttled", st->affected);
        add_reasons(e, "cause", st->cause);
        gv_json_add_num(e, "steady_sm_mhz", st->steady_mhz);
        gv_json_add_num(e, "low_sm_mhz", st->low_mhz);
        gv_json_add_num(e, "clock_drop", st->drop);
        cJSON_AddItemToArray(arr, e);
        if (k >= 4) /* the line names four; the record has them all */
            continue;
        char drop[96] = "";
        if (isfinite(st->drop))
            snprintf(drop, sizeof drop, ", SM clock %.0f -> %.0f MHz (-%.0f%%)", st->steady_mhz, st->low_mhz, 100 * st->drop);
        append(line, sizeof line, "%s'%s' (%s%s, %d of %d runs)", k ? ", " : "", st->label, names, drop, st->affected,
               st->runs);
    }
    if (n > 4)
        append(line, sizeof line, " and %d more", n - 4);
    append(line, sizeof line, "; details in the record's telemetry.throttle; check cooling and power limits (nvidia-smi -q -d PERFORMANCE)");
    if (n) {
        cJSON_AddStringToObject(o, "warning", line);
        gv_warn("%s", line);
    } else {
        cJSON_AddNullToObject(o, "warning");
    }
}

static cJSON *build_json(gv_telemetry *t)
{
    cJSON *tel = cJSON_CreateObject();
    throttle_step *steps = gv_xcalloc((size_t)t->nphases + 1, sizeof *steps);
    int nsteps = 0;
    gv_json_add_num(tel, "hz", t->hz);
    double dur = t->n ? t->t[t->n - 1] - t->t[0] : 0;
    cJSON_AddNumberToObject(tel, "samples", t->n);
    gv_json_add_num(tel, "duration_s", dur);
    /* the sampler's own rate: the samples taken at phase edges do not count */
    int timed = t->n - t->edges;
    gv_json_add_num(tel, "achieved_hz", dur > 0 && timed > 1 ? (timed - 1) / dur : NAN);
    cJSON_AddNumberToObject(tel, "edge_samples", t->edges);
    cJSON *src = gv_json_add_obj(tel, "sources");
    add_num_or_why(src, "gpu", t->gpu_source, t->gpu_why);
    if (t->gpu_name[0])
        cJSON_AddStringToObject(src, "gpu_name", t->gpu_name);
    if (t->nvml_dev)
        cJSON_AddStringToObject(src, "gpu_missing", sys_nvml_missing(t->nvml));
    if (t->have_amd && !t->amd.power_file[0])
        cJSON_AddStringToObject(src, "gpu_power_why", "hwmon has neither power1_average nor power1_input");
    char rapl[64];
    snprintf(rapl, sizeof rapl, "rapl (%d package zone%s)", t->rapl.n, t->rapl.n == 1 ? "" : "s");
    add_num_or_why(src, "cpu_package", t->rapl.n ? rapl : NULL, t->rapl.why);
    int have_mhz = 0, have_load = 0;
    for (int i = 0; i < t->n; i++)
        have_mhz |= isfinite(t->sig[S_CPU_MHZ][i]), have_load |= isfinite(t->sig[S_LOAD][i]);
    add_num_or_why(src, "cpu_mhz", have_mhz ? "cpufreq or /proc/cpuinfo" : NULL, "neither cpufreq nor /proc/cpuinfo has a frequency");
    add_num_or_why(src, "loadavg1", have_load ? "/proc/loadavg" : NULL, "/proc/loadavg unreadable");
    cJSON *ser = gv_json_add_obj(tel, "series");
    cJSON_AddItemToObject(ser, "t", gv_json_doubles(t->t, t->n));
    for (int k = 0; k < S_COUNT; k++)
        cJSON_AddItemToObject(ser, sig_names[k], gv_json_doubles(t->sig[k], t->n));
    cJSON *ph = gv_json_add_arr(tel, "phases");
    for (int i = 0; i < t->nphases; i++) {
        phase *p = &t->phases[i];
        if (p->open) /* a phase never ended: close it at the last sample */
            p->i1 = t->n - 1, p->t1 = t->t[p->i1], p->open = 0;
        phase_summary s;
        summarise(t, p, &s);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "label", p->label);
        gv_json_add_num(o, "t0", p->t0);
        gv_json_add_num(o, "t1", p->t1);
        cJSON_AddNumberToObject(o, "samples", s.samples);
        for (int k = 0; k < S_COUNT; k++) {
            if (k == S_THROTTLE)
                continue;
            cJSON *st = gv_json_add_obj(o, sig_names[k]);
            gv_json_add_num(st, "min", s.min[k]);
            gv_json_add_num(st, "median", s.med[k]);
            gv_json_add_num(st, "max", s.max[k]);
        }
        cJSON *ej = gv_json_add_obj(o, "energy_j");
        gv_json_add_num(ej, "gpu", s.gpu_j);
        gv_json_add_num(ej, "cpu_package", s.cpu_j);
        gv_json_add_num(o, "work_units", p->work_units);
        cJSON *eu = gv_json_add_obj(o, "energy_per_unit_j");
        gv_json_add_num(eu, "gpu", p->work_units > 0 ? s.gpu_j / p->work_units : NAN);
        gv_json_add_num(eu, "cpu_package", p->work_units > 0 ? s.cpu_j / p->work_units : NAN);
        const gv_throttle *th = &s.thr;
        cJSON_AddBoolToObject(o, "gpu_work", th->gpu_work);
        cJSON_AddBoolToObject(o, "throttled", th->throttled);
        add_reasons(o, "throttle_reasons", th->reasons & ~(uint64_t)1); /* idle is no reason */
        cJSON *tj = gv_json_add_obj(o, "throttle");
        cJSON_AddBoolToObject(tj, "busy", th->busy);
        cJSON_AddNumberToObject(tj, "busy_samples", th->busy_samples);
        gv_json_add_num(tj, "util_median_pct", th->util_median);
        gv_json_add_num(tj, "steady_sm_mhz", th->steady_mhz);
        gv_json_add_num(tj, "low_sm_mhz", th->low_mhz);
        gv_json_add_num(tj, "clock_drop", th->drop);
        add_reasons(tj, "cause", th->cause);
        cJSON_AddItemToArray(ph, o);
        if (th->throttled)
            step_add(steps, &nsteps, p->label, th);
    }
    for (int i = 0; i < t->nphases; i++) /* how many runs each affected step had */
        for (int k = 0; k < nsteps; k++)
            steps[k].runs += !strcmp(steps[k].label, t->phases[i].label);
    throttle_summary(tel, steps, nsteps);
    free(steps);
    return tel;
}

void gv_telemetry_stop(gv_telemetry *t, cJSON *rec)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = 1;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    if (t->thread)
        pthread_join(t->thread, NULL);
    if (t->n == 0)
        sample_locked(t);
    cJSON *tel = build_json(t);
    if (rec) {
        cJSON_DeleteItemFromObject(rec, "telemetry");
        cJSON_AddItemToObject(rec, "telemetry", tel);
    } else {
        cJSON_Delete(tel);
    }
    sys_nvml_close(t->nvml);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t->t);
    for (int s = 0; s < S_COUNT; s++)
        free(t->sig[s]);
    GV_FREE(t->gpu_energy, t->cpu_energy, t->phases, t);
}
