/* hd.h: how a function written once for the host and the device is declared, and the other
 * plain macros such code needs: the host/device qualifiers (GV_HD, GV_INLINE,
 * GV_ALWAYS_INLINE, GV_HOT_INLINE), loop unrolling and the barrier between a renderer's
 * phases, in whichever compiler pass sees them, and GV_SANITIZED. Plain C11 that nvcc and
 * hipcc read too; it includes nothing, so every layer may use it (core/rng.h's generator
 * steps run in the Drop7 kernels). dev/gpu_common.h includes it for the device code. */
#ifndef GV_CORE_HD_H
#define GV_CORE_HD_H

/* GV_SANITIZED: 1 in an AddressSanitizer or ThreadSanitizer build, with GCC (which defines
 * __SANITIZE_*__) or Clang (which answers __has_feature instead). The emulator cores compile
 * their simpler forms there: instrumenting their large inlined/threaded loops takes many
 * minutes of compilation. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GV_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GV_SANITIZED 1
#endif
#endif
#ifndef GV_SANITIZED
#define GV_SANITIZED 0
#endif

/* GV_HD: compiled for the host and the device under nvcc/hipcc, plain C elsewhere.
 * GV_INLINE: static, inlined into the kernels (so their scratch stays in registers and
 *   local memory), left to the compiler's judgement on the host: `static inline` there.
 * GV_ALWAYS_INLINE: static, inlined everywhere, the host included (hot paths: the per-dot
 *   steps of a renderer, a function called with a constant flag once per value, the helpers
 *   an emulator's CPU loop must inline so that its state stays in registers).
 * GV_HOT_INLINE: GV_ALWAYS_INLINE, except in sanitizer builds, where the compiler chooses
 *   (the emulator cores' bus and opcode helpers: forced into their loops, an instrumented
 *   build takes many minutes to compile).
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
#if GV_SANITIZED
#define GV_HOT_INLINE GV_INLINE
#else
#define GV_HOT_INLINE GV_ALWAYS_INLINE
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

#endif
