/* gb_gpu.cu: the Game Boy device renderers (see gb_gpu.h). One stream; two slots of
 * pinned staging and result buffers so that the host packs frame k+1 while the device
 * works on frame k. Video: one block per instance; the instance's VRAM and palette RAM
 * live in shared memory while its lines are rendered by gb_render_packed (the host
 * renderer's code) and go back to the instance's resident state afterwards; 8 threads
 * hash the framebuffer (XXH3 lanes). Audio: one thread per output sample, closed form
 * from the last keyframe before it (gb_apu_sample). Every CUDA call is checked, and the
 * last error after every launch. */
#include "dev/gpu_vendor.h"

#include <stdlib.h>
#include <string.h>

extern "C" {
#include "core/gv.h"
}
#include "emu/gb/gb_audio.h"
#include "emu/gb/gb_gpu.h"
#include "emu/gb/gb_video.h"
#include "emu/gb/gb_xxh3.h"

#define GB_STATE_STRIDE (GB_VRAM_BYTES + GB_PAL_BYTES)
#define VIDEO_THREADS 160
#define AUDIO_THREADS 128

#define CK(call)                                                                                        \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess)                                                                          \
            return gv_fail(err, GV_ERR_ENV, "GPU: %s failed: %s (%s:%d)", #call, cudaGetErrorString(e_), \
                           __FILE__, __LINE__);                                                         \
    } while (0)

typedef struct {
    uint8_t *h_v, *h_a, *d_v, *d_a; /* packed logs: pinned host, device */
    size_t cap_v, cap_a;
    uint32_t *h_voff, *h_aoff, *d_voff, *d_aoff;
    uint64_t *h_hash, *d_hash;
    int16_t *h_samp, *d_samp;
    size_t cap_samp; /* int16 elements */
    cudaEvent_t done;
} gb_gpu_slot;

struct gb_gpu {
    int n, video, audio;
    cudaStream_t stream;
    uint8_t *d_secret;
    gb_lfsr_jump *d_lfsr;
    uint8_t *d_state; /* n x GB_STATE_STRIDE: each instance's VRAM and palette RAM */
    uint8_t *d_fb;    /* n x GB_FB_BYTES: each instance's last frame */
    gb_gpu_slot s[2];
};

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
        acc[tid] = gb_xxh3_lane(out, GB_FB_BYTES, secret, tid);
    __syncthreads();
    if (tid == 0)
        hash[i] = gb_xxh3_merge(acc, GB_FB_BYTES, secret);
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

static void slot_free(gb_gpu_slot *s)
{
    (void)cudaFreeHost(s->h_v);
    (void)cudaFreeHost(s->h_a);
    (void)cudaFreeHost(s->h_voff);
    (void)cudaFreeHost(s->h_aoff);
    (void)cudaFreeHost(s->h_hash);
    (void)cudaFreeHost(s->h_samp);
    (void)cudaFree(s->d_v);
    (void)cudaFree(s->d_a);
    (void)cudaFree(s->d_voff);
    (void)cudaFree(s->d_aoff);
    (void)cudaFree(s->d_hash);
    (void)cudaFree(s->d_samp);
    if (s->done)
        (void)cudaEventDestroy(s->done);
    memset(s, 0, sizeof *s);
}

extern "C" void gb_gpu_close(gb_gpu *g)
{
    if (!g)
        return;
    if (g->stream)
        (void)cudaStreamSynchronize(g->stream);
    for (int k = 0; k < 2; k++)
        slot_free(&g->s[k]);
    (void)cudaFree(g->d_secret);
    (void)cudaFree(g->d_lfsr);
    (void)cudaFree(g->d_state);
    (void)cudaFree(g->d_fb);
    if (g->stream)
        (void)cudaStreamDestroy(g->stream);
    free(g);
}

/* Grows a pinned host buffer and its device twin to at least need bytes. */
static gv_status grow(uint8_t **h, uint8_t **d, size_t *cap, size_t need, gv_err *err)
{
    if (need <= *cap)
        return GV_OK;
    size_t c = need + need / 2 + 4096;
    (void)cudaFreeHost(*h);
    (void)cudaFree(*d);
    *h = *d = NULL;
    *cap = 0;
    CK(cudaMallocHost((void **)h, c));
    CK(cudaMalloc((void **)d, c));
    *cap = c;
    return GV_OK;
}

static gv_status open_in(gb_gpu *g, const uint8_t *secret, const gb_lfsr_jump *J, gv_err *err)
{
    int count = 0;
    CK(cudaGetDeviceCount(&count));
    if (count < 1)
        return gv_fail(err, GV_ERR_ENV, "GPU: no device found");
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    CK(cudaMalloc((void **)&g->d_secret, GB_XXH3_SECRET_SIZE));
    CK(cudaMemcpy(g->d_secret, secret, GB_XXH3_SECRET_SIZE, cudaMemcpyHostToDevice));
    CK(cudaMalloc((void **)&g->d_lfsr, sizeof(gb_lfsr_jump)));
    CK(cudaMemcpy(g->d_lfsr, J, sizeof(gb_lfsr_jump), cudaMemcpyHostToDevice));
    if (g->video) {
        CK(cudaMalloc((void **)&g->d_state, (size_t)g->n * GB_STATE_STRIDE));
        CK(cudaMemset(g->d_state, 0, (size_t)g->n * GB_STATE_STRIDE));
        CK(cudaMalloc((void **)&g->d_fb, (size_t)g->n * GB_FB_BYTES));
        CK(cudaMemset(g->d_fb, 0xFF, (size_t)g->n * GB_FB_BYTES));
    }
    for (int k = 0; k < 2; k++) {
        gb_gpu_slot *s = &g->s[k];
        CK(cudaMallocHost((void **)&s->h_voff, (size_t)g->n * sizeof(uint32_t)));
        CK(cudaMallocHost((void **)&s->h_aoff, (size_t)g->n * sizeof(uint32_t)));
        CK(cudaMallocHost((void **)&s->h_hash, (size_t)g->n * sizeof(uint64_t)));
        CK(cudaMalloc((void **)&s->d_voff, (size_t)g->n * sizeof(uint32_t)));
        CK(cudaMalloc((void **)&s->d_aoff, (size_t)g->n * sizeof(uint32_t)));
        CK(cudaMalloc((void **)&s->d_hash, (size_t)g->n * sizeof(uint64_t)));
        CK(cudaEventCreate(&s->done));
    }
    /* Staging sized for a typical frame (lines, a few hundred writes, a snapshot on the
     * first frames; ~20 keyframes), so that timed runs rarely grow pinned memory. */
    for (int k = 0; k < 2; k++) {
        gv_status st;
        if (g->video && (st = grow(&g->s[k].h_v, &g->s[k].d_v, &g->s[k].cap_v, (size_t)g->n * 28 * 1024, err)) != GV_OK)
            return st;
        if (g->audio && (st = grow(&g->s[k].h_a, &g->s[k].d_a, &g->s[k].cap_a, (size_t)g->n * 2 * 1024, err)) != GV_OK)
            return st;
    }
    return GV_OK;
}

extern "C" gv_status gb_gpu_open(int n, int video, int audio, const uint8_t *secret, const gb_lfsr_jump *J,
                                 gb_gpu **out, gv_err *err)
{
    *out = NULL;
    if (n < 1 || n > 65535)
        return gv_fail(err, GV_ERR_INPUT, "GPU: %d instances (the device renderers take 1 to 65535)", n);
    gb_gpu *g = (gb_gpu *)calloc(1, sizeof *g);
    if (!g)
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    g->n = n;
    g->video = video;
    g->audio = audio;
    gv_status st = open_in(g, secret, J, err);
    if (st != GV_OK) {
        gb_gpu_close(g);
        return st;
    }
    *out = g;
    return GV_OK;
}

extern "C" gv_status gb_gpu_staging(gb_gpu *g, int slot, size_t vbytes, size_t abytes, uint8_t **vbuf, uint8_t **abuf,
                                    uint32_t **voff, uint32_t **aoff, gv_err *err)
{
    gb_gpu_slot *s = &g->s[slot & 1];
    gv_status st;
    if ((st = grow(&s->h_v, &s->d_v, &s->cap_v, vbytes, err)) != GV_OK ||
        (st = grow(&s->h_a, &s->d_a, &s->cap_a, abytes, err)) != GV_OK)
        return st;
    *vbuf = s->h_v;
    *abuf = s->h_a;
    *voff = s->h_voff;
    *aoff = s->h_aoff;
    return GV_OK;
}

extern "C" gv_status gb_gpu_submit(gb_gpu *g, int slot, size_t vbytes, size_t abytes, int astride, gv_err *err)
{
    gb_gpu_slot *s = &g->s[slot & 1];
    const size_t n = (size_t)g->n;
    if (g->video) {
        CK(cudaMemcpyAsync(s->d_v, s->h_v, vbytes, cudaMemcpyHostToDevice, g->stream));
        CK(cudaMemcpyAsync(s->d_voff, s->h_voff, n * sizeof(uint32_t), cudaMemcpyHostToDevice, g->stream));
        gb_k_video<<<g->n, VIDEO_THREADS, 0, g->stream>>>(s->d_v, s->d_voff, g->d_state, g->d_fb, s->d_hash,
                                                          g->d_secret);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(s->h_hash, s->d_hash, n * sizeof(uint64_t), cudaMemcpyDeviceToHost, g->stream));
    }
    if (g->audio) {
        size_t need = n * (size_t)astride * 2;
        if (need > s->cap_samp) {
            /* the slot's previous use has been waited for by the caller */
            (void)cudaFreeHost(s->h_samp);
            (void)cudaFree(s->d_samp);
            s->h_samp = NULL;
            s->d_samp = NULL;
            s->cap_samp = 0;
            CK(cudaMallocHost((void **)&s->h_samp, need * sizeof(int16_t)));
            CK(cudaMalloc((void **)&s->d_samp, need * sizeof(int16_t)));
            s->cap_samp = need;
        }
        CK(cudaMemcpyAsync(s->d_a, s->h_a, abytes, cudaMemcpyHostToDevice, g->stream));
        CK(cudaMemcpyAsync(s->d_aoff, s->h_aoff, n * sizeof(uint32_t), cudaMemcpyHostToDevice, g->stream));
        dim3 grid((unsigned)((astride + AUDIO_THREADS - 1) / AUDIO_THREADS), (unsigned)g->n);
        gb_k_audio<<<grid, AUDIO_THREADS, 0, g->stream>>>(s->d_a, s->d_aoff, g->d_lfsr, s->d_samp, astride);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(s->h_samp, s->d_samp, need * sizeof(int16_t), cudaMemcpyDeviceToHost, g->stream));
    }
    CK(cudaEventRecord(s->done, g->stream));
    return GV_OK;
}

extern "C" gv_status gb_gpu_wait(gb_gpu *g, int slot, const uint64_t **hashes, const int16_t **samples, gv_err *err)
{
    gb_gpu_slot *s = &g->s[slot & 1];
    CK(cudaEventSynchronize(s->done));
    CK(cudaGetLastError());
    *hashes = s->h_hash;
    *samples = s->h_samp;
    return GV_OK;
}

extern "C" gv_status gb_gpu_frame(gb_gpu *g, int i, uint8_t *rgb, gv_err *err)
{
    if (!g->video || i < 0 || i >= g->n)
        return gv_fail(err, GV_ERR_INPUT, "GPU: no device frame for instance %d", i);
    CK(cudaStreamSynchronize(g->stream));
    CK(cudaMemcpy(rgb, g->d_fb + (size_t)i * GB_FB_BYTES, GB_FB_BYTES, cudaMemcpyDeviceToHost));
    return GV_OK;
}
