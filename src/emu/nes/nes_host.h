/* nes_host.h: the host renderer over frame logs (nes_host.c). */
#ifndef GV_EMU_NES_NES_HOST_H
#define GV_EMU_NES_NES_HOST_H

#include "emu/nes/nes_int.h"
#include "emu/nes/nes_gpu.h"

/* Packs a frame log into dst (nes_log_packed_size bytes, 16-byte aligned). */
void nes_log_pack(const nes_logview *lv, uint8_t *dst);
/* Draws n logged frames into rgb[i] (256 x 240 x 3 each) with colour table rgb32; ls is
 * scratch, n x 240. */
void nes_host_video(const nes_logview *lv, int n, nes_linestart *ls, uint8_t *const *rgb,
                    const uint8_t *chr_rom, const uint32_t *rgb32, int threads);
/* Sums the audio pieces of n logged frames into pieces[i * NES_MAX_PIECES + k]. */
void nes_host_audio(const nes_atab *tab, const nes_logview *lv, int n, uint64_t *pieces, int threads);

#endif
