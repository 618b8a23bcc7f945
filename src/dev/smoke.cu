/* smoke.cu: the five bring-up stages of smoke.h on CUDA (NVRTC, cudaLibrary*) or HIP
 * (hipRTC, hipModule*). Each stage records its time, what it saw and, on failure, the
 * runtime's error text and a hint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "dev/gpu_common.h"
#include "dev/smoke.h"

#if GV_GPU_IS_HIP
#include <hip/hiprtc.h>
#define RTC_NAME "hipRTC"
/* The run-time compiler's calls both vendors spell alike, under their NVRTC names. */
#define nvrtcProgram hiprtcProgram
#define nvrtcResult hiprtcResult
#define NVRTC_SUCCESS HIPRTC_SUCCESS
#define nvrtcCreateProgram hiprtcCreateProgram
#define nvrtcCompileProgram hiprtcCompileProgram
#define nvrtcGetProgramLogSize hiprtcGetProgramLogSize
#define nvrtcGetProgramLog hiprtcGetProgramLog
#define nvrtcGetErrorString hiprtcGetErrorString
#define nvrtcDestroyProgram hiprtcDestroyProgram
#else
#include <nvrtc.h>
#define RTC_NAME "NVRTC"
#endif

static const char *stage_names[SMOKE_STAGES] = {"open", "copy", "compile", "run", "readback"};

static const char kernel_src[] =
    "extern \"C\" __global__ void gv_add1(float *x, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        x[i] += 1.0f;\n"
    "}\n";

static void set(smoke_stage *s, int ok, double t0, const char *detail, const char *hint)
{
    s->ran = 1;
    s->ok = ok;
    s->seconds = gv_now() - t0;
    if (detail)
        snprintf(s->detail, sizeof s->detail, "%s", detail);
    if (hint && !ok)
        snprintf(s->hint, sizeof s->hint, "%s", hint);
}

/* A stage failed on runtime error e: records "Name: text", after what when not NULL. */
static void runtime_failed(smoke_stage *s, double t0, const char *what, cudaError_t e, const char *hint)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s%s%s: %s", what ? what : "", what ? ": " : "", cudaGetErrorName(e), cudaGetErrorString(e));
    set(s, 0, t0, msg, hint);
}

/* Ends stage i of r: failed on runtime error e (returns 0), else passed with detail
 * (returns 1). */
static int stage_done(smoke_report *r, int i, double t0, cudaError_t e, const char *detail, const char *hint)
{
    if (e != cudaSuccess) {
        runtime_failed(&r->stage[i], t0, NULL, e, hint);
        return 0;
    }
    set(&r->stage[i], 1, t0, detail, NULL);
    return 1;
}

/* Stage 3 failed with rc: records the compiler's error, the start of its log and hint,
 * and destroys prog. */
static void compile_failed(smoke_stage *s, double t0, nvrtcProgram prog, nvrtcResult rc, const char *arch_opt,
                           const char *hint)
{
    char log[200] = "", msg[256];
    size_t ls = 0;
    if (nvrtcGetProgramLogSize(prog, &ls) == NVRTC_SUCCESS && ls > 1) {
        char *full = (char *)malloc(ls);
        if (full && nvrtcGetProgramLog(prog, full) == NVRTC_SUCCESS)
            snprintf(log, sizeof log, "%s", full);
        free(full);
    }
    snprintf(msg, sizeof msg, "%s %s: %s %s", RTC_NAME, arch_opt, nvrtcGetErrorString(rc), log);
    set(s, 0, t0, msg, hint);
    nvrtcDestroyProgram(&prog);
}

static const char *open_hint(cudaError_t e)
{
#if GV_GPU_IS_HIP
    if (e == hipErrorNoDevice)
        return "no AMD GPU visible to HIP: check that /dev/kfd and /dev/dri/renderD* exist and that you are in the "
               "'render' and 'video' groups (gpuvet probe shows why); HIP_VISIBLE_DEVICES may hide it";
    return "the ROCm runtime could not start on this GPU: check 'rocminfo'; an unsupported gfx target may need a "
           "newer ROCm (HSA_OVERRIDE_GFX_VERSION is a workaround with risks, see docs/TROUBLESHOOTING.md)";
#else
    if (e == cudaErrorInsufficientDriver)
        return "no NVIDIA driver is loaded, or it is older than this CUDA runtime: check 'nvidia-smi' and install a "
               "driver that supports this CUDA version";
    if (e == cudaErrorNoDevice)
        return "the driver sees no CUDA GPU: check 'nvidia-smi', CUDA_VISIBLE_DEVICES and permissions on /dev/nvidia*";
    return "the CUDA runtime could not create a context: check 'nvidia-smi' and dmesg for Xid errors; "
           "gpuvet probe lists device-node permissions";
#endif
}

extern "C" int dev_gpu_smoke(int index, smoke_report *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->backend, sizeof r->backend, "%s", GV_GPU_IS_HIP ? "hip" : "cuda");
    for (int i = 0; i < SMOKE_STAGES; i++)
        r->stage[i].name = stage_names[i];
    char msg[256];
    int passed = 0;
    float *dx = NULL;
    char *image = NULL;
    const float host_in[3] = {1, 2, 3};
    size_t image_size = 0;
    double t0;

    /* 1: open */
    t0 = gv_now();
    {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e == cudaSuccess && n <= index)
            e = cudaErrorNoDevice;
        if (e == cudaSuccess)
            e = cudaSetDevice(index);
        if (e == cudaSuccess)
            e = cudaFree(0); /* forces context creation */
        if (e != cudaSuccess) {
            snprintf(msg, sizeof msg, "%s: %s (%d GPUs visible)", cudaGetErrorName(e), cudaGetErrorString(e), n);
            set(&r->stage[0], 0, t0, msg, open_hint(e));
            return passed;
        }
        cudaDeviceProp p;
        e = cudaGetDeviceProperties(&p, index);
        if (e != cudaSuccess) {
            runtime_failed(&r->stage[0], t0, "reading the device's properties", e, open_hint(e));
            return passed;
        }
        snprintf(r->device, sizeof r->device, "%.127s", p.name);
#if GV_GPU_IS_HIP
        snprintf(msg, sizeof msg, "%.127s (%.40s), %.1f GiB", p.name, p.gcnArchName, p.totalGlobalMem / 1073741824.0);
#else
        snprintf(msg, sizeof msg, "%.127s (sm_%d%d), %.1f GiB", p.name, p.major, p.minor, p.totalGlobalMem / 1073741824.0);
#endif
        set(&r->stage[0], 1, t0, msg, NULL);
        passed++;
    }

    /* 2: copy [1,2,3] to the device */
    t0 = gv_now();
    {
        cudaError_t e = cudaMalloc((void **)&dx, sizeof host_in);
        if (e == cudaSuccess)
            e = cudaMemcpy(dx, host_in, sizeof host_in, cudaMemcpyHostToDevice);
        if (!stage_done(r, 1, t0, e, "copied [1, 2, 3] (12 bytes)",
                        "device memory could not be allocated or written: check free memory with nvidia-smi/rocm-smi, and "
                        "on APUs the GTT size (gpuvet probe)"))
            goto out;
        passed++;
    }

    /* 3: compile a kernel at run time */
    t0 = gv_now();
    {
        char arch_opt[64];
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, index) != cudaSuccess)
            memset(&p, 0, sizeof p); /* stage 1 read them; the compile then targets no arch */
#if GV_GPU_IS_HIP
        char arch[48];
        snprintf(arch, sizeof arch, "%.47s", p.gcnArchName);
        char *colon = strchr(arch, ':');
        if (colon)
            *colon = 0;
        snprintf(arch_opt, sizeof arch_opt, "--offload-arch=%s", arch);
        hiprtcProgram prog;
        hiprtcResult rc = hiprtcCreateProgram(&prog, kernel_src, "gv_add1.cu", 0, NULL, NULL);
        const char *opts[] = {arch_opt};
        if (rc == HIPRTC_SUCCESS)
            rc = hiprtcCompileProgram(prog, 1, opts);
        if (rc == HIPRTC_SUCCESS && hiprtcGetCodeSize(prog, &image_size) == HIPRTC_SUCCESS) {
            image = (char *)malloc(image_size);
            if (!image || hiprtcGetCode(prog, image) != HIPRTC_SUCCESS)
                rc = HIPRTC_ERROR_INTERNAL_ERROR;
        }
        if (rc != HIPRTC_SUCCESS) {
            compile_failed(&r->stage[2], t0, prog, rc, arch_opt,
                           "run-time compilation failed: the ROCm device libraries for this gfx target may be missing "
                           "(package rocm-device-libs) or the target is not supported by this ROCm");
            goto out;
        }
        hiprtcDestroyProgram(&prog);
#else
        nvrtcProgram prog;
        nvrtcResult rc = nvrtcCreateProgram(&prog, kernel_src, "gv_add1.cu", 0, NULL, NULL);
        int cubin = 1;
        if (rc == NVRTC_SUCCESS) {
            /* Machine code for this exact GPU; PTX for the driver to compile when NVRTC
             * does not know the GPU's architecture yet. */
            snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=sm_%d%d", p.major, p.minor);
            const char *opts[] = {arch_opt};
            rc = nvrtcCompileProgram(prog, 1, opts);
            if (rc == NVRTC_ERROR_INVALID_OPTION) {
                nvrtcDestroyProgram(&prog);
                nvrtcCreateProgram(&prog, kernel_src, "gv_add1.cu", 0, NULL, NULL);
                snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=compute_%d%d", p.major, p.minor);
                rc = nvrtcCompileProgram(prog, 1, opts);
                cubin = 0;
            }
        }
        if (rc == NVRTC_SUCCESS) {
            rc = cubin ? nvrtcGetCUBINSize(prog, &image_size) : nvrtcGetPTXSize(prog, &image_size);
            image = (char *)malloc(image_size ? image_size : 1);
            if (rc == NVRTC_SUCCESS && image)
                rc = cubin ? nvrtcGetCUBIN(prog, image) : nvrtcGetPTX(prog, image);
        }
        if (rc != NVRTC_SUCCESS) {
            compile_failed(&r->stage[2], t0, prog, rc, arch_opt,
                           "run-time compilation failed: check that libnvrtc matches the CUDA runtime (LD_LIBRARY_PATH) and "
                           "that this CUDA version supports the GPU's architecture");
            goto out;
        }
        nvrtcDestroyProgram(&prog);
        snprintf(arch_opt + strlen(arch_opt), sizeof arch_opt - strlen(arch_opt), cubin ? " (cubin)" : " (PTX)");
#endif
        snprintf(msg, sizeof msg, "%s %s: %zu bytes of code", RTC_NAME, arch_opt, image_size);
        set(&r->stage[2], 1, t0, msg, NULL);
        passed++;
    }

    /* 4: load and launch */
    t0 = gv_now();
    {
        int n = 3;
        void *args[] = {&dx, &n};
#if GV_GPU_IS_HIP
        hipModule_t mod;
        hipFunction_t fn;
        cudaError_t e = hipModuleLoadData(&mod, image);
        if (e == cudaSuccess)
            e = hipModuleGetFunction(&fn, mod, "gv_add1");
        if (e == cudaSuccess)
            e = hipModuleLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
#else
        cudaLibrary_t lib;
        cudaKernel_t kern;
        cudaError_t e = cudaLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
        if (e == cudaSuccess)
            e = cudaLibraryGetKernel(&kern, lib, "gv_add1");
        if (e == cudaSuccess)
            e = cudaLaunchKernel((const void *)kern, dim3(1), dim3(32), args, 0, 0);
#endif
        if (e == cudaSuccess)
            e = cudaGetLastError();
        if (!stage_done(r, 3, t0, e, "launched gv_add1<<<1, 32>>> on 3 elements",
                        "the compiled kernel could not be loaded or launched: the driver may be older than the compiler "
                        "(PTX/code object version); update the driver or use a matching toolkit"))
            goto out;
        passed++;
    }

    /* 5: synchronise and read back */
    t0 = gv_now();
    {
        float got[3] = {0, 0, 0};
        cudaError_t e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = cudaMemcpy(got, dx, sizeof got, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            runtime_failed(&r->stage[4], t0, NULL, e,
                           "the kernel faulted or the device hung: check dmesg for Xid / amdgpu errors and retry after a reboot");
            goto out;
        }
        int ok = got[0] == 2 && got[1] == 3 && got[2] == 4;
        snprintf(msg, sizeof msg, "read back [%g, %g, %g], expected [2, 3, 4]", got[0], got[1], got[2]);
        set(&r->stage[4], ok, t0, msg,
            "the device computed a wrong result for a trivial kernel: the GPU or its driver is not trustworthy; "
            "check clocks and temperature (gpuvet probe) and the driver version");
        passed += ok;
    }
out:
    free(image);
    if (dx)
        (void)cudaFree(dx);
    (void)cudaGetLastError();
    return passed;
}
