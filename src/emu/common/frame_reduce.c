/* frame_reduce.c: the plain reference of frame_reduce.h, pixel by pixel: black output frames,
 * then per instance each whole block of its own frame summed per channel, divided with
 * rounding, and the luma of the three means where grey is asked. */
#include "emu/common/frame_reduce.h"

#include <string.h>

void emu_frame_reduce_ref(const uint8_t *frames, int n, size_t slot, const int32_t *dims, int fw, int fh, int down,
                          int grey, uint8_t *out)
{
    int ow = fw / down, oh = fh / down, ch = grey ? 1 : 3;
    unsigned cells = (unsigned)(down * down);
    memset(out, 0, (size_t)n * ow * oh * ch);
    for (int i = 0; i < n; i++) {
        const uint8_t *f = frames + (size_t)i * slot;
        int w = dims[2 * i], h = dims[2 * i + 1];
        uint8_t *o = out + (size_t)i * ow * oh * ch;
        for (int oy = 0; oy < h / down; oy++)
            for (int ox = 0; ox < w / down; ox++) {
                unsigned sum[3] = {0, 0, 0}, mean[3];
                for (int dy = 0; dy < down; dy++)
                    for (int dx = 0; dx < down; dx++) {
                        const uint8_t *px = f + ((size_t)(oy * down + dy) * w + (size_t)(ox * down + dx)) * 3;
                        sum[0] += px[0];
                        sum[1] += px[1];
                        sum[2] += px[2];
                    }
                for (int c = 0; c < 3; c++)
                    mean[c] = (sum[c] + cells / 2) / cells;
                uint8_t *q = o + ((size_t)oy * ow + ox) * ch;
                if (grey) {
                    q[0] = (uint8_t)((299u * mean[0] + 587u * mean[1] + 114u * mean[2] + 500u) / 1000u);
                } else {
                    q[0] = (uint8_t)mean[0];
                    q[1] = (uint8_t)mean[1];
                    q[2] = (uint8_t)mean[2];
                }
            }
    }
}
