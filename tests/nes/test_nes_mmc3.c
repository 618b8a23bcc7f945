/* test_nes_mmc3.c: the MMC3 ROM's picture, drawn independently from its description
 * (tests/roms/nes/mmc3_irq.s): nametable tile (7x + 3y) & $7F with columns 0-1 tile 0,
 * attributes 53 i + 11, horizontal mirroring, no sprites; tile set A (CHR bank 0) on lines
 * 0-119, tile set B (CHR bank 8) from line 120, where the scanline IRQ switched it; scroll
 * X = 0 to line 120 and 16 from line 121. Patterns are read from the ROM file. */
#include <stdint.h>

#include "emu/nes/nes_int.h"
#include "nes_test.h"

static const uint8_t pal_writes[32] = {
    0x0F, 0x00, 0x10, 0x30, 0x0F, 0x05, 0x15, 0x25, 0x0F, 0x0A, 0x1A, 0x2A, 0x0F, 0x02, 0x12, 0x22,
    0x0F, 0x00, 0x10, 0x30, 0x0F, 0x05, 0x15, 0x25, 0x0F, 0x0A, 0x1A, 0x2A, 0x0F, 0x02, 0x12, 0x22,
};

int main(void)
{
    const char *rom = nes_rom("mmc3_irq");
    if (!rom)
        return t_done();
    size_t len;
    uint8_t *file = nes_slurp(rom, &len);
    if (!t_check(file && len == 16 + 32768 + 16384, "mmc3 ROM file", "%zu bytes", file ? len : 0))
        return t_done();
    const uint8_t *chr = file + 16 + 32768;
    uint8_t nt[1024], pal[32];
    for (int y = 0; y < 30; y++)
        for (int x = 0; x < 32; x++)
            nt[y * 32 + x] = x < 2 ? 0 : (uint8_t)((7 * x + 3 * y) & 0x7F);
    for (int i = 0; i < 64; i++)
        nt[960 + i] = (uint8_t)(53 * i + 11);
    for (int i = 0; i < 32; i++)
        pal[(i & 0x13) == 0x10 ? i & 0x0F : i] = pal_writes[i];

    uint8_t *rgb = nes_run_png("mmc3 run", rom, 12);
    if (!rgb)
        return t_done();
    long bad = 0, first = -1, changed = 0;
    for (int y = 0; y < 240; y++)
        for (int x = 0; x < 256; x++) {
            int vx = (x + (y >= 121 ? 16 : 0)) & 255; /* horizontal mirroring: both halves alike */
            int col = vx >> 3, row = y >> 3;
            int tile = nt[row * 32 + col];
            int attr = nt[960 + (row / 4) * 8 + col / 4];
            int ps = (attr >> (((row & 2) << 1) | (col & 2))) & 3;
            const uint8_t *set = chr + (y >= 120 ? 0x2000 : 0);
            int b = 7 - (vx & 7);
            int px = ((set[tile * 16 + (y & 7)] >> b) & 1) | (((set[tile * 16 + (y & 7) + 8] >> b) & 1) << 1);
            const uint8_t *c = nes_palette_rgb + 3 * pal[px ? ps * 4 + px : 0];
            if (memcmp(c, rgb + 3 * (y * 256 + x), 3) && !bad++)
                first = y * 256 + x;
            if (y >= 120 && tile && memcmp(chr + tile * 16, set + tile * 16, 16))
                changed++;
        }
    if (bad)
        t_check(0, "mmc3 picture", "%ld of 61440 pixels differ from the independently drawn split (first at x %ld, y %ld)",
                bad, first % 256, first / 256);
    else
        t_check(1, "mmc3 picture", "all 61440 pixels equal the independently drawn IRQ split (CHR bank from line 120, "
                "scroll from line 121)");
    t_check(changed > 1000, "mmc3 oracle", "%ld pixels below the split use tiles that differ between the sets "
            "(a check of this test: the split is visible)", changed);
    free(rgb);
    free(file);
    return t_done();
}
