/* gpu_common.h: what the device code shares, in one header that plain C11 and the .cu files
 * both include.
 *
 * For every compiler: how a function written once for the host and the device is declared
 * (the host renderers and games compile these headers as plain C, the kernels as CUDA/HIP):
 * GV_HD and the two inlining forms, GV_INLINE and GV_ALWAYS_INLINE; loop unrolling and the
 * barrier between a renderer's phases, in whichever compiler pass sees them.
 *
 * Under nvcc or hipcc only (device code, C++): the CUDA->HIP mapping (gpu_vendor.h), the one
 * GPU error path (GV_GPU, GV_GPU_TRY, GV_GPU_NAMED: runtime, vendor BLAS and cuDNN calls),
 * frees for cleanup paths, launch sizes and the warp sum. */
#ifndef GV_DEV_GPU_COMMON_H
#define GV_DEV_GPU_COMMON_H

/* ---- functions for the host and the device ------------------------------------------ */

/* GV_HD: compiled for the host and the device under nvcc/hipcc, plain C elsewhere.
 * GV_INLINE: static, inlined into the kernels (so their scratch stays in registers and
 *   local memory), left to the compiler's judgement on the host: `static inline` there.
 * GV_ALWAYS_INLINE: static, inlined everywhere, the host included (hot paths: the per-dot
 *   steps of a renderer, a function called with a constant flag once per value).
 * Functions the device may keep out of line are written `GV_HD static inline`. */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define GV_HD __host__ __device__
#define GV_INLINE static GV_HD __forceinline__
#define GV_ALWAYS_INLINE static GV_HD __forceinline__
#else
#define GV_HD
#define GV_INLINE static inline
#define GV_ALWAYS_INLINE static inline __attribute__((always_inline))
#endif

/* GV_UNROLL8 before a loop of at most 8 iterations unrolls it, in whichever compiler pass
 * sees it: none in nvcc's host pass, where neither spelling passes both its front end and
 * gcc. */
#if defined(__CUDACC__) && !defined(__CUDA_ARCH__) && !defined(__clang__)
#define GV_UNROLL8
#elif defined(__clang__) || defined(__CUDA_ARCH__)
#define GV_UNROLL8 _Pragma("unroll")
#elif defined(__GNUC__)
#define GV_UNROLL8 _Pragma("GCC unroll 8")
#else
#define GV_UNROLL8
#endif

/* GV_BARRIER(nthr): a barrier between the phases of a frame renderer: the block's threads
 * on the device, the OpenMP team on the host (only when nthr > 1, so that a single thread
 * may call it from inside any parallel loop). */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define GV_BARRIER(nthr) __syncthreads()
#elif defined(_OPENMP)
#define GV_BARRIER(nthr) do { if ((nthr) > 1) { _Pragma("omp barrier") } } while (0)
#else
#define GV_BARRIER(nthr) ((void)0)
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
/* ---- device code only (C++) ---------------------------------------------------------- */

#include <stddef.h>

#include "core/gv.h"
#include "dev/gpu_vendor.h"

/* The one GPU error path. GV_GPU(call, err) runs a call of the GPU runtime, the vendor BLAS
 * or cuDNN and evaluates to GV_OK, or to GV_ERR_ENV with err (may be NULL) filled with
 * "LIB: CALL failed: WHY (NAME, FILE:LINE)"; GV_GPU_TRY(call, err) returns that status from
 * the calling function; GV_GPU_NAMED(call, what, err) says `what` instead of the call's text
 * (a short name, or the call's sizes). After a kernel launch, GV_GPU_TRY(cudaGetLastError(),
 * err) reports a bad configuration or a missing kernel image.
 *
 * The status type picks the library: gv_gpu_check has one overload per type, each turning a
 * failure into gv_gpu_fail's message: cudaError_t here, the BLAS status in gpu_blas.cu and
 * cudnnStatus_t in conv_cudnn.cu (which loads cuDNN at run time), beside the headers that
 * declare those types. */
static inline gv_status gv_gpu_fail(gv_err *err, const char *lib, const char *call, const char *why, const char *name,
                                    const char *file, int line)
{
    return gv_fail(err, GV_ERR_ENV, "%s: %s failed: %s (%s%s%s:%d)", lib, call, why, name ? name : "", name ? ", " : "",
                   file, line);
}
static inline gv_status gv_gpu_check(cudaError_t e, const char *call, const char *file, int line, gv_err *err)
{
    if (e == cudaSuccess)
        return GV_OK;
    return gv_gpu_fail(err, "GPU", call, cudaGetErrorString(e), cudaGetErrorName(e), file, line);
}
#define GV_GPU_NAMED(call, what, err) gv_gpu_check((call), (what), __FILE__, __LINE__, (err))
#define GV_GPU(call, err) GV_GPU_NAMED(call, #call, err)
#define GV_GPU_TRY(call, err)                                                                      \
    do {                                                                                           \
        gv_status s_ = GV_GPU(call, err);                                                          \
        if (s_ != GV_OK)                                                                           \
            return s_;                                                                             \
    } while (0)

/* Frees device buffers (gpu_free) or pinned host buffers (gpu_free_host) on a cleanup path:
 * NULL ones included, errors ignored (nothing can be done about them there). */
static inline void gpu_free() {}
template <typename P, typename... Rest>
static inline void gpu_free(P *p, Rest... rest)
{
    (void)cudaFree((void *)p);
    gpu_free(rest...);
}
static inline void gpu_free_host() {}
template <typename P, typename... Rest>
static inline void gpu_free_host(P *p, Rest... rest)
{
    (void)cudaFreeHost((void *)p);
    gpu_free_host(rest...);
}

static inline unsigned gpu_blocks(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    return (unsigned)(b > 0x7fffffffu ? 0x7fffffffu : (b ? b : 1));
}

/* The sum of v over the 32 lanes of a warp, in every lane (butterfly order, so every lane
 * adds the same values in the same order). All 32 lanes must call it. */
static __device__ __forceinline__ float gv_warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += gv_shfl_xor(v, o);
    return v;
}

#endif /* __CUDACC__ || __HIPCC__ */

#endif
