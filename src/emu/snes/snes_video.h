/* snes_video.h: the SNES picture rules, written once for the three video renderers: the
 * native one inside the core (snes_ppu.c, each line at its start), the host one (threads
 * over the packed frame log, snes_console.c) and the device one (snes_gpu.cu). Plain C,
 * static inline; under nvcc or hipcc the functions are __host__ __device__.
 *
 * A line is drawn from a register snapshot (snes_vregs) and the three memories (VRAM,
 * CGRAM, OAM) as they are at its start. The frame log (snes_vpacked) gives each line its
 * snapshot, and the memories as a list of byte writes in segments stamped with the number
 * of lines drawn before them: line y sees the memories at the frame's start plus every
 * segment whose stamp is <= y. So the lines between two stamps can be drawn in any order,
 * by any thread, from one copy of the memories (snes_render_frame). A register write inside
 * a line (snes_vmid) redraws the line from its pixel on. */
#ifndef GV_EMU_SNES_SNES_VIDEO_H
#define GV_EMU_SNES_SNES_VIDEO_H

#include <stdint.h>
#include <string.h>

#include "dev/gpu_common.h" /* GV_HD, GV_ALWAYS_INLINE, GV_BARRIER */

/* Frame sizes (docs/SNES.md, "Frame sizes"): a frame is 256 wide, or 512 when any of its
 * lines is hi-res (modes 5 and 6, pseudo-hires; its lo-res lines doubled); it has 224 lines,
 * or 239 with overscan (SETINI bit 2 at the frame's start), twice that with interlace (SETINI
 * bit 0 at the frame's start: both fields drawn, field 0's line y in row 2y, field 1's in row
 * 2y + 1). The rows lie back to back at the frame's width. */
#define SNES_VW 256       /* a lo-res line */
#define SNES_VW_MAX 512   /* a hi-res frame */
#define SNES_VH_STD 224   /* picture lines 0-223: screen lines 1-224 */
#define SNES_VH 239       /* picture lines with overscan: screen lines 1-239 */
#define SNES_VH_MAX (2 * SNES_VH)
#define SNES_FB_BYTES (SNES_VW_MAX * SNES_VH_MAX * 3) /* room for the largest frame */

/* A line is hi-res: BG mode 5 or 6, or pseudo-hires (SETINI bit 3). */
GV_HD static inline int snes_hires(uint8_t bgmode, uint8_t setini)
{
    int mode = bgmode & 7;
    return mode == 5 || mode == 6 || (setini & 8);
}

/* A frame's width and height in pixels from its picture lines (224 or 239), whether any line
 * is hi-res, and interlace. */
GV_HD static inline void snes_frame_dims(int lines, int wide, int il, int *w, int *h)
{
    *w = wide ? SNES_VW_MAX : SNES_VW;
    *h = il ? 2 * lines : lines;
}

/* The registers a line is drawn with (64 bytes). */
typedef struct {
    int16_t m7a, m7b, m7c, m7d, m7x, m7y, m7hofs, m7vofs;
    uint16_t hofs[4], vofs[4];
    uint16_t fixed;        /* COLDATA as BGR555 */
    uint16_t oam_reload;   /* the OAM address $2102/3 set (first sprite with oam_prio) */
    uint8_t inidisp, obsel, bgmode, mosaic;
    uint8_t bgsc[4], bgnba[2], m7sel, oam_prio;
    uint8_t wsel[3], wbglog, wpos[4];
    uint8_t wobjlog, tm, ts, tmw, tsw, cgwsel, cgadsub, setini;
} snes_vregs;

/* The video memories as one byte space (a memory write's address is an offset in it). */
typedef struct {
    uint8_t vram[65536];
    uint16_t cgram[256];   /* BGR555, little-endian bytes */
    uint8_t oam[544];
} snes_vmem;
enum { SNES_VM_VRAM = 0, SNES_VM_CGRAM = 65536, SNES_VM_OAM = 65536 + 512, SNES_VM_BYTES = 65536 + 512 + 544 };

/* A memory write: address (17 bits) | value << 17. */
#define SNES_MW(addr, v) ((uint32_t)(addr) | (uint32_t)(v) << 17)

/* A segment of memory writes: made after `stamp` lines were drawn; writes [first, next
 * segment's first). */
typedef struct {
    uint16_t stamp, pad;
    uint32_t first;
} snes_vseg;

/* A register write inside a picture line (docs/SNES.md, "Mid-line writes"): from pixel x
 * (dot x + 22) on, line y is drawn with the registers r (the sprites' kept from the line's
 * start: OBJ is fetched per line) and CGRAM as it is after the frame log's writes
 * [wstart, wend) that hit it (those made in the line so far; VRAM and OAM stay as at the
 * line's start). A line's changes lie in order of x, the frame's in order of y. */
typedef struct {
    snes_vregs r;
    uint16_t x, y;
    uint32_t wstart, wend, pad;
} snes_vmid;

/* The packed frame log (8-byte aligned): this header, then nregs snes_vregs, nsegs
 * snes_vseg, nwrites uint32 writes, nmid snes_vmid, and with `snapshot` the memories at the
 * frame's start (a snes_vmem; otherwise the renderer's copy from the previous frame is
 * current). */
typedef struct {
    uint32_t bytes, nwrites;
    uint16_t nregs, nsegs;
    uint32_t snapshot;
    uint32_t off_regs, off_segs, off_writes, off_snap;
    uint32_t nmid, off_mid;
    uint8_t lines, wide, il, pad; /* the frame's picture lines (224, 239), hi-res, interlace */
    uint8_t line_reg[SNES_VH]; /* the snapshot of each line */
} snes_vpacked;

#define SNES_ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* ---- the line renderer ---------------------------------------------------------------- */

enum { SNES_L_BG1, SNES_L_BG2, SNES_L_BG3, SNES_L_BG4, SNES_L_OBJ, SNES_L_BACK };

/* A layer's pixels on one line: CGRAM index and priority+1 (0: transparent), 8 pixels of
 * margin on the left; for sprites also whether colour math may apply (palettes 4-7); for a
 * 256-colour BG with direct colour, its tiles' palette bits (the colour's low bits). */
typedef struct {
    uint8_t idx[256 + 16];
    uint8_t pri[256 + 16];
    uint8_t math[256];
} snes_layer_buf;

/* spread(b): bit 7-i of b in byte i (pixel i of a plane byte, leftmost first). */
#define SNES_SPREAD(b) \
    (((((uint64_t)(b) * 0x0101010101010101ull) & 0x0102040810204080ull) + 0x7F7F7F7F7F7F7F7Full) >> 7 & \
     0x0101010101010101ull)

#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define SNES_S4(b) SNES_SPREAD(b), SNES_SPREAD((b) + 1), SNES_SPREAD((b) + 2), SNES_SPREAD((b) + 3)
#define SNES_S16(b) SNES_S4(b), SNES_S4((b) + 4), SNES_S4((b) + 8), SNES_S4((b) + 12)
#define SNES_S64(b) SNES_S16(b), SNES_S16((b) + 16), SNES_S16((b) + 32), SNES_S16((b) + 48)
/* On the host a table (one load); on the device the arithmetic (no divergent loads). */
static const uint64_t snes_spread_tab[256] = {SNES_S64(0), SNES_S64(64), SNES_S64(128), SNES_S64(192)};
#define SNES_SPREAD_B(b) snes_spread_tab[b]
#else
#define SNES_SPREAD_B(b) SNES_SPREAD(b)
#endif

GV_HD static inline uint64_t snes_bswap64(uint64_t v)
{
    v = (v >> 32) | (v << 32);
    v = ((v & 0xFFFF0000FFFF0000ull) >> 16) | ((v & 0x0000FFFF0000FFFFull) << 16);
    return ((v & 0xFF00FF00FF00FF00ull) >> 8) | ((v & 0x00FF00FF00FF00FFull) << 8);
}

/* z of each layer and priority in each mode (higher is in front; 0 = not shown). Index:
 * [mode][layer*4 + priority] (BG priorities 0-1, sprites 0-3). Mode 1 with BG3 priority
 * set uses row 8. From the PPU's priority lists (e.g. mode 1: S3 1H 2H S2 1L 2L S1 3H S0 3L). */
GV_HD static inline const uint8_t *snes_ztab(int row)
{
    static const uint8_t ztab_host[9][20] = {
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
    return ztab_host[row];
}

/* Bits per pixel of BG1-BG4 in modes 0-7 (0: no such layer). */
GV_HD static inline int snes_bpp(int mode, int bg)
{
    static const uint8_t bpp_tab[8][4] = {
        {2, 2, 2, 2}, {4, 4, 2, 0}, {4, 4, 0, 0}, {8, 4, 0, 0}, {8, 2, 0, 0}, {4, 2, 0, 0}, {4, 0, 0, 0}, {8, 0, 0, 0},
    };
    return bpp_tab[mode][bg];
}

/* Eight pixels of a tile row (bpp planes at word address a) in bytes, leftmost first. */
GV_HD static inline uint64_t snes_tile_row(const uint8_t *vram, uint32_t a, int bpp)
{
    const uint8_t *w = vram + ((a & 0x7FFF) << 1);
    uint64_t v = SNES_SPREAD_B(w[0]) | SNES_SPREAD_B(w[1]) << 1;
    if (bpp >= 4) {
        const uint8_t *w2 = vram + (((a + 8) & 0x7FFF) << 1);
        v |= SNES_SPREAD_B(w2[0]) << 2 | SNES_SPREAD_B(w2[1]) << 3;
    }
    if (bpp == 8) {
        const uint8_t *w3 = vram + (((a + 16) & 0x7FFF) << 1), *w4 = vram + (((a + 24) & 0x7FFF) << 1);
        v |= SNES_SPREAD_B(w3[0]) << 4 | SNES_SPREAD_B(w3[1]) << 5 | SNES_SPREAD_B(w4[0]) << 6 |
             SNES_SPREAD_B(w4[1]) << 7;
    }
    return v;
}

/* The word address of tile row ty's first entry in a BG map (BGnSC sc: base and size). */
GV_ALWAYS_INLINE uint32_t snes_map_row(uint8_t sc, uint32_t ty)
{
    return ((uint32_t)(sc & 0xFC) << 8) + ((ty & 31) << 5) + ((ty & 32) && (sc & 2) ? (sc & 1 ? 0x800 : 0x400) : 0);
}

/* The word address of tile column tx's entry in a map row (snes_map_row). */
GV_ALWAYS_INLINE uint32_t snes_map_at(uint8_t sc, uint32_t rowbase, uint32_t tx)
{
    return (rowbase + (tx & 31) + ((tx & 32) && (sc & 1) ? 0x400 : 0)) & 0x7FFF;
}

GV_ALWAYS_INLINE uint16_t snes_map_entry(const uint8_t *vram, uint32_t ma)
{
    return (uint16_t)(vram[ma * 2] | vram[ma * 2 + 1] << 8);
}

/* Eight pixels of a BG tile row (bpp planes at word address a; map entry e: flip, priority)
 * as CGRAM indexes (palette pal + colour, 0 where transparent) and priority + 1 bytes, all
 * eight at once (a tile's pixels do not overlap): 1 in each byte that is opaque, then index
 * = palette + colour (never carries: at most 255). */
GV_ALWAYS_INLINE void snes_tile_px(const uint8_t *vram, uint32_t a, int bpp, uint16_t e, uint64_t pal, uint64_t *idx,
                                   uint64_t *pri)
{
    uint64_t px = snes_tile_row(vram, a, bpp);
    if (e & 0x4000)
        px = snes_bswap64(px);
    uint64_t t = px | px >> 4;
    t |= t >> 2;
    t = (t | t >> 1) & 0x0101010101010101ull;
    *pri = t * (uint64_t)(((e >> 13) & 1) + 1);
    *idx = (px + pal * 0x0101010101010101ull) & (t * 0xFF);
}

/* Offset-per-tile (modes 2, 4 and 6): the scroll of BG1 or BG2 (bg 0/1) in each 8-pixel
 * column c = 0-32 of the line into h[c], v[c]. BG3's map holds the offsets: the entries
 * from BG3's scroll (HOFS / 8 the first column, VOFS / 8 the row; BG3's fine X ignored),
 * entry k for column k + 1: column 0, the leftmost (partly off-screen when HOFS & 7), always
 * keeps the plain scroll. An entry: bits 0-9 the value, bit 13 for BG1, bit 14 for BG2;
 * modes 2 and 6 read a horizontal entry from the row and a vertical one from the next,
 * mode 4 one entry, vertical when bit 15 is set. A horizontal value replaces HOFS but its
 * low 3 bits (the fine scroll stays the BG's own); a vertical one replaces VOFS. */
GV_HD static inline void snes_opt_cols(const snes_vregs *p, const uint8_t *vram, int bg, int mode, uint16_t *h,
                                       uint16_t *v)
{
    uint8_t sc = p->bgsc[2];
    uint32_t ty = (uint32_t)(p->vofs[2] & 0x3FF) >> 3, tx0 = (uint32_t)(p->hofs[2] & 0x3FF) >> 3;
    uint32_t rh = snes_map_row(sc, ty), rv = snes_map_row(sc, ty + 1);
    uint16_t en = (uint16_t)(0x2000 << bg), hofs = p->hofs[bg], vofs = p->vofs[bg];
    h[0] = hofs, v[0] = vofs;
    for (int c = 1; c < 33; c++) {
        uint32_t tx = tx0 + (uint32_t)(c - 1);
        uint16_t eh = snes_map_entry(vram, snes_map_at(sc, rh, tx)), ev;
        if (mode == 4) {
            ev = (eh & 0x8000) ? eh : 0;
            eh = (eh & 0x8000) ? 0 : eh;
        } else {
            ev = snes_map_entry(vram, snes_map_at(sc, rv, tx));
        }
        h[c] = (eh & en) ? (uint16_t)((eh & 0x3F8) | (hofs & 7)) : hofs;
        v[c] = (ev & en) ? (uint16_t)(ev & 0x3FF) : vofs;
    }
}

/* One background of modes 0-6 on screen line `line` into lb; oh, ov: each column's scroll
 * (offset-per-tile, snes_opt_cols), or NULL (a constant at each call) for the plain one. */
GV_ALWAYS_INLINE void snes_draw_bg_cols(const snes_vregs *p, const uint8_t *vram, int bg, int mode, int line,
                                        snes_layer_buf *lb, const uint16_t *oh, const uint16_t *ov)
{
    int bpp = snes_bpp(mode, bg);
    int big = (p->bgmode >> (4 + bg)) & 1, tsh = big ? 4 : 3, tmask = big ? 15 : 7;
    uint8_t sc = p->bgsc[bg];
    uint32_t chrbase = (uint32_t)((p->bgnba[bg >> 1] >> ((bg & 1) * 4)) & 15) << 12;
    int mos = (p->mosaic & (1 << bg)) ? (p->mosaic >> 4) + 1 : 1;
    int y = mos > 1 ? line - (line - 1) % mos : line;
    uint32_t gy = (uint32_t)(y + p->vofs[bg]) & 0x3FF;
    uint32_t hofs = p->hofs[bg];
    uint16_t palbase = mode == 0 ? (uint16_t)(bg * 32) : 0;
    int palsh = bpp == 2 ? 2 : bpp == 4 ? 4 : 0;
    int direct = bpp == 8 && (p->cgwsel & 1); /* the palette bits go to the colour (lb->math) */
    uint32_t rowbase = snes_map_row(sc, gy >> tsh);
    int c = 0; /* the column (offset-per-tile) */
    for (int sx = -(int)(hofs & 7); sx < 256; sx += 8, c++) {
        uint32_t gx = ((oh ? oh[c] : hofs) + (uint32_t)sx) & 0x3FF;
        if (ov) {
            gy = (uint32_t)(y + ov[c]) & 0x3FF;
            rowbase = snes_map_row(sc, gy >> tsh);
        }
        uint32_t tx = gx >> tsh;
        uint16_t e = snes_map_entry(vram, snes_map_at(sc, rowbase, tx));
        uint32_t ry = gy & tmask;
        if (e & 0x8000)
            ry = tmask - ry;
        uint32_t tile = e & 0x3FF;
        if (big) {
            uint32_t half = ((gx >> 3) & 1) ^ ((e >> 14) & 1);
            tile += (ry >> 3) * 16 + half;
        }
        uint64_t idx, pri;
        snes_tile_px(vram, chrbase + tile * (uint32_t)(bpp * 4) + (ry & 7), bpp, e,
                     (uint64_t)(palbase + (bpp == 8 ? 0 : ((e >> 10) & 7) << palsh)), &idx, &pri);
        int x = sx + 8; /* buffers start 8 pixels left of the screen */
        memcpy(lb->idx + x, &idx, 8);
        memcpy(lb->pri + x, &pri, 8);
        if (direct)
            for (int q = 0; q < 8; q++)
                if ((unsigned)(sx + q) < 256)
                    lb->math[sx + q] = (uint8_t)((e >> 10) & 7);
    }
    if (mos > 1) /* horizontal mosaic: each block repeats its left pixel */
        for (int x = 0; x < 256; x++) {
            int s = x - x % mos;
            lb->idx[x + 8] = lb->idx[s + 8];
            lb->pri[x + 8] = lb->pri[s + 8];
            if (direct)
                lb->math[x] = lb->math[s];
        }
}

/* One background of modes 0-6 on screen line `line` into lb: BG1 and BG2 of modes 2, 4
 * and 6 with offset-per-tile, the rest with the plain scroll. */
GV_HD static inline void snes_draw_bg(const snes_vregs *p, const uint8_t *vram, int bg, int mode, int line,
                                      snes_layer_buf *lb)
{
    if ((mode == 2 || mode == 4 || mode == 6) && bg < 2) {
        uint16_t oh[33], ov[33];
        snes_opt_cols(p, vram, bg, mode, oh, ov);
        snes_draw_bg_cols(p, vram, bg, mode, line, lb, oh, ov);
    } else {
        snes_draw_bg_cols(p, vram, bg, mode, line, lb, NULL, NULL);
    }
}

/* BG1 or BG2 of modes 5 and 6 (hi-res) at BG line `vline` (the screen line, or with
 * interlace 2 * line + field): 512 pixels, tiles 16 wide (16x8, or 16x16 with the tile size
 * bit: the right half tile n + 1, the lower n + 16), HOFS counted in lo-res pixels (two
 * hi-res ones); the even pixels into lbe (the sub screen's), the odd into lbo (the main
 * screen's). oh, ov: mode 6's offset-per-tile columns (each 16 hi-res pixels), or NULL.
 * Mosaic (MOSAIC bit bg, size N = bits 4-7 + 1) counts in lo-res units: a block is 2N
 * half-pixels wide, all of them the block's leftmost (even) half-pixel, so even N = 1 hides
 * the odd half-pixels; N lines tall from screen line 1; with interlace (il) 2N half-lines,
 * both fields showing field 0's BG line of the block's top line. */
GV_HD static inline void snes_draw_bg_hi(const snes_vregs *p, const uint8_t *vram, int bg, int mode, int vline,
                                         int il, snes_layer_buf *lbo, snes_layer_buf *lbe, const uint16_t *oh,
                                         const uint16_t *ov)
{
    int mos = (p->mosaic & (1 << bg)) ? (p->mosaic >> 4) + 1 : 0;
    if (mos) {
        int line = il ? vline >> 1 : vline;
        line -= (line - 1) % mos;
        vline = il ? 2 * line : line;
    }
    int bpp = snes_bpp(mode, bg);
    int big = (p->bgmode >> (4 + bg)) & 1, tsh = big ? 4 : 3, tmask = big ? 15 : 7;
    uint8_t sc = p->bgsc[bg];
    uint32_t chrbase = (uint32_t)((p->bgnba[bg >> 1] >> ((bg & 1) * 4)) & 15) << 12;
    int palsh = bpp == 2 ? 2 : 4;
    uint32_t hofs = (uint32_t)p->hofs[bg] << 1;
    uint32_t gy = (uint32_t)(vline + p->vofs[bg]) & 0x3FF;
    uint32_t rowbase = snes_map_row(sc, gy >> tsh);
    uint8_t idx[512 + 32], pri[512 + 32]; /* 16 pixels of margin on the left */
    int c = 0;
    for (int sx = -(int)(hofs & 15); sx < 512; sx += 16, c++) {
        uint32_t gx = (((oh ? (uint32_t)oh[c] << 1 : hofs) + (uint32_t)sx)) & 0x3FF;
        if (ov) {
            gy = (uint32_t)(vline + ov[c]) & 0x3FF;
            rowbase = snes_map_row(sc, gy >> tsh);
        }
        uint16_t e = snes_map_entry(vram, snes_map_at(sc, rowbase, gx >> 4));
        uint32_t ry = gy & tmask;
        if (e & 0x8000)
            ry = tmask - ry;
        uint32_t tile = (e & 0x3FF) + (ry >> 3) * 16;
        uint64_t pal = (uint64_t)(((e >> 10) & 7) << palsh);
        for (int half = 0; half < 2; half++) {
            uint32_t tn = tile + (uint32_t)(half ^ ((e >> 14) & 1));
            uint64_t ix, pr;
            snes_tile_px(vram, chrbase + tn * (uint32_t)(bpp * 4) + (ry & 7), bpp, e, pal, &ix, &pr);
            int x = sx + 16 + half * 8;
            memcpy(idx + x, &ix, 8);
            memcpy(pri + x, &pr, 8);
        }
    }
    if (mos) { /* both half-pixels of lo-res pixel x: the even one at the block's left */
        for (int x = 0; x < 256; x++) {
            int s = 16 + 2 * (x - x % mos);
            lbe->idx[x + 8] = lbo->idx[x + 8] = idx[s];
            lbe->pri[x + 8] = lbo->pri[x + 8] = pri[s];
        }
        return;
    }
    for (int x = 0; x < 256; x++) {
        lbe->idx[x + 8] = idx[16 + 2 * x], lbe->pri[x + 8] = pri[16 + 2 * x];
        lbo->idx[x + 8] = idx[17 + 2 * x], lbo->pri[x + 8] = pri[17 + 2 * x];
    }
}

/* Direct colour: a 256-colour pixel (BBGGGRRR) and its tile's palette bits (bgr) as
 * BGR555: R = RRRr0, G = GGGg0, B = BBb00. */
GV_HD static inline uint16_t snes_direct_color(uint8_t c, uint8_t pal)
{
    return (uint16_t)((c & 7) << 2 | (pal & 1) << 1 | ((c >> 3) & 7) << 7 | (pal & 2) << 5 | (c >> 6) << 13 |
                      (pal & 4) << 10);
}

/* Mode 7's BG1 (and BG2 with EXTBG) on screen line `line`. */
GV_HD static inline void snes_draw_m7(const snes_vregs *p, const uint8_t *vram, int line, snes_layer_buf *b1,
                                      snes_layer_buf *b2)
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
                pix = vram[(((Y & 7) << 3) | (X & 7)) * 2 + 1];
                goto have;
            }
        }
        {
            uint8_t tile = vram[((((uint32_t)Y >> 3) & 127) * 128 + (((uint32_t)X >> 3) & 127)) * 2];
            pix = vram[(((uint32_t)tile << 6) | ((Y & 7) << 3) | (X & 7)) * 2 + 1];
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

/* Sprite i's size, x (-256 to 255) and row on screen line `line` (>= h: not on it); with
 * OBJ interlace (oil: SETINI bit 1 in an interlaced frame) the row of field `field` is
 * 2 * the line's row + field, so a sprite covers half its height in lines. */
typedef struct {
    int w, h, x, row;
} snes_obj_geom;

GV_HD static inline snes_obj_geom snes_obj_at(const snes_vregs *p, const uint8_t *oam, int i, int line, int oil,
                                              int field)
{
    static const uint8_t sw[8][2] = {{8, 16}, {8, 32}, {8, 64}, {16, 32}, {16, 64}, {32, 64}, {16, 32}, {16, 32}};
    static const uint8_t sh[8][2] = {{8, 16}, {8, 32}, {8, 64}, {16, 32}, {16, 64}, {32, 64}, {32, 64}, {32, 32}};
    int sz = p->obsel >> 5;
    uint8_t hi = (uint8_t)(oam[0x200 + (i >> 2)] >> ((i & 3) * 2));
    int big = (hi >> 1) & 1;
    snes_obj_geom g = {sw[sz][big], sh[sz][big], oam[i * 4] | (hi & 1) << 8, (line - 1 - oam[i * 4 + 1]) & 0xFF};
    if (g.x >= 256)
        g.x -= 512;
    if (oil)
        g.row = g.row * 2 + field;
    return g;
}

/* Sprites on screen line `line` into lb (pri = OBJ priority + 1; lb NULL: only the
 * evaluation); oil, field: OBJ interlace (snes_obj_at). Returns the STAT77 range-over ($40)
 * and time-over ($80) flags it raises. */
GV_HD static inline uint8_t snes_draw_obj(const snes_vregs *p, const uint8_t *oam, const uint8_t *vram, int line,
                                          int oil, int field, snes_layer_buf *lb)
{
    static const uint8_t tallest[8] = {16, 32, 64, 32, 64, 64, 64, 32};
    uint32_t base = (uint32_t)(p->obsel & 7) << 13, gap = (uint32_t)(((p->obsel >> 3) & 3) + 1) << 12;
    int first = p->oam_prio ? (p->oam_reload >> 2) & 0x7F : 0;
    int hmax = tallest[p->obsel >> 5];
    uint8_t flags = 0;
    uint8_t list[32];
    int n = 0;
    for (int k = 0; k < 128; k++) {
        int i = (first + k) & 127;
        if (((line - 1 - oam[i * 4 + 1]) & 0xFF) >= hmax)
            continue; /* below the tallest size: not on this line */
        snes_obj_geom g = snes_obj_at(p, oam, i, line, oil, field);
        if (g.row >= g.h || g.x <= -g.w)
            continue;
        if (n == 32) {
            flags |= 0x40;
            break;
        }
        list[n++] = (uint8_t)i;
    }
    int tiles = 0;
    if (!lb) { /* count the tiles in range as the time-over check does */
        for (int k = 0; k < n; k++) {
            snes_obj_geom g = snes_obj_at(p, oam, list[k], line, oil, field);
            for (int sx = g.x; sx < g.x + g.w; sx += 8)
                tiles += sx > -8 && sx < 256;
        }
        return (uint8_t)(flags | (tiles > 34 ? 0x80 : 0));
    }
    uint8_t *taken = lb->math; /* reused: 1 where a sprite pixel was drawn (earlier sprites win) */
    for (int k = 0; k < n; k++) {
        int i = list[k];
        const uint8_t *o = oam + i * 4;
        snes_obj_geom g = snes_obj_at(p, oam, i, line, oil, field);
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
                flags |= 0x80;
                break;
            }
            int col = (attr & 0x40) ? cols - 1 - cidx : cidx;
            uint32_t tn = (((uint32_t)(o[2] >> 4) + (uint32_t)(row >> 3)) & 15) << 4 | ((uint32_t)(o[2] + col) & 15);
            uint32_t a = base + ((attr & 1) ? gap : 0) + tn * 16 + (uint32_t)(row & 7);
            uint64_t px = snes_tile_row(vram, a, 4);
            if (attr & 0x40)
                px = snes_bswap64(px);
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
    return flags;
}

/* The two windows on one line: w1[x], w2[x] = 1 inside window 1, 2. */
GV_HD static inline void snes_window_base(const snes_vregs *p, uint8_t *w1, uint8_t *w2)
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
GV_HD static inline int snes_window_mask(uint8_t sel, uint8_t logic, const uint8_t *w1, const uint8_t *w2, uint8_t *w)
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
GV_HD static inline void snes_merge(const uint8_t *col, const uint8_t *pri, const uint8_t *zl, const uint8_t *win,
                                    int l, uint8_t *sc, uint8_t *sz, uint8_t *sl)
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
GV_HD static inline uint16_t snes_color_math(uint16_t a, uint16_t b, int sub, int half)
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

/* A line's colours from its main and sub screens (CGRAM indexes and layers), the colour
 * window cw, the sprites' math flags: colour math, clipping, brightness, into out (RGB).
 * direct: BG1's pixels are direct colour with the palette bits dpal (a constant at each
 * call, so the loop without it has no test). */
GV_ALWAYS_INLINE void snes_out_line(const snes_vregs *p, const uint16_t *cgram, const uint8_t *mc, const uint8_t *ml,
                                    const uint8_t *sc, const uint8_t *sl, const uint8_t *cw, const uint8_t *objmath,
                                    const uint8_t *dpal, int direct, int step, uint8_t *out)
{
    int clip = (p->cgwsel >> 6) & 3, prevent = (p->cgwsel >> 4) & 3;
    /* by whether the pixel is inside the colour window: clipped to black, math allowed */
    const uint8_t black_in[2] = {(uint8_t)(clip == 3 || clip == 1), (uint8_t)(clip == 3 || clip == 2)};
    const uint8_t allow_in[2] = {(uint8_t)(prevent == 0 || prevent == 2), (uint8_t)(prevent == 0 || prevent == 1)};
    int use_sub = p->cgwsel & 2, sub = p->cgadsub & 0x80, half = p->cgadsub & 0x40;
    uint8_t mathl = p->cgadsub & 0x3F;
    /* the master brightness: 0 is black, N = 1-15 scales by (N + 1) / 16 (level 3 of full
     * white gives 63 of 255, level 15 the colour itself) */
    int bright = p->inidisp & 15, scale = bright ? bright + 1 : 0;
    uint8_t lut[32];
    for (int i = 0; i < 32; i++)
        lut[i] = (uint8_t)(((i << 3) | (i >> 2)) * scale / 16);
    for (int x = 0; x < 256; x++) {
        uint16_t c = direct && ml[x] == SNES_L_BG1 ? snes_direct_color(mc[x], dpal[x]) : cgram[mc[x]];
        int inw = cw[x], black = black_in[inw];
        if (black)
            c = 0;
        int l = ml[x];
        if (((mathl >> l) & 1) && allow_in[inw] && (l != SNES_L_OBJ || objmath[x] == 2)) {
            uint16_t other = !use_sub || sl[x] == SNES_L_BACK ? p->fixed
                             : direct && sl[x] == SNES_L_BG1 ? snes_direct_color(sc[x], dpal[x])
                                                             : cgram[sc[x]];
            int h = half && !black && !(use_sub && sl[x] == SNES_L_BACK);
            c = snes_color_math(c, other, sub, h);
        }
        uint8_t *o = out + 3 * step * x;
        o[0] = lut[c & 31];
        o[1] = lut[(c >> 5) & 31];
        o[2] = lut[c >> 10];
    }
}

/* A hi-res line's sub screen pixels (the even ones of 512: out + 6x): the sub screen's
 * colour (its backdrop the fixed colour), clipped to black as the main screen's pixel is;
 * where colour math applies to the main screen's pixel to its left (x - 1: the half-pixel
 * before it; none at x = 0), the same math with that main screen colour as the other
 * operand; then the master brightness. */
GV_HD static inline void snes_out_sub(const snes_vregs *p, const uint16_t *cgram, const uint8_t *mc,
                                      const uint8_t *ml, const uint8_t *sc, const uint8_t *sl, const uint8_t *cw,
                                      const uint8_t *objmath, uint8_t *out)
{
    int clip = (p->cgwsel >> 6) & 3, prevent = (p->cgwsel >> 4) & 3;
    const uint8_t black_in[2] = {(uint8_t)(clip == 3 || clip == 1), (uint8_t)(clip == 3 || clip == 2)};
    const uint8_t allow_in[2] = {(uint8_t)(prevent == 0 || prevent == 2), (uint8_t)(prevent == 0 || prevent == 1)};
    int sub = p->cgadsub & 0x80, half = p->cgadsub & 0x40;
    uint8_t mathl = p->cgadsub & 0x3F;
    int bright = p->inidisp & 15, scale = bright ? bright + 1 : 0;
    for (int x = 0; x < 256; x++) {
        uint16_t c = sl[x] == SNES_L_BACK ? p->fixed : cgram[sc[x]];
        int inw = cw[x], black = black_in[inw];
        if (black)
            c = 0;
        if (x > 0) {
            int l = ml[x - 1], iw = cw[x - 1];
            if (((mathl >> l) & 1) && allow_in[iw] && (l != SNES_L_OBJ || objmath[x - 1] == 2)) {
                uint16_t m = black_in[iw] ? 0 : cgram[mc[x - 1]];
                c = snes_color_math(c, m, sub, half && !black);
            }
        }
        uint8_t *o = out + 6 * x;
        o[0] = (uint8_t)((((c & 31) << 3) | ((c & 31) >> 2)) * scale / 16);
        o[1] = (uint8_t)(((((c >> 5) & 31) << 3) | (((c >> 5) & 31) >> 2)) * scale / 16);
        o[2] = (uint8_t)((((c >> 10) << 3) | ((c >> 10) >> 2)) * scale / 16);
    }
}

/* Draws picture line y (0-238: screen line y + 1) into out (256 RGB pixels, or 512 when
 * wide: a hi-res line's sub and main screen pixels alternating, sub first; a lo-res line's
 * pixels doubled) with the registers p and the memories given; il, field: an interlaced
 * frame's field (BG modes 5 and 6 read BG line 2 * line + field, OBJ interlace). Returns the
 * STAT77 sprite flags the line raises (sprites are evaluated even when the screen is
 * blanked). */
GV_HD static inline uint8_t snes_render_line(const snes_vregs *p, const uint8_t *vram, const uint16_t *cgram,
                                             const uint8_t *oam, int y, int il, int field, int wide, uint8_t *out)
{
    int line = y + 1;
    snes_layer_buf lb[5], lbe[2]; /* lbe: hi-res BG1, BG2's even (sub screen) pixels */
    int mode = p->bgmode & 7;
    int bghi = mode == 5 || mode == 6, hi = wide && snes_hires(p->bgmode, p->setini);
    const uint8_t *z = snes_ztab(mode == 1 && (p->bgmode & 8) ? 8 : mode);
    uint8_t used = (uint8_t)(p->tm | p->ts);
    memset(lb[SNES_L_OBJ].pri, 0, sizeof lb[SNES_L_OBJ].pri);
    memset(lb[SNES_L_OBJ].math, 0, sizeof lb[SNES_L_OBJ].math);
    uint8_t flags = snes_draw_obj(p, oam, vram, line, il && (p->setini & 2), field, &lb[SNES_L_OBJ]);
    if (p->inidisp & 0x80) { /* forced blank: black */
        memset(out, 0, (size_t)(wide ? SNES_VW_MAX : SNES_VW) * 3);
        return flags;
    }
    int have[5] = {0, 0, 0, 0, 1};
    if (mode == 7) {
        int ext = (p->setini & 0x40) && (used & 2);
        memset(lb[SNES_L_BG1].pri, 0, sizeof lb[SNES_L_BG1].pri);
        if (ext)
            memset(lb[SNES_L_BG2].pri, 0, sizeof lb[SNES_L_BG2].pri);
        if (used & 3) {
            snes_draw_m7(p, vram, line, &lb[SNES_L_BG1], ext ? &lb[SNES_L_BG2] : NULL);
            have[0] = 1, have[1] = ext;
        }
    } else {
        for (int bg = 0; bg < 4; bg++) {
            if (!snes_bpp(mode, bg) || !(used & (1 << bg)))
                continue;
            memset(lb[bg].pri, 0, sizeof lb[bg].pri);
            if (bghi) {
                uint16_t oh[33], ov[33];
                int opt = mode == 6;
                if (opt)
                    snes_opt_cols(p, vram, bg, mode, oh, ov);
                snes_draw_bg_hi(p, vram, bg, mode, il ? 2 * line + field : line, il, &lb[bg], &lbe[bg],
                                opt ? oh : NULL, opt ? ov : NULL);
            } else {
                snes_draw_bg(p, vram, bg, mode, line, &lb[bg]);
            }
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
    memset(ml, SNES_L_BACK, sizeof ml);
    memset(sl, SNES_L_BACK, sizeof sl);
    for (int l = 0; l < 5; l++) {
        uint8_t bit = (uint8_t)(1 << l);
        int onm = p->tm & bit, ons = p->ts & bit;
        if (!have[l] || (!onm && !ons))
            continue;
        int hasw = 0;
        if ((p->tmw | p->tsw) & bit) {
            /* the wsel register and nibble of each layer: BG1 0/0, BG2 0/4, BG3 1/0, BG4 1/4, OBJ 2/0 */
            uint8_t sel = (uint8_t)((p->wsel[l >> 1] >> ((l & 1) * 4)) & 15);
            uint8_t logic = (uint8_t)(l < 4 ? (p->wbglog >> (2 * l)) & 3 : p->wobjlog & 3);
            if (sel & 0xA) {
                if (!have_base)
                    snes_window_base(p, w1, w2), have_base = 1;
                hasw = snes_window_mask(sel, logic, w1, w2, win);
            }
        }
        const uint8_t *zl = z + l * 4;
        const snes_layer_buf *ls = bghi && l < 2 ? &lbe[l] : &lb[l];
        if (onm)
            snes_merge(lb[l].idx + 8, lb[l].pri + 8, zl, hasw && (p->tmw & bit) ? win : NULL, l, mc, mz, ml);
        if (ons)
            snes_merge(ls->idx + 8, ls->pri + 8, zl, hasw && (p->tsw & bit) ? win : NULL, l, sc, szb, sl);
    }
    /* colour math and the colour window */
    uint8_t cw[256];
    int hascw = 0;
    if (p->wsel[2] & 0xA0) {
        if (!have_base)
            snes_window_base(p, w1, w2);
        hascw = snes_window_mask((uint8_t)(p->wsel[2] >> 4), (uint8_t)((p->wobjlog >> 2) & 3), w1, w2, cw);
    }
    if (!hascw)
        memset(cw, 0, sizeof cw);
    /* direct colour (CGWSEL bit 0): BG1's 256-colour pixels in modes 3, 4 and 7 */
    int direct = (p->cgwsel & 1) && have[0] && (mode == 3 || mode == 4 || mode == 7);
    if (direct && mode == 7)
        memset(lb[SNES_L_BG1].math, 0, 256); /* mode 7 has no palette bits */
    if (wide) { /* 512 pixels: the main screen's in the odd ones */
        if (direct)
            snes_out_line(p, cgram, mc, ml, sc, sl, cw, lb[SNES_L_OBJ].math, lb[SNES_L_BG1].math, 1, 2, out + 3);
        else
            snes_out_line(p, cgram, mc, ml, sc, sl, cw, lb[SNES_L_OBJ].math, NULL, 0, 2, out + 3);
        if (hi)
            snes_out_sub(p, cgram, mc, ml, sc, sl, cw, lb[SNES_L_OBJ].math, out);
        else
            for (int x = 0; x < 256; x++)
                memcpy(out + 6 * x, out + 6 * x + 3, 3);
    } else if (direct) { /* two copies of the pixel loop: the common one without the test */
        snes_out_line(p, cgram, mc, ml, sc, sl, cw, lb[SNES_L_OBJ].math, lb[SNES_L_BG1].math, 1, 1, out);
    } else {
        snes_out_line(p, cgram, mc, ml, sc, sl, cw, lb[SNES_L_OBJ].math, NULL, 0, 1, out);
    }
    return flags;
}

/* Draws picture line y of a frame into its rows of fb (snes_frame_dims: with interlace both
 * fields' rows); returns the line's STAT77 flags. */
GV_HD static inline uint8_t snes_render_rows(const snes_vregs *p, const uint8_t *vram, const uint16_t *cgram,
                                             const uint8_t *oam, int y, int il, int wide, uint8_t *fb)
{
    size_t row = (size_t)(wide ? SNES_VW_MAX : SNES_VW) * 3;
    if (!il)
        return snes_render_line(p, vram, cgram, oam, y, 0, 0, wide, fb + (size_t)y * row);
    uint8_t f = snes_render_line(p, vram, cgram, oam, y, 1, 0, wide, fb + (size_t)(2 * y) * row);
    snes_render_line(p, vram, cgram, oam, y, 1, 1, wide, fb + (size_t)(2 * y + 1) * row);
    return f;
}

/* Redraws picture line y from pixel x0 on (its rows of fb, as snes_render_rows) with the
 * registers p and the memories given: a change inside the line (snes_vmid). The whole line
 * is drawn into a scratch row and its pixels x0-255 copied. */
GV_HD static inline void snes_render_rows_from(const snes_vregs *p, const uint8_t *vram, const uint16_t *cgram,
                                               const uint8_t *oam, int y, int il, int wide, int x0, uint8_t *fb)
{
    uint8_t tmp[SNES_VW_MAX * 3];
    size_t row = (size_t)(wide ? SNES_VW_MAX : SNES_VW) * 3, px = wide ? 6 : 3;
    for (int f = 0; f <= il; f++) {
        snes_render_line(p, vram, cgram, oam, y, il, f, wide, tmp);
        uint8_t *o = fb + (size_t)(il ? 2 * y + f : y) * row;
        memcpy(o + px * (size_t)x0, tmp + px * (size_t)x0, row - px * (size_t)x0);
    }
}

/* A frame drawn so far narrow (rows 0..rows-1 of 256 pixels) made wide: each row's pixels
 * doubled, at 512 a row (from the last row back, in place). */
static inline void snes_fb_widen(uint8_t *fb, int rows)
{
    for (int r = rows - 1; r >= 0; r--) {
        const uint8_t *src = fb + (size_t)r * SNES_VW * 3;
        uint8_t *dst = fb + (size_t)r * SNES_VW_MAX * 3;
        for (int x = SNES_VW - 1; x >= 0; x--) {
            uint8_t px[3] = {src[3 * x], src[3 * x + 1], src[3 * x + 2]};
            memcpy(dst + 6 * x, px, 3);
            memcpy(dst + 6 * x + 3, px, 3);
        }
    }
}

/* ---- the frame log renderer ----------------------------------------------------------- */

/* A frame log as the renderer reads it: from the machine's log on the host (snes_vlog_view)
 * or from its packed form (snes_vview_packed) on the device. */
typedef struct {
    const uint8_t *line_reg;   /* SNES_VH snapshot indexes */
    const snes_vregs *regs;
    const snes_vseg *segs;
    const uint32_t *wr;
    uint32_t nsegs, nwrites;
    const uint8_t *snap;       /* the memories at the frame's start (a snes_vmem), or NULL */
    int lines, wide, il;       /* the frame's picture lines, hi-res, interlace (snes_frame_dims) */
    const snes_vmid *mid;      /* the changes inside lines, in order of line */
    uint32_t nmid;
} snes_vview;

GV_HD static inline snes_vview snes_vview_packed(const uint8_t *pk)
{
    const snes_vpacked *h = (const snes_vpacked *)pk;
    snes_vview v;
    v.line_reg = h->line_reg;
    v.regs = (const snes_vregs *)(pk + h->off_regs);
    v.segs = (const snes_vseg *)(pk + h->off_segs);
    v.wr = (const uint32_t *)(pk + h->off_writes);
    v.nsegs = h->nsegs;
    v.nwrites = h->nwrites;
    v.snap = h->snapshot ? pk + h->off_snap : NULL;
    v.lines = h->lines, v.wide = h->wide, v.il = h->il;
    v.mid = (const snes_vmid *)(pk + h->off_mid);
    v.nmid = h->nmid;
    return v;
}

/* The changes inside picture line y (snes_vmid) over its rows of fb, drawn from mem (the
 * memories at the line's start): each from its pixel on, with CGRAM patched by the line's
 * writes up to the change (a copy: other threads draw from mem meanwhile). */
GV_HD static inline void snes_render_mid(const snes_vview *v, const uint8_t *mem, int y, uint8_t *fb)
{
    uint32_t k = 0;
    while (k < v->nmid && v->mid[k].y < y)
        k++;
    if (k == v->nmid || v->mid[k].y != y)
        return;
    uint16_t cg[256];
    memcpy(cg, mem + SNES_VM_CGRAM, sizeof cg);
    uint32_t j = v->mid[k].wstart;
    for (; k < v->nmid && v->mid[k].y == y; k++) {
        for (; j < v->mid[k].wend; j++) {
            uint32_t a = v->wr[j] & 0x1FFFF;
            if (a >= SNES_VM_CGRAM && a < SNES_VM_OAM)
                ((uint8_t *)cg)[a - SNES_VM_CGRAM] = (uint8_t)(v->wr[j] >> 17);
        }
        snes_render_rows_from(&v->mid[k].r, mem + SNES_VM_VRAM, cg, mem + SNES_VM_OAM, y, v->il, v->wide,
                              v->mid[k].x, fb);
    }
}

/* The bytes of a frame log's frame (snes_frame_dims). */
GV_HD static inline uint32_t snes_vview_bytes(const snes_vview *v)
{
    int w, h;
    snes_frame_dims(v->lines, v->wide, v->il, &w, &h);
    return (uint32_t)(w * h * 3);
}

/* Draws a frame into fb from mem (the memories at the frame's start, or anything when the
 * log carries a snapshot), leaving mem as at the frame's end. Called by nthr threads (tid
 * 0..nthr-1) together: the lines between two stamps are shared out, thread 0 applies each
 * segment of writes between barriers. */
GV_HD static inline void snes_render_frame(const snes_vview *v, uint8_t *mem, uint8_t *fb, int tid, int nthr)
{
    if (v->snap) {
        const uint32_t *s = (const uint32_t *)v->snap;
        for (int k = tid; k < SNES_VM_BYTES / 4; k += nthr)
            ((uint32_t *)mem)[k] = s[k];
        GV_BARRIER(nthr);
    }
    const uint16_t *cgram = (const uint16_t *)(mem + SNES_VM_CGRAM);
    int cur = 0;
    for (uint32_t k = 0; k <= v->nsegs; k++) {
        int stamp = k < v->nsegs ? v->segs[k].stamp : v->lines;
        if (stamp > v->lines)
            stamp = v->lines;
        if (stamp > cur) {
            for (int y = cur + tid; y < stamp; y += nthr) {
                snes_render_rows(&v->regs[v->line_reg[y]], mem + SNES_VM_VRAM, cgram, mem + SNES_VM_OAM, y, v->il,
                                 v->wide, fb);
                if (v->nmid)
                    snes_render_mid(v, mem, y, fb);
            }
            cur = stamp;
        }
        if (k == v->nsegs)
            break;
        GV_BARRIER(nthr);
        if (tid == 0) {
            uint32_t end = k + 1 < v->nsegs ? v->segs[k + 1].first : v->nwrites;
            for (uint32_t j = v->segs[k].first; j < end; j++)
                if ((v->wr[j] & 0x1FFFF) < SNES_VM_BYTES)
                    mem[v->wr[j] & 0x1FFFF] = (uint8_t)(v->wr[j] >> 17);
        }
        GV_BARRIER(nthr);
    }
}

#endif
