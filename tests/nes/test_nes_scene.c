/* test_nes_scene.c: the PPU scene ROM's picture, drawn independently. The scene is
 * described here as the ROM describes it (tests/roms/nes/ppu_scene.s): nametable and
 * attribute formulas, palette, sprite table, scroll areas (X = 3 to line 31, the sprite 0
 * hit; X = 67 to line 160; then X = 107, Y = 77 in nametable 1); patterns are read from
 * the ROM file. This file computes each pixel with the NES's picture rules written plainly
 * (scrolled background in a 512 x 480 plane with vertical mirroring, first eight 8x16
 * sprites of a line, priority, palette) and compares the result with gpuvet's PNG. */
#include <stdint.h>

#include "emu/nes/nes_int.h"
#include "nes_test.h"

static const uint8_t pal_writes[32] = {
    0x0F, 0x01, 0x11, 0x21, 0x0F, 0x06, 0x16, 0x26, 0x0F, 0x09, 0x19, 0x29, 0x0F, 0x0C, 0x1C, 0x2C,
    0x21, 0x14, 0x24, 0x34, 0x0F, 0x17, 0x27, 0x37, 0x0F, 0x1A, 0x2A, 0x3A, 0x0F, 0x12, 0x22, 0x32,
};
static const uint8_t sprite_table[15][4] = {
    {30, 0xFE, 0x00, 40},
    {120, 0x81, 0x00, 8}, {120, 0x83, 0x01, 32}, {120, 0x85, 0x02, 56}, {120, 0x87, 0x23, 80},
    {120, 0x89, 0x40, 104}, {120, 0x8B, 0x81, 128}, {120, 0x8D, 0xC2, 152}, {120, 0x8F, 0x03, 176},
    {120, 0x91, 0x00, 200}, {120, 0x93, 0x01, 224},
    {180, 0xA0, 0x00, 60}, {180, 0xA2, 0x41, 90}, {186, 0xA5, 0xA2, 95}, {180, 0xA7, 0x23, 250},
};

typedef struct {
    uint8_t nt[2][1024];
    uint8_t pal[32];
    uint8_t oam[256];
    const uint8_t *chr; /* 8 KiB */
} scene;

static void describe(scene *s, const uint8_t *chr)
{
    for (int y = 0; y < 30; y++)
        for (int x = 0; x < 32; x++) {
            s->nt[0][y * 32 + x] = (uint8_t)((x + 3 * y) & 0x7F);
            s->nt[1][y * 32 + x] = (uint8_t)((5 * x + 7 * y + 64) & 0x7F);
        }
    for (int i = 0; i < 64; i++) {
        s->nt[0][960 + i] = (uint8_t)(27 * i);
        s->nt[1][960 + i] = (uint8_t)(45 * i + 7);
    }
    s->nt[0][3 * 32 + 5] = s->nt[0][3 * 32 + 6] = 0x7F;
    /* $3F10, $3F14, $3F18, $3F1C are the same cells as $3F00, $3F04, $3F08, $3F0C */
    for (int i = 0; i < 32; i++) {
        int cell = (i & 0x13) == 0x10 ? i & 0x0F : i;
        s->pal[cell] = pal_writes[i];
    }
    memset(s->oam, 0xFF, sizeof s->oam);
    memcpy(s->oam, sprite_table, sizeof sprite_table);
    s->chr = chr;
}

/* Background palette index (0 transparent) at screen (x, y). */
static int background(const scene *s, int x, int y)
{
    int sx, vy;
    if (y <= 31) {
        sx = 3;
        vy = y;
    } else if (y <= 160) {
        sx = 67;
        vy = y;
    } else {
        sx = 256 + 107;
        vy = 77 + (y - 161);
    }
    int vx = (sx + x) & 511;
    const uint8_t *nt = s->nt[vx >> 8]; /* vertical mirroring: the lower half repeats the upper */
    vy %= 240;
    int col = (vx & 255) >> 3, row = vy >> 3;
    int tile = nt[row * 32 + col];
    int attr = nt[960 + (row / 4) * 8 + col / 4];
    int palsel = (attr >> (((row & 2) << 1) | (col & 2))) & 3;
    int lo = s->chr[tile * 16 + (vy & 7)], hi = s->chr[tile * 16 + (vy & 7) + 8];
    int b = 7 - (vx & 7);
    int px = ((lo >> b) & 1) | (((hi >> b) & 1) << 1);
    return px ? palsel * 4 + px : 0;
}

/* Sprite pixel at (x, y): palette index 16-31 or 0, and whether it is behind. Only the
 * first eight sprites (in OAM order) whose 16 rows cover the line are drawn. */
static int sprite(const scene *s, int x, int y, int *behind)
{
    int found = 0;
    for (int i = 0; i < 64 && found < 8; i++) {
        const uint8_t *o = s->oam + 4 * i;
        int row = y - 1 - o[0];
        if (row < 0 || row >= 16)
            continue;
        found++;
        int col = x - o[3];
        if (col < 0 || col >= 8)
            continue;
        if (o[2] & 0x80)
            row = 15 - row;
        if (o[2] & 0x40)
            col = 7 - col;
        int tile = (o[1] & 0xFE) + (row >= 8), base = (o[1] & 1) * 0x1000 + tile * 16 + (row & 7);
        int b = 7 - col;
        int px = ((s->chr[base] >> b) & 1) | (((s->chr[base + 8] >> b) & 1) << 1);
        if (px) {
            *behind = (o[2] & 0x20) != 0;
            return 16 + (o[2] & 3) * 4 + px;
        }
    }
    return 0;
}

int main(void)
{
    const char *rom = nes_rom("ppu_scene");
    if (!rom)
        return t_done();
    size_t len;
    uint8_t *file = nes_slurp(rom, &len);
    if (!t_check(file && len == 16 + 32768 + 8192, "scene ROM file", "%zu bytes", file ? len : 0))
        return t_done();
    scene s;
    describe(&s, file + 16 + 32768);
    uint8_t *rgb = nes_run_png("scene run", rom, 12);
    if (!rgb)
        return t_done();
    long bad = 0;
    int fx = -1, fy = -1;
    uint8_t got[3] = {0}, want[3] = {0};
    for (int y = 0; y < 240; y++)
        for (int x = 0; x < 256; x++) {
            int behind = 0, bg = background(&s, x, y), sp = sprite(&s, x, y, &behind);
            int ci = (sp && (!bg || !behind)) ? sp : bg;
            const uint8_t *c = nes_palette_rgb + 3 * s.pal[ci];
            if (memcmp(c, rgb + 3 * (y * 256 + x), 3)) {
                if (!bad++) {
                    fx = x;
                    fy = y;
                    memcpy(got, rgb + 3 * (y * 256 + x), 3);
                    memcpy(want, c, 3);
                }
            }
        }
    if (bad)
        t_check(0, "scene picture",
                "%ld of 61440 pixels differ from the independently drawn scene (first at x %d, y %d: "
                "%02x%02x%02x, expected %02x%02x%02x)", bad, fx, fy, got[0], got[1], got[2], want[0], want[1], want[2]);
    else
        t_check(1, "scene picture", "all 61440 pixels of frame 12 equal the independently drawn scene "
                "(3 scroll areas, 8x16 sprites, 8-per-line limit, priority, flips, $3F10 mirror)");
    /* the sprite row at y = 120: ten sprites, only eight drawn */
    int behind;
    t_check(sprite(&s, 200, 125, &behind) == 0 && sprite(&s, 8 + 3, 125, &behind) != 0, "scene oracle",
            "the oracle drops the ninth sprite of a line (a check of this test itself)");
    free(rgb);
    free(file);
    return t_done();
}
