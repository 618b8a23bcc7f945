/* test_sysfs.c: the sysfs, RAPL, amdgpu, NVML-absence and probe readers against fixture
 * trees that mimic real machines (tests/fixtures/sysfs/: an APU with 512 MiB VRAM and a
 * 30 GiB GTT pool, a discrete Radeon, an NVIDIA user-space/kernel driver mismatch). The
 * expected values are the fixture files' contents, worked out by hand. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jpath.h"
#include "sys/envadv.h"
#include "sys/gpuread.h"
#include "sys/host.h"
#include "sys/probe.h"
#include "sys/sysfs.h"

static char apu[512], dgpu[512], nvmis[512];

static int has_warning(const cJSON *p, const char *needle)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(p, "warnings"))
        if (strstr(w->valuestring, needle))
            return 1;
    return 0;
}

static void test_readers(void)
{
    char buf[64];
    uint64_t u;
    t_check(sys_read_line(apu, "/proc/loadavg", buf, sizeof buf) == 0 && !strcmp(buf, "1.25 0.80 0.50 2/345 6789"),
            "sysfs: first line without newline", "'%s'", buf);
    int r = sys_read_u64(apu, "/nope", &u);
    t_check(r == -ENOENT && !strcmp(sys_why(r), "missing"), "sysfs: a missing file says why", "%d %s", r, sys_why(r));
    t_check(sys_read_u64(apu, "/proc/loadavg", &u) == -EINVAL, "sysfs: a non-integer is refused", "1.25 ... -> -EINVAL");
    char names[8][SYS_NAME_MAX];
    int n = sys_list_dir(apu, "/sys/class/drm", "card", names, 8);
    t_check(n == 2 && !strcmp(names[0], "card0") && !strcmp(names[1], "card0-eDP-1"), "sysfs: list_dir", "%d: %s %s", n,
            n > 0 ? names[0] : "", n > 1 ? names[1] : "");
    char v[64];
    t_check(sys_text_value("model name\t: AMD Ryzen\nflags : x\n", "model name", v, sizeof v) && !strcmp(v, "AMD Ryzen"),
            "sysfs: text_value with ':'", "'%s'", v);
    t_check(sys_text_value("gfx_target_version 110003\n", "gfx_target_version", v, sizeof v) && !strcmp(v, "110003"),
            "sysfs: text_value with a space", "'%s'", v);
    struct { unsigned v; const char *want; } gfx[] = {{110003, "gfx1103"}, {100300, "gfx1030"}, {90012, "gfx90c"}, {90402, "gfx942"}, {90010, "gfx90a"}};
    for (size_t i = 0; i < sizeof gfx / sizeof gfx[0]; i++) {
        sys_gfx_name(gfx[i].v, v, sizeof v);
        t_check(!strcmp(v, gfx[i].want), "amdgpu: gfx name from gfx_target_version", "%u -> %s (want %s)", gfx[i].v, v, gfx[i].want);
    }
    t_check(sys_pci_normalise("00000000:19:00.0", v, sizeof v) && !strcmp(v, "0000:19:00.0"), "pci: NVML's 8-digit domain", "%s", v);
    t_check(!sys_pci_normalise("garbage", v, sizeof v), "pci: garbage refused", "ok");
    t_check(sys_amdgpu_dpm_current_mhz("0: 500Mhz\n1: 2250Mhz *\n") == 2250 && isnan(sys_amdgpu_dpm_current_mhz("0: 500Mhz\n")),
            "amdgpu: current DPM level", "2250 and NAN without a '*'");
}

static void test_amdgpu(void)
{
    sys_amdgpu g[4];
    int n = sys_amdgpu_find(apu, g, 4);
    t_check(n == 1 && !strcmp(g[0].card, "card0") && !strcmp(g[0].pci_slot, "0000:c4:00.0") && !strcmp(g[0].power_file, "power1_input") &&
                g[0].device_id == 0x15bf,
            "amdgpu APU: found, connector skipped, power1_input chosen", "%d cards, %s %s %s 0x%x", n, n ? g[0].card : "",
            n ? g[0].pci_slot : "", n ? g[0].power_file : "", n ? g[0].device_id : 0);
    if (n != 1)
        return;
    sys_amdgpu_info in;
    sys_amdgpu_info_read(apu, &g[0], &in);
    t_check(in.vram_total_bytes == 536870912.0 && in.gtt_total_bytes == 32212254720.0 && in.unified == 1 && !strcmp(in.gfx, "gfx1103") &&
                in.kfd_node == 1,
            "amdgpu APU: VRAM carve-out, GTT pool, unified, gfx1103 from KFD node 1", "vram %.0f gtt %.0f unified %d %s node %d (%s)",
            in.vram_total_bytes, in.gtt_total_bytes, in.unified, in.gfx, in.kfd_node, in.unified_why);
    sys_gpu_sample s;
    sys_amdgpu_sample(apu, &g[0], &s);
    t_check(s.sm_mhz == 1900 && s.mem_mhz == 400 && fabs(s.power_w - 15.123) < 1e-9 && s.temp_c == 52 && s.util_pct == 37 &&
                isnan(s.energy_j) && isnan(s.throttle),
            "amdgpu APU: sample (DPM clocks, power1_input in uW, millidegrees)", "%g MHz %g MHz %g W %g C %g%%", s.sm_mhz, s.mem_mhz,
            s.power_w, s.temp_c, s.util_pct);
    n = sys_amdgpu_find(dgpu, g, 4);
    t_check(n == 1 && !strcmp(g[0].card, "card1") && !strcmp(g[0].power_file, "power1_average"),
            "amdgpu discrete: Intel card0 skipped, power1_average chosen", "%d %s %s", n, n ? g[0].card : "", n ? g[0].power_file : "");
    if (n != 1)
        return;
    sys_amdgpu_info_read(dgpu, &g[0], &in);
    sys_amdgpu_sample(dgpu, &g[0], &s);
    t_check(in.unified == 0 && !strcmp(in.gfx, "gfx1030") && !strcmp(in.product, "AMD Radeon RX 6800 XT"),
            "amdgpu discrete: dedicated, gfx1030, product name", "unified %d %s '%s'", in.unified, in.gfx, in.product);
    t_check(s.sm_mhz == 2310 && s.mem_mhz == 1000 && s.power_w == 255 && s.temp_c == 71, "amdgpu discrete: hwmon clocks in Hz",
            "%g MHz %g MHz %g W %g C", s.sm_mhz, s.mem_mhz, s.power_w, s.temp_c);
}

static void test_host(void)
{
    sys_rapl r;
    sys_rapl_open(apu, &r);
    double e[SYS_RAPL_MAX] = {NAN};
    int rr = sys_rapl_read(apu, &r, e);
    t_check(r.n == 1 && rr == 0 && fabs(e[0] - 123.456789) < 1e-9 && fabs(r.range_j[0] - 262143.32885) < 1e-6,
            "rapl: package zone (sub-zone skipped), energy_uj in J", "%d zones, %.6f J, range %.5f J", r.n, r.n ? e[0] : NAN, r.range_j[0]);
    double a[1] = {r.range_j[0] - 1.0}, b[1] = {2.0};
    t_check(fabs(sys_rapl_delta_j(&r, a, b) - 3.0) < 1e-6, "rapl: counter wrap-around", "%.6f J (want 3)", sys_rapl_delta_j(&r, a, b));
    sys_rapl_open(dgpu, &r);
    t_check(r.n == 0 && strstr(r.why, "powercap"), "rapl: absence says why", "%s", r.why);
    t_check(sys_cpu_mhz(apu) == 3000 && sys_loadavg1(apu) == 1.25, "cpu: mean scaling_cur_freq and load average", "%g MHz, load %g",
            sys_cpu_mhz(apu), sys_loadavg1(apu));
    t_check(sys_cpu_mhz(dgpu) != sys_cpu_mhz(dgpu), "cpu: no cpufreq and no 'cpu MHz' gives NAN", "%g", sys_cpu_mhz(dgpu));
}

static void test_nvml_absent(void)
{
    sys_nvml *n = sys_nvml_open("libgpuvet-no-such-nvml.so.1");
    t_check(!sys_nvml_ok(n) && strstr(sys_nvml_why(n), "libgpuvet-no-such-nvml.so.1 not found"), "nvml: a missing library is a reason",
            "%s", sys_nvml_why(n));
    sys_nvml_close(n);
    unsetenv("GPUVET_NVML");
    n = sys_nvml_open(NULL);
    if (sys_nvml_ok(n) || !strstr(sys_nvml_why(n), "cannot open"))
        t_skip("nvml: libnvidia-ml.so.1 absence", "this machine has an NVIDIA driver (%s)", sys_nvml_ok(n) ? "loaded" : sys_nvml_why(n));
    else
        t_check(!strncmp(sys_nvml_why(n), "libnvidia-ml.so.1 not found", 27), "nvml: 'libnvidia-ml.so.1 not found' recorded", "%s",
                sys_nvml_why(n));
    sys_nvml_close(n);
}

static void test_probe_apu(void)
{
    char *envp[] = {"HSA_OVERRIDE_GFX_VERSION=11.0.0", "LD_LIBRARY_PATH=/venv/lib", "OMP_NUM_THREADS=4096", "CUDA_VISIBLE_DEVICES=",
                    "LD_PRELOAD=/usr/lib/libjemalloc.so.2", NULL};
    sys_probe_opts o = {apu, envp, "libgpuvet-no-such-nvml.so.1", 1};
    cJSON *p = sys_probe_json_opts(&o);
    t_check(!strcmp(gs(p, "gpus.0.memory.kind"), "unified") && gn(p, "gpus.0.memory.allocatable_bytes") == 32212254720.0 &&
                gn(p, "gpus.0.memory.vram_total_bytes") == 536870912.0,
            "probe APU: unified memory, allocatable = GTT, not the VRAM carve-out", "%s, %.0f allocatable, VRAM %.0f",
            gs(p, "gpus.0.memory.kind"), gn(p, "gpus.0.memory.allocatable_bytes"), gn(p, "gpus.0.memory.vram_total_bytes"));
    t_check(!strcmp(gs(p, "gpus.0.arch"), "gfx1103") && cJSON_IsFalse(get(p, "gpus.0.natively_supported")),
            "probe APU: gfx1103 has no rocBLAS kernels in the fixture ROCm", "%s natively %s", gs(p, "gpus.0.arch"),
            cJSON_IsFalse(get(p, "gpus.0.natively_supported")) ? "no" : "yes?");
    t_check(has_warning(p, "HSA_OVERRIDE_GFX_VERSION=11.0.0") && has_warning(p, "is not natively supported"),
            "probe APU: HSA_OVERRIDE_GFX_VERSION warned with native support", "found");
    t_check(has_warning(p, "libamdhip64 found first in /venv/lib") && !strcmp(gs(p, "recommended_library_path"), "/opt/rocm/lib"),
            "probe APU: bundled HIP runtime detected, system ROCm recommended", "%s", gs(p, "recommended_library_path"));
    t_check(has_warning(p, "OMP_NUM_THREADS=4096") && has_warning(p, "CUDA_VISIBLE_DEVICES=''") && has_warning(p, "LD_PRELOAD=/usr/lib/libjemalloc"),
            "probe APU: thread, visibility and LD_PRELOAD pitfalls", "all three warned");
    t_check(!strcmp(gs(p, "environment.ld_preload.0"), "/usr/lib/libjemalloc.so.2"), "probe APU: LD_PRELOAD contents listed", "%s",
            gs(p, "environment.ld_preload.0"));
    t_check(!strcmp(gs(p, "cpu.governor"), "powersave") && !strcmp(gs(p, "cpu.energy_preference"), "balance_performance") &&
                gn(p, "cpu.cores") == 1 && gn(p, "cpu.threads") == 2 && gn(p, "cpu.max_mhz") == 5100,
            "probe APU: CPU governor, energy preference, SMT cores", "%s %s %g cores %g threads", gs(p, "cpu.governor"),
            gs(p, "cpu.energy_preference"), gn(p, "cpu.cores"), gn(p, "cpu.threads"));
    t_check(cJSON_GetArraySize(get(p, "device_nodes")) == 2 && !strcmp(gs(p, "device_nodes.0.path"), "/dev/kfd"),
            "probe APU: device nodes /dev/kfd and renderD128", "%d nodes", cJSON_GetArraySize(get(p, "device_nodes")));
    t_check(gn(p, "memory.total_bytes") == 32101376.0 * 1024 && !strcmp(gs(p, "kernel.os"), "Ubuntu 24.04.1 LTS"),
            "probe APU: memory and OS", "%.0f, %s", gn(p, "memory.total_bytes"), gs(p, "kernel.os"));
    t_check(cJSON_IsNull(get(p, "gpus.0.driver_version")) && cJSON_IsString(get(p, "gpus.0.driver_version_why")),
            "probe APU: a field not read is null with a reason", "%s", gs(p, "gpus.0.driver_version_why"));
    /* env: the override is kept (the GPU needs it), the library path fixed. */
    sys_env_setting s[SYS_ENV_MAX];
    int n = sys_env_advice(p, envp, s, SYS_ENV_MAX);
    int hsa = -1, llp = -1;
    for (int i = 0; i < n; i++) {
        if (!strcmp(s[i].name, "HSA_OVERRIDE_GFX_VERSION"))
            hsa = i;
        if (!strcmp(s[i].name, "LD_LIBRARY_PATH"))
            llp = i;
    }
    t_check(hsa >= 0 && !s[hsa].unset && !strcmp(s[hsa].value, "11.0.0") && llp >= 0 && !strcmp(s[llp].value, "/opt/rocm/lib:/venv/lib"),
            "env APU: HSA override 11.0.0 for gfx1103, system ROCm first on LD_LIBRARY_PATH", "%s / %s", hsa >= 0 ? s[hsa].value : "-",
            llp >= 0 ? s[llp].value : "-");
    cJSON_Delete(p);
}

static void test_probe_dgpu_nvidia(void)
{
    char *envp[] = {"HSA_OVERRIDE_GFX_VERSION=10.3.0", "CUDA_LAUNCH_BLOCKING=1", NULL};
    sys_probe_opts o = {dgpu, envp, "libgpuvet-no-such-nvml.so.1", 1};
    cJSON *p = sys_probe_json_opts(&o);
    t_check(!strcmp(gs(p, "gpus.0.memory.kind"), "dedicated") && gn(p, "gpus.0.memory.allocatable_bytes") == 17163091968.0 &&
                cJSON_IsTrue(get(p, "gpus.0.natively_supported")) && has_warning(p, "which is natively supported"),
            "probe discrete: dedicated VRAM pool, gfx1030 native, override warned", "%s %.0f", gs(p, "gpus.0.memory.kind"),
            gn(p, "gpus.0.memory.allocatable_bytes"));
    t_check(cJSON_IsNull(get(p, "cpu.governor")) && strstr(gs(p, "cpu.governor_why"), "cpufreq"), "probe discrete: no cpufreq -> null + why",
            "%s", gs(p, "cpu.governor_why"));
    sys_env_setting s[SYS_ENV_MAX];
    int n = sys_env_advice(p, envp, s, SYS_ENV_MAX), unset_hsa = 0, unset_blocking = 0;
    for (int i = 0; i < n; i++) {
        unset_hsa |= !strcmp(s[i].name, "HSA_OVERRIDE_GFX_VERSION") && s[i].unset;
        unset_blocking |= !strcmp(s[i].name, "CUDA_LAUNCH_BLOCKING") && s[i].unset;
    }
    t_check(unset_hsa && unset_blocking, "env discrete: unset the needless override and CUDA_LAUNCH_BLOCKING", "%d %d", unset_hsa, unset_blocking);
    /* The advice is the fixture's, not this machine's: kept out of the log unless it fails. */
    char *adv = NULL;
    size_t advn = 0;
    FILE *af = open_memstream(&adv, &advn);
    int differ = af ? sys_env_check(s, n, envp, af) : -1;
    if (af)
        fclose(af);
    int named = adv && strstr(adv, "differs  HSA_OVERRIDE_GFX_VERSION is '10.3.0', should be unset") &&
                strstr(adv, "differs  CUDA_LAUNCH_BLOCKING is '1', should be unset");
    if (!t_check(differ >= 2 && named, "env --check: the current settings differ",
                 "%d settings differ, the HSA override and CUDA_LAUNCH_BLOCKING among them", differ))
        for (char *l = adv, *e; l && *l; l = e ? e + 1 : NULL) {
            e = strchr(l, '\n');
            printf("    fixture's env --check: %.*s\n", e ? (int)(e - l) : (int)strlen(l), l);
        }
    free(adv);
    cJSON_Delete(p);

    sys_probe_opts on = {nvmis, (char *[]){NULL}, "libgpuvet-no-such-nvml.so.1", 1};
    p = sys_probe_json_opts(&on);
    t_check(!strcmp(gs(p, "driver.nvidia_kernel_module"), "550.54.15") && !strcmp(gs(p, "driver.libcuda.version"), "535.104.05") &&
                cJSON_IsFalse(get(p, "driver.libcuda.matches_kernel_module")) &&
                !strcmp(gs(p, "recommended_library_path"), "/usr/local/nvidia/lib64"),
            "probe NVIDIA: stale libcuda.so.1 found, the matching one recommended", "module %s, libcuda %s, fix %s",
            gs(p, "driver.nvidia_kernel_module"), gs(p, "driver.libcuda.version"), gs(p, "recommended_library_path"));
    t_check(cJSON_GetArraySize(get(p, "device_nodes")) == 3 && cJSON_GetArraySize(get(p, "gpus")) == 0 && cJSON_IsString(get(p, "gpus_why")),
            "probe NVIDIA: three device nodes, no GPU readable, gpus_why", "%s", gs(p, "gpus_why"));
    cJSON_Delete(p);
}

int main(void)
{
    const char *root = getenv("GV_ROOT");
    if (!root) {
        t_skip("sysfs fixtures", "GV_ROOT is not set (run through make test)");
        return 0;
    }
    snprintf(apu, sizeof apu, "%s/tests/fixtures/sysfs/apu", root);
    snprintf(dgpu, sizeof dgpu, "%s/tests/fixtures/sysfs/dgpu", root);
    snprintf(nvmis, sizeof nvmis, "%s/tests/fixtures/sysfs/nvidia-mismatch", root);
    test_readers();
    test_amdgpu();
    test_host();
    test_nvml_absent();
    test_probe_apu();
    test_probe_dgpu_nvidia();
    return t_done();
}
