/* snes_gpu.h: the SNES device video renderer (snes_gpu.cu), plugged into the emulators'
 * batched device pipeline (emu_gpu.h), which owns the staging, the transfers and the double
 * buffering. Present only in builds with a GPU backend (GV_HAVE_GPU).
 *
 * Video result: the frame's XXH3-64 (equal to gv_hash64 of the RGB888 frame), computed on
 * the device; the frame stays on the device (ops.frame fetches it). No device audio: the
 * SNES's sound is made inside the core. */
#ifndef GV_EMU_SNES_SNES_GPU_H
#define GV_EMU_SNES_SNES_GPU_H

#include "emu/common/emu_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

extern emu_gpu_ops snes_gpu_ops; /* read-only; not const for hipcc (see the .cu) */

#ifdef __cplusplus
}
#endif

#endif
