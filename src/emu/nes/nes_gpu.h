/* render_gpu.h: the device renderer (render_gpu.cu; render_gpu_nogpu.c in a build without a
 * GPU backend). It takes the packed frame logs of many instances in one launch and returns
 * their RGB frames and audio piece sums, which the host turns into hashes and samples. The
 * picture and sound rules are the same functions the host renderer runs (ppu_rules.h,
 * audio_rules.h, framelog.h). Two host slots let the logs of frame k+1 be packed while
 * frame k is on the device. */
#ifndef GV_EMU_NES_RENDER_GPU_H
#define GV_EMU_NES_RENDER_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/nes/nes_audio.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NES_MAX_PIECES 1024          /* audio pieces per frame (about 800 are used) */
#define NES_RGB_BYTES (256 * 240 * 3) /* one RGB frame */

typedef struct nes_gpu nes_gpu;

/* GPUs the device renderer can use (0 without a GPU backend or a device). */
int nes_gpu_count(void);

/* Opens GPU `device` for up to max_instances instances of one cart. chr_rom (chr_size
 * bytes, may be NULL) is uploaded once; tab and the 512-entry colour table rgb (nes_palette_rgb32) too.
 * GV_ERR_ENV when there is no GPU backend or no device, with a message saying so. */
gv_status nes_gpu_open(int device, int max_instances, const uint8_t *chr_rom, uint32_t chr_size,
                       const nes_atab *tab, const uint32_t *rgb, nes_gpu **out, gv_err *err);
/* Pinned host buffer of slot (0 or 1) holding at least bytes bytes, for packed logs. */
gv_status nes_gpu_stage(nes_gpu *g, int slot, size_t bytes, uint8_t **buf, gv_err *err);
/* Starts slot's work: n logs packed in its stage buffer at byte offsets off[0..n) (total
 * bytes used), drawn if video, summed if audio. Returns at once. */
gv_status nes_gpu_submit(nes_gpu *g, int slot, int n, const uint32_t *off, size_t bytes, int video,
                         int audio, gv_err *err);
/* Waits for slot's work. rgb: n x NES_RGB_BYTES; pieces: n x NES_MAX_PIECES sums. Both stay
 * valid until the slot is submitted again. */
gv_status nes_gpu_wait(nes_gpu *g, int slot, const uint8_t **rgb, const uint64_t **pieces, gv_err *err);
/* Device name for records ("NVIDIA H200"). */
const char *nes_gpu_name(const nes_gpu *g);
void nes_gpu_close(nes_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
