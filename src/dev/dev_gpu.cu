/* dev_gpu.cu: the GPU side of the device layer (dev.h): what the runtime says about each
 * GPU, and a GEMM context on the GPU through the vendor BLAS (gpu_blas.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/dev.h"
#include "dev/gpu_blas.h"
#include "dev/gpu_common.h"

extern "C" const char *dev_gpu_backend(void)
{
    return GV_GPU_IS_HIP ? "hip" : "cuda";
}

extern "C" int dev_gpu_count(gv_err *err)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        if (err)
            gv_fail(err, GV_ERR_ENV, "%s", cudaGetErrorString(e));
        (void)cudaGetLastError(); /* clear the sticky error so later calls start clean */
        return 0;
    }
    return n;
}

extern "C" gv_status dev_gpu_download(int index, void *dst, const void *src, size_t bytes, gv_err *err)
{
    GV_GPU_TRY(cudaSetDevice(index), err);
    GV_GPU_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), err);
    return GV_OK;
}

extern "C" gv_status dev_gpu_query(int index, dev_gpu_info *info, gv_err *err)
{
    memset(info, 0, sizeof *info);
    int n = dev_gpu_count(err);
    if (index < 0 || index >= n)
        return n == 0 ? GV_ERR_ENV : gv_fail(err, GV_ERR_ENV, "no GPU %d (%d visible)", index, n);
    cudaDeviceProp p;
    GV_GPU_TRY(cudaGetDeviceProperties(&p, index), err);
    snprintf(info->name, sizeof info->name, "%.127s", p.name);
#if GV_GPU_IS_HIP
    snprintf(info->vendor, sizeof info->vendor, "AMD");
    snprintf(info->arch, sizeof info->arch, "%.31s", p.gcnArchName);
    char *colon = strchr(info->arch, ':'); /* "gfx1030:sramecc-:xnack-" */
    if (colon)
        *colon = 0;
    info->unified = p.integrated;
#else
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
    snprintf(info->arch, sizeof info->arch, "sm_%d%d", p.major, p.minor);
    info->unified = p.integrated;
#endif
    info->sm_count = p.multiProcessorCount;
    int clk = 0;
#if !GV_GPU_IS_HIP
    if (cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, index) != cudaSuccess)
        clk = 0; /* not reported: recorded as 0 */
#else
    clk = p.clockRate;
#endif
    info->clock_khz = clk;
    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
    if (cudaRuntimeGetVersion(&info->runtime_version) != cudaSuccess)
        info->runtime_version = 0;
    if (cudaDriverGetVersion(&info->driver_version) != cudaSuccess)
        info->driver_version = 0;
    info->mem_total = p.totalGlobalMem;
    int prev = 0;
    if (cudaGetDevice(&prev) != cudaSuccess)
        prev = index;
    if (cudaSetDevice(index) == cudaSuccess) {
        size_t fr = 0, tot = 0;
        if (cudaMemGetInfo(&fr, &tot) == cudaSuccess) {
            info->mem_free = fr;
            info->mem_total = tot;
        }
        (void)cudaSetDevice(prev); /* back to the caller's device: a failure leaves index current */
    }
    (void)cudaGetLastError();
    return GV_OK;
}

/* ---- GEMM context --------------------------------------------------------------------- */

struct dev_gpu_gemm {
    int index, M, N, K;
    dev_gemm_dtype dt;
    cudaStream_t stream;
    gpu_blas *blas;
    float *A32, *B32;          /* fp32 inputs (fp32, tf32) */
    gv_bf16 *A16, *B16;  /* bf16 inputs */
    float *C;
    cudaEvent_t e0, e1;
    size_t bytes;
};

static __global__ void to_bf16(const float *x, gv_bf16 *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = gv_f32_to_bf16(x[i]);
}

extern "C" gv_status dev_gpu_gemm_open(int index, int M, int N, int K, dev_gemm_dtype dt, dev_gpu_gemm **out,
                                       gv_err *err)
{
    *out = NULL;
    dev_gpu_gemm *g = (dev_gpu_gemm *)calloc(1, sizeof *g);
    if (!g)
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    g->index = index, g->M = M, g->N = N, g->K = K, g->dt = dt;
    gv_status s = GV_OK;
    size_t a = (size_t)M * K, b = (size_t)K * N, c = (size_t)M * N;
    cudaError_t e = cudaSetDevice(index);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&g->A32, sizeof(float) * a);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&g->B32, sizeof(float) * b);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&g->C, sizeof(float) * c);
    if (e == cudaSuccess && dt == DEV_GEMM_BF16)
        e = cudaMalloc((void **)&g->A16, 2 * a);
    if (e == cudaSuccess && dt == DEV_GEMM_BF16)
        e = cudaMalloc((void **)&g->B16, 2 * b);
    if (e == cudaSuccess)
        e = cudaEventCreate(&g->e0);
    if (e == cudaSuccess)
        e = cudaEventCreate(&g->e1);
    if (e != cudaSuccess) {
        s = gv_fail(err, GV_ERR_ENV, "GPU %d: cannot set up a %dx%dx%d GEMM: %s", index, M, N, K, cudaGetErrorString(e));
        dev_gpu_gemm_close(g);
        return s;
    }
    g->bytes = sizeof(float) * (a + b + c) + (dt == DEV_GEMM_BF16 ? 2 * (a + b) : 0);
    s = gpu_blas_create(&g->blas, g->stream, err);
    if (s != GV_OK) {
        dev_gpu_gemm_close(g);
        return s;
    }
    *out = g;
    return GV_OK;
}

extern "C" gv_status dev_gpu_gemm_set_inputs(dev_gpu_gemm *g, const float *A, const float *B, gv_err *err)
{
    size_t a = (size_t)g->M * g->K, b = (size_t)g->K * g->N;
    GV_GPU_TRY(cudaMemcpyAsync(g->A32, A, sizeof(float) * a, cudaMemcpyHostToDevice, g->stream), err);
    GV_GPU_TRY(cudaMemcpyAsync(g->B32, B, sizeof(float) * b, cudaMemcpyHostToDevice, g->stream), err);
    if (g->dt == DEV_GEMM_BF16) {
        to_bf16<<<gpu_blocks(a, 256), 256, 0, g->stream>>>(g->A32, g->A16, a);
        GV_GPU_TRY(cudaGetLastError(), err);
        to_bf16<<<gpu_blocks(b, 256), 256, 0, g->stream>>>(g->B32, g->B16, b);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    GV_GPU_TRY(cudaStreamSynchronize(g->stream), err);
    return GV_OK;
}

extern "C" gv_status dev_gpu_gemm_poison(dev_gpu_gemm *g, gv_err *err)
{
    /* All-ones bytes are a NaN in fp32. */
    GV_GPU_TRY(cudaMemsetAsync(g->C, 0xff, sizeof(float) * (size_t)g->M * g->N, g->stream), err);
    GV_GPU_TRY(cudaStreamSynchronize(g->stream), err);
    return GV_OK;
}

extern "C" gv_status dev_gpu_gemm_run(dev_gpu_gemm *g, int reps, double *seconds, gv_err *err)
{
    int bf = g->dt == DEV_GEMM_BF16;
    const void *A = bf ? (const void *)g->A16 : (const void *)g->A32;
    const void *B = bf ? (const void *)g->B16 : (const void *)g->B32;
    GV_GPU_TRY(cudaEventRecord(g->e0, g->stream), err);
    for (int r = 0; r < reps; r++) {
        gv_status s = gpu_blas_gemm(g->blas, 0, 0, g->M, g->N, g->K, 1.0f, A, g->K, B, g->N, 0.0f, g->C, g->N,
                                    bf ? GPU_BF16 : GPU_F32, GPU_F32, g->dt == DEV_GEMM_TF32, err);
        if (s != GV_OK)
            return s;
    }
    GV_GPU_TRY(cudaEventRecord(g->e1, g->stream), err);
    GV_GPU_TRY(cudaEventSynchronize(g->e1), err);
    float ms = 0;
    GV_GPU_TRY(cudaEventElapsedTime(&ms, g->e0, g->e1), err);
    *seconds = ms * 1e-3;
    return GV_OK;
}

extern "C" gv_status dev_gpu_gemm_get_output(dev_gpu_gemm *g, float *C, gv_err *err)
{
    GV_GPU_TRY(cudaMemcpyAsync(C, g->C, sizeof(float) * (size_t)g->M * g->N, cudaMemcpyDeviceToHost, g->stream), err);
    GV_GPU_TRY(cudaStreamSynchronize(g->stream), err);
    return GV_OK;
}

extern "C" size_t dev_gpu_gemm_bytes(const dev_gpu_gemm *g)
{
    return g->bytes;
}

extern "C" void dev_gpu_gemm_close(dev_gpu_gemm *g)
{
    if (!g)
        return;
    gpu_blas_destroy(g->blas);
    gpu_free(g->A32, g->B32, g->A16, g->B16, g->C);
    if (g->e0)
        (void)cudaEventDestroy(g->e0);
    if (g->e1)
        (void)cudaEventDestroy(g->e1);
    if (g->stream)
        (void)cudaStreamDestroy(g->stream);
    free(g);
}
