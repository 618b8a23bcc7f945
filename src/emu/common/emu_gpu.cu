/* emu_gpu.cu: the emulators' batched device pipeline (see emu_gpu.h). One stream; two
 * slots, each with pinned host buffers and their device twins for the packed logs, the
 * offsets and the results, and an event that marks the slot's work done. The console's
 * kernels run between the copies in and the copies out (emu_gpu_ops.launch). */
#include "dev/gpu_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/common/emu_gpu.h"
#include "emu/common/frame_reduce.h"

typedef struct {
    uint8_t *h_v, *h_a, *d_v, *d_a; /* packed logs */
    size_t cap_v, cap_a;
    uint32_t *h_voff, *h_aoff, *d_voff, *d_aoff;
    uint8_t *h_vres, *d_vres;       /* n x vres_bytes */
    uint8_t *h_ares, *d_ares;       /* n x astride x ares_unit */
    size_t cap_ares;
    cudaEvent_t done;
    int pending;
} slot_t;

struct emu_gpu {
    const emu_gpu_ops *ops;
    void *dev;                      /* the console's resident state */
    dev_id id;                      /* the GPU */
    int n, video, audio;
    char name[256];
    cudaStream_t stream;
    slot_t s[2];
    int last;                       /* the slot submitted last: its video results are the newest */
    uint8_t *d_obs;                 /* emu_gpu_obs's output */
    size_t cap_obs;
};

static void slot_free(slot_t *s)
{
    gpu_free_host(s->h_v, s->h_a, s->h_voff, s->h_aoff, s->h_vres, s->h_ares);
    gpu_free(s->d_v, s->d_a, s->d_voff, s->d_aoff, s->d_vres, s->d_ares);
    if (s->done)
        (void)cudaEventDestroy(s->done);
    memset(s, 0, sizeof *s);
}

extern "C" void emu_gpu_close(emu_gpu *g)
{
    if (!g)
        return;
    if (g->stream)
        (void)cudaStreamSynchronize(g->stream);
    if (g->dev) {
        g->ops->close(g->dev);
        free(g->dev);
    }
    for (int k = 0; k < 2; k++)
        slot_free(&g->s[k]);
    gpu_free(g->d_obs);
    if (g->stream)
        (void)cudaStreamDestroy(g->stream);
    free(g);
}

/* Grows a pinned host buffer and its device twin to at least need bytes (contents lost;
 * the slot's previous work has been waited for). */
static gv_status grow(uint8_t **h, uint8_t **d, size_t *cap, size_t need, gv_err *err)
{
    if (need <= *cap)
        return GV_OK;
    size_t c = need + need / 2 + 4096;
    (void)cudaFreeHost(*h);
    (void)cudaFree(*d);
    *h = *d = NULL;
    *cap = 0;
    GV_GPU_TRY(cudaMallocHost((void **)h, c), err);
    GV_GPU_TRY(cudaMalloc((void **)d, c), err);
    *cap = c;
    return GV_OK;
}

static gv_status open_in(emu_gpu *g, const void *cart, const void *m0, gv_err *err)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return gv_fail(err, GV_ERR_ENV, "no GPU for the device renderer: %s; run 'gpuvet smoke' for details",
                       e != cudaSuccess ? cudaGetErrorString(e) : "the runtime sees no device");
    }
    if (g->id.kind != DEV_GPU)
        return gv_fail(err, GV_ERR_INPUT, "the device renderers run on a GPU, not on the CPU (name one: --devices cuda)");
    if (g->id.index < 0 || g->id.index >= count)
        return gv_fail(err, GV_ERR_ENV, "GPU %d does not exist (the runtime sees %d; --devices takes cuda:0 to cuda:%d)",
                       g->id.index, count, count - 1);
    cudaDeviceProp prop;
    GV_GPU_TRY(cudaSetDevice(g->id.index), err);
    GV_GPU_TRY(cudaGetDeviceProperties(&prop, g->id.index), err);
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    GV_GPU_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), err);
    const size_t n = (size_t)g->n;
    for (int k = 0; k < 2; k++) {
        slot_t *s = &g->s[k];
        GV_GPU_TRY(cudaMallocHost((void **)&s->h_voff, n * sizeof(uint32_t)), err);
        GV_GPU_TRY(cudaMallocHost((void **)&s->h_aoff, n * sizeof(uint32_t)), err);
        GV_GPU_TRY(cudaMalloc((void **)&s->d_voff, n * sizeof(uint32_t)), err);
        GV_GPU_TRY(cudaMalloc((void **)&s->d_aoff, n * sizeof(uint32_t)), err);
        if (g->video) {
            GV_GPU_TRY(cudaMallocHost((void **)&s->h_vres, n * g->ops->vres_bytes), err);
            GV_GPU_TRY(cudaMalloc((void **)&s->d_vres, n * g->ops->vres_bytes), err);
        }
        GV_GPU_TRY(cudaEventCreate(&s->done), err);
    }
    if (!(g->dev = calloc(1, g->ops->dev_bytes)))
        return gv_fail(err, GV_ERR_ENV, "out of memory opening the device renderer");
    return g->ops->open(g->dev, cart, m0, g->n, g->video, g->audio, err);
}

extern "C" gv_status emu_gpu_open(const dev_id *dev, const emu_gpu_ops *ops, const void *cart, const void *m0, int n,
                                  int video, int audio, emu_gpu **out, gv_err *err)
{
    *out = NULL;
    if (!ops)
        return gv_fail(err, GV_ERR_INPUT, "this console has no device renderer");
    if (n < 1 || n > 65535)
        return gv_fail(err, GV_ERR_INPUT, "%d instances: the device renderers take 1 to 65535", n);
    emu_gpu *g = (emu_gpu *)calloc(1, sizeof *g);
    if (!g)
        return gv_fail(err, GV_ERR_ENV, "out of memory opening the device renderer");
    g->ops = ops;
    g->id = *dev;
    g->n = n;
    g->video = video;
    g->audio = audio;
    gv_status st = open_in(g, cart, m0, err);
    if (st != GV_OK) {
        emu_gpu_close(g);
        return st;
    }
    *out = g;
    return GV_OK;
}

extern "C" gv_status emu_gpu_staging(emu_gpu *g, int slot, size_t vbytes, size_t abytes, uint8_t **vbuf,
                                     uint8_t **abuf, uint32_t **voff, uint32_t **aoff, gv_err *err)
{
    slot_t *s = &g->s[slot & 1];
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

extern "C" gv_status emu_gpu_submit(emu_gpu *g, int slot, size_t vbytes, size_t abytes, int astride, gv_err *err)
{
    slot_t *s = &g->s[slot & 1];
    const size_t n = (size_t)g->n;
    if (g->audio) {
        size_t need = n * (size_t)astride * g->ops->ares_unit;
        if (need > s->cap_ares) { /* the slot's previous use has been waited for */
            (void)cudaFreeHost(s->h_ares);
            (void)cudaFree(s->d_ares);
            s->h_ares = s->d_ares = NULL;
            s->cap_ares = 0;
            GV_GPU_TRY(cudaMallocHost((void **)&s->h_ares, need), err);
            GV_GPU_TRY(cudaMalloc((void **)&s->d_ares, need), err);
            s->cap_ares = need;
        }
    }
    if (vbytes) {
        GV_GPU_TRY(cudaMemcpyAsync(s->d_v, s->h_v, vbytes, cudaMemcpyHostToDevice, g->stream), err);
        GV_GPU_TRY(cudaMemcpyAsync(s->d_voff, s->h_voff, n * sizeof(uint32_t), cudaMemcpyHostToDevice, g->stream), err);
    }
    if (abytes) {
        GV_GPU_TRY(cudaMemcpyAsync(s->d_a, s->h_a, abytes, cudaMemcpyHostToDevice, g->stream), err);
        GV_GPU_TRY(cudaMemcpyAsync(s->d_aoff, s->h_aoff, n * sizeof(uint32_t), cudaMemcpyHostToDevice, g->stream), err);
    }
    emu_gpu_io io;
    io.n = g->n;
    io.video = g->video;
    io.audio = g->audio;
    io.vlog = s->d_v;
    io.alog = s->d_a;
    io.voff = s->d_voff;
    io.aoff = s->d_aoff;
    io.vres = s->d_vres;
    io.ares = s->d_ares;
    io.astride = astride;
    io.stream = (void *)g->stream;
    gv_status st = g->ops->launch(g->dev, &io, err);
    if (st != GV_OK)
        return st;
    if (g->video)
        GV_GPU_TRY(cudaMemcpyAsync(s->h_vres, s->d_vres, n * g->ops->vres_bytes, cudaMemcpyDeviceToHost, g->stream),
                   err);
    if (g->audio)
        GV_GPU_TRY(cudaMemcpyAsync(s->h_ares, s->d_ares, n * (size_t)astride * g->ops->ares_unit,
                                   cudaMemcpyDeviceToHost, g->stream),
                   err);
    GV_GPU_TRY(cudaEventRecord(s->done, g->stream), err);
    s->pending = 1;
    g->last = slot & 1;
    return GV_OK;
}

extern "C" gv_status emu_gpu_wait(emu_gpu *g, int slot, const uint8_t **vres, const uint8_t **ares, gv_err *err)
{
    slot_t *s = &g->s[slot & 1];
    *vres = *ares = NULL;
    if (!s->pending)
        return gv_fail(err, GV_ERR_INTERNAL, "internal error: device renderer slot %d was waited for but not submitted", slot);
    s->pending = 0;
    GV_GPU_TRY(cudaEventSynchronize(s->done), err);
    GV_GPU_TRY(cudaGetLastError(), err);
    *vres = s->h_vres;
    *ares = s->h_ares;
    return GV_OK;
}

extern "C" gv_status emu_gpu_frame(emu_gpu *g, int i, uint8_t *rgb, gv_err *err)
{
    if (!g->video || !g->ops->frame || i < 0 || i >= g->n)
        return gv_fail(err, GV_ERR_INTERNAL, "internal error: no device frame for instance %d", i);
    GV_GPU_TRY(cudaStreamSynchronize(g->stream), err);
    return g->ops->frame(g->dev, (void *)g->stream, i, rgb, err);
}

/* One thread per output byte (frame_reduce.h). */
__global__ void emu_k_reduce(const uint8_t *frames, int w, int h, int down, int grey, size_t total, uint8_t *out)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total)
        out[t] = emu_reduce_at(frames, w, h, down, grey, t);
}

extern "C" gv_status emu_gpu_obs(emu_gpu *g, int w, int h, int down, int grey, const uint8_t **out, int *device,
                                 gv_err *err)
{
    *out = NULL;
    *device = g->id.index;
    if (!g->video)
        return gv_fail(err, GV_ERR_INPUT, "no device frames: the video renderer is not 'device'");
    if (down < 1 || w % down || h % down)
        return gv_fail(err, GV_ERR_INPUT, "downscale %d does not divide the %dx%d frame", down, w, h);
    const uint8_t *frames = g->ops->vres_is_hash ? g->ops->frames(g->dev) : g->s[g->last].d_vres;
    size_t n = (size_t)g->n, total = n * (size_t)(w / down) * (size_t)(h / down) * (grey ? 1 : 3);
    GV_GPU_TRY(cudaSetDevice(g->id.index), err);
    GV_GPU_TRY(cudaDeviceSynchronize(), err); /* readers of the last output (any stream) are done */
    if (total > g->cap_obs) {
        (void)cudaFree(g->d_obs);
        g->d_obs = NULL;
        g->cap_obs = 0;
        GV_GPU_TRY(cudaMalloc((void **)&g->d_obs, total), err);
        g->cap_obs = total;
    }
    if (down == 1 && !grey) {
        GV_GPU_TRY(cudaMemcpyAsync(g->d_obs, frames, total, cudaMemcpyDeviceToDevice, g->stream), err);
    } else {
        emu_k_reduce<<<gpu_blocks(total, 256), 256, 0, g->stream>>>(frames, w, h, down, grey, total, g->d_obs);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    GV_GPU_TRY(cudaStreamSynchronize(g->stream), err);
    *out = g->d_obs;
    return GV_OK;
}

extern "C" const char *emu_gpu_name(const emu_gpu *g)
{
    return g ? g->name : "none";
}
