/* emu_gpu.h: the one batched device pipeline of the emulators (emu_gpu.cu; emu_gpu_nogpu.c
 * in builds without a GPU backend, where opening fails with GV_ERR_ENV).
 *
 * Two slots of pinned host staging, each with its device twin: the host packs the frame
 * logs of every instance into a slot (a video stream and an audio stream, each instance at
 * a byte offset), submits it (copies in, the console's kernels, results back, an event),
 * and later waits for the slot's results, while it emulates the next frame into the other
 * slot. The console supplies its resident device state and its kernels through
 * emu_gpu_ops (in its own .cu file); the results are per instance: vres_bytes of video
 * (a frame hash, or the frame itself) and a stride of audio units (samples, or sums that
 * the host finishes). Every runtime call is checked through GV_GPU_TRY (dev/gpu_common.h). */
#ifndef GV_EMU_COMMON_EMU_GPU_H
#define GV_EMU_COMMON_EMU_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "dev/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a console's kernels get for one slot; every pointer is device memory. */
typedef struct {
    int n, video, audio;
    const uint8_t *vlog, *alog;   /* packed logs */
    const uint32_t *voff, *aoff;  /* n offsets into each */
    uint8_t *vres;                /* n x vres_bytes */
    uint8_t *ares;                /* n x astride x ares_unit */
    int astride;                  /* audio units per instance in ares */
    void *stream;                 /* the pipeline's stream (cudaStream_t / hipStream_t) */
} emu_gpu_io;

typedef struct emu_gpu_ops {
    size_t vres_bytes;            /* video result per instance */
    int vres_is_hash;             /* 1: the result is the frame's XXH3-64; 0: the RGB frame */
    size_t ares_unit;             /* bytes per audio unit */
    size_t dev_bytes;             /* the console's own struct, allocated zeroed and freed by the pipeline */
    /* Allocates into dev the console's resident device state for n instances of cart (m0 is
     * a machine of that cart, for tables the console keeps there). close follows, also after
     * a failed open. */
    gv_status (*open)(void *dev, const void *cart, const void *m0, int n, int video, int audio, gv_err *err);
    /* Enqueues the slot's kernels on io->stream; checks the launches. */
    gv_status (*launch)(void *dev, const emu_gpu_io *io, gv_err *err);
    /* Copies instance i's last frame to rgb when vres_is_hash (else NULL). */
    gv_status (*frame)(void *dev, void *stream, int i, uint8_t *rgb, gv_err *err);
    /* Frees what open allocated (not dev itself). */
    void (*close)(void *dev);
    /* The device memory of every instance's last frame, n frames of RGB888 one after another,
     * when vres_is_hash (else NULL: the frames are the video results). */
    const uint8_t *(*frames)(void *dev);
} emu_gpu_ops;

typedef struct emu_gpu emu_gpu;

/* Opens GPU dev (dev/dev.h, whose dev_gpu_count says how many there are) for n
 * instances, with video and/or audio on the device. GV_ERR_ENV with the reason when there
 * is no backend, no such device, or no memory; GV_ERR_INPUT when dev is the CPU. */
gv_status emu_gpu_open(const dev_id *dev, const emu_gpu_ops *ops, const void *cart, const void *m0, int n, int video,
                       int audio, emu_gpu **out, gv_err *err);
/* Pinned staging of slot (0 or 1) grown to vbytes and abytes; voff/aoff hold n offsets.
 * The caller has collected the slot's previous results. Buffers may move when they grow. */
gv_status emu_gpu_staging(emu_gpu *g, int slot, size_t vbytes, size_t abytes, uint8_t **vbuf, uint8_t **abuf,
                          uint32_t **voff, uint32_t **aoff, gv_err *err);
/* Starts the slot's work: copies in, kernels, results back. Returns at once. */
gv_status emu_gpu_submit(emu_gpu *g, int slot, size_t vbytes, size_t abytes, int astride, gv_err *err);
/* Waits for the slot's results (valid until the slot is submitted again). */
gv_status emu_gpu_wait(emu_gpu *g, int slot, const uint8_t **vres, const uint8_t **ares, gv_err *err);
/* Instance i's last frame from the device's resident state (ops->frame). */
gv_status emu_gpu_frame(emu_gpu *g, int i, uint8_t *rgb, gv_err *err);
/* Every instance's last frame (w x h RGB888 each) made smaller on the device
 * (frame_reduce.h: down x down blocks averaged, grey with grey) into a device buffer the
 * pipeline owns, n x h/down x w/down x (grey ? 1 : 3) bytes, valid until the next call or
 * close; *out gets it, *device the GPU's ordinal. Waits for all work queued on the device
 * first (readers of the last output included) and returns when the result is in place.
 * GV_ERR_INPUT without device video. */
gv_status emu_gpu_obs(emu_gpu *g, int w, int h, int down, int grey, const uint8_t **out, int *device, gv_err *err);
/* The device's name for records ("NVIDIA H200"). */
const char *emu_gpu_name(const emu_gpu *g);
void emu_gpu_close(emu_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
