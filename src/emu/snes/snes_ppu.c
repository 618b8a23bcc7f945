/* snes_ppu.c: the SNES PPU (S-PPU1/S-PPU2): its registers ($2100-$213F) and a renderer that
 * draws one whole scanline at a time with the registers as they are at the line's start.
 *
 * Each layer is drawn for the whole line into a small buffer (colour and a 2-bit
 * priority, 0 = transparent) eight pixels at a time from the tile's bit planes (a table
 * spreads each plane byte over eight pixel bytes); then the layer is merged into the main
 * and sub screens by a z value from the mode's priority table (a pixel replaces the one
 * below when its z is higher), through the layer's window mask. Colour math, clipping to
 * black, the fixed colour and the brightness are applied per pixel at the end.
 * Emulated: modes 0-7 (mode 7 with flips, wrap/transparent/tile-0 fill and EXTBG), 8x8 and
 * 16x16 tiles, BG mosaic, sprites of every OBSEL size with the 32-sprite / 34-tile limits and
 * their STAT77 flags, the two windows with their logic, the colour window, colour math
 * (add/subtract/half, sub screen or fixed colour), brightness and forced blank.
 * Not emulated (docs/SNES.md): mid-scanline register changes, hires (modes 5/6 and
 * pseudo-hires draw their even pixels at 256 wide), interlace, offset-per-tile, direct
 * colour, sprite mosaic. */
#include <string.h>

#include "emu/snes/snes_int.h"

/* ---- registers ------------------------------------------------------------------------ */

void snes_ppu_power(snes_ppu *p)
{
    memset(p, 0, sizeof *p);
    p->inidisp = 0x80; /* forced blank */
}

/* The VRAM word address after the address translation of VMAIN bits 2-3. */
static uint16_t vram_addr(const snes_ppu *p)
{
    uint16_t a = p->vmadd;
    switch ((p->vmain >> 2) & 3) {
    case 1: return (uint16_t)((a & 0xFF00) | ((a & 0x001F) << 3) | ((a >> 5) & 7));
    case 2: return (uint16_t)((a & 0xFE00) | ((a & 0x003F) << 3) | ((a >> 6) & 7));
    case 3: return (uint16_t)((a & 0xFC00) | ((a & 0x007F) << 3) | ((a >> 7) & 7));
    default: return a;
    }
}

static void vram_step(snes_ppu *p)
{
    static const uint16_t inc[4] = {1, 32, 128, 128};
    p->vmadd = (uint16_t)(p->vmadd + inc[p->vmain & 3]);
}

static void vram_prefetch(snes_ppu *p)
{
    uint16_t a = (uint16_t)((vram_addr(p) & 0x7FFF) * 2);
    p->vram_buf = (uint16_t)(p->vram[a] | p->vram[a + 1] << 8);
}

/* A BG scroll register written twice (the PPU keeps the previous byte). */
static uint16_t bg_hofs(snes_ppu *p, uint16_t old, uint8_t v)
{
    uint16_t r = (uint16_t)(((v << 8) | (p->ofs_prev & ~7) | ((old >> 8) & 7)) & 0x3FF);
    p->ofs_prev = v;
    return r;
}

static uint16_t bg_vofs(snes_ppu *p, uint8_t v)
{
    uint16_t r = (uint16_t)(((v << 8) | p->ofs_prev) & 0x3FF);
    p->ofs_prev = v;
    return r;
}

/* Mode 7 registers are 13-bit signed (M7X/M7Y/M7HOFS/M7VOFS) or 16-bit, written low then high. */
static int16_t m7_word(snes_ppu *p, uint8_t v)
{
    int16_t r = (int16_t)(v << 8 | p->m7_prev);
    p->m7_prev = v;
    return r;
}

static int16_t sext13(int16_t v)
{
    int x = v & 0x1FFF;
    return (int16_t)(x >= 0x1000 ? x - 0x2000 : x);
}

void snes_ppu_write(snes_ppu *p, uint8_t reg, uint8_t v)
{
    switch (reg) {
    case 0x00: p->inidisp = v; break;
    case 0x01: p->obsel = v; break;
    case 0x02: p->oam_reload = (uint16_t)((p->oam_reload & 0x200) | v << 1); p->oamadd = p->oam_reload; break;
    case 0x03:
        p->oam_reload = (uint16_t)((p->oam_reload & 0x1FE) | (v & 1) << 9);
        p->oam_prio = v & 0x80;
        p->oamadd = p->oam_reload;
        break;
    case 0x04: {
        uint16_t a = p->oamadd & 0x3FF;
        if (a >= 0x200) { /* the high table takes bytes directly */
            p->oam[0x200 + (a & 0x1F)] = v;
        } else if (!(a & 1)) {
            p->oam_latch = v;
        } else {
            p->oam[a - 1] = p->oam_latch;
            p->oam[a] = v;
        }
        p->oamadd = (uint16_t)((a + 1) & 0x3FF);
        break;
    }
    case 0x05: p->bgmode = v; break;
    case 0x06: p->mosaic = v; break;
    case 0x07: case 0x08: case 0x09: case 0x0A: p->bgsc[reg - 0x07] = v; break;
    case 0x0B: case 0x0C: p->bgnba[reg - 0x0B] = v; break;
    case 0x0D:
        p->m7hofs = sext13(m7_word(p, v));
        p->hofs[0] = bg_hofs(p, p->hofs[0], v);
        break;
    case 0x0E:
        p->m7vofs = sext13(m7_word(p, v));
        p->vofs[0] = bg_vofs(p, v);
        break;
    case 0x0F: case 0x11: case 0x13: p->hofs[(reg - 0x0D) >> 1] = bg_hofs(p, p->hofs[(reg - 0x0D) >> 1], v); break;
    case 0x10: case 0x12: case 0x14: p->vofs[(reg - 0x0E) >> 1] = bg_vofs(p, v); break;
    case 0x15: p->vmain = v; break;
    case 0x16: p->vmadd = (uint16_t)((p->vmadd & 0xFF00) | v); vram_prefetch(p); break;
    case 0x17: p->vmadd = (uint16_t)((p->vmadd & 0x00FF) | v << 8); vram_prefetch(p); break;
    case 0x18:
    case 0x19: {
        uint16_t a = (uint16_t)((vram_addr(p) & 0x7FFF) * 2 + (reg & 1));
        p->vram[a] = v;
        if ((reg == 0x19) == ((p->vmain & 0x80) != 0))
            vram_step(p);
        break;
    }
    case 0x1A: p->m7sel = v; break;
    case 0x1B: p->m7a = m7_word(p, v); break;
    case 0x1C: p->m7b = m7_word(p, v); break;
    case 0x1D: p->m7c = m7_word(p, v); break;
    case 0x1E: p->m7d = m7_word(p, v); break;
    case 0x1F: p->m7x = sext13(m7_word(p, v)); break;
    case 0x20: p->m7y = sext13(m7_word(p, v)); break;
    case 0x21: p->cgadd = v; p->cg_hi = 0; break;
    case 0x22:
        if (!p->cg_hi) {
            p->cg_latch = v;
        } else {
            p->cgram[p->cgadd] = (uint16_t)((p->cg_latch | v << 8) & 0x7FFF);
            p->cgadd++;
        }
        p->cg_hi ^= 1;
        break;
    case 0x23: case 0x24: case 0x25: p->wsel[reg - 0x23] = v; break;
    case 0x26: case 0x27: case 0x28: case 0x29: p->wpos[reg - 0x26] = v; break;
    case 0x2A: p->wbglog = v; break;
    case 0x2B: p->wobjlog = v; break;
    case 0x2C: p->tm = v; break;
    case 0x2D: p->ts = v; break;
    case 0x2E: p->tmw = v; break;
    case 0x2F: p->tsw = v; break;
    case 0x30: p->cgwsel = v; break;
    case 0x31: p->cgadsub = v; break;
    case 0x32: {
        uint16_t c = v & 0x1F;
        if (v & 0x20) p->fixed = (uint16_t)((p->fixed & ~0x001F) | c);
        if (v & 0x40) p->fixed = (uint16_t)((p->fixed & ~0x03E0) | c << 5);
        if (v & 0x80) p->fixed = (uint16_t)((p->fixed & ~0x7C00) | c << 10);
        break;
    }
    case 0x33: p->setini = v; break;
    default: break;
    }
}

void snes_ppu_latch_counters(snes *m)
{
    snes_ppu *p = &m->s.ppu;
    uint64_t d = m->cpu.s.clock - m->s.frame_start;
    p->vlatch = (uint16_t)((d / SNES_LINE_CLOCKS) % SNES_LINES);
    p->hlatch = (uint16_t)((d % SNES_LINE_CLOCKS) >> 2);
    p->latched = 1;
}

uint8_t snes_ppu_read_mem(snes_ppu *p, uint8_t reg)
{
    uint8_t v;
    switch (reg) {
    case 0x38: {
        uint16_t a = p->oamadd & 0x3FF;
        v = p->oam[a >= 0x200 ? 0x200 + (a & 0x1F) : a];
        p->oamadd = (uint16_t)((a + 1) & 0x3FF);
        return p->mdr1 = v;
    }
    case 0x39: case 0x3A:
        v = (uint8_t)(reg == 0x39 ? p->vram_buf : p->vram_buf >> 8);
        if ((reg == 0x3A) == ((p->vmain & 0x80) != 0)) {
            vram_prefetch(p);
            vram_step(p);
        }
        return p->mdr1 = v;
    default:
        v = (uint8_t)(p->cg_hi ? (p->cgram[p->cgadd] >> 8) | (p->mdr2 & 0x80) : p->cgram[p->cgadd]);
        if (p->cg_hi)
            p->cgadd++;
        p->cg_hi ^= 1;
        return p->mdr2 = v;
    }
}

uint8_t snes_ppu_read(snes *m, uint8_t reg)
{
    snes_ppu *p = &m->s.ppu;
    uint8_t v;
    switch (reg) {
    case 0x34: case 0x35: case 0x36: {
        int32_t r = (int32_t)p->m7a * (int8_t)(p->m7b >> 8);
        return p->mdr1 = (uint8_t)(r >> (8 * (reg - 0x34)));
    }
    case 0x37:
        if (m->s.wrio & 0x80)
            snes_ppu_latch_counters(m);
        return snes_cpu_open_bus(&m->cpu);
    case 0x38: case 0x39: case 0x3A: case 0x3B:
        return snes_ppu_read_mem(p, reg);
    case 0x3C:
        v = (uint8_t)(p->hl_hi ? (p->hlatch >> 8 & 1) | (p->mdr2 & 0xFE) : p->hlatch);
        p->hl_hi ^= 1;
        return p->mdr2 = v;
    case 0x3D:
        v = (uint8_t)(p->vl_hi ? (p->vlatch >> 8 & 1) | (p->mdr2 & 0xFE) : p->vlatch);
        p->vl_hi ^= 1;
        return p->mdr2 = v;
    case 0x3E: return p->mdr1 = (uint8_t)(p->stat_flags | (p->mdr1 & 0x10) | 0x01);
    case 0x3F:
        v = (uint8_t)((p->latched << 6) | (p->mdr2 & 0x20) | 0x03);
        if (m->s.wrio & 0x80)
            p->latched = 0;
        p->hl_hi = p->vl_hi = 0;
        return p->mdr2 = v;
    default: return p->mdr1;
    }
}

/* ---- the scanline renderer ------------------------------------------------------------ */

enum { L_BG1, L_BG2, L_BG3, L_BG4, L_OBJ, L_BACK };

/* A layer's pixels on one line: colour and priority+1 (0: transparent); for sprites also
 * whether colour math may apply (palettes 4-7). */
typedef struct {
    uint8_t idx[256 + 16];     /* CGRAM index */
    uint8_t pri[256 + 16];
    uint8_t math[256];
} layer_buf;

/* z of each layer and priority in each mode (higher is in front; 0 = not shown). Index:
 * [mode][layer*4 + priority] (BG priorities 0-1, sprites 0-3). Mode 1 with BG3 priority
 * set uses row 8. From the PPU's priority lists (e.g. mode 1: S3 1H 2H S2 1L 2L S1 3H S0 3L). */
static const uint8_t ztab[10][20] = {
    /* BG1     BG2     BG3     BG4     OBJ */
    {8, 11, 0, 0, 7, 10, 0, 0, 2, 5, 0, 0, 1, 4, 0, 0, 3, 6, 9, 12},   /* mode 0 */
    {6, 9, 0, 0, 5, 8, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 2, 4, 7, 10},     /* mode 1 */
    {3, 7, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 6, 8},      /* mode 2 */
    {3, 7, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 6, 8},      /* mode 3 */
    {3, 7, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 6, 8},      /* mode 4 */
    {3, 7, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 6, 8},      /* mode 5 */
    {2, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 4, 6},      /* mode 6 */
    {3, 3, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 6, 7},      /* mode 7 (BG2: EXTBG) */
    {5, 8, 0, 0, 4, 7, 0, 0, 1, 10, 0, 0, 0, 0, 0, 0, 2, 3, 6, 9},     /* mode 1, BG3 in front */
};

/* Bits per pixel of BG1-BG4 in modes 0-6 (0: no such layer). */
static const uint8_t bpp_tab[8][4] = {
    {2, 2, 2, 2}, {4, 4, 2, 0}, {4, 4, 0, 0}, {8, 4, 0, 0}, {8, 2, 0, 0}, {4, 2, 0, 0}, {4, 0, 0, 0}, {8, 0, 0, 0},
};

/* spread[b]: bit 7-i of b in byte i (pixel i of a plane byte, leftmost first). */
static uint64_t spread[256];
static int spread_ready;

static void spread_init(void)
{
    for (int b = 0; b < 256; b++) {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            if (b & (0x80 >> i))
                v |= 1ull << (8 * i);
        spread[b] = v;
    }
    __atomic_store_n(&spread_ready, 1, __ATOMIC_RELEASE);
}

/* Eight pixels of a tile row (bpp planes at word address a) in bytes, leftmost first. */
static inline uint64_t tile_row(const uint8_t *vram, uint32_t a, int bpp)
{
    const uint8_t *w = vram + ((a & 0x7FFF) << 1);
    uint64_t v = spread[w[0]] | spread[w[1]] << 1;
    if (bpp >= 4) {
        const uint8_t *w2 = vram + (((a + 8) & 0x7FFF) << 1);
        v |= spread[w2[0]] << 2 | spread[w2[1]] << 3;
    }
    if (bpp == 8) {
        const uint8_t *w3 = vram + (((a + 16) & 0x7FFF) << 1), *w4 = vram + (((a + 24) & 0x7FFF) << 1);
        v |= spread[w3[0]] << 4 | spread[w3[1]] << 5 | spread[w4[0]] << 6 | spread[w4[1]] << 7;
    }
    return v;
}

/* One background of modes 0-6 on screen line `line` into lb. */
static void draw_bg(const snes_ppu *p, int bg, int mode, int line, layer_buf *lb)
{
    int bpp = bpp_tab[mode][bg];
    int big = (p->bgmode >> (4 + bg)) & 1, tsh = big ? 4 : 3, tmask = big ? 15 : 7;
    uint8_t sc = p->bgsc[bg];
    uint32_t mapbase = (uint32_t)(sc & 0xFC) << 8;
    uint32_t chrbase = (uint32_t)((p->bgnba[bg >> 1] >> ((bg & 1) * 4)) & 15) << 12;
    int mos = (p->mosaic & (1 << bg)) ? (p->mosaic >> 4) + 1 : 1;
    int y = mos > 1 ? line - (line - 1) % mos : line;
    uint32_t gy = (uint32_t)(y + p->vofs[bg]) & 0x3FF;
    uint32_t hofs = p->hofs[bg];
    uint16_t palbase = mode == 0 ? (uint16_t)(bg * 32) : 0;
    int palsh = bpp == 2 ? 2 : bpp == 4 ? 4 : 0;
    uint32_t ty = gy >> tsh;
    uint32_t rowbase = mapbase + ((ty & 31) << 5) + ((ty & 32) && (sc & 2) ? (sc & 1 ? 0x800 : 0x400) : 0);
    for (int sx = -(int)(hofs & 7); sx < 256; sx += 8) {
        uint32_t gx = (hofs + (uint32_t)sx) & 0x3FF;
        uint32_t tx = gx >> tsh;
        uint32_t ma = (rowbase + (tx & 31) + ((tx & 32) && (sc & 1) ? 0x400 : 0)) & 0x7FFF;
        uint16_t e = (uint16_t)(p->vram[ma * 2] | p->vram[ma * 2 + 1] << 8);
        uint32_t ry = gy & tmask;
        if (e & 0x8000)
            ry = tmask - ry;
        uint32_t tile = e & 0x3FF;
        if (big) {
            uint32_t half = ((gx >> 3) & 1) ^ ((e >> 14) & 1);
            tile += (ry >> 3) * 16 + half;
        }
        uint64_t px = tile_row(p->vram, chrbase + tile * (uint32_t)(bpp * 4) + (ry & 7), bpp);
        if (e & 0x4000)
            px = __builtin_bswap64(px);
        /* all eight pixels at once (the layer's tiles do not overlap): 1 in each byte that
         * is opaque, then index = palette + colour (never carries: at most 255) */
        uint64_t t = px | px >> 4;
        t |= t >> 2;
        t = (t | t >> 1) & 0x0101010101010101ull;
        uint64_t pri = t * (uint64_t)(((e >> 13) & 1) + 1);
        uint64_t pal = (uint64_t)(palbase + (bpp == 8 ? 0 : ((e >> 10) & 7) << palsh));
        uint64_t idx = (px + pal * 0x0101010101010101ull) & (t * 0xFF);
        int x = sx + 8; /* buffers start 8 pixels left of the screen */
        memcpy(lb->idx + x, &idx, 8);
        memcpy(lb->pri + x, &pri, 8);
    }
    if (mos > 1) /* horizontal mosaic: each block repeats its left pixel */
        for (int x = 0; x < 256; x++) {
            int s = x - x % mos;
            lb->idx[x + 8] = lb->idx[s + 8];
            lb->pri[x + 8] = lb->pri[s + 8];
        }
}

/* Mode 7's BG1 (and BG2 with EXTBG) on screen line `line`. */
static void draw_m7(const snes_ppu *p, int line, layer_buf *b1, layer_buf *b2)
{
    int mos = (p->mosaic & 1) ? (p->mosaic >> 4) + 1 : 1;
    int y = mos > 1 ? line - (line - 1) % mos : line;
    int32_t a = p->m7a, b = p->m7b, c = p->m7c, d = p->m7d;
    int32_t cx = p->m7x, cy = p->m7y;
    int32_t hs = p->m7hofs - cx, vs = p->m7vofs - cy;
    hs = (hs & 0x2000) ? (hs | ~0x3FF) : (hs & 0x3FF);
    vs = (vs & 0x2000) ? (vs | ~0x3FF) : (vs & 0x3FF);
    int yy = (p->m7sel & 2) ? 255 - y : y;
    int32_t tx = ((a * hs) & ~63) + ((b * vs) & ~63) + ((b * yy) & ~63) + cx * 256;
    int32_t ty = ((c * hs) & ~63) + ((d * vs) & ~63) + ((d * yy) & ~63) + cy * 256;
    int fill = p->m7sel >> 6;
    for (int x = 0; x < 256; x++) {
        int xx = (p->m7sel & 1) ? 255 - x : x;
        if (mos > 1)
            xx -= xx % mos;
        int32_t X = (tx + a * xx) >> 8, Y = (ty + c * xx) >> 8;
        uint8_t pix;
        if ((X | Y) & ~0x3FF) {
            if (fill == 2)
                continue;
            if (fill == 3) {
                pix = p->vram[(((Y & 7) << 3) | (X & 7)) * 2 + 1];
                goto have;
            }
        }
        {
            uint8_t tile = p->vram[((((uint32_t)Y >> 3) & 127) * 128 + (((uint32_t)X >> 3) & 127)) * 2];
            pix = p->vram[(((uint32_t)tile << 6) | ((Y & 7) << 3) | (X & 7)) * 2 + 1];
        }
    have:
        if (pix) {
            b1->idx[x + 8] = pix;
            b1->pri[x + 8] = 1;
        }
        if (b2 && (pix & 0x7F)) {
            b2->idx[x + 8] = pix & 0x7F;
            b2->pri[x + 8] = (uint8_t)((pix >> 7) + 1);
        }
    }
}

/* Sprite i's size, x (-256 to 255) and row on screen line `line` (>= h: not on it). */
typedef struct {
    int w, h, x, row;
} obj_geom;

static obj_geom obj_at(const snes_ppu *p, int i, int line)
{
    static const uint8_t sw[8][2] = {{8, 16}, {8, 32}, {8, 64}, {16, 32}, {16, 64}, {32, 64}, {16, 32}, {16, 32}};
    static const uint8_t sh[8][2] = {{8, 16}, {8, 32}, {8, 64}, {16, 32}, {16, 64}, {32, 64}, {32, 64}, {32, 32}};
    int sz = p->obsel >> 5;
    uint8_t hi = (uint8_t)(p->oam[0x200 + (i >> 2)] >> ((i & 3) * 2));
    int big = (hi >> 1) & 1;
    obj_geom g = {sw[sz][big], sh[sz][big], p->oam[i * 4] | (hi & 1) << 8, (line - 1 - p->oam[i * 4 + 1]) & 0xFF};
    if (g.x >= 256)
        g.x -= 512;
    return g;
}

/* Sprites on screen line `line` into lb (pri = OBJ priority + 1; lb NULL: only the
 * evaluation); sets the STAT77 range-over and time-over flags. */
static void draw_obj(snes_ppu *p, int line, layer_buf *lb)
{
    uint32_t base = (uint32_t)(p->obsel & 7) << 13, gap = (uint32_t)(((p->obsel >> 3) & 3) + 1) << 12;
    int first = p->oam_prio ? (p->oam_reload >> 2) & 0x7F : 0;
    static const uint8_t tallest[8] = {16, 32, 64, 32, 64, 64, 64, 32};
    int hmax = tallest[p->obsel >> 5];
    uint8_t list[32];
    int n = 0;
    for (int k = 0; k < 128; k++) {
        int i = (first + k) & 127;
        if (((line - 1 - p->oam[i * 4 + 1]) & 0xFF) >= hmax)
            continue; /* below the tallest size: not on this line */
        obj_geom g = obj_at(p, i, line);
        if (g.row >= g.h || g.x <= -g.w)
            continue;
        if (n == 32) {
            p->stat_flags |= 0x40;
            break;
        }
        list[n++] = (uint8_t)i;
    }
    int tiles = 0;
    if (!lb) { /* count the tiles in range as the time-over check does */
        for (int k = 0; k < n; k++) {
            obj_geom g = obj_at(p, list[k], line);
            for (int sx = g.x; sx < g.x + g.w; sx += 8)
                tiles += sx > -8 && sx < 256;
        }
        if (tiles > 34)
            p->stat_flags |= 0x80;
        return;
    }
    uint8_t *taken = lb->math; /* reused: 1 where a sprite pixel was drawn (earlier sprites win) */
    for (int k = 0; k < n; k++) {
        int i = list[k];
        const uint8_t *o = p->oam + i * 4;
        obj_geom g = obj_at(p, i, line);
        int w = g.w, h = g.h, x = g.x, row = g.row;
        uint8_t attr = o[3];
        if (attr & 0x80)
            row = h - 1 - row;
        uint8_t pri = (uint8_t)(((attr >> 4) & 3) + 1);
        uint16_t pal = (uint16_t)(128 + ((attr >> 1) & 7) * 16);
        uint8_t math = (attr & 8) ? 1 : 0; /* palettes 4-7 */
        int cols = w >> 3;
        for (int cidx = 0; cidx < cols; cidx++) {
            int sx = x + cidx * 8;
            if (sx <= -8 || sx >= 256)
                continue;
            if (++tiles > 34) {
                p->stat_flags |= 0x80;
                break;
            }
            int col = (attr & 0x40) ? cols - 1 - cidx : cidx;
            uint32_t tn = (((uint32_t)(o[2] >> 4) + (uint32_t)(row >> 3)) & 15) << 4 | ((uint32_t)(o[2] + col) & 15);
            uint32_t a = base + ((attr & 1) ? gap : 0) + tn * 16 + (uint32_t)(row & 7);
            uint64_t px = tile_row(p->vram, a, 4);
            if (attr & 0x40)
                px = __builtin_bswap64(px);
            for (int q = 0; q < 8; q++, px >>= 8) {
                int X = sx + q;
                uint8_t c = (uint8_t)px;
                if (!c || X < 0 || X >= 256 || taken[X])
                    continue;
                taken[X] = (uint8_t)(1 + math);
                lb->idx[X + 8] = (uint8_t)(pal + c);
                lb->pri[X + 8] = pri;
            }
        }
        if (tiles > 34)
            break;
    }
}

void snes_ppu_obj_flags(snes_ppu *p, int y)
{
    draw_obj(p, y + 1, NULL);
}

/* The two windows on one line: w1[x], w2[x] = 1 inside window 1, 2. */
static void window_base(const snes_ppu *p, uint8_t *w1, uint8_t *w2)
{
    memset(w1, 0, 256);
    memset(w2, 0, 256);
    if (p->wpos[0] <= p->wpos[1])
        memset(w1 + p->wpos[0], 1, (size_t)(p->wpos[1] - p->wpos[0] + 1));
    if (p->wpos[2] <= p->wpos[3])
        memset(w2 + p->wpos[2], 1, (size_t)(p->wpos[3] - p->wpos[2] + 1));
}

/* The window mask of a layer (wsel nibble, 2-bit logic) into w[256] (1 = masked) from the
 * two windows; 0 when the layer has no window enabled (w untouched). */
static int window_mask(uint8_t sel, uint8_t logic, const uint8_t *w1, const uint8_t *w2, uint8_t *w)
{
    int e1 = sel & 2, e2 = sel & 8;
    if (!e1 && !e2)
        return 0;
    uint8_t i1 = sel & 1, i2 = (sel >> 2) & 1;
    if (!e2) {
        for (int x = 0; x < 256; x++)
            w[x] = w1[x] ^ i1;
    } else if (!e1) {
        for (int x = 0; x < 256; x++)
            w[x] = w2[x] ^ i2;
    } else {
        switch (logic & 3) {
        case 0: for (int x = 0; x < 256; x++) w[x] = (w1[x] ^ i1) | (w2[x] ^ i2); break;
        case 1: for (int x = 0; x < 256; x++) w[x] = (w1[x] ^ i1) & (w2[x] ^ i2); break;
        case 2: for (int x = 0; x < 256; x++) w[x] = (w1[x] ^ i1) ^ (w2[x] ^ i2); break;
        default: for (int x = 0; x < 256; x++) w[x] = (w1[x] ^ i1 ^ w2[x] ^ i2) ^ 1; break;
        }
    }
    return 1;
}

/* Merges a layer's pixels into a screen (colour, z, layer) where its z is higher and the
 * window (or NULL) does not mask it. */
static void merge(const uint8_t *col, const uint8_t *pri, const uint8_t *zl, const uint8_t *win, int l,
                  uint8_t *sc, uint8_t *sz, uint8_t *sl)
{
    for (int x = 0; x < 256; x++) {
        uint8_t pr = pri[x];
        if (!pr || (win && win[x]))
            continue;
        uint8_t zz = zl[pr - 1];
        if (zz > sz[x])
            sz[x] = zz, sc[x] = col[x], sl[x] = (uint8_t)l;
    }
}

/* A BGR555 colour plus or minus another, halved when asked. */
static inline uint16_t color_math(uint16_t a, uint16_t b, int sub, int half)
{
    int r = a & 31, g = (a >> 5) & 31, bl = a >> 10;
    int r2 = b & 31, g2 = (b >> 5) & 31, b2 = b >> 10;
    if (sub) {
        r -= r2, g -= g2, bl -= b2;
        if (half)
            r >>= 1, g >>= 1, bl >>= 1;
        r = r < 0 ? 0 : r, g = g < 0 ? 0 : g, bl = bl < 0 ? 0 : bl;
    } else {
        r += r2, g += g2, bl += b2;
        if (half)
            r >>= 1, g >>= 1, bl >>= 1;
        r = r > 31 ? 31 : r, g = g > 31 ? 31 : g, bl = bl > 31 ? 31 : bl;
    }
    return (uint16_t)(r | g << 5 | bl << 10);
}

void snes_ppu_draw_line(snes_ppu *p, int y, uint8_t *out)
{
    int line = y + 1;
    if (!__atomic_load_n(&spread_ready, __ATOMIC_ACQUIRE))
        spread_init();
    layer_buf lb[5];
    /* sprites are evaluated every line (the STAT77 flags) even when not shown */
    int mode = p->bgmode & 7;
    const uint8_t *z = ztab[mode == 1 && (p->bgmode & 8) ? 8 : mode];
    uint8_t used = (uint8_t)(p->tm | p->ts);
    memset(lb[L_OBJ].pri, 0, sizeof lb[L_OBJ].pri);
    memset(lb[L_OBJ].math, 0, sizeof lb[L_OBJ].math);
    draw_obj(p, line, &lb[L_OBJ]);
    if (p->inidisp & 0x80) { /* forced blank: black */
        memset(out, 0, SNES_W * 3);
        return;
    }
    int have[5] = {0, 0, 0, 0, 1};
    if (mode == 7) {
        int ext = (p->setini & 0x40) && (used & 2);
        memset(lb[L_BG1].pri, 0, sizeof lb[L_BG1].pri);
        if (ext)
            memset(lb[L_BG2].pri, 0, sizeof lb[L_BG2].pri);
        if (used & 3) {
            draw_m7(p, line, &lb[L_BG1], ext ? &lb[L_BG2] : NULL);
            have[0] = 1, have[1] = ext;
        }
    } else {
        for (int bg = 0; bg < 4; bg++) {
            if (!bpp_tab[mode][bg] || !(used & (1 << bg)))
                continue;
            memset(lb[bg].pri, 0, sizeof lb[bg].pri);
            draw_bg(p, bg, mode, line, &lb[bg]);
            have[bg] = 1;
        }
    }
    /* merge into main and sub screens */
    uint8_t mc[256], sc[256]; /* CGRAM indexes (the sub screen's backdrop is the fixed colour) */
    uint8_t mz[256], szb[256], ml[256], sl[256];
    uint8_t w1[256], w2[256], win[256];
    int have_base = 0;
    memset(mc, 0, sizeof mc);
    memset(sc, 0, sizeof sc);
    memset(mz, 0, sizeof mz);
    memset(szb, 0, sizeof szb);
    memset(ml, L_BACK, sizeof ml);
    memset(sl, L_BACK, sizeof sl);
    static const uint8_t wsel_reg[5] = {0, 0, 1, 1, 2}, wsel_sh[5] = {0, 4, 0, 4, 0};
    for (int l = 0; l < 5; l++) {
        uint8_t bit = (uint8_t)(1 << l);
        int onm = p->tm & bit, ons = p->ts & bit;
        if (!have[l] || (!onm && !ons))
            continue;
        int hasw = 0;
        if ((p->tmw | p->tsw) & bit) {
            uint8_t sel = (uint8_t)((p->wsel[wsel_reg[l]] >> wsel_sh[l]) & 15);
            uint8_t logic = (uint8_t)(l < 4 ? (p->wbglog >> (2 * l)) & 3 : p->wobjlog & 3);
            if (sel & 0xA) {
                if (!have_base)
                    window_base(p, w1, w2), have_base = 1;
                hasw = window_mask(sel, logic, w1, w2, win);
            }
        }
        const uint8_t *zl = z + l * 4;
        if (onm)
            merge(lb[l].idx + 8, lb[l].pri + 8, zl, hasw && (p->tmw & bit) ? win : NULL, l, mc, mz, ml);
        if (ons)
            merge(lb[l].idx + 8, lb[l].pri + 8, zl, hasw && (p->tsw & bit) ? win : NULL, l, sc, szb, sl);
    }
    /* colour math and the colour window */
    uint8_t cw[256];
    int hascw = 0;
    if (p->wsel[2] & 0xA0) {
        if (!have_base)
            window_base(p, w1, w2);
        hascw = window_mask((uint8_t)(p->wsel[2] >> 4), (uint8_t)((p->wobjlog >> 2) & 3), w1, w2, cw);
    }
    if (!hascw)
        memset(cw, 0, sizeof cw);
    int clip = (p->cgwsel >> 6) & 3, prevent = (p->cgwsel >> 4) & 3;
    /* by whether the pixel is inside the colour window: clipped to black, math allowed */
    const uint8_t black_in[2] = {(uint8_t)(clip == 3 || clip == 1), (uint8_t)(clip == 3 || clip == 2)};
    const uint8_t allow_in[2] = {(uint8_t)(prevent == 0 || prevent == 2), (uint8_t)(prevent == 0 || prevent == 1)};
    int use_sub = p->cgwsel & 2, sub = p->cgadsub & 0x80, half = p->cgadsub & 0x40;
    uint8_t mathl = p->cgadsub & 0x3F;
    const uint8_t *objmath = lb[L_OBJ].math;
    uint8_t bright = p->inidisp & 15;
    uint8_t lut[32];
    for (int i = 0; i < 32; i++)
        lut[i] = (uint8_t)(((i << 3) | (i >> 2)) * bright / 15);
    for (int x = 0; x < 256; x++) {
        uint16_t c = p->cgram[mc[x]];
        int inw = cw[x], black = black_in[inw];
        if (black)
            c = 0;
        int l = ml[x];
        if (((mathl >> l) & 1) && allow_in[inw] && (l != L_OBJ || objmath[x] == 2)) {
            uint16_t other = use_sub && sl[x] != L_BACK ? p->cgram[sc[x]] : p->fixed;
            int h = half && !black && !(use_sub && sl[x] == L_BACK);
            c = color_math(c, other, sub, h);
        }
        out[3 * x] = lut[c & 31];
        out[3 * x + 1] = lut[(c >> 5) & 31];
        out[3 * x + 2] = lut[c >> 10];
    }
}

void snes_log_render(const snes_vlog *lg, snes_ppu *w, uint8_t *rgb)
{
    *w = lg->start;
    size_t k = 0;
    for (int y = 0; y < SNES_H; y++) {
        for (; k < lg->n && (lg->ev[k] >> 16) <= (uint32_t)y; k++) {
            uint8_t code = (uint8_t)(lg->ev[k] >> 8), v = (uint8_t)lg->ev[k];
            if (code == SNES_EV_OAM_RELOAD)
                w->oamadd = w->oam_reload;
            else if (code & SNES_EV_READ)
                snes_ppu_read_mem(w, code & 0x7F);
            else
                snes_ppu_write(w, code, v);
        }
        snes_ppu_draw_line(w, y, rgb + (size_t)y * SNES_W * 3);
    }
}
