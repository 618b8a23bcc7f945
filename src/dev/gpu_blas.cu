/* gpu_blas.cu: the vendor BLAS behind gpu_blas.h: cuBLAS (cublasGemmEx) on NVIDIA,
 * hipBLAS (hipblasGemmEx) on AMD. Row-major requests are mapped onto the column-major
 * API by computing C^T = op(B)^T op(A)^T. */
#include <stdio.h>
#include <stdlib.h>

#include "dev/gpu_blas.h"
#include "dev/gpu_common.h"

#if GV_GPU_IS_HIP
#include <hipblas/hipblas.h>
#define cublasHandle_t hipblasHandle_t
#define cublasStatus_t hipblasStatus_t
#define CUBLAS_STATUS_SUCCESS HIPBLAS_STATUS_SUCCESS
#define cublasGetStatusString hipblasStatusToString
#define cublasCreate hipblasCreate
#define cublasDestroy hipblasDestroy
#define cublasSetStream hipblasSetStream
#define cublasSetWorkspace(h, p, n) HIPBLAS_STATUS_SUCCESS
#define cublasGetVersion(h, v) (*(v) = 0, HIPBLAS_STATUS_SUCCESS)
#define CUBLAS_OP_N HIPBLAS_OP_N
#define CUBLAS_OP_T HIPBLAS_OP_T
#define cudaDataType hipDataType
#define CUDA_R_32F HIP_R_32F
#define CUDA_R_16BF HIP_R_16BF
#define cublasComputeType_t hipblasComputeType_t
#define CUBLAS_COMPUTE_32F HIPBLAS_COMPUTE_32F
#define CUBLAS_COMPUTE_32F_FAST_TF32 HIPBLAS_COMPUTE_32F_FAST_TF32
#define CUBLAS_GEMM_DEFAULT HIPBLAS_GEMM_DEFAULT
#define cublasGemmEx hipblasGemmEx_v2
#define BLAS_NAME "hipBLAS"
#else
#include <cublas_v2.h>
#define BLAS_NAME "cuBLAS"
#endif

/* The BLAS status on the one GPU error path (GV_GPU, gpu_common.h). */
static gv_status gv_gpu_check(cublasStatus_t s, const char *call, const char *file, int line, gv_err *err)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return GV_OK;
    return gv_gpu_fail(err, BLAS_NAME, call, cublasGetStatusString(s), NULL, file, line);
}

struct gpu_blas {
    cublasHandle_t h;
    void *workspace;
};

#define WORKSPACE_BYTES (32u << 20)

gv_status gpu_blas_create(gpu_blas **out, void *stream, gv_err *err)
{
    *out = NULL;
    gpu_blas *b = (gpu_blas *)calloc(1, sizeof *b);
    if (!b)
        return gv_fail(err, GV_ERR_ENV, "out of memory creating a BLAS handle");
    gv_status s = GV_GPU(cublasCreate(&b->h), err);
    if (s != GV_OK) {
        free(b);
        return s;
    }
    /* A fixed workspace keeps the library from allocating inside graph capture. */
    if ((s = GV_GPU(cublasSetStream(b->h, (cudaStream_t)stream), err)) != GV_OK ||
        (s = GV_GPU(cudaMalloc(&b->workspace, WORKSPACE_BYTES), err)) != GV_OK ||
        (s = GV_GPU(cublasSetWorkspace(b->h, b->workspace, WORKSPACE_BYTES), err)) != GV_OK) {
        gpu_blas_destroy(b);
        return s;
    }
    *out = b;
    return GV_OK;
}

void gpu_blas_destroy(gpu_blas *b)
{
    if (!b)
        return;
    cublasDestroy(b->h);
    (void)cudaFree(b->workspace);
    free(b);
}

gv_status gpu_blas_gemm(gpu_blas *b, int ta, int tb, int M, int N, int K, float alpha,
                        const void *A, int lda, const void *B, int ldb, float beta, void *C, int ldc,
                        gpu_dtype ab, gpu_dtype c, int tf32, gv_err *err)
{
    /* Row-major X (r x c, stride ld) is column-major X^T (c x r, ld). C^T = op(B)^T op(A)^T:
     * in column-major terms the first operand is B with op tb, the second A with op ta. */
    cudaDataType tab = ab == GPU_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    cudaDataType tc = c == GPU_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    cublasComputeType_t ct = (tf32 && ab == GPU_F32) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    cublasStatus_t s = cublasGemmEx(b->h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K,
                                    &alpha, B, tab, ldb, A, tab, lda, &beta, C, tc, ldc, ct, CUBLAS_GEMM_DEFAULT);
    if (s == CUBLAS_STATUS_SUCCESS)
        return GV_OK;
    char what[80]; /* the sizes, not the call's text */
    snprintf(what, sizeof what, "GEMM %dx%dx%d (%s)", M, N, K, ab == GPU_BF16 ? "bf16" : "fp32");
    return GV_GPU_NAMED(s, what, err);
}

void gpu_blas_version(gpu_blas *b, char *buf, int len)
{
    int v = 0;
    cublasGetVersion(b->h, &v);
    snprintf(buf, (size_t)len, "%s %d.%d.%d", BLAS_NAME, v / 10000, (v / 100) % 100, v % 100);
}
