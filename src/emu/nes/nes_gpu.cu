/* render_gpu.cu: the device renderer. One launch takes the packed frame logs of every
 * instance: a prepass kernel (a thread per instance) finds each line's starting registers,
 * a line kernel (a thread per instance and line) draws RGB with the same picture rules as
 * the host (ppu_rules.h through framelog.h), and an audio kernel (a thread per instance and
 * piece) sums the mixer output with the same sound rules (audio_rules.h). The host gets RGB
 * frames and piece sums back in pinned buffers; it hashes them and runs the recurrent
 * filters. Device buffers stay resident; every CUDA call and launch is checked. */
extern "C" {
#include "core/gv.h"
}
#include "dev/gpu_vendor.h"
#include "emu/nes/nes_framelog.h"
#include "emu/nes/nes_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nes_gpu {
    int device, max_n;
    char name[256];
    cudaStream_t stream;
    cudaEvent_t done[2];
    int pending[2];
    /* device */
    uint8_t *d_logs;
    size_t d_logs_cap;
    uint32_t *d_off;
    nes_linestart *d_ls;
    uint8_t *d_rgb;
    uint64_t *d_pieces;
    uint8_t *d_chr;
    uint32_t *d_pal;
    nes_atab *d_tab;
    /* host, pinned, per slot */
    uint8_t *h_stage[2];
    size_t h_stage_cap[2];
    uint32_t *h_off[2];
    uint8_t *h_rgb[2];
    uint64_t *h_pieces[2];
};

/* Runs a CUDA call; on failure fills err and jumps to `fail` (st holds the status). */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            st = gv_fail(err, GV_ERR_ENV, "device renderer: %s failed: %s (%s:%d)", #call,         \
                         cudaGetErrorString(e_), __FILE__, __LINE__);                              \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* After a launch: its configuration error, if any. */
#define TRY_LAUNCH(what) TRY((what, cudaGetLastError()))

__global__ void nes_k_prepass(const uint8_t *logs, const uint32_t *off, int n, nes_linestart *ls)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    nes_logview lv = nes_log_unpack(logs + off[i]);
    nes_log_prepass(&lv, ls + (size_t)i * NES_H);
}

__global__ void nes_k_lines(const uint8_t *logs, const uint32_t *off, int n, const nes_linestart *ls,
                            const uint8_t *chr, const uint32_t *pal, uint8_t *rgb)
{
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long)n * NES_H)
        return;
    int i = (int)(t / NES_H), L = (int)(t % NES_H);
    nes_logview lv = nes_log_unpack(logs + off[i]);
    nes_pline p;
    nes_log_draw_line(&lv, ls + (size_t)i * NES_H, L, chr, pal, rgb + (size_t)i * NES_RGB_BYTES + (size_t)L * NES_W * 3, &p);
}

__global__ void nes_k_audio(const uint8_t *logs, const uint32_t *off, int n, const nes_atab *tab, uint64_t *pieces)
{
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long)n * NES_MAX_PIECES)
        return;
    int i = (int)(t / NES_MAX_PIECES);
    uint32_t k = (uint32_t)(t % NES_MAX_PIECES), np;
    nes_logview lv = nes_log_unpack(logs + off[i]);
    uint64_t n0;
    nes_log_pieces(lv.h, &n0, &np);
    pieces[t] = k < np ? nes_log_piece(tab, &lv, n0, np, k) : 0;
}

extern "C" void nes_gpu_close(nes_gpu *g)
{
    if (!g)
        return;
    if (g->stream)
        (void)cudaStreamSynchronize(g->stream);
    for (int s = 0; s < 2; s++) {
        if (g->done[s])
            (void)cudaEventDestroy(g->done[s]);
        (void)cudaFreeHost(g->h_stage[s]);
        (void)cudaFreeHost(g->h_off[s]);
        (void)cudaFreeHost(g->h_rgb[s]);
        (void)cudaFreeHost(g->h_pieces[s]);
    }
    (void)cudaFree(g->d_logs);
    (void)cudaFree(g->d_off);
    (void)cudaFree(g->d_ls);
    (void)cudaFree(g->d_rgb);
    (void)cudaFree(g->d_pieces);
    (void)cudaFree(g->d_chr);
    (void)cudaFree(g->d_pal);
    (void)cudaFree(g->d_tab);
    if (g->stream)
        (void)cudaStreamDestroy(g->stream);
    free(g);
}

extern "C" int nes_gpu_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return count;
}

extern "C" gv_status nes_gpu_open(int device, int max_instances, const uint8_t *chr_rom, uint32_t chr_size,
                                  const nes_atab *tab, const uint32_t *rgb, nes_gpu **out, gv_err *err)
{
    *out = NULL;
    gv_status st = GV_OK;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return gv_fail(err, GV_ERR_ENV, "no GPU for the device renderer: %s",
                       e != cudaSuccess ? cudaGetErrorString(e) : "the runtime sees no device");
    if (device < 0 || device >= count)
        return gv_fail(err, GV_ERR_ENV, "GPU %d does not exist (the runtime sees %d)", device, count);
    nes_gpu *g = (nes_gpu *)calloc(1, sizeof *g);
    if (!g)
        return gv_fail(err, GV_ERR_ENV, "out of memory opening the device renderer");
    g->device = device;
    g->max_n = max_instances;
    cudaDeviceProp prop;
    TRY(cudaSetDevice(device));
    TRY(cudaGetDeviceProperties(&prop, device));
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    TRY(cudaStreamCreate(&g->stream));
    for (int s = 0; s < 2; s++) {
        TRY(cudaEventCreate(&g->done[s]));
        TRY(cudaMallocHost((void **)&g->h_off[s], (size_t)max_instances * sizeof(uint32_t)));
    }
    TRY(cudaMalloc((void **)&g->d_off, (size_t)max_instances * sizeof(uint32_t)));
    TRY(cudaMalloc((void **)&g->d_chr, chr_size ? chr_size : 1));
    if (chr_size)
        TRY(cudaMemcpy(g->d_chr, chr_rom, chr_size, cudaMemcpyHostToDevice));
    TRY(cudaMalloc((void **)&g->d_pal, 512 * sizeof(uint32_t)));
    TRY(cudaMemcpy(g->d_pal, rgb, 512 * sizeof(uint32_t), cudaMemcpyHostToDevice));
    TRY(cudaMalloc((void **)&g->d_tab, sizeof *tab));
    TRY(cudaMemcpy(g->d_tab, tab, sizeof *tab, cudaMemcpyHostToDevice));
    *out = g;
    return GV_OK;
fail:
    nes_gpu_close(g);
    return st;
}

extern "C" const char *nes_gpu_name(const nes_gpu *g)
{
    return g ? g->name : "none";
}

extern "C" gv_status nes_gpu_stage(nes_gpu *g, int slot, size_t bytes, uint8_t **buf, gv_err *err)
{
    gv_status st = GV_OK;
    if (bytes > g->h_stage_cap[slot]) {
        size_t cap = bytes + bytes / 4 + 4096;
        TRY(cudaFreeHost(g->h_stage[slot]));
        g->h_stage[slot] = NULL;
        g->h_stage_cap[slot] = 0;
        TRY(cudaMallocHost((void **)&g->h_stage[slot], cap));
        g->h_stage_cap[slot] = cap;
    }
    *buf = g->h_stage[slot];
    return GV_OK;
fail:
    *buf = NULL;
    return st;
}

extern "C" gv_status nes_gpu_submit(nes_gpu *g, int slot, int n, const uint32_t *off, size_t bytes, int video,
                                    int audio, gv_err *err)
{
    gv_status st = GV_OK;
    const int block = 128;
    if (n > g->max_n)
        return gv_fail(err, GV_ERR_WRONG, "device renderer: %d logs for %d instances", n, g->max_n);
    TRY(cudaSetDevice(g->device));
    if (bytes > g->d_logs_cap) { /* grows rarely; cudaFree waits for the work in flight */
        size_t cap = bytes + bytes / 4 + 4096;
        TRY(cudaFree(g->d_logs));
        g->d_logs = NULL;
        g->d_logs_cap = 0;
        TRY(cudaMalloc((void **)&g->d_logs, cap));
        g->d_logs_cap = cap;
    }
    if (video && !g->d_rgb) {
        TRY(cudaMalloc((void **)&g->d_ls, (size_t)g->max_n * NES_H * sizeof(nes_linestart)));
        TRY(cudaMalloc((void **)&g->d_rgb, (size_t)g->max_n * NES_RGB_BYTES));
        for (int s = 0; s < 2; s++)
            TRY(cudaMallocHost((void **)&g->h_rgb[s], (size_t)g->max_n * NES_RGB_BYTES));
    }
    if (audio && !g->d_pieces) {
        TRY(cudaMalloc((void **)&g->d_pieces, (size_t)g->max_n * NES_MAX_PIECES * sizeof(uint64_t)));
        for (int s = 0; s < 2; s++)
            TRY(cudaMallocHost((void **)&g->h_pieces[s], (size_t)g->max_n * NES_MAX_PIECES * sizeof(uint64_t)));
    }
    memcpy(g->h_off[slot], off, (size_t)n * sizeof *off);
    TRY(cudaMemcpyAsync(g->d_off, g->h_off[slot], (size_t)n * sizeof *off, cudaMemcpyHostToDevice, g->stream));
    TRY(cudaMemcpyAsync(g->d_logs, g->h_stage[slot], bytes, cudaMemcpyHostToDevice, g->stream));
    if (video) {
        TRY_LAUNCH((nes_k_prepass<<<(n + block - 1) / block, block, 0, g->stream>>>(g->d_logs, g->d_off, n, g->d_ls)));
        long lines = (long)n * NES_H;
        TRY_LAUNCH((nes_k_lines<<<(unsigned)((lines + block - 1) / block), block, 0, g->stream>>>(
            g->d_logs, g->d_off, n, g->d_ls, g->d_chr, g->d_pal, g->d_rgb)));
        TRY(cudaMemcpyAsync(g->h_rgb[slot], g->d_rgb, (size_t)n * NES_RGB_BYTES, cudaMemcpyDeviceToHost, g->stream));
    }
    if (audio) {
        long pieces = (long)n * NES_MAX_PIECES;
        TRY_LAUNCH((nes_k_audio<<<(unsigned)((pieces + block - 1) / block), block, 0, g->stream>>>(
            g->d_logs, g->d_off, n, g->d_tab, g->d_pieces)));
        TRY(cudaMemcpyAsync(g->h_pieces[slot], g->d_pieces, (size_t)pieces * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                            g->stream));
    }
    TRY(cudaEventRecord(g->done[slot], g->stream));
    g->pending[slot] = 1;
    return GV_OK;
fail:
    return st;
}

extern "C" gv_status nes_gpu_wait(nes_gpu *g, int slot, const uint8_t **rgb, const uint64_t **pieces, gv_err *err)
{
    gv_status st = GV_OK;
    *rgb = NULL;
    *pieces = NULL;
    if (!g->pending[slot])
        return gv_fail(err, GV_ERR_WRONG, "device renderer: slot %d was not submitted", slot);
    g->pending[slot] = 0;
    TRY(cudaEventSynchronize(g->done[slot]));
    TRY(cudaGetLastError());
    *rgb = g->h_rgb[slot];
    *pieces = g->h_pieces[slot];
    return GV_OK;
fail:
    return st;
}
