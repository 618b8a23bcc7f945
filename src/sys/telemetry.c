/* telemetry.c: the background sampler of telemetry.h. One thread reads the GPU (NVML or
 * amdgpu sysfs), RAPL, CPU frequency and load average at a fixed rate and sleeps between
 * samples; phase_begin/phase_end take one extra sample each so that every phase has its
 * edges and its energy, however short it is. */
#include "sys/telemetry.h"

#include <math.h>
#include <pthread.h>
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

void gv_telemetry_phase_begin(gv_telemetry *t, const char *label)
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
    uint64_t reasons; /* union of the clock-event bits seen */
    int throttled;
} phase_summary;

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
    s->reasons = 0;
    for (int i = p->i0; i <= p->i1; i++)
        if (isfinite(t->sig[S_THROTTLE][i]))
            s->reasons |= (uint64_t)t->sig[S_THROTTLE][i];
    s->throttled = sys_nvml_throttle_is_slowdown(s->reasons);
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
        if (s.throttled)
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
    return p && s.throttled;
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

static cJSON *build_json(gv_telemetry *t)
{
    cJSON *tel = cJSON_CreateObject();
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
        cJSON_AddBoolToObject(o, "throttled", s.throttled);
        cJSON *rs = gv_json_add_arr(o, "throttle_reasons");
        char names[256];
        sys_nvml_throttle_names(s.reasons & ~(uint64_t)1, names, sizeof names); /* idle is no reason */
        char *save = NULL;
        for (char *tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            cJSON_AddItemToArray(rs, cJSON_CreateString(tok));
        if (s.throttled) {
            char all[256];
            sys_nvml_throttle_names(s.reasons, all, sizeof all);
            gv_warn("the GPU was throttled during '%s' (%s): its figures understate what it can do; "
                    "check cooling and power limits (nvidia-smi -q -d PERFORMANCE)", p->label, all);
        }
        cJSON_AddItemToArray(ph, o);
    }
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
