/* test_frame_reduce.c: the device kernel of frame_reduce.h run on the host: emu_reduce_at for
 * every output byte, as emu_k_reduce's threads compute them (emu_gpu.cu), against the plain
 * reference emu_frame_reduce_ref, for every console's frame size, every factor that divides
 * it, RGB and grey, on random frames and on the extremes (all 255: the largest sums; blocks
 * whose mean ends in .5: the rounding). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emu/common/frame_reduce.h"

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint8_t rnd8(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint8_t)(rs >> 24);
}

int main(void)
{
    static const int sizes[][2] = {{256, 240}, {160, 144}, {256, 224}};
    static const char *const fills[] = {"random", "all 255", "halves"};
    const int n = 3;
    for (int z = 0; z < 3; z++) {
        int w = sizes[z][0], h = sizes[z][1];
        size_t fb = (size_t)w * h * 3;
        uint8_t *frames = malloc((size_t)n * fb), *want = malloc((size_t)n * fb), *got = malloc((size_t)n * fb);
        for (int f = 0; f < 3; f++) {
            for (size_t k = 0; k < (size_t)n * fb; k++)
                frames[k] = f == 0 ? rnd8() : f == 1 ? 255 : (uint8_t)((k / 3) % 2 ? 1 : 0);
            long bytes = 0, bad = 0, cases = 0;
            char first[160] = "";
            for (int down = 1; down <= 16; down++) {
                if (w % down || h % down)
                    continue;
                for (int grey = 0; grey < 2; grey++) {
                    size_t total = (size_t)n * (w / down) * (h / down) * (grey ? 1 : 3);
                    emu_frame_reduce_ref(frames, n, w, h, down, grey, want);
                    for (size_t t = 0; t < total; t++) /* the kernel's threads */
                        got[t] = emu_reduce_at(frames, w, h, down, grey, t);
                    for (size_t t = 0; t < total; t++)
                        if (got[t] != want[t] && bad++ == 0)
                            snprintf(first, sizeof first, "; first: down %d %s byte %zu: %u, reference %u", down,
                                     grey ? "grey" : "RGB", t, got[t], want[t]);
                    bytes += (long)total;
                    cases++;
                }
            }
            char name[64];
            snprintf(name, sizeof name, "frame reduce %dx%d %s", w, h, fills[f]);
            t_check(bad == 0, name, "%d frames, %ld factor/colour cases, %ld output bytes: kernel body == reference "
                    "(%ld differ%s)", n, cases, bytes, bad, first);
        }
        free(frames);
        free(want);
        free(got);
    }
    return t_done();
}
