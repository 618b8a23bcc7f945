/* amdgpu.c: AMD GPUs read from the amdgpu driver's sysfs files (clocks, busy percent,
 * memory pools), its hwmon folder (power, temperature, energy) and the KFD topology that
 * ROCm uses (gfx target). All paths are below a root so tests can use fixture trees. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gv.h"
#include "sys/gpuread.h"
#include "sys/sysfs.h"

int sys_pci_normalise(const char *in, char *out, int len)
{
    unsigned dom, bus, dev, fn;
    if (!in || sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4 || bus > 255 || dev > 31 || fn > 7)
        return 0;
    snprintf(out, (size_t)len, "%04x:%02x:%02x.%x", dom & 0xffff, bus, dev, fn);
    return 1;
}

void sys_gfx_name(unsigned v, char *buf, int len)
{
    unsigned major = v / 10000, minor = (v / 100) % 100, step = v % 100;
    snprintf(buf, (size_t)len, "gfx%u%x%x", major, minor, step);
}

double sys_amdgpu_dpm_current_mhz(const char *text)
{
    /* Lines "N: <freq>Mhz" with a '*' on the level in use. */
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        const char *end = nl ? nl : l + strlen(l);
        const char *star = memchr(l, '*', (size_t)(end - l));
        const char *colon = memchr(l, ':', (size_t)(end - l));
        if (star && colon) {
            double mhz = strtod(colon + 1, NULL);
            if (mhz > 0)
                return mhz;
        }
        l = nl ? nl + 1 : NULL;
    }
    return NAN;
}

static int starts_with_hex(const char *root, const char *rel, const char *want)
{
    char buf[32];
    return sys_read_line(root, rel, buf, sizeof buf) == 0 && !strncasecmp(buf, want, strlen(want));
}

int sys_amdgpu_find(const char *root, sys_amdgpu *out, int max)
{
    char names[64][SYS_NAME_MAX];
    int n = sys_list_dir(root, "/sys/class/drm", "card", names, 64);
    if (n < 0)
        return n;
    int found = 0;
    for (int i = 0; i < n && found < max; i++) {
        if (strchr(names[i], '-') || strlen(names[i]) >= sizeof((sys_amdgpu *)0)->card) /* connectors: card0-DP-1 */
            continue;
        sys_amdgpu g;
        memset(&g, 0, sizeof g);
        memcpy(g.card, names[i], strlen(names[i]) + 1); /* fits: checked above */
        snprintf(g.dev_rel, sizeof g.dev_rel, "/sys/class/drm/%s/device", g.card);
        char rel[SYS_PATH_MAX];
        snprintf(rel, sizeof rel, "%s/vendor", g.dev_rel);
        if (!starts_with_hex(root, rel, "0x1002"))
            continue;
        snprintf(rel, sizeof rel, "%s/class", g.dev_rel);
        if (!starts_with_hex(root, rel, "0x03")) /* display controllers only */
            continue;
        char *uevent = NULL;
        snprintf(rel, sizeof rel, "%s/uevent", g.dev_rel);
        if (sys_read_text(root, rel, &uevent) == 0) {
            const char *p = strstr(uevent, "PCI_SLOT_NAME=");
            char slot[32];
            if (p && sscanf(p + 14, "%31s", slot) == 1)
                sys_pci_normalise(slot, g.pci_slot, sizeof g.pci_slot);
            free(uevent);
        }
        char idbuf[32];
        snprintf(rel, sizeof rel, "%s/device", g.dev_rel);
        if (sys_read_line(root, rel, idbuf, sizeof idbuf) == 0)
            g.device_id = (unsigned)strtoul(idbuf, NULL, 16);
        char hw[8][SYS_NAME_MAX];
        snprintf(rel, sizeof rel, "%s/hwmon", g.dev_rel);
        if (sys_list_dir(root, rel, "hwmon", hw, 8) > 0) {
            snprintf(g.hwmon_rel, sizeof g.hwmon_rel, "%.96s/hwmon/%.40s", g.dev_rel, hw[0]);
            /* Older kernels and most discrete boards expose power1_average; newer kernels
             * on RDNA3 and APUs expose power1_input instead. Use whichever exists. */
            static const char *const power_files[] = {"power1_average", "power1_input"};
            for (size_t k = 0; k < GV_ARRAY_LEN(power_files); k++) {
                char p[SYS_PATH_MAX], full[SYS_PATH_MAX];
                snprintf(p, sizeof p, "%s/%s", g.hwmon_rel, power_files[k]);
                sys_path(root, p, full, sizeof full);
                if (access(full, F_OK) == 0) {
                    snprintf(g.power_file, sizeof g.power_file, "%s", power_files[k]);
                    break;
                }
            }
        }
        out[found++] = g;
    }
    return found;
}

/* Reads a number from dir/name scaled by `scale`; NAN when missing or malformed. */
static double read_scaled(const char *root, const char *dir, const char *name, double scale)
{
    char rel[SYS_PATH_MAX];
    uint64_t v;
    if (!dir[0] || !name[0])
        return NAN;
    snprintf(rel, sizeof rel, "%s/%s", dir, name);
    if (sys_read_u64(root, rel, &v) != 0)
        return NAN;
    return (double)v * scale;
}

static double dpm_mhz(const char *root, const sys_amdgpu *g, const char *file)
{
    char rel[SYS_PATH_MAX], *text = NULL;
    snprintf(rel, sizeof rel, "%s/%s", g->dev_rel, file);
    if (sys_read_text(root, rel, &text) != 0)
        return NAN;
    double mhz = sys_amdgpu_dpm_current_mhz(text);
    free(text);
    return mhz;
}

void sys_amdgpu_sample(const char *root, const sys_amdgpu *g, sys_gpu_sample *s)
{
    sys_gpu_sample_clear(s);
    /* hwmon freq1_input / freq2_input are the shader and memory clocks in Hz; the DPM
     * tables (the level marked '*') are the fallback where hwmon lacks them. */
    s->sm_mhz = read_scaled(root, g->hwmon_rel, "freq1_input", 1e-6);
    if (!isfinite(s->sm_mhz))
        s->sm_mhz = dpm_mhz(root, g, "pp_dpm_sclk");
    s->mem_mhz = read_scaled(root, g->hwmon_rel, "freq2_input", 1e-6);
    if (!isfinite(s->mem_mhz))
        s->mem_mhz = dpm_mhz(root, g, "pp_dpm_mclk");
    s->power_w = read_scaled(root, g->hwmon_rel, g->power_file, 1e-6);  /* microwatts */
    s->temp_c = read_scaled(root, g->hwmon_rel, "temp1_input", 1e-3);   /* millidegrees */
    s->util_pct = read_scaled(root, g->dev_rel, "gpu_busy_percent", 1.0);
    s->energy_j = read_scaled(root, g->hwmon_rel, "energy1_input", 1e-6); /* microjoules */
}

/* The KFD node whose PCI location matches the card: location_id is bus<<8 | dev<<3 | fn. */
static int kfd_match(const char *root, const sys_amdgpu *g, sys_amdgpu_info *info)
{
    unsigned dom, bus, dev, fn;
    if (sscanf(g->pci_slot, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return 0;
    unsigned want = bus << 8 | dev << 3 | fn;
    char nodes[64][SYS_NAME_MAX];
    int n = sys_list_dir(root, "/sys/class/kfd/kfd/topology/nodes", "", nodes, 64);
    for (int i = 0; i < n; i++) {
        char rel[SYS_PATH_MAX], *props = NULL, v[32];
        snprintf(rel, sizeof rel, "/sys/class/kfd/kfd/topology/nodes/%.60s/properties", nodes[i]);
        if (sys_read_text(root, rel, &props) != 0)
            continue;
        int match = sys_text_value(props, "location_id", v, sizeof v) && strtoul(v, NULL, 10) == want;
        if (match && sys_text_value(props, "domain", v, sizeof v))
            match = strtoul(v, NULL, 10) == dom;
        if (match) {
            info->kfd_node = atoi(nodes[i]);
            if (sys_text_value(props, "gfx_target_version", v, sizeof v))
                sys_gfx_name((unsigned)strtoul(v, NULL, 10), info->gfx, sizeof info->gfx);
            if (sys_text_value(props, "cpu_cores_count", v, sizeof v))
                info->kfd_cpu_cores = atoi(v);
        }
        free(props);
        if (match)
            return 1;
    }
    return 0;
}

void sys_amdgpu_info_read(const char *root, const sys_amdgpu *g, sys_amdgpu_info *info)
{
    memset(info, 0, sizeof *info);
    info->kfd_node = -1;
    info->unified = -1;
    info->vram_total_bytes = read_scaled(root, g->dev_rel, "mem_info_vram_total", 1.0);
    info->vis_vram_total_bytes = read_scaled(root, g->dev_rel, "mem_info_vis_vram_total", 1.0);
    info->gtt_total_bytes = read_scaled(root, g->dev_rel, "mem_info_gtt_total", 1.0);
    char rel[SYS_PATH_MAX];
    snprintf(rel, sizeof rel, "%s/product_name", g->dev_rel);
    if (sys_read_line(root, rel, info->product, sizeof info->product) != 0)
        info->product[0] = 0;
    kfd_match(root, g, info);
    /* An APU's "VRAM" is a small carve-out of system memory set by the firmware (often
     * 512 MiB); the memory a compute job can really allocate is the GTT pool, which the
     * kernel sizes from system RAM. KFD marks the oldest APUs with CPU cores on the GPU node. */
    if (info->kfd_cpu_cores > 0) {
        info->unified = 1;
        snprintf(info->unified_why, sizeof info->unified_why, "KFD node %d has CPU cores (APU)", info->kfd_node);
    } else if (isfinite(info->vram_total_bytes) && isfinite(info->gtt_total_bytes)) {
        int small = info->vram_total_bytes <= 4.0 * (1u << 30) && info->gtt_total_bytes >= 4 * info->vram_total_bytes;
        info->unified = small;
        snprintf(info->unified_why, sizeof info->unified_why,
                 small ? "VRAM is a small carve-out (%.2f GiB) beside a %.1f GiB GTT pool: an APU"
                       : "VRAM (%.2f GiB) is the main pool beside GTT (%.1f GiB): a discrete GPU",
                 info->vram_total_bytes / (1u << 30), info->gtt_total_bytes / (1u << 30));
    } else {
        snprintf(info->unified_why, sizeof info->unified_why, "mem_info_vram_total/mem_info_gtt_total unreadable");
    }
}
