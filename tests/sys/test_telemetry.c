/* test_telemetry.c: the sampler on the APU fixture tree (amdgpu sysfs) and on a fake NVML
 * library built from tests/fixtures/fake_nvml.c (so the dlopen/dlsym path, a missing
 * optional entry point and throttle reasons are exercised without an NVIDIA GPU). Also the
 * probe's NVML path with the same library, and the throttle rule (gv_throttle_judge) on
 * fixed samples and on the fake NVML's scenarios: an idle power cap during CPU phases, a
 * clock drop under load, a thermal slowdown, several affected steps -- at most one warning
 * line per run. Expected readings are the fixtures' values. */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "jpath.h"
#include "sys/gpuread.h"
#include "sys/probe.h"
#include "sys/telemetry.h"

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* All finite values of a series equal want? Returns how many finite values there were. */
static int series_all(const cJSON *tel, const char *sig, double want, int *bad)
{
    int n = 0;
    *bad = 0;
    const cJSON *v, *ser = cJSON_GetObjectItem(get(tel, "series"), sig);
    cJSON_ArrayForEach(v, ser) {
        if (!cJSON_IsNumber(v))
            continue;
        n++;
        *bad += fabs(v->valuedouble - want) > 1e-9 * fabs(want);
    }
    return n;
}

static void test_amdgpu_sampler(const char *apu)
{
    gv_telemetry_opts o = {20, 0, apu, "libgpuvet-no-such-nvml.so.1"};
    gv_telemetry *t = gv_telemetry_start(&o);
    gv_telemetry_phase_begin(t, "apu phase", GV_PHASE_GPU);
    sleep_s(0.6);
    gv_telemetry_phase_end(t, 600.0);
    char line[256];
    gv_telemetry_last_phase_line(t, line, sizeof line);
    t_check(strstr(line, "gpu 1900 MHz, 15-15 W (med 15), 52 C") && strstr(line, "cpu 3.00 GHz") && strstr(line, "load 1.25"),
            "telemetry: one-line phase summary", "%s", line);
    cJSON *rec = cJSON_CreateObject();
    gv_telemetry_stop(t, rec);
    const cJSON *tel = cJSON_GetObjectItem(rec, "telemetry");
    int bad, n = series_all(tel, "gpu_power_w", 15.123, &bad);
    t_check(n >= 3 && !bad && !strncmp(gs(tel, "sources.gpu"), "amdgpu sysfs (card0)", 20), "telemetry APU: power series from power1_input",
            "%d samples, %d differ, source %s", n, bad, gs(tel, "sources.gpu"));
    n = series_all(tel, "gpu_sm_mhz", 1900, &bad);
    int n2, bad2;
    n2 = series_all(tel, "loadavg1", 1.25, &bad2);
    t_check(n >= 3 && !bad && n2 == n && !bad2, "telemetry APU: clock and load series", "%d/%d samples", n, n2);
    /* 0.6 s at 20 Hz: about 12 ticks plus the two phase edges; at least a quarter of the
     * requested rate proves the thread samples on its own between the edges. */
    double ph_samples = gn(tel, "phases.0.samples"), dur = gn(tel, "phases.0.t1") - gn(tel, "phases.0.t0");
    t_check(ph_samples >= 2 + 0.25 * 20 * 0.6 && dur >= 0.6, "telemetry: the thread samples between the phase edges",
            "%.0f samples in %.3f s (20 Hz asked)", ph_samples, dur);
    double ej = gn(tel, "phases.0.energy_j.gpu"), epu = gn(tel, "phases.0.energy_per_unit_j.gpu");
    t_check(fabs(ej - 15.123 * dur) < 1e-6 * ej && fabs(epu - ej / 600.0) < 1e-12, "telemetry: GPU energy = power integrated over the phase",
            "%.6f J over %.4f s, %.3g J/unit", ej, dur, epu);
    t_check(gn(tel, "phases.0.energy_j.cpu_package") == 0 && gn(tel, "phases.0.cpu_mhz.median") == 3000 &&
                cJSON_IsFalse(get(tel, "phases.0.throttled")),
            "telemetry APU: RAPL counter unchanged -> 0 J, CPU 3000 MHz, not throttled", "%g J", gn(tel, "phases.0.energy_j.cpu_package"));
    t_check(gn(tel, "hz") == 20 && cJSON_GetArraySize(get(tel, "series.t")) == cJSON_GetArraySize(get(tel, "series.gpu_throttle")),
            "telemetry: record layout (hz, equal series lengths)", "%d samples", cJSON_GetArraySize(get(tel, "series.t")));
    cJSON_Delete(rec);

    gv_telemetry_opts d = {0, -1, apu, NULL}, neg = {-1, -1, NULL, NULL};
    t = gv_telemetry_start(&d);
    rec = cJSON_CreateObject();
    gv_telemetry_stop(t, rec);
    tel = cJSON_GetObjectItem(rec, "telemetry");
    t_check(gn(tel, "hz") == 5 && cJSON_IsNull(get(tel, "sources.gpu")) && !strcmp(gs(tel, "sources.gpu_why"), "no GPU was asked for") &&
                gv_telemetry_start(&neg) == NULL,
            "telemetry: default 5 Hz, no GPU asked, negative rate refused", "hz %g, %s", gn(tel, "hz"), gs(tel, "sources.gpu_why"));
    cJSON_Delete(rec);
}

static void test_throttle_scenarios(const char *lib);

static void test_fake_nvml(const char *root)
{
    char dir[] = "/tmp/gv-nvml-XXXXXX", lib[300], cmd[1200];
    if (!mkdtemp(dir)) {
        t_check(0, "fake NVML: temporary folder", "mkdtemp failed");
        return;
    }
    snprintf(lib, sizeof lib, "%s/libfake-nvml.so", dir);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O1 -o %s %s/tests/fixtures/fake_nvml.c 2>&1", lib, root);
    if (system(cmd) != 0) {
        t_skip("fake NVML", "no C compiler to build tests/fixtures/fake_nvml.c");
        return;
    }
    gv_telemetry_opts o = {20, 0, NULL, lib};
    gv_telemetry *t = gv_telemetry_start(&o);
    gv_telemetry_phase_begin(t, "cuda bf16 c128 b4096", GV_PHASE_GPU);
    sleep_s(0.4);
    gv_telemetry_phase_end(t, 4096.0);
    char line[256];
    gv_telemetry_last_phase_line(t, line, sizeof line);
    int thr = gv_telemetry_last_phase_throttled(t);
    /* busy at one clock all along, power-capped: the clock it sustains, no throttling */
    t_check(strstr(line, "gpu 1980 MHz, 412-412 W (med 412), 61 C") && !strstr(line, "THROTTLED") && !thr,
            "fake NVML: phase line; a steady power-capped clock is not throttling", "%s", line);
    cJSON *rec = cJSON_CreateObject();
    gv_telemetry_stop(t, rec); /* prints the throttling warning on stderr */
    const cJSON *tel = cJSON_GetObjectItem(rec, "telemetry");
    int bad, n = series_all(tel, "gpu_power_w", 412.5, &bad), b2, n2 = series_all(tel, "gpu_mem_mhz", 3201, &b2);
    t_check(n >= 3 && !bad && n2 == n && !b2 && !strcmp(gs(tel, "sources.gpu"), "nvml") && !strcmp(gs(tel, "sources.gpu_name"), "Fake H200"),
            "fake NVML: power and memory clock series through dlsym", "%d samples of 412.5 W and 3201 MHz", n);
    t_check(!strcmp(gs(tel, "sources.gpu_missing"), "nvmlDeviceGetTotalEnergyConsumption"), "fake NVML: the missing entry point is recorded",
            "%s", gs(tel, "sources.gpu_missing"));
    double dur = gn(tel, "phases.0.t1") - gn(tel, "phases.0.t0"), ej = gn(tel, "phases.0.energy_j.gpu");
    t_check(fabs(ej - 412.5 * dur) < 1e-6 * ej, "fake NVML: energy from power when there is no energy counter", "%.4f J over %.4f s", ej, dur);
    t_check(cJSON_IsFalse(get(tel, "phases.0.throttled")) && !strcmp(gs(tel, "phases.0.throttle_reasons.0"), "sw_power_cap") &&
                gn(tel, "phases.0.throttle.steady_sm_mhz") == 1980 && cJSON_IsNull(get(tel, "throttle.warning")),
            "fake NVML: sw_power_cap recorded, the phase not throttled, no warning", "reason %s, steady %.0f MHz, throttled %s",
            gs(tel, "phases.0.throttle_reasons.0"), gn(tel, "phases.0.throttle.steady_sm_mhz"),
            cJSON_IsTrue(get(tel, "phases.0.throttled")) ? "yes" : "no");
    cJSON_Delete(rec);

    /* The probe's NVML path on an empty root (no other GPU source). */
    sys_probe_opts po = {dir, (char *[]){NULL}, lib, 1};
    cJSON *p = sys_probe_json_opts(&po);
    t_check(!strcmp(gs(p, "gpus.0.vendor"), "NVIDIA") && !strcmp(gs(p, "gpus.0.name"), "Fake H200") && !strcmp(gs(p, "gpus.0.arch"), "sm_90") &&
                !strcmp(gs(p, "gpus.0.memory.kind"), "dedicated") && gn(p, "gpus.0.memory.total_bytes") == 150323855360.0 &&
                !strcmp(gs(p, "nvml.driver_version"), "550.54.15") && !strcmp(gs(p, "nvml.cuda_driver_version"), "12.4") &&
                gn(p, "gpus.0.power_limit_w") == 700,
            "fake NVML: probe reads name, arch, memory, driver, power limit", "%s %s %s %.0f B, driver %s, CUDA %s", gs(p, "gpus.0.vendor"),
            gs(p, "gpus.0.name"), gs(p, "gpus.0.arch"), gn(p, "gpus.0.memory.total_bytes"), gs(p, "nvml.driver_version"),
            gs(p, "nvml.cuda_driver_version"));
    cJSON_Delete(p);
    test_throttle_scenarios(lib);
    unlink(lib);
    rmdir(dir);
}

/* ---- the throttle rule --------------------------------------------------------------- */

/* gv_throttle_judge on fixed samples: (clock, utilisation, reasons) per sample. */
static void judge_case(const char *name, int n, const double *mhz, const double *util, const double *rs, int gpu, int want,
                       double want_drop)
{
    gv_throttle v;
    gv_throttle_judge(mhz, util, rs, n, gpu, &v);
    char cause[128];
    sys_nvml_throttle_names(v.cause, cause, sizeof cause);
    int drop_ok = isnan(want_drop) ? isnan(v.drop) : fabs(v.drop - want_drop) < 1e-9;
    t_check(v.throttled == want && drop_ok, name, "throttled %d (want %d), util median %.0f%%, steady %.0f MHz, low %.0f MHz, drop %.3f (want %.3f), cause '%s'",
            v.throttled, want, v.util_median, v.steady_mhz, v.low_mhz, v.drop, want_drop, cause);
}

static void test_throttle_rule(void)
{
    const double idle_mhz[] = {345, 345, 345, 345}, idle_util[] = {0, 0, 1, 0}, cap[] = {5, 4, 4, 5};
    judge_case("throttle rule: idle GPU at low clocks with sw_power_cap, CPU phase", 4, idle_mhz, idle_util, cap, GV_PHASE_CPU, 0, NAN);
    judge_case("throttle rule: idle GPU with sw_power_cap, even in a GPU phase", 4, idle_mhz, idle_util, cap, GV_PHASE_GPU, 0, NAN);
    const double held[] = {1755, 1755, 1740, 1755, 1755}, busy[] = {99, 99, 99, 99, 99}, cap5[] = {4, 4, 4, 4, 4};
    judge_case("throttle rule: busy, power-capped at one clock the whole phase", 5, held, busy, cap5, GV_PHASE_GPU, 0, NAN);
    const double dip[] = {1980, 1980, 1600, 1980, 1980}, cap_dip[] = {0, 0, 4, 0, 0};
    judge_case("throttle rule: busy, a power-capped sample 19% below the steady clock", 5, dip, busy, cap_dip, GV_PHASE_GPU, 1,
               1 - 1600.0 / 1980);
    judge_case("throttle rule: the same samples in a CPU phase", 5, dip, busy, cap_dip, GV_PHASE_CPU, 0, 1 - 1600.0 / 1980);
    const double small[] = {1980, 1980, 1900, 1980, 1980};
    judge_case("throttle rule: a 4% dip is under the 5% threshold", 5, small, busy, cap_dip, GV_PHASE_GPU, 0, NAN);
    const double no_reason[] = {0, 0, 0, 0, 0};
    judge_case("throttle rule: a clock dip without a slowdown reason (a ramp) is not throttling", 5, dip, busy, no_reason,
               GV_PHASE_GPU, 0, NAN);
    const double light[] = {20, 30, 99, 10, 20};
    judge_case("throttle rule: lightly loaded (median 20% busy) with a capped dip", 5, dip, light, cap_dip, GV_PHASE_GPU, 0, NAN);
    const double thermal[] = {0x40, 0x40, 0x40, 0x40, 0x40};
    judge_case("throttle rule: hw_thermal_slowdown at a held clock", 5, held, busy, thermal, GV_PHASE_GPU, 1, NAN);
}

/* gv_telemetry_stop with stderr sent to a file; returns the warning lines (malloc'd) and
 * their count in *n. */
static char *stop_capture(gv_telemetry *t, cJSON *rec, int *n)
{
    char path[] = "/tmp/gv-tel-err-XXXXXX";
    int fd = mkstemp(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    gv_telemetry_stop(t, rec);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *buf = calloc(1, 8192);
    lseek(fd, 0, SEEK_SET);
    ssize_t got = read(fd, buf, 8191);
    buf[got > 0 ? got : 0] = 0;
    for (ssize_t i = got - 1; i >= 0 && buf[i] == '\n'; i--) /* the test's line prints it */
        buf[i] = 0;
    close(fd);
    unlink(path);
    *n = 0;
    for (char *p = buf; (p = strstr(p, "warning:")); p++)
        (*n)++;
    return buf;
}

typedef void (*fake_set_fn)(unsigned int sm, unsigned int util, unsigned long long reasons);

/* One phase of ~0.45 s at base; mid (when not NULL) holds its state for 0.15 s in the
 * middle (about 3 of the phase's 11 samples at 20 Hz: the median stays base's clock). */
static void fake_phase(gv_telemetry *t, fake_set_fn set, const char *label, int gpu, const unsigned long long *base,
                       const unsigned long long *mid)
{
    set((unsigned)base[0], (unsigned)base[1], base[2]);
    gv_telemetry_phase_begin(t, label, gpu);
    sleep_s(0.15);
    if (mid) {
        set((unsigned)mid[0], (unsigned)mid[1], mid[2]);
        sleep_s(0.15);
        set((unsigned)base[0], (unsigned)base[1], base[2]);
    }
    sleep_s(0.3);
    gv_telemetry_phase_end(t, 1.0);
}

/* One phase of a scenario: its label, GV_PHASE_*, and the fake's state (SM MHz,
 * utilisation %, reason bits) for the phase and (mid, when not NULL) in its middle. */
typedef struct {
    const char *label;
    int gpu;
    const unsigned long long *base, *mid;
} scene_phase;

/* Runs the phases under one sampler; returns the record (cJSON_Delete) and the run's
 * stderr (free), with the warning lines counted in *n. */
static cJSON *scenario(const char *lib, fake_set_fn set, const scene_phase *ph, int nph, char **err, int *n)
{
    gv_telemetry_opts o = {20, 0, NULL, lib};
    gv_telemetry *t = gv_telemetry_start(&o);
    for (int i = 0; i < nph; i++)
        fake_phase(t, set, ph[i].label, ph[i].gpu, ph[i].base, ph[i].mid);
    cJSON *rec = cJSON_CreateObject();
    *err = stop_capture(t, rec, n);
    return rec;
}

static void test_throttle_scenarios(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    fake_set_fn set = h ? (fake_set_fn)(uintptr_t)dlsym(h, "fake_nvml_set") : NULL;
    if (!set) {
        t_check(0, "throttle scenarios: fake_nvml_set", "%s", dlerror());
        return;
    }
    const unsigned long long idle_cap[] = {345, 0, 0x5}, busy[] = {1980, 97, 0}, capped_dip[] = {1600, 98, 0x4},
                             hot[] = {1410, 97, 0x40};
    const scene_phase cpu256 = {"cpu fp32 256", GV_PHASE_CPU, idle_cap, NULL}, cpu512 = {"cpu fp32 512", GV_PHASE_CPU, idle_cap, NULL},
                      dip = {"cuda bf16 c128 b8192", GV_PHASE_GPU, busy, capped_dip}, steady = {"cuda fp32 c128 b64", GV_PHASE_GPU, busy, NULL},
                      thermal = {"cuda fp32 2048", GV_PHASE_GPU, hot, NULL},
                      emu = {"gb video device audio native x1024", GV_PHASE_GPU, busy, capped_dip};
    int n;
    char *err;

    /* 1. CPU steps while the GPU idles at low clocks with sw_power_cap (the report of issue 42) */
    const scene_phase s1[] = {cpu256, cpu256, cpu512};
    cJSON *rec = scenario(lib, set, s1, 3, &err, &n);
    const cJSON *tel = cJSON_GetObjectItem(rec, "telemetry");
    t_check(n == 0 && cJSON_IsFalse(get(tel, "phases.0.throttled")) && !strcmp(gs(tel, "phases.0.throttle_reasons.0"), "sw_power_cap") &&
                cJSON_IsFalse(get(tel, "phases.0.gpu_work")) && cJSON_IsNull(get(tel, "throttle.warning")),
            "throttle: idle sw_power_cap during CPU phases -> no warning", "%d warning lines, phase 0 reasons '%s', gpu_work %s, stderr '%s'",
            n, gs(tel, "phases.0.throttle_reasons.0"), cJSON_IsTrue(get(tel, "phases.0.gpu_work")) ? "true" : "false", err);
    free(err);
    cJSON_Delete(rec);

    /* 2. a busy GPU phase (run twice) whose clock falls under the power cap, among a CPU
     * phase and a GPU phase at its steady clock */
    const scene_phase s2[] = {cpu256, dip, dip, steady};
    rec = scenario(lib, set, s2, 4, &err, &n);
    tel = cJSON_GetObjectItem(rec, "telemetry");
    t_check(n == 1 && strstr(err, "in 1 step") && strstr(err, "'cuda bf16 c128 b8192' (sw_power_cap, SM clock 1980 -> 1600 MHz (-19%), 2 of 2 runs)") &&
                !strstr(err, "cpu fp32") && !strstr(err, "b64") && cJSON_IsTrue(get(tel, "phases.1.throttled")) &&
                gn(tel, "throttle.steps.0.low_sm_mhz") == 1600 && cJSON_GetArraySize(get(tel, "throttle.steps")) == 1,
            "throttle: a busy phase with a real clock drop -> one line", "%d warning line(s): %s", n, err);
    free(err);
    cJSON_Delete(rec);

    /* 3. a thermal slowdown at a held clock */
    rec = scenario(lib, set, &thermal, 1, &err, &n);
    tel = cJSON_GetObjectItem(rec, "telemetry");
    t_check(n == 1 && strstr(err, "'cuda fp32 2048' (hw_thermal_slowdown, 1 of 1 runs)") &&
                !strcmp(gs(tel, "throttle.steps.0.cause.0"), "hw_thermal_slowdown"),
            "throttle: an NVML thermal slowdown -> one line naming it", "%d warning line(s): %s", n, err);
    free(err);
    cJSON_Delete(rec);

    /* 4. several affected steps (and CPU ones between them): still one line naming them all */
    const scene_phase s4[] = {dip, cpu256, thermal, emu, cpu256};
    rec = scenario(lib, set, s4, 5, &err, &n);
    tel = cJSON_GetObjectItem(rec, "telemetry");
    t_check(n == 1 && strstr(err, "in 3 steps") && strstr(err, "'cuda bf16 c128 b8192'") && strstr(err, "'cuda fp32 2048'") &&
                strstr(err, "'gb video device audio native x1024'") && !strstr(err, "cpu fp32") &&
                cJSON_GetArraySize(get(tel, "throttle.steps")) == 3,
            "throttle: several affected steps -> still one line naming them", "%d warning line(s): %s", n, err);
    free(err);
    cJSON_Delete(rec);
    set(1980, 97, 0x4); /* the fixture's defaults again */
    dlclose(h);
}

/* On a machine with an NVIDIA driver: the real NVML at the default 5 Hz for 1.2 s. */
static void test_real_nvml(void)
{
    sys_nvml *n = sys_nvml_open(NULL);
    int count = sys_nvml_count(n);
    char why[600];
    snprintf(why, sizeof why, "%s", sys_nvml_ok(n) ? "NVML sees no GPU" : sys_nvml_why(n));
    sys_nvml_close(n);
    if (count <= 0) {
        t_skip("real NVML telemetry", "%s", why);
        return;
    }
    gv_telemetry_opts o = {0, 0, NULL, NULL};
    gv_telemetry *t = gv_telemetry_start(&o);
    gv_telemetry_phase_begin(t, "idle GPU", GV_PHASE_GPU);
    sleep_s(1.2);
    gv_telemetry_phase_end(t, 1.0);
    cJSON *rec = cJSON_CreateObject();
    gv_telemetry_stop(t, rec);
    const cJSON *tel = cJSON_GetObjectItem(rec, "telemetry");
    double samples = gn(tel, "phases.0.samples"), dur = gn(tel, "phases.0.t1") - gn(tel, "phases.0.t0");
    double w = gn(tel, "phases.0.gpu_power_w.median"), mhz = gn(tel, "phases.0.gpu_sm_mhz.median"), c = gn(tel, "phases.0.gpu_temp_c.median");
    t_check(samples >= 5 * dur && w > 0 && mhz > 0 && c > 0, "real NVML telemetry: 5 Hz, power, clock, temperature",
            "%s (%s): %.0f samples in %.2f s, %.1f W, %.0f MHz, %.0f C, missing: '%s'", gs(tel, "sources.gpu_name"), gs(tel, "sources.gpu"),
            samples, dur, w, mhz, c, gs(tel, "sources.gpu_missing"));
    cJSON_Delete(rec);
}

int main(void)
{
    const char *root = getenv("GV_ROOT");
    if (!root) {
        t_skip("telemetry", "GV_ROOT is not set (run through make test)");
        return 0;
    }
    char apu[512];
    snprintf(apu, sizeof apu, "%s/tests/fixtures/sysfs/apu", root);
    test_amdgpu_sampler(apu);
    test_throttle_rule();
    test_fake_nvml(root);
    test_real_nvml();
    return t_done();
}
