/* gpu_common.h: what the device code shares, in one header that plain C11 and the .cu files
 * both include.
 *
 * For every compiler: how a function written once for the host and the device is declared
 * (the host renderers and games compile these headers as plain C, the kernels as CUDA/HIP):
 * GV_HD and the inlining forms, GV_INLINE and GV_ALWAYS_INLINE; loop unrolling and the
 * barrier between a renderer's phases, in whichever compiler pass sees them (core/hd.h).
 *
 * Under nvcc or hipcc only (device code, C++): the CUDA->HIP mapping (gpu_vendor.h), the one
 * GPU error path (GV_GPU, GV_GPU_TRY, GV_GPU_NAMED: runtime, vendor BLAS and cuDNN calls),
 * frees for cleanup paths, launch sizes and the warp sum. */
#ifndef GV_DEV_GPU_COMMON_H
#define GV_DEV_GPU_COMMON_H

/* The host/device qualifiers (GV_HD, GV_INLINE, GV_ALWAYS_INLINE, GV_HOT_INLINE), GV_UNROLL8
 * and GV_BARRIER: plain C, defined once in core/hd.h (below dev, so core/rng.h uses them too). */
#include "core/hd.h"

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
