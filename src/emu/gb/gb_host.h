/* gb_host.h: the Game Boy's host renderers and their helpers: the video renderer over
 * packed frame logs (lines in parallel with OpenMP), the packing of video logs and audio
 * keyframes for the device, block and native audio synthesis from keyframes, the output
 * high-pass filter and the LFSR jump tables. Sample streams are int16 stereo interleaved
 * (L, R), 48 kHz.
 *
 * A video renderer keeps its own copy of VRAM and palette RAM (gb_vstate): a log with a
 * snapshot replaces it, otherwise the log's writes bring it forward frame by frame. */
#ifndef GV_EMU_GB_GB_HOST_H
#define GV_EMU_GB_GB_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/gb/gb_audio.h"
#include "emu/gb/gb_video.h"

/* ---- video (gb_host.c) ------------------------------------------------------------------ */

typedef struct {
    _Alignas(16) uint8_t vram[GB_VRAM_BYTES];
    uint8_t pal[GB_PAL_BYTES];
    int valid; /* has seen a snapshot */
} gb_vstate;

/* Renders one packed frame log (gb_log_pack) into fb (GB_FB_BYTES) with the shared line
 * renderer, lines in parallel on the host's threads when par_lines. packed must be
 * 8-byte aligned. GV_ERR_INTERNAL when the state has never seen a snapshot. */
gv_status gb_render_host(gb_vstate *st, const uint8_t *packed, uint8_t *fb, int par_lines, gv_err *err);

/* Packed form of a frame log (layout in gb_video.h, gb_packed_hdr). */
size_t gb_log_packed_size(const gb_frame_log *log);
void gb_log_pack(const gb_frame_log *log, uint8_t *dst);

/* Packed form of a frame's audio keyframes (gb_apacked_hdr, then the keys). */
size_t gb_alog_packed_size(const gb_audio_log *al);
void gb_alog_pack(const gb_audio_log *al, uint8_t *dst);

/* ---- audio (gb_aout.c) ------------------------------------------------------------------ */

/* Pre-filter samples of one frame (al->n stereo frames into lr), every event-free span
 * in closed form; gb_audio_block_span does span j only (spans are independent). */
void gb_audio_block(const gb_audio_log *al, const gb_lfsr_jump *J, int16_t *lr);
void gb_audio_block_span(const gb_audio_log *al, const gb_lfsr_jump *J, uint32_t j, int16_t *lr);

/* Native sequential synthesis of the same samples (what the core uses). */
void gb_audio_native(const gb_audio_log *al, int16_t *lr);

/* The high-pass filter over n stereo frames in place; cap is the capacitor state (Q16)
 * and charge the Q16 factor of gb_hpf_charge(). */
void gb_hpf_run(int32_t cap[2], int32_t charge, int16_t *lr, int n);
int32_t gb_hpf_charge(int cgb);

#endif
