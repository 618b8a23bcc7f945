/* nes_host.c: the host renderer: the frame logs of all instances drawn by OpenMP
 * threads, one task per (instance, line) after a sequential prepass per instance, and the
 * audio pieces summed one task per (instance, piece). The same functions as the device
 * renderer (nes_framelog.h), so the same pixels and sums. */
#include "emu/nes/nes_host.h"

#include <string.h>

void nes_log_pack(const nes_logview *lv, uint8_t *dst)
{
    const nes_loghead *h = lv->h;
    uint32_t o = nes_log_align((uint32_t)sizeof *h);
    memcpy(dst, h, sizeof *h);
    memcpy(dst + o, lv->chr_ram, h->chr_ram_size);
    o += nes_log_align(h->chr_ram_size);
    memcpy(dst + o, lv->ev, (size_t)h->nev * sizeof(nes_vev));
    o += nes_log_align(h->nev * (uint32_t)sizeof(nes_vev));
    memcpy(dst + o, lv->span, (size_t)h->nspan * sizeof(nes_osc));
    o += nes_log_align(h->nspan * (uint32_t)sizeof(nes_osc));
    memcpy(dst + o, lv->xspan, (size_t)h->nxspan * sizeof(nes_xosc));
    o += nes_log_align(h->nxspan * (uint32_t)sizeof(nes_xosc));
    memcpy(dst + o, lv->fm, (size_t)h->nfm * sizeof(int16_t));
}

void nes_host_video(const nes_logview *lv, int n, nes_linestart *ls, uint8_t *const *rgb,
                    const uint8_t *chr_rom, const uint32_t *rgb32, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads < n ? threads : n)
    for (int i = 0; i < n; i++)
        nes_log_prepass(&lv[i], ls + (size_t)i * NES_H);
    long tasks = (long)n * NES_H;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long t = 0; t < tasks; t++) {
        int i = (int)(t / NES_H), L = (int)(t % NES_H);
        nes_pline p;
        nes_log_draw_line(&lv[i], ls + (size_t)i * NES_H, L, chr_rom, rgb32, rgb[i] + (size_t)L * NES_W * 3, &p);
    }
}

void nes_host_audio(const nes_atab *tab, const nes_logview *lv, int n, uint64_t *pieces, int threads)
{
    long tasks = (long)n * NES_MAX_PIECES;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long t = 0; t < tasks; t++) {
        int i = (int)(t / NES_MAX_PIECES);
        uint32_t k = (uint32_t)(t % NES_MAX_PIECES), np;
        uint64_t n0;
        nes_log_pieces(lv[i].h, &n0, &np);
        if (k < np)
            pieces[t] = nes_log_piece(tab, &lv[i], n0, np, k);
    }
}
