/* frame_reduce.c: the plain reference of frame_reduce.h, pixel by pixel: sum each block's
 * channels, divide with rounding, then the luma of the three means where grey is asked. */
#include "emu/common/frame_reduce.h"

void emu_frame_reduce_ref(const uint8_t *frames, int n, int w, int h, int down, int grey, uint8_t *out)
{
    int ow = w / down, oh = h / down;
    unsigned cells = (unsigned)(down * down);
    for (int i = 0; i < n; i++) {
        const uint8_t *f = frames + (size_t)i * w * h * 3;
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++) {
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
                if (grey) {
                    *out++ = (uint8_t)((299u * mean[0] + 587u * mean[1] + 114u * mean[2] + 500u) / 1000u);
                } else {
                    *out++ = (uint8_t)mean[0];
                    *out++ = (uint8_t)mean[1];
                    *out++ = (uint8_t)mean[2];
                }
            }
    }
}
