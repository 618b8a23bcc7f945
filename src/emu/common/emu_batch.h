/* emu_batch.h: N copies of one console's machine run frame by frame, spread over the host
 * cores with OpenMP, each frame drawn and sounded by a chosen renderer: native (inside
 * the core), host (the console's renderer over the frame logs, in the thread that ran
 * the instance; a single instance draws its lines on every thread instead), device (every
 * instance's logs in one launch through emu_gpu.h, overlapped with the emulation of the
 * next frame) or none. Works for any console behind console.h.
 *
 * Every instance gets the same input, so all must produce the same hashes:
 *   video hash  as the console says (emu_console.hash_of_frame_hashes);
 *   audio hash  XXH3-64 of the final int16 sample stream (interleaved channels). */
#ifndef GV_EMU_COMMON_EMU_BATCH_H
#define GV_EMU_COMMON_EMU_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "dev/dev.h"
#include "emu/common/console.h"
#include "emu/common/input.h"

typedef enum { EMU_R_NATIVE = 0, EMU_R_HOST = 1, EMU_R_DEVICE = 2, EMU_R_NONE = 3 } emu_renderer;
const char *emu_renderer_name(emu_renderer r);
/* "native", "host", "device", "none"; -1 for anything else. */
int emu_renderer_parse(const char *s, emu_renderer *r);

typedef struct {
    const emu_console *con;
    const void *cart;
    emu_opts opts;
    int instances;
    emu_renderer video, audio;
    int threads;               /* host threads (0: every core the process may use) */
    dev_id dev;                /* the GPU of the device renderers (dev/dev.h) */
    int keep_audio;            /* keep instance 0's whole sample stream (emu_batch_audio) */
    int keep_audio_each;       /* keep every instance's samples (emu_batch_instance_audio)
                                  until emu_batch_audio_clear or power */
    int no_hash;               /* hash nothing (a frontend that reads no hash: the libretro
                                  core); the hashes then stay those of empty streams */
    int verify;                /* with video native: also draw every frame from its log on the
                                  host and fail (GV_ERR_WRONG) on the first pixel that differs */
    int trap;                  /* stop at the test-ROM breakpoint; needs one instance */
    emu_line_fn trace;         /* instance 0's instruction trace, or NULL */
    void *trace_ctx;
    const uint8_t *state;      /* save state loaded into every instance, or NULL */
    size_t state_len;
    const uint8_t *battery;    /* battery image loaded into every instance, or NULL */
    size_t battery_len;
    const char *battery_name;  /* names it in messages */
    const emu_movie *movie;    /* controller input of every instance, by frame, or NULL */
    const emu_gpu_ops *gpu_ops; /* replaces the console's device renderers (tests), or NULL */
} emu_batch_cfg;

typedef struct emu_batch emu_batch;

/* Creates the instances and opens what the renderers need (GV_ERR_ENV when a device
 * renderer has no device; GV_ERR_INPUT for a bad state, battery or option). */
gv_status emu_batch_new(const emu_batch_cfg *cfg, emu_batch **out, gv_err *err);
void emu_batch_free(emu_batch *b);
/* The buttons every instance holds from the next frame on (without a movie). */
void emu_batch_set_input(emu_batch *b, emu_buttons buttons);
/* Instance i holds buttons[i] from the next frame on (n = the instances; without a movie),
 * until the next emu_batch_set_input or _set_input_each. */
void emu_batch_set_input_each(emu_batch *b, const emu_buttons *buttons);
/* The analog axes (EMU_MAX_AXES values, the console's order) from the next frame on
 * (without a movie; consoles without axes ignore them). */
void emu_batch_set_axes(emu_batch *b, const int16_t *v);
/* Runs `frames` frames on every instance; *done gets how many completed (fewer when the
 * test-ROM breakpoint fired). All device work is finished and hashed on return. */
gv_status emu_batch_run(emu_batch *b, int frames, int *done, gv_err *err);
/* Power-cycles every instance and starts the hashes and instance 0's outputs afresh. */
void emu_batch_power(emu_batch *b);
/* Resets every instance (the console's reset button); hashes go on. */
void emu_batch_reset(emu_batch *b);
uint64_t emu_batch_video_hash(const emu_batch *b, int i);
uint64_t emu_batch_audio_hash(const emu_batch *b, int i);
/* Instances whose video or audio hash differs from instance 0's. */
int emu_batch_mismatches(const emu_batch *b);
int emu_batch_instances(const emu_batch *b);
void *emu_batch_machine(emu_batch *b, int i);
/* Instance 0's last complete frame (width x height RGB888) from its renderer. */
gv_status emu_batch_last_frame(emu_batch *b, uint8_t *rgb, gv_err *err);
/* The same frame where the batch keeps it, without a copy (valid until the next run); NULL
 * when the video renderer is 'none' or the device keeps only its hash. */
const uint8_t *emu_batch_frame_video(const emu_batch *b);
/* Instance i's last complete frame (width x height RGB888) where its renderer keeps it,
 * valid until the next run, power or reset; NULL when the video renderer is 'none' or the
 * device (which keeps only instance 0's frame). */
const uint8_t *emu_batch_instance_frame(const emu_batch *b, int i);
/* With device video: every instance's last frame made smaller on the device (emu_gpu_obs:
 * down x down blocks averaged, grey with grey) in device memory of GPU *device, n x h/down x
 * w/down x (grey ? 1 : 3) bytes at *out, valid until the next call, run, power or free.
 * GV_ERR_INPUT when the video renderer is not the device or down does not divide the frame. */
gv_status emu_batch_device_obs(emu_batch *b, int down, int grey, const uint8_t **out, int *device, gv_err *err);
/* Instance 0's samples of the frame just run by the native or host audio renderer (n
 * sample frames; 0 after a trapped frame), valid until the next run. */
const int16_t *emu_batch_frame_audio(const emu_batch *b, int *n);
/* Instance 0's samples since creation or power (keep_audio): n sample frames. */
const int16_t *emu_batch_audio(const emu_batch *b, size_t *n);
/* Instance i's samples kept (keep_audio_each; keep_audio for instance 0) since creation,
 * power or the last emu_batch_audio_clear: n sample frames of audio_channels int16 each,
 * valid until the next run. */
const int16_t *emu_batch_instance_audio(const emu_batch *b, int i, size_t *n);
/* Empties every instance's kept samples (the batch keeps its buffers). */
void emu_batch_audio_clear(emu_batch *b);
/* The device's name, or NULL without a device renderer. */
const char *emu_batch_gpu_name(const emu_batch *b);

#endif
