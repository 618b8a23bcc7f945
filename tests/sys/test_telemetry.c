/* test_telemetry.c: the sampler on the APU fixture tree (amdgpu sysfs) and on a fake NVML
 * library built from tests/fixtures/fake_nvml.c (so the dlopen/dlsym path, a missing
 * optional entry point and throttle reasons are exercised without an NVIDIA GPU). Also the
 * probe's NVML path with the same library. Expected readings are the fixtures' values. */
#include <math.h>
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
    gv_telemetry_phase_begin(t, "apu phase");
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
    gv_telemetry_phase_begin(t, "cuda bf16 c128 b4096");
    sleep_s(0.4);
    gv_telemetry_phase_end(t, 4096.0);
    char line[256];
    gv_telemetry_last_phase_line(t, line, sizeof line);
    int thr = gv_telemetry_last_phase_throttled(t);
    t_check(strstr(line, "gpu 1980 MHz, 412-412 W (med 412), 61 C") && strstr(line, "THROTTLED") && thr,
            "fake NVML: phase line and throttling", "%s", line);
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
    t_check(cJSON_IsTrue(get(tel, "phases.0.throttled")) && !strcmp(gs(tel, "phases.0.throttle_reasons.0"), "sw_power_cap"),
            "fake NVML: the phase is marked throttled by sw_power_cap", "%s", gs(tel, "phases.0.throttle_reasons.0"));
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
    unlink(lib);
    rmdir(dir);
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
    gv_telemetry_phase_begin(t, "idle GPU");
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
    test_fake_nvml(root);
    test_real_nvml();
    return t_done();
}
