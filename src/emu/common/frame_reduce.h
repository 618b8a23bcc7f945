/* frame_reduce.h: a batch of RGB888 frames made smaller for a learner: each down x down
 * block averaged per channel, rounded to nearest ((sum + down*down/2) / (down*down)), and
 * optionally turned grey, (299 R + 587 G + 114 B + 500) / 1000 of the averaged colour. Frames
 * of w x h pixels (down divides both) become (h/down, w/down, 3) RGB or (h/down, w/down) grey.
 *
 * The work is written once for the host and the device (GV_INLINE): emu_reduce_at computes one
 * byte of the output, which the device kernel (emu_gpu.cu, one thread per output byte) and the
 * host loop both call. emu_frame_reduce_ref (frame_reduce.c) is the plain reference beside
 * them, written out pixel by pixel; tests/emu/test_frame_reduce.c compares the two. */
#ifndef GV_EMU_COMMON_FRAME_REDUCE_H
#define GV_EMU_COMMON_FRAME_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "dev/gpu_common.h" /* GV_INLINE */

/* The grey value of an RGB colour. */
GV_INLINE uint8_t emu_luma(unsigned r, unsigned g, unsigned b)
{
    return (uint8_t)((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

/* The mean of channel c over the down x down block at (x0, y0) of an RGB888 frame w pixels
 * wide, rounded to nearest. */
GV_INLINE unsigned emu_block_mean(const uint8_t *frame, int w, int x0, int y0, int down, int c)
{
    unsigned s = 0, nn = (unsigned)(down * down);
    for (int y = y0; y < y0 + down; y++) {
        const uint8_t *row = frame + ((size_t)y * (size_t)w + (size_t)x0) * 3 + c;
        for (int x = 0; x < down; x++)
            s += row[3 * x];
    }
    return (s + nn / 2) / nn;
}

/* Byte t of the reduced frames of a batch (frames: n frames of w x h RGB888, one after
 * another; the output is n x (h/down) x (w/down) x (grey ? 1 : 3) bytes). */
GV_INLINE uint8_t emu_reduce_at(const uint8_t *frames, int w, int h, int down, int grey, size_t t)
{
    const int ow = w / down, oh = h / down, ch = grey ? 1 : 3;
    const size_t per = (size_t)ow * (size_t)oh * (size_t)ch;
    const size_t i = t / per, r = t % per;
    const int p = (int)(r / (size_t)ch), c = (int)(r % (size_t)ch);
    const int x0 = (p % ow) * down, y0 = (p / ow) * down;
    const uint8_t *f = frames + i * (size_t)w * (size_t)h * 3;
    if (!grey)
        return (uint8_t)emu_block_mean(f, w, x0, y0, down, c);
    return emu_luma(emu_block_mean(f, w, x0, y0, down, 0), emu_block_mean(f, w, x0, y0, down, 1),
                    emu_block_mean(f, w, x0, y0, down, 2));
}

#ifdef __cplusplus
extern "C" {
#endif
/* The plain reference: n frames of w x h RGB888 into out (n x h/down x w/down x 1 or 3). */
void emu_frame_reduce_ref(const uint8_t *frames, int n, int w, int h, int down, int grey, uint8_t *out);
#ifdef __cplusplus
}
#endif

#endif
