/* gpu_util.h: helpers shared by the .cu files: the one GPU error path (GV_GPU_TRY) and launch
 * sizes. Device code only. */
#ifndef GV_DEV_GPU_UTIL_H
#define GV_DEV_GPU_UTIL_H

#include "core/gv.h"
#include "dev/gpu_vendor.h"

/* The one GPU error path. GV_GPU(call, err) runs a runtime call and evaluates to GV_OK, or
 * to GV_ERR_ENV with err (may be NULL) filled with the call's text, the runtime's error and
 * the file and line; GV_GPU_TRY(call, err) returns that status from the calling function.
 * After a kernel launch, GV_GPU_TRY(cudaGetLastError(), err) reports a bad configuration or
 * a missing kernel image. */
static inline gv_status gv_gpu_check(cudaError_t e, const char *call, const char *file, int line, gv_err *err)
{
    if (e == cudaSuccess)
        return GV_OK;
    return gv_fail(err, GV_ERR_ENV, "GPU: %s failed: %s (%s, %s:%d)", call, cudaGetErrorString(e), cudaGetErrorName(e),
                   file, line);
}
#define GV_GPU(call, err) gv_gpu_check((call), #call, __FILE__, __LINE__, (err))
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

#endif
