/* test_nes_acc4.c: check 3 of tests/roms/nes/acc4_test.s, the greyscale timing, read from the
 * picture: the ROM, synced to the VBlank flag, greys line 100 every third frame with two
 * PPUMASK writes the NESdev wiki's timing puts at dots 99 and 129; the greyscale acts two
 * pixels before a write's dot - 1 (blargg's nmi_sync readme), so the grey run is pixels
 * 96-125 of a red line, and lines 99 and 101 stay red. Frames 390-392 are looked at: one of
 * them has the run. */
#include <stdint.h>

#include "nes_test.h"

/* Whether pixel (x, y) of rgb is grey (R = G = B) rather than the red backdrop. */
static int grey(const uint8_t *rgb, int x, int y)
{
    const uint8_t *c = rgb + 3 * (y * 256 + x);
    return c[0] == c[1] && c[1] == c[2];
}

int main(void)
{
    const char *rom = nes_rom("acc4_test");
    if (!rom)
        return t_done();
    int seen = 0;
    for (int f = 390; f < 393; f++) {
        uint8_t *rgb = nes_run_png("acc4 run", rom, f);
        if (!rgb)
            return t_done();
        int first = -1, last = -1, others = 0;
        for (int x = 0; x < 256; x++) {
            if (grey(rgb, x, 100)) {
                if (first < 0)
                    first = x;
                last = x;
            }
            others += grey(rgb, x, 99) + grey(rgb, x, 101);
        }
        int run = 0; /* the grey pixels of line 100 form one run */
        for (int x = 0; x < 256; x++)
            run += grey(rgb, x, 100);
        free(rgb);
        t_check(others == 0, "acc4 lines 99 and 101", "frame %d: %d grey pixels (want 0)", f, others);
        if (first < 0)
            continue;
        seen++;
        t_check(first == 96 && last == 125 && run == last - first + 1, "acc4 greyscale timing",
                "frame %d, line 100: grey from pixel %d to %d, %d pixels (want 96 to 125: the writes at dots "
                "99 and 129 act from pixels 96 and 126)", f, first, last, run);
    }
    t_check(seen == 1, "acc4 grey frames", "%d of frames 390-392 have the grey run on line 100 (want 1: every third frame)",
            seen);
    return t_done();
}
