/* gb_audio.h: the audio renderers' side: block synthesis of a frame's samples from its
 * keyframes (host; the device version is in gb_gpu.cu), the output high-pass filter and
 * the WAV writer. Sample streams are int16 stereo interleaved (L, R), 48 kHz. */
#ifndef GV_EMU_GB_GB_AUDIO_H
#define GV_EMU_GB_GB_AUDIO_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "emu/gb/gb_apu_synth.h"

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

/* Writes 48 kHz 16-bit stereo PCM as a WAV file, atomically. */
gv_status gb_wav_write(const char *path, const int16_t *lr, size_t frames, gv_err *err);

#endif
