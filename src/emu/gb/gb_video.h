/* gb_video.h: the host video renderer (frame logs -> RGB888 framebuffers, lines in
 * parallel with OpenMP), log packing for batched device rendering, and the PNG writer.
 *
 * A renderer keeps its own copy of VRAM and palette RAM (gb_vstate): a log with a
 * snapshot replaces it, otherwise the log's writes bring it forward frame by frame. */
#ifndef GV_EMU_GB_GB_VIDEO_H
#define GV_EMU_GB_GB_VIDEO_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/gb/gb_apu_synth.h"
#include "emu/gb/gb_render.h"

typedef struct {
    _Alignas(16) uint8_t vram[GB_VRAM_BYTES];
    uint8_t pal[GB_PAL_BYTES];
    int valid; /* has seen a snapshot */
} gb_vstate;

/* Renders one packed frame log (gb_log_pack) into fb (GB_FB_BYTES) with the shared line
 * renderer, lines in parallel on the host's threads when par_lines. packed must be
 * 8-byte aligned. GV_ERR_WRONG when the state has never seen a snapshot. */
gv_status gb_render_host(gb_vstate *st, const uint8_t *packed, uint8_t *fb, int par_lines, gv_err *err);

/* Packed form of a frame log (layout in gb_render.h, gb_packed_hdr). */
size_t gb_log_packed_size(const gb_frame_log *log);
void gb_log_pack(const gb_frame_log *log, uint8_t *dst);

/* Packed form of a frame's audio keyframes (gb_apacked_hdr, then the keys). */
size_t gb_alog_packed_size(const gb_audio_log *al);
void gb_alog_pack(const gb_audio_log *al, uint8_t *dst);

/* Writes RGB888 pixels as an 8-bit RGB PNG, atomically. */
gv_status gb_png_write(const char *path, const uint8_t *rgb, int w, int h, gv_err *err);

#endif
