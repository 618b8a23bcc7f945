/* test_nes_latch.c: the MMC2/MMC4 test ROMs' picture (tests/roms/nes/mmc2_test.s), drawn
 * independently from the boards' documented latch rule and the PPU's fetch order: every
 * row r holds tile $FD at column 3r and $FE at column 7r + 9 (mod 32); the background's
 * pattern fetches go left to right, two tiles of each line at the end of the line before
 * (dots 321-336), the pre-render line fetching row 0 of the wrapped nametable; after the
 * high-plane fetch of a $FD tile (MMC2: only its first row, $0FD8; MMC4: any row) the
 * $0000 half switches to the $FD bank, after an $FE tile to the $FE bank. Each tile draws
 * with the bank the latch held at its fetch, so banks change inside lines. Horizontal
 * mirroring, scroll 0, attributes 53 i + 11, the boards.inc palette; at frame 20 the $FD
 * bank is 4 KiB bank 1 and the $FE bank 2. The latch's state entering a frame is what the
 * frame before left (the same every frame): two frames are walked. */
#include <stdint.h>

#include "emu/nes/nes_int.h"
#include "nes_test.h"

static const uint8_t pal[16] = {0x0F, 0x00, 0x10, 0x30, 0x0F, 0x05, 0x15, 0x25,
                                0x0F, 0x0A, 0x1A, 0x2A, 0x0F, 0x02, 0x12, 0x22};

static void check_rom(const char *name, int mmc4)
{
    const char *rom = nes_rom(name);
    if (!rom)
        return;
    size_t len;
    uint8_t *file = nes_slurp(rom, &len);
    if (!t_check(file && len == 16 + 131072 + 65536, name, "ROM file of %zu bytes", file ? len : 0)) {
        free(file);
        return;
    }
    const uint8_t *chr = file + 16 + 131072;
    uint8_t nt[1024];
    for (int r = 0; r < 30; r++) {
        int c1 = (3 * r) & 31, c2 = (7 * r + 9) & 31;
        for (int c = 0; c < 32; c++) {
            int t = (32 * r + c) & 0xFF;
            nt[r * 32 + c] = c == c1 ? 0xFD : c == c2 ? 0xFE : t >= 0xFD ? 0 : (uint8_t)t;
        }
    }
    for (int i = 0; i < 64; i++)
        nt[960 + i] = (uint8_t)(53 * i + 11);
    /* the fetch order: (line the tile is drawn on or -1, column, row, fine y) */
    static uint8_t bank_of[240][32];
    int latch = 1, switches = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int line = -1; line < 240; line++) {
            for (int k = 0; k < 34; k++) {
                int target, col, y;
                if (k < 32) { /* dots 1-256: columns 2-33 of this line */
                    target = line;
                    col = (k + 2) & 31;
                    y = line < 0 ? 0 : line; /* the pre-render line: row 0 after the wrap */
                } else {      /* dots 321-336: columns 0-1 of the next line */
                    target = line + 1 < 240 ? line + 1 : -1;
                    col = k - 32;
                    y = line + 1 < 240 ? line + 1 : 0;
                }
                int tile = nt[(y / 8) * 32 + col], fine = y & 7;
                if (target >= 0 && (k >= 32 || col >= 2))
                    bank_of[target][col] = (uint8_t)latch;
                if ((tile == 0xFD || tile == 0xFE) && (mmc4 || fine == 0)) {
                    int l = tile == 0xFE;
                    switches += pass && l != latch;
                    latch = l;
                }
            }
        }
    }
    uint8_t *rgb = nes_run_png(name, rom, 20);
    if (!rgb) {
        free(file);
        return;
    }
    long bad = 0, first = -1;
    for (int y = 0; y < 240; y++)
        for (int x = 0; x < 256; x++) {
            int col = x >> 3, row = y >> 3, tile = nt[row * 32 + col];
            int attr = nt[960 + (row / 4) * 8 + col / 4];
            int ps = (attr >> (((row & 2) << 1) | (col & 2))) & 3;
            const uint8_t *t = chr + (bank_of[y][col] ? 2 : 1) * 4096 + tile * 16 + (y & 7);
            int b = 7 - (x & 7);
            int px = ((t[0] >> b) & 1) | (((t[8] >> b) & 1) << 1);
            const uint8_t *c = nes_palette_rgb + 3 * pal[px ? ps * 4 + px : 0];
            if (memcmp(c, rgb + 3 * (y * 256 + x), 3) && !bad++)
                first = y * 256 + x;
        }
    if (bad)
        t_check(0, name, "%ld of 61440 pixels differ from the independently drawn latch picture (first at x %ld, y %ld)",
                bad, first % 256, first / 256);
    else
        t_check(1, name, "all 61440 pixels equal the independently drawn picture (%d bank switches a frame, inside lines)",
                switches);
    free(rgb);
    free(file);
}

int main(void)
{
    check_rom("mmc2", 0);
    check_rom("mmc4", 1);
    return t_done();
}
