/* probe_print.c: the text view of a probe record (sys_probe_print): what `gpuvet probe`
 * prints. It reads only the JSON, so the text and --json always say the same thing. */
#include <math.h>
#include <string.h>

#include "core/record.h"
#include "sys/probe.h"

/* A string field, or "n/a (why)" when it is null with a reason. */
static const char *field(const cJSON *o, const char *key, char *buf, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsString(v))
        return v->valuestring;
    if (cJSON_IsNumber(v)) {
        snprintf(buf, len, "%g", v->valuedouble);
        return buf;
    }
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? "yes" : "no";
    char k[96];
    snprintf(k, sizeof k, "%s_why", key);
    const char *why = gv_json_str(o, k, NULL);
    snprintf(buf, len, "n/a%s%s%s", why ? " (" : "", why ? why : "", why ? ")" : "");
    return buf;
}

static void bytes(const cJSON *o, const char *key, char *buf, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v))
        snprintf(buf, len, "%.1f GiB", v->valuedouble / (1024.0 * 1024 * 1024));
    else
        field(o, key, buf, len);
}

void sys_probe_print(const cJSON *p, FILE *f)
{
    char a[640], b[640], c[640], d[640];
    const cJSON *cpu = cJSON_GetObjectItem(p, "cpu"), *mem = cJSON_GetObjectItem(p, "memory");
    const cJSON *k = cJSON_GetObjectItem(p, "kernel"), *blas = cJSON_GetObjectItem(p, "blas");
    fprintf(f, "CPU      %s\n", field(cpu, "model", a, sizeof a));
    const cJSON *mhz = cJSON_GetObjectItem(cpu, "max_mhz");
    if (cJSON_IsNumber(mhz))
        snprintf(d, sizeof d, "max %.0f MHz", mhz->valuedouble);
    else
        snprintf(d, sizeof d, "max frequency %s", field(cpu, "max_mhz", c, sizeof c));
    fprintf(f, "         %s cores, %s threads, %s sockets, %s\n", field(cpu, "cores", a, sizeof a),
            field(cpu, "threads", b, sizeof b), field(cpu, "sockets", c, sizeof c), d);
    fprintf(f, "         governor %s\n", field(cpu, "governor", a, sizeof a));
    fprintf(f, "         energy preference %s\n", field(cpu, "energy_preference", a, sizeof a));
    bytes(mem, "total_bytes", a, sizeof a);
    bytes(mem, "available_bytes", b, sizeof b);
    fprintf(f, "memory   %s total, %s available\n", a, b);
    fprintf(f, "kernel   %s (%s)\n", field(k, "release", a, sizeof a), field(k, "os", b, sizeof b));
    fprintf(f, "BLAS     %s %s, core %s, %s threads\n", field(blas, "name", a, sizeof a), field(blas, "version", b, sizeof b),
            field(blas, "core", c, sizeof c), field(blas, "threads", d, sizeof d));
    fprintf(f, "backend  %s\n", field(p, "gpu_backend", a, sizeof a));
    const cJSON *nv = cJSON_GetObjectItem(p, "nvml");
    if (cJSON_IsTrue(cJSON_GetObjectItem(nv, "loaded")))
        fprintf(f, "NVML     %s, driver %s, CUDA %s\n", field(nv, "library", a, sizeof a), field(nv, "driver_version", b, sizeof b),
                field(nv, "cuda_driver_version", c, sizeof c));
    else
        fprintf(f, "NVML     not loaded: %s\n", field(nv, "why", a, sizeof a));
    const cJSON *gpus = cJSON_GetObjectItem(p, "gpus");
    if (!cJSON_GetArraySize(gpus)) {
        /* The NVML part of the reason was printed on the line above: refer to it. */
        const char *why = field(p, "gpus_why", a, sizeof a), *nvw = gv_json_str(nv, "why", NULL);
        char nvpart[700];
        snprintf(nvpart, sizeof nvpart, "NVML: %s; ", nvw ? nvw : "");
        const char *at = nvw ? strstr(why, nvpart) : NULL;
        if (at)
            fprintf(f, "GPUs     none: %.*sNVML not loaded (above); %s\n", (int)(at - why), why, at + strlen(nvpart));
        else
            fprintf(f, "GPUs     none: %s\n", why);
    }
    const cJSON *g;
    cJSON_ArrayForEach(g, gpus) {
        /* the vendor, unless the name already starts with it ("NVIDIA H200") */
        const char *vend = field(g, "vendor", a, sizeof a), *name = field(g, "name", b, sizeof b);
        int named = !strncmp(name, vend, strlen(vend));
        fprintf(f, "GPU %-4d %s%s%s, %s\n", (int)gv_json_num(g, "index"), named ? "" : vend, named ? "" : " ", name,
                field(g, "arch", c, sizeof c));
        fprintf(f, "         driver %s, runtime %s, PCI %s\n", field(g, "driver_version", a, sizeof a),
                field(g, "runtime_version", b, sizeof b), field(g, "pci_bus_id", c, sizeof c));
        const cJSON *m = cJSON_GetObjectItem(g, "memory");
        bytes(m, "allocatable_bytes", b, sizeof b);
        bytes(m, "total_bytes", c, sizeof c);
        fprintf(f, "         memory %s: %s allocatable of %s", field(m, "kind", a, sizeof a), b, c);
        if (cJSON_IsNumber(cJSON_GetObjectItem(m, "gtt_total_bytes"))) {
            bytes(m, "vram_total_bytes", a, sizeof a);
            bytes(m, "gtt_total_bytes", b, sizeof b);
            fprintf(f, " (VRAM %s, GTT %s)", a, b);
        }
        fprintf(f, "\n");
        if (cJSON_IsBool(cJSON_GetObjectItem(g, "natively_supported")))
            fprintf(f, "         natively supported by ROCm: %s (%s)\n", field(g, "natively_supported", a, sizeof a),
                    field(g, "natively_supported_how", b, sizeof b));
    }
    const cJSON *nodes = cJSON_GetObjectItem(p, "device_nodes");
    if (!cJSON_GetArraySize(nodes))
        fprintf(f, "devices  %s\n", field(p, "device_nodes_why", a, sizeof a));
    cJSON_ArrayForEach(g, nodes)
        fprintf(f, "devices  %-20s %s %s group %s: %s\n", gv_json_str(g, "path", NULL),
                cJSON_IsTrue(cJSON_GetObjectItem(g, "accessible")) ? "ok  " : "DENY", gv_json_str(g, "mode", NULL),
                gv_json_str(g, "group", NULL), gv_json_str(g, "why", NULL));
    const cJSON *drv = cJSON_GetObjectItem(p, "driver");
    fprintf(f, "driver   NVIDIA kernel module %s\n", field(drv, "nvidia_kernel_module", a, sizeof a));
    fprintf(f, "         libcuda.so.1 %s\n", field(cJSON_GetObjectItem(drv, "libcuda"), "path", a, sizeof a));
    fprintf(f, "         ROCm %s, libamdhip64 %s\n", field(drv, "rocm", a, sizeof a),
            field(cJSON_GetObjectItem(drv, "libamdhip64"), "path", b, sizeof b));
    const cJSON *env = cJSON_GetObjectItem(p, "environment");
    const cJSON *pit;
    int nnotes = 0;
    cJSON_ArrayForEach(pit, cJSON_GetObjectItem(env, "pitfalls"))
        if (!strcmp(gv_json_str(pit, "severity", NULL), "note"))
            fprintf(f, "%s %s\n", nnotes++ ? "        " : "env     ", gv_json_str(pit, "message", NULL));
    if (!nnotes)
        fprintf(f, "env      no GPU, BLAS or thread variables set\n");
    const cJSON *w = cJSON_GetObjectItem(p, "warnings");
    if (!cJSON_GetArraySize(w))
        fprintf(f, "warnings none\n");
    cJSON_ArrayForEach(g, w)
        fprintf(f, "WARNING  %s\n", g->valuestring);
}

void sys_probe_summary(const cJSON *p, char *buf, size_t len)
{
    char a[640], b[640], c[64];
    const cJSON *cpu = cJSON_GetObjectItem(p, "cpu"), *mem = cJSON_GetObjectItem(p, "memory");
    bytes(mem, "total_bytes", b, sizeof b);
    int n = snprintf(buf, len, "%s, %s usable cores, %s", field(cpu, "model", a, sizeof a),
                     field(cpu, "usable_cpus", c, sizeof c), b);
    const cJSON *gpus = cJSON_GetObjectItem(p, "gpus"), *g;
    if (!cJSON_GetArraySize(gpus)) {
        const char *backend = gv_json_str(p, "gpu_backend", NULL);
        n += snprintf(buf + n, len > (size_t)n ? len - n : 0, "; GPU: none (%s)",
                      !backend ? "this build has no GPU backend" : field(p, "device_nodes_why", a, sizeof a));
    }
    cJSON_ArrayForEach(g, gpus)
        n += snprintf(buf + n, len > (size_t)n ? len - n : 0, "; GPU %d: %s", (int)gv_json_num(g, "index"),
                      field(g, "name", a, sizeof a));
    int w = cJSON_GetArraySize(cJSON_GetObjectItem(p, "warnings"));
    if (w)
        snprintf(buf + n, len > (size_t)n ? len - n : 0, "; %d warning%s (gpuvet probe)", w, w > 1 ? "s" : "");
}
