/* gb_batch.h: N independent copies of a machine run frame by frame, spread over the host
 * cores with OpenMP, with a chosen video and audio renderer (native inside the core,
 * host threads over the logs, or the device, batched and overlapped with emulation).
 * Every instance gets the same input, so every instance must produce the same hashes:
 *   video hash = XXH3-64 of the sequence of per-frame XXH3-64 hashes of the RGB888
 *                framebuffers (little-endian 64-bit words);
 *   audio hash = XXH3-64 of the int16 stereo stream after the high-pass filter. */
#ifndef GV_EMU_GB_GB_BATCH_H
#define GV_EMU_GB_GB_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu/gb/gb.h"

typedef enum { GB_R_NATIVE = 0, GB_R_HOST = 1, GB_R_DEVICE = 2, GB_R_NONE = 3 } gb_renderer;
const char *gb_renderer_name(gb_renderer r);
/* "native", "host", "device", "none"; returns -1 for anything else. */
int gb_renderer_parse(const char *s, gb_renderer *r);

typedef struct {
    const gb_cart *cart;
    gb_model model;
    int instances;
    gb_renderer video, audio;
    int threads;              /* host threads (0: every core) */
    int trap;                 /* stop at LD B,B (test ROMs); needs instances == 1 */
    FILE *trace;              /* instruction trace of instance 0, or NULL */
    int keep_audio;           /* keep instance 0's whole audio stream */
    const uint8_t *state;     /* save state loaded into every instance, or NULL */
    size_t state_len;
    const char *battery;      /* battery file loaded into every instance, or NULL */
} gb_batch_cfg;

typedef struct gb_batch gb_batch;

/* Creates the instances (and opens the device when a renderer needs it: GV_ERR_ENV when
 * there is none). Bad states or battery files are GV_ERR_INPUT. */
gv_status gb_batch_new(const gb_batch_cfg *cfg, gb_batch **out, gv_err *err);
/* Runs `frames` frame periods on every instance; *done gets how many completed (fewer
 * when the test-ROM trap fired). All device work is finished on return. */
gv_status gb_batch_run(gb_batch *b, int frames, int *done, gv_err *err);
uint64_t gb_batch_video_hash(const gb_batch *b, int i);
uint64_t gb_batch_audio_hash(const gb_batch *b, int i);
/* Instances whose video or audio hash differs from instance 0's. */
int gb_batch_mismatches(const gb_batch *b);
gb *gb_batch_machine(gb_batch *b, int i);
/* Instance 0's last complete frame (GB_FB_BYTES of RGB888), from its renderer. */
gv_status gb_batch_last_frame(gb_batch *b, uint8_t *rgb, gv_err *err);
/* Instance 0's audio since creation (keep_audio), n stereo frames. */
const int16_t *gb_batch_audio(const gb_batch *b, size_t *n);
void gb_batch_free(gb_batch *b);

#endif
