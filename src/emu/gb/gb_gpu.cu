/* gb_gpu.cu: the Game Boy's device renderers, behind the emulators' device pipeline
 * (emu_gpu.h: staging, transfers, double buffering). Video: one block per instance; the
 * instance's VRAM and palette RAM live in shared memory while its lines are rendered by
 * gb_render_packed (the host renderer's code) and go back to the instance's resident state
 * afterwards; 8 threads hash the framebuffer (XXH3 lanes), so 8 bytes per frame come back.
 * Audio: one thread per output sample, closed form from the last keyframe before it
 * (gb_apu_sample); the pre-filter samples come back and the high-pass filter runs on the
 * host. Every runtime call is checked, and the last error after every launch. */
#include "dev/gpu_common.h"

#include <stdlib.h>
#include <string.h>

#include "dev/xxh3_hd.h"
extern "C" {
#include "emu/gb/gb.h"
}
#include "emu/gb/gb_audio.h"
#include "emu/gb/gb_gpu.h"
#include "emu/gb/gb_video.h"

#define GB_STATE_STRIDE (GB_VRAM_BYTES + GB_PAL_BYTES)
#define VIDEO_THREADS 160
#define AUDIO_THREADS 128

/* The resident device state of n instances. */
typedef struct {
    int n, video, audio;
    uint8_t *d_secret;
    gb_lfsr_jump *d_lfsr;
    uint8_t *d_state; /* n x GB_STATE_STRIDE: each instance's VRAM and palette RAM */
    uint8_t *d_fb;    /* n x GB_FB_BYTES: each instance's last frame */
} gb_gpu;

__global__ void gb_k_video(const uint8_t *pk, const uint32_t *off, uint8_t *state, uint8_t *fb, uint64_t *hash,
                           const uint8_t *secret)
{
    __shared__ uint32_t vram32[GB_VRAM_BYTES / 4]; /* word arrays: 4-byte aligned */
    __shared__ uint32_t pal32[GB_PAL_BYTES / 4];
    __shared__ uint64_t acc[8];
    uint8_t *vram = (uint8_t *)vram32, *pal = (uint8_t *)pal32;
    const int i = blockIdx.x, tid = threadIdx.x, nthr = blockDim.x;
    const uint8_t *p = pk + off[i];
    const gb_packed_hdr *h = (const gb_packed_hdr *)p;
    uint32_t *st = (uint32_t *)(state + (size_t)i * GB_STATE_STRIDE);
    if (!h->snapshot) {
        for (int k = tid; k < GB_VRAM_BYTES / 4; k += nthr)
            ((uint32_t *)vram)[k] = st[k];
        for (int k = tid; k < GB_PAL_BYTES / 4; k += nthr)
            ((uint32_t *)pal)[k] = st[GB_VRAM_BYTES / 4 + k];
    }
    __syncthreads();
    uint8_t *out = fb + (size_t)i * GB_FB_BYTES;
    gb_render_packed(p, vram, pal, out, tid, nthr);
    for (int k = tid; k < GB_VRAM_BYTES / 4; k += nthr)
        st[k] = ((const uint32_t *)vram)[k];
    for (int k = tid; k < GB_PAL_BYTES / 4; k += nthr)
        st[GB_VRAM_BYTES / 4 + k] = ((const uint32_t *)pal)[k];
    if (tid < 8)
        acc[tid] = dev_xxh3_lane(out, GB_FB_BYTES, secret, tid);
    __syncthreads();
    if (tid == 0)
        hash[i] = dev_xxh3_merge(acc, GB_FB_BYTES, secret);
}

__global__ void gb_k_audio(const uint8_t *pk, const uint32_t *off, const gb_lfsr_jump *J, int16_t *out, int stride)
{
    const int i = blockIdx.y;
    const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    const uint8_t *p = pk + off[i];
    const gb_apacked_hdr *h = (const gb_apacked_hdr *)p;
    if (s >= h->n)
        return;
    const gb_apu_key *keys = (const gb_apu_key *)(p + sizeof(gb_apacked_hdr));
    uint64_t t = gb_sample_time(h->k0 + s);
    uint32_t j = gb_key_find(keys, h->nkeys, t);
    int16_t l, r;
    gb_apu_sample(&keys[j], t, J, &l, &r);
    out[((size_t)i * stride + s) * 2] = l;
    out[((size_t)i * stride + s) * 2 + 1] = r;
}

static void gb_gpu_close(void *dev)
{
    gb_gpu *g = (gb_gpu *)dev;
    gpu_free(g->d_secret, g->d_lfsr, g->d_state, g->d_fb);
}

static gv_status gb_gpu_open(void *dev, const void *cart, const void *m0, int n, int video, int audio, gv_err *err)
{
    gb_gpu *g = (gb_gpu *)dev;
    g->n = n;
    g->video = video;
    g->audio = audio;
    uint8_t secret[DEV_XXH3_SECRET_SIZE];
    dev_xxh3_secret(secret);
    GV_GPU_TRY(cudaMalloc((void **)&g->d_secret, DEV_XXH3_SECRET_SIZE), err);
    GV_GPU_TRY(cudaMemcpy(g->d_secret, secret, DEV_XXH3_SECRET_SIZE, cudaMemcpyHostToDevice), err);
    GV_GPU_TRY(cudaMalloc((void **)&g->d_lfsr, sizeof(gb_lfsr_jump)), err);
    GV_GPU_TRY(cudaMemcpy(g->d_lfsr, gb_cart_lfsr((const gb_cart *)cart), sizeof(gb_lfsr_jump), cudaMemcpyHostToDevice),
               err);
    if (g->video) {
        GV_GPU_TRY(cudaMalloc((void **)&g->d_state, (size_t)g->n * GB_STATE_STRIDE), err);
        GV_GPU_TRY(cudaMemset(g->d_state, 0, (size_t)g->n * GB_STATE_STRIDE), err);
        GV_GPU_TRY(cudaMalloc((void **)&g->d_fb, (size_t)g->n * GB_FB_BYTES), err);
        GV_GPU_TRY(cudaMemset(g->d_fb, 0xFF, (size_t)g->n * GB_FB_BYTES), err);
    }
    return GV_OK;
}

static gv_status gb_gpu_launch(void *dev, const emu_gpu_io *io, gv_err *err)
{
    gb_gpu *g = (gb_gpu *)dev;
    cudaStream_t stream = (cudaStream_t)io->stream;
    if (io->video) {
        gb_k_video<<<io->n, VIDEO_THREADS, 0, stream>>>(io->vlog, io->voff, g->d_state, g->d_fb, (uint64_t *)io->vres,
                                                       g->d_secret);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    if (io->audio) {
        dim3 grid((unsigned)((io->astride + AUDIO_THREADS - 1) / AUDIO_THREADS), (unsigned)io->n);
        gb_k_audio<<<grid, AUDIO_THREADS, 0, stream>>>(io->alog, io->aoff, g->d_lfsr, (int16_t *)io->ares, io->astride);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    return GV_OK;
}

static gv_status gb_gpu_frame(void *dev, void *stream, int i, uint8_t *rgb, gv_err *err)
{
    gb_gpu *g = (gb_gpu *)dev;
    GV_GPU_TRY(cudaMemcpy(rgb, g->d_fb + (size_t)i * GB_FB_BYTES, GB_FB_BYTES, cudaMemcpyDeviceToHost), err);
    return GV_OK;
}

static const uint8_t *gb_gpu_frames(void *dev)
{
    return ((gb_gpu *)dev)->d_fb;
}

/* Not const: hipcc would emit a const table for the device too, referring to host functions. */
extern "C" emu_gpu_ops gb_gpu_ops = {
    8, 1, 2 * sizeof(int16_t), sizeof(gb_gpu), gb_gpu_open, gb_gpu_launch, gb_gpu_frame, gb_gpu_close, gb_gpu_frames,
};
