/* batch.h: N instances of one ROM run side by side, frame by frame, with a chosen video and
 * audio renderer each: native (inside the core), host (threads over the frame logs) or
 * device (all instances' logs in one GPU launch, overlapped with the emulation of the next
 * frame). Every instance keeps hashes of its RGB frames and of its sample stream; since the
 * instances get identical input, all their hashes must agree, and they must agree with the
 * native renderer's. */
#ifndef GV_EMU_NES_BATCH_H
#define GV_EMU_NES_BATCH_H

#include "emu/common/media.h"
#include "emu/nes/nes.h"

typedef enum { NES_R_NATIVE = 0, NES_R_HOST = 1, NES_R_DEVICE = 2 } nes_rkind;

const char *nes_rkind_name(int k);
/* "native", "host", "device"; -1 for anything else. */
int nes_rkind_parse(const char *s);

typedef struct {
    int video, audio;  /* nes_rkind */
    int instances;
    int threads;       /* host threads (0: every core the process may use) */
    int gpu;           /* device index for the device renderer */
    int keep_audio;    /* collect instance 0's samples (for --wav) */
    int verify;        /* with video native: also draw every frame from its log on the host and
                          fail on the first pixel that differs (renderer self-check) */
} nes_batch_opts;

typedef struct {
    uint64_t video; /* xxHash of the RGB frames, in order */
    uint64_t audio; /* xxHash of the int16 sample stream */
} nes_hashes;

typedef struct nes_batch nes_batch;

/* GV_ERR_ENV when a device renderer is asked for and cannot be opened. */
gv_status nes_batch_new(const nes_cart *cart, const nes_batch_opts *o, nes_batch **out, gv_err *err);
void nes_batch_free(nes_batch *b);
/* Runs `frames` frames on every instance, drawing, sounding and hashing them. GV_ERR_WRONG
 * when verify finds a difference; GV_ERR_ENV on a device failure. */
gv_status nes_batch_run(nes_batch *b, int frames, gv_err *err);
/* Hashes of instance i over everything run since the last reset. */
nes_hashes nes_batch_hashes(const nes_batch *b, int i);
void nes_batch_reset_hashes(nes_batch *b);
/* Power-cycles every instance and resets the hashes (for repeated runs from one start). */
void nes_batch_power(nes_batch *b);
nes *nes_batch_machine(nes_batch *b, int i);
int nes_batch_instances(const nes_batch *b);
/* Instance 0's last frame (256 x 240 RGB) and, with keep_audio, all its samples. */
const uint8_t *nes_batch_rgb0(const nes_batch *b);
const gv_sbuf *nes_batch_audio0(const nes_batch *b);
const char *nes_batch_gpu_name(const nes_batch *b);

#endif
