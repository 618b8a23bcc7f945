/* nes_gpu.h: the NES's device renderers (nes_gpu.cu), plugged into the emulators' batched
 * device pipeline (emu_gpu.h), which owns the staging, the transfers and the double
 * buffering. Present only in builds with a GPU backend (GV_HAVE_GPU).
 *
 * Input: each instance's whole packed frame log in the video stream (nes_log_pack).
 * Video result: the RGB frame (NES_RGB_BYTES). Audio result: NES_MAX_PIECES 64-bit piece
 * sums per instance, which the host turns into samples through the recurrent filters
 * (nes_aout_pieces). The picture and sound rules are the host renderer's. */
#ifndef GV_EMU_NES_NES_GPU_H
#define GV_EMU_NES_NES_GPU_H

#include "emu/common/emu_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NES_MAX_PIECES 1024          /* audio pieces per frame (about 800 are used) */
#define NES_RGB_BYTES (256 * 240 * 3) /* one RGB frame */

extern emu_gpu_ops nes_gpu_ops; /* read-only; not const for hipcc (see the .cu) */

#ifdef __cplusplus
}
#endif

#endif
