/* envadv.c: environment advice from a probe record (see envadv.h). */
#include "sys/envadv.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "core/gv.h"
#include "core/record.h"
#include "sys/probe.h"

static void add(sys_env_setting *out, int *n, int max, const char *name, int unset, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
static void add(sys_env_setting *out, int *n, int max, const char *name, int unset, const char *value, const char *fmt, ...)
{
    if (*n >= max)
        return;
    sys_env_setting *s = &out[(*n)++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->value, sizeof s->value, "%s", value ? value : "");
    s->unset = unset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->comment, sizeof s->comment, fmt, ap);
    va_end(ap);
}

/* RDNA2/RDNA3 targets without ROCm kernels of their own, and the override that makes ROCm
 * load its sibling's kernels (the same instruction set within a family). */
static const char *override_for(const char *gfx)
{
    if (!strncmp(gfx, "gfx103", 6) && strcmp(gfx, "gfx1030"))
        return "10.3.0";
    if (!strncmp(gfx, "gfx110", 6) && strcmp(gfx, "gfx1100"))
        return "11.0.0";
    return NULL;
}

int sys_env_advice(const cJSON *probe, char **envp, sys_env_setting *out, int max)
{
    int n = 0;
    const cJSON *cpu = cJSON_GetObjectItem(probe, "cpu");
    double c = gv_json_num(cpu, "cores"), u = gv_json_num(cpu, "usable_cpus"), h = gv_json_num(cpu, "threads");
    int cores = c > 0 ? (int)c : 0, usable = u > 0 ? (int)u : 0, threads = h > 0 ? (int)h : 0; /* 0: not known */
    int t = cores > 0 ? cores : usable;
    if (usable > 0 && t > usable)
        t = usable;
    if (t < 1)
        t = 1;
    char v[64];
    snprintf(v, sizeof v, "%d", t);
    add(out, &n, max, "OPENBLAS_NUM_THREADS", 0, v,
        "BLAS threads: one per physical core (%d cores, %d hardware threads, %d usable); SMT siblings share a core's FMA units",
        cores, threads, usable);
    add(out, &n, max, "OMP_NUM_THREADS", 0, v, "OpenMP threads for gpuvet's CPU kernels: the same count, so they do not oversubscribe");

    int nvidia = 0, amd = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItem(probe, "gpus")) {
        const char *vendor = gv_json_str(g, "vendor", NULL);
        nvidia |= vendor && !strcmp(vendor, "NVIDIA");
        amd |= vendor && !strcmp(vendor, "AMD");
        const char *gfx = gv_json_str(g, "arch", NULL);
        const cJSON *nat = cJSON_GetObjectItem(g, "natively_supported");
        const char *ov = sys_env_get(envp, "HSA_OVERRIDE_GFX_VERSION");
        if (!gfx || !cJSON_IsBool(nat))
            continue;
        if (cJSON_IsTrue(nat) && ov)
            add(out, &n, max, "HSA_OVERRIDE_GFX_VERSION", 1, NULL,
                "%s is natively supported: the override only makes ROCm load kernels built for another GPU", gfx);
        else if (!cJSON_IsTrue(nat) && override_for(gfx))
            add(out, &n, max, "HSA_OVERRIDE_GFX_VERSION", 0, override_for(gfx),
                "%s has no ROCm kernels; this loads its family's (%s) kernels: common practice but not supported by AMD, "
                "so run 'gpuvet check' before trusting results", gfx, override_for(gfx));
    }
    const char *backend = gv_json_str(probe, "gpu_backend", NULL);
    nvidia |= cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(probe, "nvml"), "loaded")) || (backend && !strcmp(backend, "cuda"));
    amd |= backend && !strcmp(backend, "hip");
    if (nvidia) {
        const char *home = sys_env_get(envp, "HOME");
        char dir[512];
        if (home && *home)
            snprintf(dir, sizeof dir, "%s/.cache/gpuvet/cuda-jit", home);
        else
            snprintf(dir, sizeof dir, "/tmp/gpuvet-cuda-jit-%u", (unsigned)getuid());
        add(out, &n, max, "CUDA_CACHE_PATH", 0, dir,
            "the driver's JIT cache for PTX kernels: a folder of its own survives cache clean-ups of other programs");
        add(out, &n, max, "CUDA_CACHE_MAXSIZE", 0, "4294967296",
            "4 GiB, the largest the driver accepts, so JIT-compiled kernels are not evicted between runs");
        add(out, &n, max, "PYTORCH_CUDA_ALLOC_CONF", 0, "expandable_segments:True",
            "for the PyTorch comparison (bench/torch_drop7.py): growable segments instead of fragmenting the caching allocator");
    }
    if (amd)
        add(out, &n, max, "PYTORCH_HIP_ALLOC_CONF", 0, "expandable_segments:True",
            "for the PyTorch comparison on ROCm: growable segments instead of fragmenting the caching allocator");
    const char *fix = gv_json_str(probe, "recommended_library_path", NULL);
    if (fix) {
        const char *cur = sys_env_get(envp, "LD_LIBRARY_PATH");
        char val[1024];
        snprintf(val, sizeof val, "%s%s%s", fix, cur && *cur ? ":" : "", cur ? cur : "");
        add(out, &n, max, "LD_LIBRARY_PATH", 0, val,
            "the vendor runtime found first is a mismatched copy: load the system one from %s first", fix);
    }
    static const char *const hide[] = {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"};
    for (size_t i = 0; i < GV_ARRAY_LEN(hide); i++) {
        const char *cv = sys_env_get(envp, hide[i]);
        if (cv && (!*cv || !strcmp(cv, "-1") || !strcmp(cv, "NoDevFiles")))
            add(out, &n, max, hide[i], 1, NULL, "'%s' hides every GPU", cv);
    }
    static const char *const blocking[] = {"CUDA_LAUNCH_BLOCKING", "HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL"};
    for (size_t i = 0; i < GV_ARRAY_LEN(blocking); i++) {
        const char *cv = sys_env_get(envp, blocking[i]);
        if (cv && *cv && strcmp(cv, "0"))
            add(out, &n, max, blocking[i], 1, NULL, "serialises kernel launches: a debugging setting that slows every GPU program");
    }
    return n;
}

/* Single-quoted for sh: ' becomes '\''. */
static void shell_quote(const char *s, FILE *f)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

void sys_env_print(const sys_env_setting *s, int n, FILE *f)
{
    fprintf(f, "# gpuvet env: settings for this machine; use: eval \"$(gpuvet env)\"\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "# %s\n", s[i].comment);
        if (s[i].unset) {
            fprintf(f, "unset %s\n", s[i].name);
        } else {
            fprintf(f, "export %s=", s[i].name);
            shell_quote(s[i].value, f);
            fputc('\n', f);
        }
    }
}

int sys_env_check(const sys_env_setting *s, int n, char **envp, FILE *f)
{
    int differ = 0;
    for (int i = 0; i < n; i++) {
        const char *cur = sys_env_get(envp, s[i].name);
        int ok = s[i].unset ? cur == NULL : cur && !strcmp(cur, s[i].value);
        differ += !ok;
        if (ok)
            fprintf(f, "ok       %s%s%s\n", s[i].name, s[i].unset ? " is unset" : "=", s[i].unset ? "" : s[i].value);
        else if (s[i].unset)
            fprintf(f, "differs  %s is '%s', should be unset: %s\n", s[i].name, cur, s[i].comment);
        else
            fprintf(f, "differs  %s is %s%s%s, should be '%s': %s\n", s[i].name, cur ? "'" : "", cur ? cur : "unset",
                    cur ? "'" : "", s[i].value, s[i].comment);
    }
    return differ;
}
