/* gpuread.h: reading a GPU's clocks, power, temperature and memory without its compute
 * runtime: NVML loaded with dlopen (no link-time dependency) for NVIDIA, and the amdgpu
 * sysfs/hwmon files plus the KFD topology for AMD. Used by the probe and the telemetry
 * sampler; every value that cannot be read is NAN and the reason is kept. */
#ifndef GV_SYS_GPUREAD_H
#define GV_SYS_GPUREAD_H

#include <stdint.h>

/* One reading of a GPU. NAN where the signal is not available. */
typedef struct {
    double sm_mhz, mem_mhz;   /* current shader and memory clocks */
    double power_w;           /* board (NVIDIA) or package (amdgpu hwmon) power */
    double temp_c;
    double util_pct;          /* share of time the GPU was busy */
    double throttle;          /* NVML clock-event reason bits, as a number */
    double energy_j;          /* cumulative energy counter (NVML mJ / hwmon uJ), NAN if none */
} sys_gpu_sample;

void sys_gpu_sample_clear(sys_gpu_sample *s);

/* ---- NVML ------------------------------------------------------------------------------ */

#define SYS_NVML_DEFAULT_LIB "libnvidia-ml.so.1"

typedef struct sys_nvml sys_nvml;

/* Loads lib (NULL: libnvidia-ml.so.1, or $GPUVET_NVML when set) and calls nvmlInit. Never
 * NULL; sys_nvml_ok says whether it can be used and sys_nvml_why why not (for example
 * "libnvidia-ml.so.1 not found: ..." or "nvmlInit: Driver/library version mismatch"). */
sys_nvml *sys_nvml_open(const char *lib);
void sys_nvml_close(sys_nvml *n);
int sys_nvml_ok(const sys_nvml *n);
const char *sys_nvml_why(const sys_nvml *n);
/* The library actually loaded ("" when none) and a comma-separated list of the optional
 * symbols it lacks ("" when it has them all). */
const char *sys_nvml_lib(const sys_nvml *n);
const char *sys_nvml_missing(const sys_nvml *n);
int sys_nvml_count(sys_nvml *n);

/* Static facts of one NVIDIA GPU; strings are "" and numbers NAN/0 when not readable. */
typedef struct {
    char name[96];
    char pci_bus_id[32];      /* "00000000:19:00.0" as NVML prints it */
    char driver_version[32];  /* "550.54.15" */
    int cuda_driver_version;  /* 12040 for CUDA 12.4, 0 if unknown */
    int cc_major, cc_minor;   /* compute capability, 0 if unknown */
    double mem_total_bytes, mem_free_bytes;
    double power_limit_w;
} sys_nvml_info;

/* Device handle of GPU index, or (when pci_bus_id is not NULL/"") of the GPU at that PCI
 * address, which keeps NVML's and the CUDA runtime's numbering apart. NULL if not found. */
void *sys_nvml_device(sys_nvml *n, int index, const char *pci_bus_id);
void sys_nvml_info_read(sys_nvml *n, void *dev, sys_nvml_info *info);
void sys_nvml_sample(sys_nvml *n, void *dev, sys_gpu_sample *s);

/* Names of the reasons set in an NVML clock-event mask ("sw_power_cap,hw_slowdown"), and
 * whether any of them lowers clocks under load (idle and application settings do not). */
void sys_nvml_throttle_names(uint64_t mask, char *buf, int len);
int sys_nvml_throttle_is_slowdown(uint64_t mask);
/* The bits of mask that are thermal or hardware slowdowns (hw_slowdown, sw_thermal_slowdown,
 * hw_thermal_slowdown, hw_power_brake_slowdown): those slow the GPU whatever its load. */
uint64_t sys_nvml_throttle_thermal(uint64_t mask);

/* ---- amdgpu sysfs ------------------------------------------------------------------------ */

typedef struct {
    char card[16];            /* "card0" */
    char dev_rel[96];         /* "/sys/class/drm/card0/device" */
    char hwmon_rel[160];      /* ".../hwmon/hwmon2", "" when there is none */
    char power_file[24];      /* "power1_average" or "power1_input", "" when neither exists */
    char pci_slot[32];        /* "0000:c3:00.0" from uevent */
    unsigned device_id;       /* PCI device id */
} sys_amdgpu;

/* Finds the amdgpu GPUs under root/sys/class/drm (PCI vendor 0x1002, display class),
 * at most max. Returns how many, or a negative errno when the folder cannot be read. */
int sys_amdgpu_find(const char *root, sys_amdgpu *out, int max);
void sys_amdgpu_sample(const char *root, const sys_amdgpu *g, sys_gpu_sample *s);

typedef struct {
    double vram_total_bytes;  /* mem_info_vram_total; NAN if unreadable */
    double vis_vram_total_bytes;
    double gtt_total_bytes;   /* mem_info_gtt_total */
    char product[96];         /* product_name when the board exposes one */
    char gfx[16];             /* "gfx1103", from the KFD node's gfx_target_version */
    int kfd_node;             /* -1 when no KFD node matches */
    int kfd_cpu_cores;        /* cpu_cores_count of that node (non-zero on older APUs) */
    int unified;              /* 1: shares system memory (APU), 0: dedicated, -1: unknown */
    char unified_why[128];    /* how `unified` was decided */
} sys_amdgpu_info;

void sys_amdgpu_info_read(const char *root, const sys_amdgpu *g, sys_amdgpu_info *info);

/* "gfx1103" from a KFD gfx_target_version (major*10000 + minor*100 + stepping; the minor
 * and stepping digits of the name are hexadecimal: 90012 -> gfx90c). */
void sys_gfx_name(unsigned target_version, char *buf, int len);

/* Parses the current level of pp_dpm_sclk / pp_dpm_mclk text ("1: 2000Mhz *"); NAN if none. */
double sys_amdgpu_dpm_current_mhz(const char *text);

/* Normalises a PCI address ("00000000:19:00.0", "0000:19:00.0") to "0000:19:00.0" in
 * lower case; returns 0 if it is not one. */
int sys_pci_normalise(const char *in, char *out, int len);

#endif
