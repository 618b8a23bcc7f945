/* gb_gpu.h: the device renderers of the Game Boy workload (gb_gpu.cu; gb_gpu_nogpu.c in
 * builds without a GPU backend, where every call fails with GV_ERR_ENV).
 *
 * Batched and asynchronous: the caller packs the frame logs of all instances into a
 * pinned staging slot (two slots, so that emulating frame k+1 overlaps the transfer and
 * rendering of frame k), submits, and later waits for the slot's results. Video: each
 * instance's VRAM/palette state stays resident on the device; one block per instance
 * renders its lines with gb_render_packed and hashes its framebuffer (XXH3-64, equal to
 * gv_hash64) on the device, so only 8 bytes per frame come back. Audio: one thread per
 * output sample evaluates gb_apu_sample from the instance's keyframes; the pre-filter
 * samples come back and the high-pass filter runs on the host. */
#ifndef GV_EMU_GB_GB_GPU_H
#define GV_EMU_GB_GB_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/gb/gb_audio.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gb_gpu gb_gpu;

/* Opens device 0 for n instances with video and/or audio rendering. secret is XXH3's
 * 192-byte default secret (gb_xxh3_secret), J the LFSR jump tables. */
gv_status gb_gpu_open(int n, int video, int audio, const uint8_t *secret, const gb_lfsr_jump *J, gb_gpu **out,
                      gv_err *err);
/* Pinned staging of slot (0 or 1), grown to hold vbytes of packed frame logs and abytes
 * of packed audio keyframes; voff/aoff: n offsets each, where instance i's data start. */
gv_status gb_gpu_staging(gb_gpu *g, int slot, size_t vbytes, size_t abytes, uint8_t **vbuf, uint8_t **abuf,
                         uint32_t **voff, uint32_t **aoff, gv_err *err);
/* Starts transfers and kernels of slot; astride is the number of samples per instance
 * in the audio output (at least the largest frame's count). */
gv_status gb_gpu_submit(gb_gpu *g, int slot, size_t vbytes, size_t abytes, int astride, gv_err *err);
/* Waits for slot's results: n frame hashes and n * astride stereo pre-filter samples. */
gv_status gb_gpu_wait(gb_gpu *g, int slot, const uint64_t **hashes, const int16_t **samples, gv_err *err);
/* Copies instance i's last rendered frame (GB_FB_BYTES) to rgb. */
gv_status gb_gpu_frame(gb_gpu *g, int i, uint8_t *rgb, gv_err *err);
void gb_gpu_close(gb_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
