/* snes_gpu.cu: the SNES device video renderer, behind the emulators' device pipeline
 * (emu_gpu.h: staging, transfers, double buffering). One block per instance, one thread per
 * picture line: snes_render_frame (the host renderer's code, snes_video.h) draws the
 * lines between two stamps of the frame's packed log in parallel from the instance's
 * resident video memories (global memory, kept from frame to frame; a log's snapshot
 * replaces them), thread 0 applies each segment of memory writes between barriers; then 8
 * threads hash the frame (XXH3 lanes, dev/xxh3_hd.h), so 8 bytes per frame come back. Every
 * runtime call is checked, and the last error after every launch. */
#include "dev/gpu_common.h"

#include <stdlib.h>
#include <string.h>

#include "dev/xxh3_hd.h"
#include "emu/snes/snes_gpu.h"
#include "emu/snes/snes_video.h"

#define VIDEO_THREADS SNES_VH /* a thread per line */
#define MEM_STRIDE SNES_ALIGN8((size_t)SNES_VM_BYTES)

/* The resident device state of n instances. */
typedef struct {
    int n;
    uint8_t *d_secret;
    uint8_t *d_mem; /* n x MEM_STRIDE: each instance's VRAM, CGRAM and OAM at its last frame's end */
    uint8_t *d_fb;  /* n x SNES_FB_BYTES: each instance's last frame */
} snes_gpu;

__global__ void snes_k_video(const uint8_t *pk, const uint32_t *off, uint8_t *mem, uint8_t *fb, uint64_t *hash,
                             const uint8_t *secret)
{
    __shared__ uint64_t acc[8];
    const int i = blockIdx.x, tid = threadIdx.x, nthr = blockDim.x;
    uint8_t *out = fb + (size_t)i * SNES_FB_BYTES;
    const snes_vview v = snes_vview_packed(pk + off[i]);
    snes_render_frame(&v, mem + (size_t)i * MEM_STRIDE, out, tid, nthr);
    __syncthreads();
    if (tid < 8)
        acc[tid] = dev_xxh3_lane(out, SNES_FB_BYTES, secret, tid);
    __syncthreads();
    if (tid == 0)
        hash[i] = dev_xxh3_merge(acc, SNES_FB_BYTES, secret);
}

static void snes_gpu_close(void *dev)
{
    snes_gpu *g = (snes_gpu *)dev;
    gpu_free(g->d_secret, g->d_mem, g->d_fb);
}

static gv_status open_in(snes_gpu *g, gv_err *err)
{
    uint8_t secret[DEV_XXH3_SECRET_SIZE];
    dev_xxh3_secret(secret);
    GV_GPU_TRY(cudaMalloc((void **)&g->d_secret, DEV_XXH3_SECRET_SIZE), err);
    GV_GPU_TRY(cudaMemcpy(g->d_secret, secret, DEV_XXH3_SECRET_SIZE, cudaMemcpyHostToDevice), err);
    GV_GPU_TRY(cudaMalloc((void **)&g->d_mem, (size_t)g->n * MEM_STRIDE), err);
    GV_GPU_TRY(cudaMemset(g->d_mem, 0, (size_t)g->n * MEM_STRIDE), err);
    GV_GPU_TRY(cudaMalloc((void **)&g->d_fb, (size_t)g->n * SNES_FB_BYTES), err);
    GV_GPU_TRY(cudaMemset(g->d_fb, 0, (size_t)g->n * SNES_FB_BYTES), err);
    return GV_OK;
}

static gv_status snes_gpu_open(void *dev, const void *cart, const void *m0, int n, int video, int audio, gv_err *err)
{
    (void)cart, (void)m0, (void)audio; /* no device audio: emu_batch_new refuses it (the console has no audio_collect) */
    snes_gpu *g = (snes_gpu *)dev;
    g->n = n;
    return video ? open_in(g, err) : GV_OK;
}

static gv_status snes_gpu_launch(void *dev, const emu_gpu_io *io, gv_err *err)
{
    snes_gpu *g = (snes_gpu *)dev;
    if (io->video) {
        snes_k_video<<<io->n, VIDEO_THREADS, 0, (cudaStream_t)io->stream>>>(io->vlog, io->voff, g->d_mem, g->d_fb,
                                                                          (uint64_t *)io->vres, g->d_secret);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    return GV_OK;
}

static gv_status snes_gpu_frame(void *dev, void *stream, int i, uint8_t *rgb, gv_err *err)
{
    snes_gpu *g = (snes_gpu *)dev;
    (void)stream;
    GV_GPU_TRY(cudaMemcpy(rgb, g->d_fb + (size_t)i * SNES_FB_BYTES, SNES_FB_BYTES, cudaMemcpyDeviceToHost), err);
    return GV_OK;
}

static const uint8_t *snes_gpu_frames(void *dev)
{
    return ((snes_gpu *)dev)->d_fb;
}

/* Not const: hipcc would emit a const table for the device too, referring to host functions. */
extern "C" emu_gpu_ops snes_gpu_ops = {
    8, 1, 2 * sizeof(int16_t), sizeof(snes_gpu), snes_gpu_open, snes_gpu_launch, snes_gpu_frame, snes_gpu_close,
    snes_gpu_frames,
};
