/* gpu_util.h: helpers shared by the .cu files: error checks that fill a gv_err with the
 * runtime's message, launch checks, and bf16 conversions. Device code only. */
#ifndef GV_DEV_GPU_UTIL_H
#define GV_DEV_GPU_UTIL_H

#include "core/gv.h"
#include "dev/gpu_vendor.h"

/* Runs a runtime call; on failure returns from the calling function with GV_ERR_ENV and a
 * message naming what was being done and the runtime's error text. */
#define GPU_TRY(call, err, what)                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return gv_fail((err), GV_ERR_ENV, "%s: %s (%s)", (what), cudaGetErrorString(e_),        \
                           cudaGetErrorName(e_));                                                  \
    } while (0)

/* After a kernel launch: reports a launch error (bad configuration, missing kernel image). */
#define GPU_LAUNCHED(err, what) GPU_TRY(cudaGetLastError(), (err), (what))

static inline unsigned gpu_blocks(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    return (unsigned)(b > 0x7fffffffu ? 0x7fffffffu : (b ? b : 1));
}

#endif
