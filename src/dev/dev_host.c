/* dev_host.c: device names, the CPU side of the GEMM interface (OpenBLAS) and BLAS facts. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dev/dev.h"

/* OpenBLAS extensions (declared in its cblas.h on Debian, repeated here for other BLASes
 * that ship the same symbols). */
extern char *openblas_get_config(void);
extern char *openblas_get_corename(void);
extern int openblas_get_num_threads(void);
extern void openblas_set_num_threads(int);

static int gpu_name_ok(const char *s, size_t n)
{
    return (n == 4 && !strncmp(s, "cuda", 4)) || (n == 3 && !strncmp(s, "hip", 3)) || (n == 3 && !strncmp(s, "gpu", 3));
}

gv_status dev_parse_names(const char *spec, dev_id *out, int max, int *n, gv_err *err)
{
    *n = 0;
    const char *backend = dev_gpu_backend();
    const char *p = spec;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t base = colon ? (size_t)(colon - p) : len;
        dev_id d = {DEV_CPU, 0, ""};
        if (*n >= max)
            return gv_fail(err, GV_ERR_INPUT, "--devices: too many devices in '%s'", spec);
        if (len == 3 && !strncmp(p, "cpu", 3)) {
            snprintf(d.label, sizeof d.label, "cpu");
        } else if (gpu_name_ok(p, base)) {
            long idx = 0;
            if (colon) {
                char *end;
                idx = strtol(colon + 1, &end, 10);
                if (end != p + len || idx < 0 || idx > 63 || colon + 1 == end)
                    return gv_fail(err, GV_ERR_INPUT, "--devices: bad GPU index in '%.*s'", (int)len, p);
            }
            d.kind = DEV_GPU;
            d.index = (int)idx;
            /* the backend's name ("gpu:1" is "cuda:1"), or the name as given without one */
            int blen = backend ? (int)strlen(backend) : (int)base;
            const char *b = backend ? backend : p;
            if (idx)
                snprintf(d.label, sizeof d.label, "%.*s:%ld", blen, b, idx);
            else
                snprintf(d.label, sizeof d.label, "%.*s", blen, b);
        } else {
            return gv_fail(err, GV_ERR_INPUT, "--devices: unknown device '%.*s' (use cpu, cuda or cpu,cuda)", (int)len, p);
        }
        for (int i = 0; i < *n; i++)
            if (out[i].kind == d.kind && out[i].index == d.index)
                return gv_fail(err, GV_ERR_INPUT, "--devices: '%s' is listed twice", d.label);
        out[(*n)++] = d;
        if (!comma)
            break;
        p = comma + 1;
    }
    return GV_OK;
}

gv_status dev_check(const dev_id *d, const char *what, gv_err *err)
{
    if (d->kind != DEV_GPU)
        return GV_OK;
    if (!dev_gpu_backend())
        return gv_fail(err, GV_ERR_ENV,
                       "%s: this gpuvet was built without a GPU backend; rebuild with 'make GPU=cuda' (NVIDIA) or "
                       "'make GPU=hip' (AMD)", what);
    gv_err e2 = {{0}};
    int count = dev_gpu_count(&e2);
    if (count <= d->index)
        return gv_fail(err, GV_ERR_ENV, "%s: no such GPU (%d visible%s%s); run 'gpuvet smoke' for details", what, count,
                       e2.msg[0] ? ": " : "", e2.msg);
    return GV_OK;
}

gv_status dev_parse_list(const char *spec, dev_id *out, int max, int *n, gv_err *err)
{
    *n = 0;
    const char *backend = dev_gpu_backend();
    if (!spec) {
        out[(*n)++] = DEV_ID_CPU;
        if (backend && dev_gpu_count(NULL) > 0 && *n < max) {
            dev_id g = {DEV_GPU, 0, ""};
            snprintf(g.label, sizeof g.label, "%s", backend);
            out[(*n)++] = g;
        }
        return GV_OK;
    }
    GV_TRY(dev_parse_names(spec, out, max, n, err));
    for (int i = 0; i < *n; i++) {
        char what[32];
        snprintf(what, sizeof what, "--devices %s", out[i].label);
        GV_TRY(dev_check(&out[i], what, err));
    }
    return GV_OK;
}

const char *dev_gemm_dtype_name(dev_gemm_dtype d)
{
    switch (d) {
    case DEV_GEMM_FP32: return "fp32";
    case DEV_GEMM_TF32: return "tf32";
    case DEV_GEMM_BF16: return "bf16";
    }
    return "?";
}

struct dev_gemm {
    dev_kind kind;
    int M, N, K, threads;
    float *A, *B, *C;          /* CPU */
    dev_gpu_gemm *gpu;         /* GPU */
};

gv_status dev_gemm_open(const dev_id *id, int M, int N, int K, dev_gemm_dtype dt, int threads,
                        dev_gemm **out, gv_err *err)
{
    *out = NULL;
    if (M <= 0 || N <= 0 || K <= 0)
        return gv_fail(err, GV_ERR_INPUT, "GEMM sizes must be positive (got %dx%dx%d)", M, N, K);
    dev_gemm *g = gv_xcalloc(1, sizeof *g);
    g->kind = id->kind;
    g->M = M, g->N = N, g->K = K, g->threads = threads;
    if (id->kind == DEV_GPU) {
        gv_status s = dev_gpu_gemm_open(id->index, M, N, K, dt, &g->gpu, err);
        if (s != GV_OK) {
            free(g);
            return s;
        }
        *out = g;
        return GV_OK;
    }
    if (dt != DEV_GEMM_FP32) {
        free(g);
        return gv_fail(err, GV_ERR_INPUT, "the CPU GEMM runs fp32 only (asked for %s)", dev_gemm_dtype_name(dt));
    }
    g->A = gv_aligned_alloc(sizeof(float) * (size_t)M * K);
    g->B = gv_aligned_alloc(sizeof(float) * (size_t)K * N);
    g->C = gv_aligned_alloc(sizeof(float) * (size_t)M * N);
    if (!g->A || !g->B || !g->C) {
        dev_gemm_close(g);
        return gv_fail(err, GV_ERR_ENV, "out of memory for a %dx%dx%d GEMM on the CPU", M, N, K);
    }
    *out = g;
    return GV_OK;
}

gv_status dev_gemm_set_inputs(dev_gemm *g, const float *A, const float *B, gv_err *err)
{
    if (g->gpu)
        return dev_gpu_gemm_set_inputs(g->gpu, A, B, err);
    memcpy(g->A, A, sizeof(float) * (size_t)g->M * g->K);
    memcpy(g->B, B, sizeof(float) * (size_t)g->K * g->N);
    return GV_OK;
}

gv_status dev_gemm_poison(dev_gemm *g, gv_err *err)
{
    if (g->gpu)
        return dev_gpu_gemm_poison(g->gpu, err);
    for (size_t i = 0; i < (size_t)g->M * g->N; i++)
        g->C[i] = NAN;
    return GV_OK;
}

gv_status dev_gemm_run(dev_gemm *g, int reps, double *seconds, gv_err *err)
{
    if (g->gpu)
        return dev_gpu_gemm_run(g->gpu, reps, seconds, err);
    if (g->threads > 0)
        openblas_set_num_threads(g->threads);
    double t0 = gv_now();
    for (int r = 0; r < reps; r++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->M, g->N, g->K, 1.0f, g->A, g->K, g->B, g->N,
                    0.0f, g->C, g->N);
    *seconds = gv_now() - t0;
    return GV_OK;
}

gv_status dev_gemm_get_output(dev_gemm *g, float *C, gv_err *err)
{
    if (g->gpu)
        return dev_gpu_gemm_get_output(g->gpu, C, err);
    memcpy(C, g->C, sizeof(float) * (size_t)g->M * g->N);
    return GV_OK;
}

size_t dev_gemm_bytes(const dev_gemm *g)
{
    if (g->gpu)
        return dev_gpu_gemm_bytes(g->gpu);
    return sizeof(float) * ((size_t)g->M * g->K + (size_t)g->K * g->N + (size_t)g->M * g->N);
}

void dev_gemm_close(dev_gemm *g)
{
    if (!g)
        return;
    if (g->gpu)
        dev_gpu_gemm_close(g->gpu);
    GV_FREE(g->A, g->B, g->C, g);
}

void dev_blas_query(dev_blas_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "OpenBLAS");
    const char *cfg = openblas_get_config();
    snprintf(info->config, sizeof info->config, "%s", cfg ? cfg : "");
    /* The configuration string starts "OpenBLAS 0.3.21 ..." */
    if (cfg && !strncmp(cfg, "OpenBLAS ", 9)) {
        const char *v = cfg + 9;
        size_t n = strcspn(v, " ");
        snprintf(info->version, sizeof info->version, "%.*s", (int)n, v);
    }
    const char *core = openblas_get_corename();
    snprintf(info->core, sizeof info->core, "%s", core ? core : "");
    info->threads = openblas_get_num_threads();
}

void dev_blas_set_threads(int n)
{
    if (n > 0)
        openblas_set_num_threads(n);
}
