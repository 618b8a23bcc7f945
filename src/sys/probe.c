/* probe.c: builds the probe record of probe.h from /proc, /sys, /dev, the dynamic-loader
 * paths, NVML, the amdgpu/KFD sysfs files, the device layer (GPU runtime, BLAS) and the
 * environment. Every reader takes the root so that tests run it on fixture trees. */
#include "sys/probe.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/gv.h"
#include "core/record.h"
#include "dev/dev.h"
#include "sys/gpuread.h"
#include "sys/host.h"
#include "sys/sysfs.h"

extern char **environ;

/* ---- null-with-reason helpers ------------------------------------------------------------ */

static void put_why(cJSON *o, const char *key, const char *why)
{
    char k[96];
    cJSON_AddNullToObject(o, key);
    snprintf(k, sizeof k, "%s_why", key);
    cJSON_AddStringToObject(o, k, why && *why ? why : "unknown");
}

static void put_str(cJSON *o, const char *key, const char *v, const char *why)
{
    if (v && *v)
        cJSON_AddStringToObject(o, key, v);
    else
        put_why(o, key, why);
}

static void put_num(cJSON *o, const char *key, double v, const char *why)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        put_why(o, key, why);
}

const char *sys_env_get(char **envp, const char *name)
{
    char **e = envp ? envp : environ;
    size_t n = strlen(name);
    for (; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static void add_pitfall(cJSON *pits, const char *severity, const char *var, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_pitfall(cJSON *pits, const char *severity, const char *var, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "severity", severity);
    if (var) {
        cJSON_AddStringToObject(p, "variable", var);
    } else {
        cJSON_AddNullToObject(p, "variable");
        cJSON_AddStringToObject(p, "variable_why", "not about an environment variable");
    }
    cJSON_AddStringToObject(p, "message", msg);
    cJSON_AddItemToArray(pits, p);
}

/* ---- CPU, memory, kernel ------------------------------------------------------------------- */

static void probe_cpu(const char *root, cJSON *out)
{
    cJSON *c = gv_json_add_obj(out, "cpu");
    char *info = NULL, v[256];
    int r = sys_read_text(root, "/proc/cpuinfo", &info);
    if (r) {
        put_why(c, "model", "/proc/cpuinfo unreadable");
        put_why(c, "vendor", "/proc/cpuinfo unreadable");
        put_why(c, "threads", "/proc/cpuinfo unreadable");
        put_why(c, "cores", "/proc/cpuinfo unreadable");
        put_why(c, "sockets", "/proc/cpuinfo unreadable");
    } else {
        put_str(c, "model", sys_text_value(info, "model name", v, sizeof v) ? v : NULL, "no 'model name' in /proc/cpuinfo");
        put_str(c, "vendor", sys_text_value(info, "vendor_id", v, sizeof v) ? v : NULL, "no 'vendor_id' in /proc/cpuinfo");
        /* Threads are "processor" entries; cores are distinct (physical id, core id) pairs. */
        int threads = 0, ncore = 0, nsock = 0;
        long phys = 0, pairs[4096][2], socks[256];
        for (const char *l = info; l && *l;) {
            const char *nl = strchr(l, '\n');
            char line[256];
            snprintf(line, sizeof line, "%.*s", (int)((nl ? nl : l + strlen(l)) - l), l);
            if (sys_text_value(line, "processor", v, sizeof v))
                threads++;
            else if (sys_text_value(line, "physical id", v, sizeof v)) {
                phys = atol(v);
                int seen = 0;
                for (int i = 0; i < nsock; i++)
                    seen |= socks[i] == phys;
                if (!seen && nsock < 256)
                    socks[nsock++] = phys;
            } else if (sys_text_value(line, "core id", v, sizeof v)) {
                long core = atol(v);
                int seen = 0;
                for (int i = 0; i < ncore; i++)
                    seen |= pairs[i][0] == phys && pairs[i][1] == core;
                if (!seen && ncore < 4096)
                    pairs[ncore][0] = phys, pairs[ncore][1] = core, ncore++;
            }
            l = nl ? nl + 1 : NULL;
        }
        put_num(c, "threads", threads ? threads : NAN, "no 'processor' lines in /proc/cpuinfo");
        put_num(c, "cores", ncore ? ncore : NAN, "no 'core id' lines in /proc/cpuinfo (some virtual machines)");
        put_num(c, "sockets", nsock ? nsock : NAN, "no 'physical id' lines in /proc/cpuinfo");
        cJSON *flags = gv_json_add_arr(c, "simd");
        char fl[8192];
        if (sys_text_value(info, "flags", fl, sizeof fl)) {
            static const char *const want[] = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile"};
            for (size_t i = 0; i < GV_ARRAY_LEN(want); i++) {
                char pat[32];
                snprintf(pat, sizeof pat, " %s ", want[i]);
                char padded[8200];
                snprintf(padded, sizeof padded, " %s ", fl);
                if (strstr(padded, pat))
                    cJSON_AddItemToArray(flags, cJSON_CreateString(want[i]));
            }
        }
        free(info);
    }
    cJSON_AddNumberToObject(c, "usable_cpus", gv_cpu_count());
    const char *nocpufreq = "no cpufreq driver (common in virtual machines)";
    r = sys_read_line(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", v, sizeof v);
    put_str(c, "governor", r ? NULL : v, r == -ENOENT ? nocpufreq : sys_why(r));
    r = sys_read_line(root, "/sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference", v, sizeof v);
    put_str(c, "energy_preference", r ? NULL : v,
            r == -ENOENT ? "no energy_performance_preference (no cpufreq driver, or one without EPP such as acpi-cpufreq)" : sys_why(r));
    uint64_t khz;
    r = sys_read_u64(root, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", &khz);
    put_num(c, "max_mhz", r ? NAN : khz / 1000.0, r == -ENOENT ? nocpufreq : sys_why(r));
}

static void probe_memory_kernel(const char *root, cJSON *out)
{
    cJSON *m = gv_json_add_obj(out, "memory");
    char *mi = NULL, v[128];
    int r = sys_read_text(root, "/proc/meminfo", &mi);
    static const char *const keys[][2] = {{"MemTotal", "total_bytes"}, {"MemAvailable", "available_bytes"}, {"SwapTotal", "swap_total_bytes"}};
    for (size_t i = 0; i < GV_ARRAY_LEN(keys); i++) {
        int ok = !r && sys_text_value(mi, keys[i][0], v, sizeof v);
        put_num(m, keys[i][1], ok ? strtod(v, NULL) * 1024.0 : NAN, r ? "/proc/meminfo unreadable" : "not in /proc/meminfo");
    }
    free(mi);
    cJSON *k = gv_json_add_obj(out, "kernel");
    r = sys_read_line(root, "/proc/sys/kernel/osrelease", v, sizeof v);
    put_str(k, "release", r ? NULL : v, sys_why(r));
    char ver[512];
    r = sys_read_line(root, "/proc/version", ver, sizeof ver);
    put_str(k, "version", r ? NULL : ver, sys_why(r));
    char *osr = NULL;
    char pretty[256] = "";
    r = sys_read_text(root, "/etc/os-release", &osr);
    if (!r && sys_text_value(osr, "PRETTY_NAME=", pretty, sizeof pretty)) {
        /* PRETTY_NAME="Debian GNU/Linux 12 (bookworm)" */
        size_t n = strlen(pretty);
        if (n >= 2 && pretty[0] == '"' && pretty[n - 1] == '"')
            memmove(pretty, pretty + 1, n - 2), pretty[n - 2] = 0;
    }
    free(osr);
    put_str(k, "os", pretty, r ? "/etc/os-release unreadable" : "no PRETTY_NAME in /etc/os-release");
}

static void probe_blas(cJSON *out)
{
    dev_blas_info b;
    dev_blas_query(&b);
    cJSON *o = gv_json_add_obj(out, "blas");
    put_str(o, "name", b.name, "unknown BLAS");
    put_str(o, "version", b.version, "the BLAS does not report a version");
    put_str(o, "core", b.core, "the BLAS does not report its kernel type");
    put_num(o, "threads", b.threads > 0 ? b.threads : NAN, "the BLAS does not report its thread count");
    put_str(o, "config", b.config, "the BLAS does not report its configuration");
}

/* ---- driver libraries --------------------------------------------------------------------- */

/* The version in a library file name: libcuda.so.550.54.15 -> "550.54.15". */
static void lib_version(const char *path, const char *stem, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t sl = strlen(stem);
    if (!strncmp(b, stem, sl) && b[sl] == '.')
        snprintf(out, len, "%s", b + sl + 1);
    else
        out[0] = 0;
}

/* Length of the real path of root when p starts with it (paths are shown as the machine
 * under root sees them), else 0. */
static size_t root_prefix_len(const char *root, const char *p)
{
    char rr[PATH_MAX];
    if (!root || !*root || !realpath(root, rr))
        return 0;
    size_t n = strlen(rr);
    return !strncmp(p, rr, n) && p[n] == '/' ? n : 0;
}

/* Where the dynamic loader would find `name`: LD_LIBRARY_PATH first, then the usual system
 * folders (the ld.so cache lists those). Fills dir and the resolved file; 0 when not found. */
static int loader_find(const char *root, char **envp, const char *name, char *dir, size_t dlen, char *real, size_t rlen)
{
    char paths[4096] = "";
    const char *llp = sys_env_get(envp, "LD_LIBRARY_PATH");
    snprintf(paths, sizeof paths, "%s%s%s", llp ? llp : "", llp && *llp ? ":" : "",
             "/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu:/usr/lib64:/usr/lib:/usr/local/nvidia/lib64:/usr/lib/wsl/lib:/opt/rocm/lib");
    char *save = NULL;
    for (char *d = strtok_r(paths, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if (!*d)
            continue;
        char rel[SYS_PATH_MAX], full[SYS_PATH_MAX], res[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/%s", d, name);
        sys_path(root, rel, full, sizeof full);
        if (access(full, F_OK) != 0)
            continue;
        snprintf(dir, dlen, "%s", d);
        if (!realpath(full, res))
            snprintf(res, sizeof res, "%s", full);
        snprintf(real, rlen, "%s", res + root_prefix_len(root, res));
        return 1;
    }
    return 0;
}

/* Looks for stem.<version> in the system folders; fills dir when found. */
static int find_version_dir(const char *root, const char *stem, const char *version, char *dir, size_t dlen)
{
    static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
                                       "/usr/local/nvidia/lib64", "/opt/rocm/lib"};
    for (size_t i = 0; i < GV_ARRAY_LEN(dirs); i++) {
        char rel[SYS_PATH_MAX], full[SYS_PATH_MAX];
        snprintf(rel, sizeof rel, "%s/%s.%s", dirs[i], stem, version);
        sys_path(root, rel, full, sizeof full);
        if (access(full, F_OK) == 0) {
            snprintf(dir, dlen, "%s", dirs[i]);
            return 1;
        }
    }
    return 0;
}

/* The NVIDIA kernel module's version from /proc/driver/nvidia/version:
 * "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  ..." (or "Open Kernel Module
 * for x86_64  550.54.15"): the first dotted number after "Module". */
static int nvidia_kernel_version(const char *root, char *out, size_t len)
{
    char line[512];
    if (sys_read_line(root, "/proc/driver/nvidia/version", line, sizeof line) != 0)
        return 0;
    const char *p = strstr(line, "Module");
    for (p = p ? p : line; *p; p++)
        if (isdigit((unsigned char)*p) && (p == line || p[-1] == ' ')) {
            size_t n = strspn(p, "0123456789.");
            if (memchr(p, '.', n)) {
                snprintf(out, len, "%.*s", (int)n, p);
                return 1;
            }
        }
    return 0;
}

/* Checks that the user-space driver/runtime libraries the loader would pick match what is
 * installed: libcuda.so.1 against the kernel module, libamdhip64 against the system ROCm.
 * Adds "driver" to out; sets *fix_dir to a folder to put first on LD_LIBRARY_PATH when the
 * one found is a broken (mismatched) copy. */
static void probe_driver_libs(const char *root, char **envp, cJSON *out, cJSON *pits, char *fix_dir, size_t flen)
{
    cJSON *d = gv_json_add_obj(out, "driver");
    char kver[64] = "", dir[SYS_PATH_MAX], real[PATH_MAX], lver[64];
    int have_k = nvidia_kernel_version(root, kver, sizeof kver);
    put_str(d, "nvidia_kernel_module", have_k ? kver : NULL, "/proc/driver/nvidia/version missing: the NVIDIA kernel module is not loaded");
    cJSON *lc = gv_json_add_obj(d, "libcuda");
    if (loader_find(root, envp, "libcuda.so.1", dir, sizeof dir, real, sizeof real)) {
        lib_version(real, "libcuda.so", lver, sizeof lver);
        cJSON_AddStringToObject(lc, "path", real);
        put_str(lc, "version", lver, "the library's file name carries no version");
        if (have_k && lver[0]) {
            int match = !strcmp(lver, kver);
            cJSON_AddBoolToObject(lc, "matches_kernel_module", match);
            if (!match) {
                char good[SYS_PATH_MAX];
                int fix = find_version_dir(root, "libcuda.so", kver, good, sizeof good);
                if (fix)
                    snprintf(fix_dir, flen, "%s", good);
                add_pitfall(pits, "warning", "LD_LIBRARY_PATH",
                            "libcuda.so.1 found first in %s is driver %s but the kernel module is %s: CUDA will fail "
                            "with 'driver/library version mismatch' or crash on first use; %s%s",
                            dir, lver, kver, fix ? "put this folder first on LD_LIBRARY_PATH: " : "reinstall the driver",
                            fix ? good : "");
            }
        } else {
            put_why(lc, "matches_kernel_module", have_k ? "no version in the library's name" : "no NVIDIA kernel module");
        }
    } else {
        put_why(lc, "path", "libcuda.so.1 not found on LD_LIBRARY_PATH or the system library folders");
    }
    char amd_ver[64] = "";
    int have_rocm = sys_read_line(root, "/opt/rocm/.info/version", amd_ver, sizeof amd_ver) == 0;
    put_str(d, "rocm", have_rocm ? amd_ver : NULL, "/opt/rocm/.info/version missing: no ROCm installation in /opt/rocm");
    cJSON *hip = gv_json_add_obj(d, "libamdhip64");
    static const char *const hipnames[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
    int found = 0;
    for (size_t i = 0; i < GV_ARRAY_LEN(hipnames) && !found; i++)
        found = loader_find(root, envp, hipnames[i], dir, sizeof dir, real, sizeof real);
    if (!found) {
        put_why(hip, "path", "libamdhip64 not found on LD_LIBRARY_PATH or the system library folders");
        return;
    }
    lib_version(real, "libamdhip64.so", lver, sizeof lver);
    cJSON_AddStringToObject(hip, "path", real);
    put_str(hip, "version", lver, "the library's file name carries no version");
    /* A copy bundled elsewhere (a Python wheel, an application folder) that is not the
     * system ROCm's is the classic cause of "HIP crashes on first use". */
    char sys_real[PATH_MAX] = "", sys_full[SYS_PATH_MAX];
    sys_path(root, "/opt/rocm/lib/libamdhip64.so", sys_full, sizeof sys_full);
    int have_sys = have_rocm && realpath(sys_full, sys_real) != NULL;
    if (have_sys)
        memmove(sys_real, sys_real + root_prefix_len(root, sys_real), strlen(sys_real + root_prefix_len(root, sys_real)) + 1);
    if (have_sys && strcmp(sys_real, real) != 0) {
        char sver[64];
        lib_version(sys_real, "libamdhip64.so", sver, sizeof sver);
        int same = sver[0] && !strcmp(sver, lver);
        cJSON_AddBoolToObject(hip, "matches_system_rocm", same);
        if (!same) {
            snprintf(fix_dir, flen, "/opt/rocm/lib");
            add_pitfall(pits, "warning", "LD_LIBRARY_PATH",
                        "libamdhip64 found first in %s (%s) is not the system ROCm's (%s in /opt/rocm/lib): a bundled runtime "
                        "that does not match the kernel driver crashes or misreports the GPU; put /opt/rocm/lib first on LD_LIBRARY_PATH",
                        dir, lver[0] ? lver : "unknown version", sver[0] ? sver : "unknown version");
        }
    } else {
        put_why(hip, "matches_system_rocm", have_sys ? "it is the system ROCm's library" : "no ROCm in /opt/rocm to compare with");
    }
}

/* ---- GPUs ---------------------------------------------------------------------------------- */

/* Whether the installed rocBLAS ships kernels for gfx (its library folder has files named
 * after each target). Returns 1/0, or -1 when no rocBLAS library folder exists. */
static int rocblas_has_target(const char *root, const char *gfx, char *where, size_t wlen)
{
    char dirs[8][SYS_PATH_MAX];
    int nd = 0;
    snprintf(dirs[nd++], SYS_PATH_MAX, "/opt/rocm/lib/rocblas/library");
    char vers[8][SYS_NAME_MAX];
    int nv = sys_list_dir(root, "/usr/lib/x86_64-linux-gnu/rocblas", "", vers, 8);
    for (int i = 0; i < nv && nd < 8; i++)
        snprintf(dirs[nd++], SYS_PATH_MAX, "/usr/lib/x86_64-linux-gnu/rocblas/%.60s/library", vers[i]);
    for (int i = 0; i < nd; i++) {
        char names[1024][SYS_NAME_MAX];
        int n = sys_list_dir(root, dirs[i], "", names, 1024);
        if (n < 0)
            continue;
        snprintf(where, wlen, "%.400s", dirs[i]);
        size_t gl = strlen(gfx);
        for (int k = 0; k < n; k++)
            for (const char *p = strstr(names[k], gfx); p; p = strstr(p + 1, gfx))
                if (!isalnum((unsigned char)p[gl]))
                    return 1;
        return 0;
    }
    return -1;
}

/* gfx targets AMD lists as supported by ROCm 6 on Linux (Instinct and Radeon), used only
 * when no rocBLAS library is installed to look at. */
static int amd_listed(const char *gfx)
{
    static const char *const listed[] = {"gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1102"};
    for (size_t i = 0; i < GV_ARRAY_LEN(listed); i++)
        if (!strcmp(listed[i], gfx))
            return 1;
    return 0;
}

static void gpu_support(const char *root, cJSON *g, const char *gfx)
{
    char where[SYS_PATH_MAX] = "", why[SYS_PATH_MAX + 96];
    int has = rocblas_has_target(root, gfx, where, sizeof where);
    if (has >= 0) {
        cJSON_AddBoolToObject(g, "natively_supported", has);
        snprintf(why, sizeof why, "%s kernels for %s in %s", has ? "found" : "no", gfx, where);
    } else {
        cJSON_AddBoolToObject(g, "natively_supported", amd_listed(gfx));
        snprintf(why, sizeof why, "no rocBLAS library installed; by AMD's ROCm 6 support list");
    }
    cJSON_AddStringToObject(g, "natively_supported_how", why);
}

static cJSON *gpu_new(cJSON *gpus, const char *pci)
{
    for (cJSON *g = gpus->child; g; g = g->next) {
        cJSON *p = cJSON_GetObjectItem(g, "pci_bus_id");
        if (pci && *pci && cJSON_IsString(p) && !strcmp(p->valuestring, pci))
            return g;
    }
    cJSON *g = cJSON_CreateObject();
    cJSON_AddNumberToObject(g, "index", cJSON_GetArraySize(gpus));
    gv_json_add_arr(g, "sources");
    cJSON_AddItemToArray(gpus, g);
    return g;
}

static void set_str(cJSON *o, const char *key, const char *v)
{
    if (!v || !*v || cJSON_IsString(cJSON_GetObjectItem(o, key)))
        return;
    cJSON_DeleteItemFromObject(o, key);
    cJSON_AddStringToObject(o, key, v);
}

static void set_num(cJSON *o, const char *key, double v)
{
    if (!isfinite(v) || cJSON_IsNumber(cJSON_GetObjectItem(o, key)))
        return;
    cJSON_DeleteItemFromObject(o, key);
    cJSON_AddNumberToObject(o, key, v);
}

static void add_source(cJSON *g, const char *s)
{
    cJSON_AddItemToArray(cJSON_GetObjectItem(g, "sources"), cJSON_CreateString(s));
}

/* Fills every missing field of a GPU entry with null and a reason, after all sources. */
static void gpu_finish(cJSON *g)
{
    static const char *const keys[] = {"vendor", "name", "arch", "pci_bus_id", "driver_version", "runtime_version",
                                       "compute_units", "power_limit_w"};
    for (size_t i = 0; i < GV_ARRAY_LEN(keys); i++)
        if (!cJSON_GetObjectItem(g, keys[i]))
            put_why(g, keys[i], "not reported by the sources that found this GPU");
    if (!cJSON_GetObjectItem(g, "natively_supported"))
        put_why(g, "natively_supported", "only checked for AMD GPUs (ROCm kernel targets)");
    cJSON *m = cJSON_GetObjectItem(g, "memory");
    if (!m) {
        m = gv_json_add_obj(g, "memory");
        put_why(m, "kind", "no source reported the memory");
    }
    static const char *const mk[] = {"total_bytes", "allocatable_bytes", "vram_total_bytes", "gtt_total_bytes"};
    for (size_t i = 0; i < GV_ARRAY_LEN(mk); i++)
        if (!cJSON_GetObjectItem(m, mk[i]))
            put_why(m, mk[i], !strncmp(mk[i], "gtt", 3) || !strncmp(mk[i], "vram", 4) ? "amdgpu sysfs only" : "not reported");
}

/* A runtime's version number as "major.minor": CUDA encodes 1000 major + 10 minor (12040 is
 * 12.4); HIP encodes 10000000 major + 100000 minor + patch (60140092 is 6.1). "" for 0. */
static void version_string(const char *backend, int v, char *buf, size_t len)
{
    if (v <= 0)
        buf[0] = 0;
    else if (!strcmp(backend, "hip"))
        snprintf(buf, len, "%d.%d", v / 10000000, v / 100000 % 100);
    else
        snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
}

static void probe_gpus(const char *root, const sys_probe_opts *o, cJSON *out, cJSON *pits, char *gfx_seen, size_t glen)
{
    cJSON *gpus = gv_json_add_arr(out, "gpus");
    char whys[1536] = "";
    int wl = 0;
    /* 1. The runtime this binary was built with. */
    const char *backend = o->no_runtime ? NULL : dev_gpu_backend();
    put_str(out, "gpu_backend", backend, o->no_runtime ? "the runtime is not asked when probing a fixture tree"
                                                        : "built without a GPU backend (make GPU=cuda or GPU=hip)");
    if (backend) {
        gv_err e = {{0}};
        int n = dev_gpu_count(&e);
        if (n == 0)
            wl += snprintf(whys + wl, sizeof whys - wl, "%s runtime: %s; ", backend, e.msg[0] ? e.msg : "no device");
        for (int i = 0; i < n; i++) {
            dev_gpu_info in;
            if (dev_gpu_query(i, &in, &e) != GV_OK) {
                gv_warn("probe: GPU %d: %s", i, e.msg);
                continue;
            }
            char pci[32] = "";
            sys_pci_normalise(in.pci_bus_id, pci, sizeof pci);
            cJSON *g = gpu_new(gpus, pci);
            add_source(g, backend);
            set_str(g, "vendor", in.vendor);
            set_str(g, "name", in.name);
            set_str(g, "arch", in.arch);
            set_str(g, "pci_bus_id", pci);
            char rv[32];
            version_string(backend, in.runtime_version, rv, sizeof rv);
            set_str(g, "runtime_version", rv);
            version_string(backend, in.driver_version, rv, sizeof rv);
            set_str(g, "driver_api_version", rv);
            set_num(g, "compute_units", in.sm_count);
            cJSON *m = gv_json_add_obj(g, "memory");
            cJSON_AddStringToObject(m, "kind", in.unified ? "unified" : "dedicated");
            cJSON_AddStringToObject(m, "kind_how", "the runtime's integrated-device attribute");
            cJSON_AddNumberToObject(m, "total_bytes", (double)in.mem_total);
            cJSON_AddNumberToObject(m, "allocatable_bytes", (double)in.mem_free);
            cJSON_AddStringToObject(m, "allocatable_how", "free memory the runtime reports");
        }
    }
    /* 2. NVML. */
    sys_nvml *nv = sys_nvml_open(o->nvml_lib);
    cJSON *nj = gv_json_add_obj(out, "nvml");
    cJSON_AddBoolToObject(nj, "loaded", sys_nvml_ok(nv));
    put_str(nj, "library", sys_nvml_lib(nv), sys_nvml_why(nv));
    if (!sys_nvml_ok(nv)) {
        cJSON_AddStringToObject(nj, "why", sys_nvml_why(nv));
        wl += snprintf(whys + wl, sizeof whys - wl, "NVML: %s; ", sys_nvml_why(nv));
    } else {
        cJSON *miss = gv_json_add_arr(nj, "missing_symbols");
        char ms[512];
        snprintf(ms, sizeof ms, "%s", sys_nvml_missing(nv));
        char *save = NULL;
        for (char *t = strtok_r(ms, ",", &save); t; t = strtok_r(NULL, ",", &save))
            cJSON_AddItemToArray(miss, cJSON_CreateString(t));
        int n = sys_nvml_count(nv);
        for (int i = 0; i < n; i++) {
            void *dev = sys_nvml_device(nv, i, NULL);
            sys_nvml_info in;
            sys_nvml_info_read(nv, dev, &in);
            if (i == 0) {
                put_str(nj, "driver_version", in.driver_version, "nvmlSystemGetDriverVersion failed");
                char cv[16];
                snprintf(cv, sizeof cv, "%d.%d", in.cuda_driver_version / 1000, in.cuda_driver_version % 1000 / 10);
                put_str(nj, "cuda_driver_version", in.cuda_driver_version ? cv : NULL, "nvmlSystemGetCudaDriverVersion failed");
            }
            /* NVML's handle by index does not give the bus id without nvmlDeviceGetPciInfo;
             * match the runtime's entries by asking NVML for each one's address. */
            cJSON *g = NULL;
            for (cJSON *r = gpus->child; r && !g; r = r->next) {
                cJSON *p = cJSON_GetObjectItem(r, "pci_bus_id");
                char nvp[40];
                if (!cJSON_IsString(p))
                    continue;
                snprintf(nvp, sizeof nvp, "0000%s", p->valuestring);
                if (sys_nvml_device(nv, -1, nvp) == dev)
                    g = r;
            }
            if (!g)
                g = gpu_new(gpus, NULL);
            add_source(g, "nvml");
            set_str(g, "vendor", "NVIDIA");
            set_str(g, "name", in.name);
            char arch[16];
            snprintf(arch, sizeof arch, "sm_%d%d", in.cc_major, in.cc_minor);
            set_str(g, "arch", in.cc_major ? arch : NULL);
            set_str(g, "driver_version", in.driver_version);
            set_num(g, "power_limit_w", in.power_limit_w);
            cJSON *m = cJSON_GetObjectItem(g, "memory");
            if (!m && isfinite(in.mem_total_bytes)) {
                m = gv_json_add_obj(g, "memory");
                cJSON_AddStringToObject(m, "kind", "dedicated");
                cJSON_AddStringToObject(m, "kind_how", "NVML reports a framebuffer of its own");
                cJSON_AddNumberToObject(m, "total_bytes", in.mem_total_bytes);
                cJSON_AddNumberToObject(m, "allocatable_bytes", in.mem_free_bytes);
                cJSON_AddStringToObject(m, "allocatable_how", "free framebuffer memory NVML reports");
            }
        }
    }
    sys_nvml_close(nv);
    /* 3. amdgpu sysfs and the KFD topology. */
    sys_amdgpu cards[16];
    int n = sys_amdgpu_find(root, cards, 16);
    if (n <= 0)
        wl += snprintf(whys + wl, sizeof whys - wl, "amdgpu: %s", n < 0 ? "no /sys/class/drm (no GPU driver loaded)" : "no AMD GPU in /sys/class/drm");
    for (int i = 0; i < n; i++) {
        sys_amdgpu_info in;
        sys_amdgpu_info_read(root, &cards[i], &in);
        cJSON *g = gpu_new(gpus, cards[i].pci_slot);
        add_source(g, "amdgpu");
        set_str(g, "vendor", "AMD");
        char nm[128];
        snprintf(nm, sizeof nm, "Radeon (PCI device 0x%04x)", cards[i].device_id);
        set_str(g, "name", in.product[0] ? in.product : nm);
        set_str(g, "arch", in.gfx);
        set_str(g, "pci_bus_id", cards[i].pci_slot);
        char drv[64];
        if (sys_read_line(root, "/sys/module/amdgpu/version", drv, sizeof drv) == 0)
            set_str(g, "driver_version", drv);
        if (in.gfx[0]) {
            gpu_support(root, g, in.gfx);
            if (!*gfx_seen)
                snprintf(gfx_seen, glen, "%s", in.gfx);
        }
        /* Memory: on an APU the allocatable pool is GTT (system memory mapped for the GPU),
         * not the small VRAM carve-out that mem_info_vram_total reports. */
        cJSON *m = cJSON_GetObjectItem(g, "memory");
        if (!m) {
            m = gv_json_add_obj(g, "memory");
            if (in.unified >= 0) {
                cJSON_AddStringToObject(m, "kind", in.unified ? "unified" : "dedicated");
                cJSON_AddStringToObject(m, "kind_how", in.unified_why);
            } else {
                put_why(m, "kind", in.unified_why);
            }
            double pool = in.unified == 1 ? in.gtt_total_bytes : in.vram_total_bytes;
            put_num(m, "total_bytes", pool, "mem_info files unreadable");
            put_num(m, "allocatable_bytes", pool, "mem_info files unreadable");
            if (isfinite(pool))
                cJSON_AddStringToObject(m, "allocatable_how", in.unified == 1 ? "mem_info_gtt_total (the GTT pool)" : "mem_info_vram_total");
        }
        put_num(m, "vram_total_bytes", in.vram_total_bytes, "mem_info_vram_total unreadable");
        put_num(m, "gtt_total_bytes", in.gtt_total_bytes, "mem_info_gtt_total unreadable");
        if (in.kfd_node < 0)
            add_pitfall(pits, "warning", NULL, "%s (%s) has no KFD topology node: ROCm cannot use it (amdgpu loaded without KFD, "
                        "or /sys/class/kfd missing)", cards[i].card, cards[i].pci_slot);
    }
    for (cJSON *g = gpus->child; g; g = g->next)
        gpu_finish(g);
    if (!cJSON_GetArraySize(gpus))
        cJSON_AddStringToObject(out, "gpus_why", whys);
}

/* ---- device nodes -------------------------------------------------------------------------- */

/* Is there a POSIX ACL entry on path that grants this user (or one of its groups) access?
 * The xattr is a 4-byte header then 8-byte entries {u16 tag, u16 perm, u32 id}. */
static int acl_grants(const char *path, const gid_t *groups, int ng)
{
    unsigned char buf[1024];
    ssize_t n = getxattr(path, "system.posix_acl_access", buf, sizeof buf);
    if (n < 4)
        return 0;
    for (ssize_t off = 4; off + 8 <= n; off += 8) {
        unsigned tag = buf[off] | buf[off + 1] << 8, perm = buf[off + 2] | buf[off + 3] << 8;
        uint32_t id = (uint32_t)buf[off + 4] | (uint32_t)buf[off + 5] << 8 | (uint32_t)buf[off + 6] << 16 | (uint32_t)buf[off + 7] << 24;
        if ((perm & 6) != 6)
            continue;
        if (tag == 0x02 && id == geteuid()) /* ACL_USER */
            return 1;
        if (tag == 0x08) /* ACL_GROUP */
            for (int i = 0; i < ng; i++)
                if (groups[i] == id)
                    return 1;
    }
    return 0;
}

static void node_entry(const char *root, const char *rel, cJSON *arr)
{
    char full[SYS_PATH_MAX];
    sys_path(root, rel, full, sizeof full);
    struct stat st;
    if (stat(full, &st) != 0)
        return;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", rel);
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", (unsigned)(st.st_mode & 07777));
    cJSON_AddStringToObject(o, "mode", mode);
    struct group *gr = getgrgid(st.st_gid);
    char gname[64];
    snprintf(gname, sizeof gname, "%s", gr ? gr->gr_name : "");
    if (!gname[0])
        snprintf(gname, sizeof gname, "%u", (unsigned)st.st_gid);
    cJSON_AddStringToObject(o, "group", gname);
    gid_t groups[256];
    int ng = getgroups(255, groups);
    if (ng < 0)
        ng = 0;
    groups[ng++] = getegid();
    int member = 0;
    for (int i = 0; i < ng; i++)
        member |= groups[i] == st.st_gid;
    cJSON_AddBoolToObject(o, "member_of_group", member);
    int acl = acl_grants(full, groups, ng);
    cJSON_AddBoolToObject(o, "acl_grants", acl);
    int ok = access(full, R_OK | W_OK) == 0;
    cJSON_AddBoolToObject(o, "accessible", ok);
    char why[512];
    if (geteuid() == 0)
        snprintf(why, sizeof why, "running as root");
    else if (ok && (st.st_mode & 06) == 06)
        snprintf(why, sizeof why, "mode %s lets every user read and write it", mode);
    else if (ok && member)
        snprintf(why, sizeof why, "through group '%s', of which you are a member", gname);
    else if (ok && acl)
        snprintf(why, sizeof why, "through an ACL entry (logind grants one to the user at the seat)");
    else if (ok)
        snprintf(why, sizeof why, "accessible (owner)");
    else
        snprintf(why, sizeof why, "not accessible: group '%s', mode %s, you are not a member and no ACL grants you access; "
                 "run 'sudo usermod -aG %s $USER' and log in again", gname, mode, gname);
    cJSON_AddStringToObject(o, "why", why);
    cJSON_AddItemToArray(arr, o);
}

static void probe_nodes(const char *root, cJSON *out, cJSON *pits)
{
    cJSON *arr = gv_json_add_arr(out, "device_nodes");
    char names[64][SYS_NAME_MAX], rel[SYS_PATH_MAX];
    int n = sys_list_dir(root, "/dev", "nvidia", names, 64);
    for (int i = 0; i < n; i++) {
        snprintf(rel, sizeof rel, "/dev/%.60s", names[i]);
        node_entry(root, rel, arr);
    }
    node_entry(root, "/dev/kfd", arr);
    n = sys_list_dir(root, "/dev/dri", "renderD", names, 64);
    for (int i = 0; i < n; i++) {
        snprintf(rel, sizeof rel, "/dev/dri/%.60s", names[i]);
        node_entry(root, rel, arr);
    }
    if (!cJSON_GetArraySize(arr))
        cJSON_AddStringToObject(out, "device_nodes_why", "no /dev/nvidia*, /dev/kfd or /dev/dri/renderD* here (no GPU driver loaded, or a container without them)");
    for (cJSON *o = arr->child; o; o = o->next)
        if (!cJSON_IsTrue(cJSON_GetObjectItem(o, "accessible")))
            add_pitfall(pits, "warning", NULL, "%s: %s", gv_json_str(o, "path", ""), gv_json_str(o, "why", ""));
}

/* ---- environment --------------------------------------------------------------------------- */

static const char *const env_vars[] = {
    "HSA_OVERRIDE_GFX_VERSION", "LD_PRELOAD", "LD_LIBRARY_PATH", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
    "GOTO_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES", "CUDA_LAUNCH_BLOCKING", "HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "CUDA_CACHE_PATH",
    "CUDA_CACHE_MAXSIZE", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"};

static void probe_env(char **envp, cJSON *out, cJSON *pits, const char *gfx, int threads)
{
    cJSON *e = gv_json_add_obj(out, "environment");
    cJSON *vars = gv_json_add_obj(e, "vars");
    for (size_t i = 0; i < GV_ARRAY_LEN(env_vars); i++) {
        const char *v = sys_env_get(envp, env_vars[i]);
        if (v)
            cJSON_AddStringToObject(vars, env_vars[i], v);
        else
            cJSON_AddNullToObject(vars, env_vars[i]);
    }
    const char *ov = sys_env_get(envp, "HSA_OVERRIDE_GFX_VERSION");
    if (ov) {
        if (gfx && *gfx) {
            cJSON *nat = NULL;
            for (cJSON *g = cJSON_GetObjectItem(out, "gpus")->child; g && !nat; g = g->next) {
                cJSON *a = cJSON_GetObjectItem(g, "arch");
                if (cJSON_IsString(a) && !strcmp(a->valuestring, gfx))
                    nat = cJSON_GetObjectItem(g, "natively_supported");
            }
            int native = cJSON_IsTrue(nat);
            add_pitfall(pits, "warning", "HSA_OVERRIDE_GFX_VERSION",
                        "HSA_OVERRIDE_GFX_VERSION=%s makes ROCm run kernels built for another GPU on this %s, which %s; %s", ov, gfx,
                        native ? "is natively supported" : "is not natively supported",
                        native ? "unset it: the override can only make things worse"
                               : "results can be wrong or the GPU can hang: run 'gpuvet check' before trusting it");
        } else {
            add_pitfall(pits, "warning", "HSA_OVERRIDE_GFX_VERSION",
                        "HSA_OVERRIDE_GFX_VERSION=%s is set but no AMD GPU was found to compare it with", ov);
        }
    }
    cJSON *pre = gv_json_add_arr(e, "ld_preload");
    const char *lp = sys_env_get(envp, "LD_PRELOAD");
    if (lp && *lp) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", lp);
        char *save = NULL;
        for (char *t = strtok_r(buf, ": ", &save); t; t = strtok_r(NULL, ": ", &save))
            cJSON_AddItemToArray(pre, cJSON_CreateString(t));
        add_pitfall(pits, "warning", "LD_PRELOAD",
                    "LD_PRELOAD=%s: preloaded libraries can replace BLAS, the allocator or the GPU runtime in every program", lp);
    }
    static const char *const tvars[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"};
    for (size_t i = 0; i < GV_ARRAY_LEN(tvars); i++) {
        const char *v = sys_env_get(envp, tvars[i]);
        if (!v)
            continue;
        char *end;
        long n = strtol(v, &end, 10);
        if (end == v || *end || n < 1)
            add_pitfall(pits, "warning", tvars[i], "%s='%s' is not a positive whole number; libraries will ignore it or fail", tvars[i], v);
        else if (n > threads)
            add_pitfall(pits, "warning", tvars[i], "%s=%ld is more than the %d CPUs this process may use: threads will "
                        "oversubscribe the cores and GEMM slows down", tvars[i], n, threads);
        else if (n == 1 && threads > 1)
            add_pitfall(pits, "note", tvars[i], "%s=1: BLAS runs single-threaded on this %d-CPU machine", tvars[i], threads);
        else
            add_pitfall(pits, "note", tvars[i], "%s=%ld", tvars[i], n);
    }
    static const char *const vis[] = {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"};
    for (size_t i = 0; i < GV_ARRAY_LEN(vis); i++) {
        const char *v = sys_env_get(envp, vis[i]);
        if (!v)
            continue;
        if (!*v || !strcmp(v, "-1") || !strcmp(v, "NoDevFiles"))
            add_pitfall(pits, "warning", vis[i], "%s='%s' hides every GPU from the runtime", vis[i], v);
        else
            add_pitfall(pits, "note", vis[i], "%s=%s: the runtime sees only these GPUs, renumbered from 0", vis[i], v);
    }
    static const char *const blocking[] = {"CUDA_LAUNCH_BLOCKING", "HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL"};
    for (size_t i = 0; i < GV_ARRAY_LEN(blocking); i++) {
        const char *v = sys_env_get(envp, blocking[i]);
        if (v && *v && strcmp(v, "0"))
            add_pitfall(pits, "warning", blocking[i], "%s=%s serialises kernel launches: timings will understate the GPU", blocking[i], v);
    }
}

cJSON *sys_probe_json_opts(const sys_probe_opts *o)
{
    const char *root = o->root && *o->root ? o->root : "";
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "schema", SYS_PROBE_SCHEMA);
    cJSON_AddStringToObject(out, "root", *root ? root : "/");
    cJSON *pits = cJSON_CreateArray();
    probe_cpu(root, out);
    probe_memory_kernel(root, out);
    probe_blas(out);
    char gfx[16] = "";
    probe_gpus(root, o, out, pits, gfx, sizeof gfx);
    probe_nodes(root, out, pits);
    char fix[SYS_PATH_MAX] = "";
    probe_driver_libs(root, o->envp, out, pits, fix, sizeof fix);
    put_str(out, "recommended_library_path", fix, "the driver libraries the loader finds are consistent (or absent)");
    probe_env(o->envp, out, pits, gfx, gv_cpu_count());
    /* A busy machine makes every measurement slow and noisy: say so before any benchmark. */
    double load = sys_loadavg1(root);
    int usable = gv_cpu_count();
    if (isfinite(load) && load > usable)
        add_pitfall(pits, "warning", NULL, "the machine is busy: load average %.1f on %d usable core%s; measurements "
                    "taken now will be slow and vary (wait, or stop the other work)", load, usable, usable > 1 ? "s" : "");
    cJSON_AddItemToObject(cJSON_GetObjectItem(out, "environment"), "pitfalls", pits);
    cJSON *w = gv_json_add_arr(out, "warnings");
    for (cJSON *p = pits->child; p; p = p->next)
        if (!strcmp(gv_json_str(p, "severity", ""), "warning"))
            cJSON_AddItemToArray(w, cJSON_CreateString(gv_json_str(p, "message", "")));
    return out;
}

cJSON *sys_probe_json(const char *root)
{
    sys_probe_opts o = {root, NULL, NULL, root && *root && strcmp(root, "/")};
    return sys_probe_json_opts(&o);
}
