/* gpu_blas.h: the one small interface through which GPU code reaches the vendor BLAS
 * (cuBLAS on NVIDIA, hipBLAS on AMD). All BLAS calls live in gpu_blas.cu, so that file alone
 * needs the vendor BLAS headers (the HIP compile check skips it where hipBLAS is absent). */
#ifndef GV_DEV_GPU_BLAS_H
#define GV_DEV_GPU_BLAS_H

#include "core/gv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { GPU_F32 = 0, GPU_BF16 = 1 } gpu_dtype;

typedef struct gpu_blas gpu_blas;

/* A BLAS handle bound to stream (a cudaStream_t / hipStream_t, NULL for the default) with a
 * preallocated workspace so that calls can be captured into a graph. */
gv_status gpu_blas_create(gpu_blas **out, void *stream, gv_err *err);
void gpu_blas_destroy(gpu_blas *b);

/* Row-major C (M x N) = alpha * op(A) (M x K) * op(B) (K x N) + beta * C.
 * ta/tb: 0 plain, 1 transposed (op(A) = A^T with A stored K x M). lda/ldb/ldc are row
 * strides in elements. A and B are of type ab, C of type c; accumulation is fp32
 * (TF32 matrix units only when tf32 is set and ab is GPU_F32). */
gv_status gpu_blas_gemm(gpu_blas *b, int ta, int tb, int M, int N, int K, float alpha,
                        const void *A, int lda, const void *B, int ldb, float beta, void *C, int ldc,
                        gpu_dtype ab, gpu_dtype c, int tf32, gv_err *err);

/* Library name and version, e.g. "cuBLAS 13.0.0". */
void gpu_blas_version(gpu_blas *b, char *buf, int len);

#ifdef __cplusplus
}
#endif

#endif
