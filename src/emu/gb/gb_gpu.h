/* gb_gpu.h: the Game Boy's device renderers (gb_gpu.cu), plugged into the emulators'
 * batched device pipeline (emu_gpu.h), which owns the staging, the transfers and the
 * double buffering. Present only in builds with a GPU backend (GV_HAVE_GPU).
 *
 * Video result: the frame's XXH3-64 (equal to gv_hash64 of the RGB888 frame), computed
 * on the device from each instance's resident VRAM/palette state; the frame itself stays
 * on the device (ops.frame fetches it). Audio result: int16 stereo pre-filter samples,
 * one unit per stereo frame; the host runs the high-pass filter. */
#ifndef GV_EMU_GB_GB_GPU_H
#define GV_EMU_GB_GB_GPU_H

#include "emu/common/emu_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

extern emu_gpu_ops gb_gpu_ops; /* read-only; not const for hipcc (see the .cu) */

#ifdef __cplusplus
}
#endif

#endif
