/* nes_gpu.cu: the NES's device renderers, behind the emulators' device pipeline (emu_gpu.h:
 * staging, transfers, double buffering). One launch takes the packed frame logs of every
 * instance: a prepass kernel (a thread per instance) finds each line's starting registers,
 * a line kernel (a thread per instance and line) draws RGB with the same picture rules as
 * the host (nes_video.h through nes_framelog.h), and an audio kernel (a thread per instance
 * and piece) sums the mixer output with the same sound rules (nes_audio.h). The RGB frames
 * and the piece sums come back; the host hashes them and runs the recurrent filters.
 * Every runtime call and launch is checked. */
#include "dev/gpu_common.h"

extern "C" {
#include "emu/nes/nes.h"
}
#include "emu/nes/nes_framelog.h"
#include "emu/nes/nes_gpu.h"

#include <stdlib.h>

/* The resident device state: CHR-ROM, the colour table, the audio tables, line scratch. */
typedef struct {
    int n;
    nes_linestart *d_ls;
    uint8_t *d_chr;
    uint32_t *d_pal;
    nes_atab *d_tab;
} nes_gpu;

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

__global__ void nes_k_audio(const uint8_t *logs, const uint32_t *off, int n, const nes_atab *tab, uint64_t *pieces,
                            int stride)
{
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long)n * stride)
        return;
    int i = (int)(t / stride);
    uint32_t k = (uint32_t)(t % stride), np;
    nes_logview lv = nes_log_unpack(logs + off[i]);
    uint64_t n0;
    nes_log_pieces(lv.h, &n0, &np);
    pieces[t] = k < np ? nes_log_piece(tab, &lv, n0, np, k) : 0;
}

static void nes_gpu_close(void *dev)
{
    nes_gpu *g = (nes_gpu *)dev;
    gpu_free(g->d_ls, g->d_chr, g->d_pal, g->d_tab);
}

static gv_status nes_gpu_open(void *dev, const void *c, const void *m0, int n, int video, int audio, gv_err *err)
{
    nes_gpu *g = (nes_gpu *)dev;
    const nes_cart *cart = (const nes_cart *)c;
    g->n = n;
    uint32_t chr_size = cart->chr ? cart->chr_size + cart->chr_pad : 0; /* (the pad: a disabled window's page) */
    GV_GPU_TRY(cudaMalloc((void **)&g->d_chr, chr_size ? chr_size : 1), err);
    if (chr_size)
        GV_GPU_TRY(cudaMemcpy(g->d_chr, cart->chr, chr_size, cudaMemcpyHostToDevice), err);
    uint32_t pal[512];
    nes_palette_rgb32(pal);
    GV_GPU_TRY(cudaMalloc((void **)&g->d_pal, sizeof pal), err);
    GV_GPU_TRY(cudaMemcpy(g->d_pal, pal, sizeof pal, cudaMemcpyHostToDevice), err);
    nes_atab *tab = (nes_atab *)malloc(sizeof *tab);
    if (!tab)
        return gv_fail(err, GV_ERR_ENV, "out of memory");
    nes_atab_init(tab);
    gv_status st = GV_GPU(cudaMalloc((void **)&g->d_tab, sizeof *tab), err);
    if (st == GV_OK)
        st = GV_GPU(cudaMemcpy(g->d_tab, tab, sizeof *tab, cudaMemcpyHostToDevice), err);
    free(tab);
    if (st == GV_OK && video)
        st = GV_GPU(cudaMalloc((void **)&g->d_ls, (size_t)g->n * NES_H * sizeof(nes_linestart)), err);
    return st;
}

static gv_status nes_gpu_launch(void *dev, const emu_gpu_io *io, gv_err *err)
{
    nes_gpu *g = (nes_gpu *)dev;
    cudaStream_t stream = (cudaStream_t)io->stream;
    const int block = 128, n = io->n;
    if (io->video) {
        nes_k_prepass<<<(n + block - 1) / block, block, 0, stream>>>(io->vlog, io->voff, n, g->d_ls);
        GV_GPU_TRY(cudaGetLastError(), err);
        long lines = (long)n * NES_H;
        nes_k_lines<<<(unsigned)((lines + block - 1) / block), block, 0, stream>>>(io->vlog, io->voff, n, g->d_ls,
                                                                                  g->d_chr, g->d_pal, io->vres);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    if (io->audio) {
        long pieces = (long)n * io->astride;
        nes_k_audio<<<(unsigned)((pieces + block - 1) / block), block, 0, stream>>>(
            io->vlog, io->voff, n, g->d_tab, (uint64_t *)io->ares, io->astride);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    return GV_OK;
}

/* The video result is the frame itself: no frame or frames operation. */
/* Not const: hipcc would emit a const table for the device too, referring to host functions. */
extern "C" emu_gpu_ops nes_gpu_ops = {
    NES_RGB_BYTES, 0, sizeof(uint64_t), sizeof(nes_gpu), nes_gpu_open, nes_gpu_launch, NULL, nes_gpu_close, NULL,
};
