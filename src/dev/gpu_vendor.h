/* gpu_vendor.h: lets one CUDA C source build for NVIDIA (nvcc) and AMD (hipcc).
 * Device files include this instead of <cuda_runtime.h> and write CUDA names; under HIP
 * the names are mapped to their hip* equivalents, as ggml's vendors/hip.h does.
 * Code for specific AMD generations (gfx11 WMMA, gfx1151) goes behind the architecture
 * macros below so that the gfx1030 compile check still covers everything else. */
#ifndef GV_DEV_GPU_VENDOR_H
#define GV_DEV_GPU_VENDOR_H

#if defined(GV_GPU_HIP) || defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#define GV_GPU_IS_HIP 1
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaErrorNoDevice hipErrorNoDevice
#define cudaGetErrorString hipGetErrorString
#define cudaGetErrorName hipGetErrorName
#define cudaGetLastError hipGetLastError
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDevice hipGetDevice
#define cudaSetDevice hipSetDevice
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceProp hipDeviceProp_t
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrMaxSharedMemoryPerBlockOptin hipDeviceAttributeSharedMemPerBlockOptin
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaDeviceReset hipDeviceReset
#define cudaDriverGetVersion hipDriverGetVersion
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaMemGetInfo hipMemGetInfo
#define cudaMalloc hipMalloc
#define cudaMallocHost hipHostMalloc
#define cudaFree hipFree
#define cudaFreeHost hipHostFree
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemset hipMemset
#define cudaMemsetAsync hipMemsetAsync
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaStream_t hipStream_t
#define cudaStreamCreate hipStreamCreate
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define cudaStreamCaptureModeGlobal hipStreamCaptureModeGlobal
#define cudaGraph_t hipGraph_t
#define cudaGraphExec_t hipGraphExec_t
#define cudaGraphInstantiate(e, g, f) hipGraphInstantiate((e), (g), NULL, NULL, 0)
#define cudaGraphLaunch hipGraphLaunch
#define cudaGraphDestroy hipGraphDestroy
#define cudaGraphExecDestroy hipGraphExecDestroy
#define cudaEvent_t hipEvent_t
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaFuncSetAttribute hipFuncSetAttribute
#define cudaFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
/* Architecture families, for code that only some AMD generations have. */
#if defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1103__) || \
    defined(__gfx1150__) || defined(__gfx1151__)
#define GV_AMD_WMMA 1 /* RDNA3 / RDNA3.5 wave matrix instructions */
#endif
#else
#include <cuda_runtime.h>
#define GV_GPU_IS_HIP 0
#endif

/* Butterfly shuffle within groups of 32 lanes: every kernel is written for 32-lane warps;
 * on 64-wide AMD waves the width argument keeps the two halves apart. */
#if GV_GPU_IS_HIP
#define gv_shfl_xor(v, o) __shfl_xor((v), (o), 32)
#else
#define gv_shfl_xor(v, o) __shfl_xor_sync(0xffffffffu, (v), (o))
#endif

/* bf16 is stored as its raw 16 bits everywhere (uint16_t), the same on every vendor and
 * toolkit version; these convert with round-to-nearest-even, NaN kept quiet. */
typedef unsigned short gv_bf16;

static __host__ __device__ __forceinline__ float gv_bf16_to_f32(gv_bf16 h)
{
    union { unsigned int u; float f; } v;
    v.u = (unsigned int)h << 16;
    return v.f;
}

static __host__ __device__ __forceinline__ gv_bf16 gv_f32_to_bf16(float f)
{
    union { unsigned int u; float f; } v;
    v.f = f;
    if ((v.u & 0x7fffffffu) > 0x7f800000u)
        return (gv_bf16)((v.u >> 16) | 0x40u); /* NaN stays NaN */
    unsigned int rounding = 0x7fffu + ((v.u >> 16) & 1u);
    return (gv_bf16)((v.u + rounding) >> 16);
}

#endif
