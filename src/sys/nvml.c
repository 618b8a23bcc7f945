/* nvml.c: NVIDIA's management library, loaded with dlopen so that gpuvet has no link-time
 * dependency on it. Each entry point is resolved with dlsym; the optional ones that a driver
 * lacks are listed, and the readers return NAN for what they cannot read. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "sys/gpuread.h"

/* NVML's C types, as its header declares them (nvmlReturn_t is an int; 0 is success). */
typedef int nvml_ret;
typedef void *nvml_dev;
typedef struct { unsigned int gpu, memory; } nvml_util;
typedef struct { unsigned long long total, free, used; } nvml_mem;
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

struct sys_nvml {
    void *lib;
    int ok;
    char lib_name[256];
    char why[512];
    char missing[512];
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    const char *(*error_string)(nvml_ret);
    nvml_ret (*count)(unsigned int *);
    nvml_ret (*by_index)(unsigned int, nvml_dev *);
    nvml_ret (*by_pci)(const char *, nvml_dev *);
    nvml_ret (*name)(nvml_dev, char *, unsigned int);
    nvml_ret (*driver_version)(char *, unsigned int);
    nvml_ret (*cuda_version)(int *);
    nvml_ret (*cc)(nvml_dev, int *, int *);
    nvml_ret (*memory)(nvml_dev, nvml_mem *);
    nvml_ret (*power_limit)(nvml_dev, unsigned int *);
    nvml_ret (*clock)(nvml_dev, int, unsigned int *);
    nvml_ret (*power)(nvml_dev, unsigned int *);
    nvml_ret (*temperature)(nvml_dev, int, unsigned int *);
    nvml_ret (*utilization)(nvml_dev, nvml_util *);
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);
    nvml_ret (*energy)(nvml_dev, unsigned long long *);
};

void sys_gpu_sample_clear(sys_gpu_sample *s)
{
    s->sm_mhz = s->mem_mhz = s->power_w = s->temp_c = s->util_pct = s->throttle = s->energy_j = NAN;
}

/* Resolves the first of up to two names; records the first name as missing when neither exists. */
static void *resolve(sys_nvml *n, const char *name, const char *alt)
{
    void *p = dlsym(n->lib, name);
    if (!p && alt)
        p = dlsym(n->lib, alt);
    if (!p) {
        size_t l = strlen(n->missing);
        snprintf(n->missing + l, sizeof n->missing - l, "%s%s", l ? "," : "", name);
    }
    return p;
}

sys_nvml *sys_nvml_open(const char *lib)
{
    sys_nvml *n = gv_xcalloc(1, sizeof *n);
    if (!lib || !*lib) {
        const char *e = getenv("GPUVET_NVML");
        lib = e && *e ? e : SYS_NVML_DEFAULT_LIB;
    }
    snprintf(n->lib_name, sizeof n->lib_name, "%s", lib);
    n->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *de = dlerror();
        size_t ll = strlen(lib);
        if (de && !strncmp(de, lib, ll) && de[ll] == ':') /* dlerror names the library again */
            de += ll + (de[ll + 1] == ' ' ? 2 : 1);
        snprintf(n->why, sizeof n->why, "%.100s not found (%.120s): no NVIDIA driver, or it is not on the loader path",
                 lib, de ? de : "dlopen failed");
        return n;
    }
    /* Required: without these nothing can be read. */
    *(void **)&n->init = resolve(n, "nvmlInit_v2", "nvmlInit");
    *(void **)&n->shutdown = resolve(n, "nvmlShutdown", NULL);
    *(void **)&n->count = resolve(n, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    *(void **)&n->by_index = resolve(n, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    if (!n->init || !n->shutdown || !n->count || !n->by_index) {
        snprintf(n->why, sizeof n->why, "%.200s lacks required entry points (%.100s)", lib, n->missing);
        return n;
    }
    /* Optional: each reader checks its pointer. */
    *(void **)&n->error_string = resolve(n, "nvmlErrorString", NULL);
    *(void **)&n->by_pci = resolve(n, "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
    *(void **)&n->name = resolve(n, "nvmlDeviceGetName", NULL);
    *(void **)&n->driver_version = resolve(n, "nvmlSystemGetDriverVersion", NULL);
    *(void **)&n->cuda_version = resolve(n, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
    *(void **)&n->cc = resolve(n, "nvmlDeviceGetCudaComputeCapability", NULL);
    *(void **)&n->memory = resolve(n, "nvmlDeviceGetMemoryInfo", NULL);
    *(void **)&n->power_limit = resolve(n, "nvmlDeviceGetPowerManagementLimit", NULL);
    *(void **)&n->clock = resolve(n, "nvmlDeviceGetClockInfo", NULL);
    *(void **)&n->power = resolve(n, "nvmlDeviceGetPowerUsage", NULL);
    *(void **)&n->temperature = resolve(n, "nvmlDeviceGetTemperature", NULL);
    *(void **)&n->utilization = resolve(n, "nvmlDeviceGetUtilizationRates", NULL);
    /* Renamed in CUDA 12.2 drivers; older drivers have only the first name. */
    *(void **)&n->reasons = resolve(n, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&n->energy = resolve(n, "nvmlDeviceGetTotalEnergyConsumption", NULL);
    nvml_ret r = n->init();
    if (r != 0) {
        snprintf(n->why, sizeof n->why, "nvmlInit: %s (error %d)%s",
                 n->error_string ? n->error_string(r) : "failed", r,
                 r == 18 ? ": the user-space driver library does not match the loaded kernel module; reboot or reinstall the driver" : "");
        return n;
    }
    n->ok = 1;
    return n;
}

void sys_nvml_close(sys_nvml *n)
{
    if (!n)
        return;
    if (n->ok)
        n->shutdown();
    if (n->lib)
        dlclose(n->lib);
    free(n);
}

int sys_nvml_ok(const sys_nvml *n) { return n->ok; }
const char *sys_nvml_why(const sys_nvml *n) { return n->why; }
const char *sys_nvml_lib(const sys_nvml *n) { return n->lib ? n->lib_name : ""; }
const char *sys_nvml_missing(const sys_nvml *n) { return n->missing; }

int sys_nvml_count(sys_nvml *n)
{
    unsigned int c = 0;
    if (!n->ok || n->count(&c) != 0)
        return 0;
    return (int)c;
}

void *sys_nvml_device(sys_nvml *n, int index, const char *pci_bus_id)
{
    nvml_dev d = NULL;
    if (!n->ok)
        return NULL;
    if (pci_bus_id && *pci_bus_id && n->by_pci) {
        if (n->by_pci(pci_bus_id, &d) == 0)
            return d;
        return NULL;
    }
    if (index < 0 || n->by_index((unsigned)index, &d) != 0)
        return NULL;
    return d;
}

void sys_nvml_info_read(sys_nvml *n, void *dev, sys_nvml_info *info)
{
    memset(info, 0, sizeof *info);
    info->mem_total_bytes = info->mem_free_bytes = info->power_limit_w = NAN;
    if (!n->ok)
        return;
    if (n->driver_version && n->driver_version(info->driver_version, sizeof info->driver_version) != 0)
        info->driver_version[0] = 0;
    if (n->cuda_version && n->cuda_version(&info->cuda_driver_version) != 0)
        info->cuda_driver_version = 0;
    if (!dev)
        return;
    if (n->name && n->name(dev, info->name, sizeof info->name) != 0)
        info->name[0] = 0;
    if (n->cc && n->cc(dev, &info->cc_major, &info->cc_minor) != 0)
        info->cc_major = info->cc_minor = 0;
    nvml_mem m;
    if (n->memory && n->memory(dev, &m) == 0) {
        info->mem_total_bytes = (double)m.total;
        info->mem_free_bytes = (double)m.free;
    }
    unsigned int mw;
    if (n->power_limit && n->power_limit(dev, &mw) == 0)
        info->power_limit_w = mw / 1000.0;
}

void sys_nvml_sample(sys_nvml *n, void *dev, sys_gpu_sample *s)
{
    sys_gpu_sample_clear(s);
    if (!n->ok || !dev)
        return;
    unsigned int v;
    if (n->clock && n->clock(dev, NVML_CLOCK_SM, &v) == 0)
        s->sm_mhz = v;
    if (n->clock && n->clock(dev, NVML_CLOCK_MEM, &v) == 0)
        s->mem_mhz = v;
    if (n->power && n->power(dev, &v) == 0)
        s->power_w = v / 1000.0; /* milliwatts */
    if (n->temperature && n->temperature(dev, NVML_TEMPERATURE_GPU, &v) == 0)
        s->temp_c = v;
    nvml_util u;
    if (n->utilization && n->utilization(dev, &u) == 0)
        s->util_pct = u.gpu;
    unsigned long long x;
    if (n->reasons && n->reasons(dev, &x) == 0)
        s->throttle = (double)x;
    if (n->energy && n->energy(dev, &x) == 0)
        s->energy_j = x / 1000.0; /* millijoules since the driver loaded */
}

/* NVML's clock-event reason bits (nvmlClocksEventReason*). slowdown: 1 the reason lowers
 * clocks under load (the power cap), 2 it is a thermal or hardware slowdown (heat, the
 * board's slowdown signal, an external power brake). */
static const struct { uint64_t bit; const char *name; int slowdown; } reason_bits[] = {
    {0x1, "gpu_idle", 0},
    {0x2, "applications_clocks_setting", 0},
    {0x4, "sw_power_cap", 1},
    {0x8, "hw_slowdown", 2},
    {0x10, "sync_boost", 0},
    {0x20, "sw_thermal_slowdown", 2},
    {0x40, "hw_thermal_slowdown", 2},
    {0x80, "hw_power_brake_slowdown", 2},
    {0x100, "display_clock_setting", 0},
};

void sys_nvml_throttle_names(uint64_t mask, char *buf, int len)
{
    int used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < GV_ARRAY_LEN(reason_bits) && used < len; i++)
        if (mask & reason_bits[i].bit)
            used += snprintf(buf + used, (size_t)(len - used), "%s%s", used ? "," : "", reason_bits[i].name);
}

int sys_nvml_throttle_is_slowdown(uint64_t mask)
{
    for (size_t i = 0; i < GV_ARRAY_LEN(reason_bits); i++)
        if ((mask & reason_bits[i].bit) && reason_bits[i].slowdown)
            return 1;
    return 0;
}

uint64_t sys_nvml_throttle_thermal(uint64_t mask)
{
    uint64_t m = 0;
    for (size_t i = 0; i < GV_ARRAY_LEN(reason_bits); i++)
        if (reason_bits[i].slowdown == 2)
            m |= reason_bits[i].bit;
    return mask & m;
}
