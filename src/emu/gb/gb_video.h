/* gb_video.h: the frame log the core emits and the per-line renderer that turns it into
 * pixels. Written once for C and CUDA/HIP (GV_HD marks functions for both), so the host
 * renderer and the device renderer run the same code; the core's native renderer is a
 * separate per-dot implementation of the same rules, checked against this one by hash.
 *
 * A frame period runs from one VBlank start to the next. The log holds, per visible line,
 * the registers at the start of mode 3, the objects the OAM scan selected (at most 10, in
 * priority order) and the window state; the register writes made during mode 3 with the
 * pixel from which they take effect; and every VRAM / palette RAM write, tagged with the
 * line before which it lands. */
#ifndef GV_EMU_GB_GB_RENDER_H
#define GV_EMU_GB_GB_RENDER_H

#include <stdint.h>

#include "dev/gpu_common.h" /* GV_HD, GV_BARRIER */

#define GB_W 160
#define GB_H 144
#define GB_FB_BYTES (GB_W * GB_H * 3)
#define GB_LINE_OBJS 10
#define GB_VRAM_BYTES 0x4000 /* two 8 KiB banks (DMG uses bank 0 only) */
#define GB_PAL_BYTES 128     /* CGB palette RAM: 64 bytes BG, then 64 bytes OBJ */
/* Pixel timing model: pixel x of a line is output at dot GB_PIXEL_DOT0 + (SCX & 7) + x,
 * where SCX is its value when mode 3 began (mode 3 begins at dot 84; 12 dots of initial
 * fetches, then the fine scroll discard). A register write during mode 3 takes effect
 * from that pixel on. */
#define GB_PIXEL_DOT0 96

typedef struct {
    uint8_t y, x, tile, attr; /* OAM bytes 0-3 */
} gb_obj;

enum { GB_LINE_DRAWN = 1, GB_LINE_WINDOW = 2 };

typedef struct {
    uint8_t lcdc, scy, scx, wx, bgp, obp0, obp1, flags; /* registers at mode 3 start */
    uint8_t win_line;   /* window line counter used by this line (GB_LINE_WINDOW) */
    uint8_t nobj;       /* selected objects, highest priority first */
    uint8_t nreg;       /* register writes during this line's mode 3 */
    uint8_t pad;
    uint32_t reg_first; /* index of the first of them in the frame's register writes */
    gb_obj obj[GB_LINE_OBJS];
} gb_line;

/* A register write during mode 3: from pixel x on (x may be 160: no effect), IO register
 * $FF00+reg holds val. reg is one of LCDC $40, SCY $42, SCX $43, BGP $47, OBP0 $48,
 * OBP1 $49, WX $4B. */
typedef struct {
    uint8_t x, reg, val, pad;
} gb_regw;

/* A VRAM or palette RAM write: addr < $4000 is VRAM (bank * $2000 + offset), $4000 + i
 * is palette RAM byte i (BG 0-63, OBJ 64-127). It lands before line `line` is drawn;
 * line 144 means after the last line. */
typedef struct {
    uint8_t line, val;
    uint16_t addr;
} gb_memw;

#define GB_MEMW_PAL 0x4000

/* The picture rules of a frame (gb_frame_log.cgb): DMG; CGB mode (colour palettes, VRAM
 * bank 1, attributes); or a CGB in DMG compatibility mode (DMG rules, but BGP, OBP0 and
 * OBP1 pick their colours from CGB BG palette 0 and OBJ palettes 0-1 in palette RAM). */
enum { GB_LOG_DMG = 0, GB_LOG_CGB = 1, GB_LOG_COMPAT = 2 };

/* One frame's log. mem and reg point into arrays owned by whoever filled the log. */
typedef struct {
    uint8_t cgb;      /* GB_LOG_DMG, GB_LOG_CGB or GB_LOG_COMPAT */
    uint8_t snapshot; /* vram/pal hold the state at the start of the period */
    uint8_t pad[2];
    uint32_t nmem, nreg;
    gb_line line[GB_H];
    uint8_t vram[GB_VRAM_BYTES];
    uint8_t pal[GB_PAL_BYTES];
    const gb_memw *mem;
    const gb_regw *reg;
} gb_frame_log;

/* ---- colours ------------------------------------------------------------------------ */

/* DMG shades 0-3 as RGB888 grey levels: white, light grey, dark grey, black. */
GV_HD static inline uint8_t gb_dmg_grey(int shade)
{
    return (uint8_t)(0xFF - 0x55 * shade);
}

/* CGB 5-bit channel to 8 bits: (c << 3) | (c >> 2), so 0 -> 0 and 31 -> 255. */
GV_HD static inline uint8_t gb_cgb_c8(unsigned c)
{
    return (uint8_t)((c << 3) | (c >> 2));
}

/* Writes colour `ci` of CGB palette `p` (0-7 BG, 8-15 OBJ) from palette RAM as RGB888. */
GV_HD static inline void gb_cgb_rgb(const uint8_t *pal, int p, int ci, uint8_t *out)
{
    unsigned c = (unsigned)pal[p * 8 + ci * 2] | ((unsigned)pal[p * 8 + ci * 2 + 1] << 8);
    out[0] = gb_cgb_c8(c & 31);
    out[1] = gb_cgb_c8((c >> 5) & 31);
    out[2] = gb_cgb_c8((c >> 10) & 31);
}

/* ---- the per-line renderer ----------------------------------------------------------- */

/* Register state of the line renderer while walking a line. */
typedef struct {
    uint8_t lcdc, scy, scx, wx, bgp, obp0, obp1;
} gb_lregs;

GV_HD static inline void gb_lregs_set(gb_lregs *r, uint8_t reg, uint8_t val)
{
    switch (reg) {
    case 0x40: r->lcdc = val; break;
    case 0x42: r->scy = val; break;
    case 0x43: r->scx = val; break;
    case 0x47: r->bgp = val; break;
    case 0x48: r->obp0 = val; break;
    case 0x49: r->obp1 = val; break;
    case 0x4B: r->wx = val; break;
    default: break;
    }
}

/* Colour index (bits 0-1) of pixel `bit` (0 = leftmost) of a tile row. */
GV_HD static inline int gb_tile_px(uint8_t lo, uint8_t hi, int bit)
{
    return ((lo >> (7 - bit)) & 1) | (((hi >> (7 - bit)) & 1) << 1);
}

/* Objects of line y, sparsely: only the selected objects' 8-pixel spans are visited,
 * lowest priority first so that the highest-priority opaque pixel is the one left.
 * oci[x] gets the colour index (0 = no object), oattr[x] the attribute byte. */
GV_HD static inline void gb_render_objs(const gb_line *ln, const uint8_t *vram, int cgb, int y,
                                        uint8_t *oci, uint8_t *oattr)
{
    int h = (ln->lcdc & 4) ? 16 : 8;
    for (int k = ln->nobj - 1; k >= 0; k--) {
        const gb_obj o = ln->obj[k];
        int row = y + 16 - o.y;
        if (row < 0 || row >= h)
            continue;
        if (o.attr & 0x40)
            row = h - 1 - row;
        int tile = h == 16 ? (o.tile & 0xFE) : o.tile;
        int bank = (cgb == GB_LOG_CGB && (o.attr & 8)) ? 0x2000 : 0;
        uint8_t lo = vram[bank + tile * 16 + row * 2];
        uint8_t hi = vram[bank + tile * 16 + row * 2 + 1];
        for (int j = 0; j < 8; j++) {
            int x = o.x - 8 + j;
            if (x < 0 || x >= GB_W)
                continue;
            int ci = gb_tile_px(lo, hi, (o.attr & 0x20) ? 7 - j : j);
            if (ci) {
                oci[x] = (uint8_t)ci;
                oattr[x] = o.attr;
            }
        }
    }
}

/* Final RGB of one pixel from the BG and object layers under registers r; cgb is the
 * frame's GB_LOG_* mode. */
GV_HD static inline void gb_compose_px(const gb_lregs *r, const uint8_t *pal, int cgb, int bci,
                                       uint8_t battr, int oci, uint8_t oattr, uint8_t *out)
{
    if (!(r->lcdc & 0x80)) {
        out[0] = out[1] = out[2] = 0xFF;
        return;
    }
    int obj = oci && (r->lcdc & 2);
    if (cgb == GB_LOG_CGB) {
        /* LCDC.0 clear: objects always above BG. Else BG colour 1-3 wins when the BG
         * attribute or the object has its priority bit set. */
        if (obj && (!(r->lcdc & 1) || bci == 0 || !((battr | oattr) & 0x80)))
            gb_cgb_rgb(pal, 8 + (oattr & 7), oci, out);
        else
            gb_cgb_rgb(pal, battr & 7, bci, out);
        return;
    }
    int shade;
    if (!(r->lcdc & 1))
        bci = -1; /* BG and window blank (white); counts as colour 0 for priority */
    if (obj && (bci <= 0 || !(oattr & 0x80))) {
        shade = (((oattr & 0x10) ? r->obp1 : r->obp0) >> (2 * oci)) & 3;
        if (cgb == GB_LOG_COMPAT) {
            gb_cgb_rgb(pal, 8 + ((oattr >> 4) & 1), shade, out);
            return;
        }
    } else {
        shade = bci < 0 ? 0 : (r->bgp >> (2 * bci)) & 3;
        if (cgb == GB_LOG_COMPAT) {
            gb_cgb_rgb(pal, 0, shade, out);
            return;
        }
    }
    out[0] = out[1] = out[2] = gb_dmg_grey(shade);
}

/* Pixels [x, xe) of line y with registers r (constant over the span): BG or window
 * walked tile by tile, composed with the object layer. */
GV_HD static inline void gb_render_span(const gb_line *ln, const gb_lregs *r, const uint8_t *vram,
                                        const uint8_t *pal, int cgb, int y, int x, int xe, const uint8_t *oci,
                                        const uint8_t *oattr, uint8_t *rgb)
{
    const int ws = ((ln->flags & GB_LINE_WINDOW) && (r->lcdc & 0x20)) ? (r->wx >= 7 ? r->wx - 7 : 0) : GB_W;
    while (x < xe) {
        const int inwin = x >= ws;
        const int end = inwin ? xe : (xe < ws ? xe : ws);
        int col = inwin ? (x + 7 - r->wx) & 255 : (x + r->scx) & 255;
        const int row = inwin ? ln->win_line : (y + r->scy) & 255;
        const int map = ((r->lcdc & (inwin ? 0x40 : 0x08)) ? 0x1C00 : 0x1800) + (row >> 3) * 32;
        while (x < end) {
            const int mi = map + (col >> 3);
            const int tile = vram[mi];
            const uint8_t a = cgb == GB_LOG_CGB ? vram[0x2000 + mi] : 0;
            const int base = (r->lcdc & 0x10) ? tile * 16 : 0x1000 + (int)(int8_t)tile * 16;
            const int trow = (a & 0x40) ? 7 - (row & 7) : (row & 7);
            const uint8_t *tp = vram + ((a & 0x08) ? 0x2000 : 0) + base + trow * 2;
            const uint8_t lo = tp[0], hi = tp[1];
            int n = 8 - (col & 7);
            if (n > end - x)
                n = end - x;
            for (int k = 0; k < n; k++, x++) {
                const int c = (col + k) & 7;
                const int bci = gb_tile_px(lo, hi, (a & 0x20) ? 7 - c : c);
                gb_compose_px(r, pal, cgb, bci, a, oci[x], oattr[x], rgb + x * 3);
            }
            col = (col + n) & 255;
        }
    }
}

/* Renders line y of a frame into rgb (GB_W * 3 bytes). ln is the line's record, rw its
 * mode-3 register writes (ln->nreg of them), vram/pal the memory state for this line. */
GV_HD static inline void gb_render_line(const gb_line *ln, const gb_regw *rw, const uint8_t *vram,
                                        const uint8_t *pal, int cgb, int y, uint8_t *rgb)
{
    if (!(ln->flags & GB_LINE_DRAWN)) {
        for (int i = 0; i < GB_W * 3; i++)
            rgb[i] = 0xFF;
        return;
    }
    uint8_t oci[GB_W], oattr[GB_W];
    for (int x = 0; x < GB_W; x++)
        oci[x] = oattr[x] = 0;
    gb_render_objs(ln, vram, cgb, y, oci, oattr);
    gb_lregs r = {ln->lcdc, ln->scy, ln->scx, ln->wx, ln->bgp, ln->obp0, ln->obp1};
    int x = 0, i = 0;
    while (x < GB_W) {
        while (i < ln->nreg && rw[i].x <= x)
            gb_lregs_set(&r, rw[i].reg, rw[i].val), i++;
        int xe = i < ln->nreg ? rw[i].x : GB_W;
        if (xe > GB_W)
            xe = GB_W;
        gb_render_span(ln, &r, vram, pal, cgb, y, x, xe, oci, oattr, rgb);
        x = xe;
    }
}

/* Applies one logged memory write to a renderer's VRAM / palette RAM state. */
GV_HD static inline void gb_memw_apply(const gb_memw *w, uint8_t *vram, uint8_t *pal)
{
    if (w->addr < GB_VRAM_BYTES)
        vram[w->addr] = w->val;
    else
        pal[(w->addr - GB_MEMW_PAL) & (GB_PAL_BYTES - 1)] = w->val;
}

/* ---- packed logs (for batching and device transfer) ----------------------------------- */

/* A packed log is one contiguous block: this header, the lines, the snapshot (when
 * snapshot is set), the memory writes and the register writes, each 8-byte aligned. */
typedef struct {
    uint32_t bytes; /* total size of the packed block */
    uint8_t cgb, snapshot, pad[2];
    uint32_t nmem, nreg;
    uint32_t off_line, off_snap, off_mem, off_reg; /* byte offsets from the block start */
} gb_packed_hdr;


/* Renders a packed frame log. vram/pal hold the renderer's memory state (replaced by the
 * log's snapshot when it has one) and are brought forward by the log's writes; fb gets
 * the RGB888 frame. Called by nthr threads at once (thread tid): lines of a segment are
 * split among them, memory writes are applied by thread 0 between segments. */
GV_HD static inline void gb_render_packed(const uint8_t *pk, uint8_t *vram, uint8_t *pal, uint8_t *fb, int tid,
                                          int nthr)
{
    const gb_packed_hdr *h = (const gb_packed_hdr *)pk;
    const gb_line *lines = (const gb_line *)(pk + h->off_line);
    const gb_memw *mem = (const gb_memw *)(pk + h->off_mem);
    const gb_regw *reg = (const gb_regw *)(pk + h->off_reg);
    const uint32_t nmem = h->nmem;
    if (h->snapshot) {
        const uint32_t *src = (const uint32_t *)(pk + h->off_snap);
        for (int k = tid; k < GB_VRAM_BYTES / 4; k += nthr)
            ((uint32_t *)vram)[k] = src[k];
        for (int k = tid; k < GB_PAL_BYTES / 4; k += nthr)
            ((uint32_t *)pal)[k] = src[GB_VRAM_BYTES / 4 + k];
    }
    GV_BARRIER(nthr);
    uint32_t i = 0;
    int y = 0;
    while (y < GB_H) {
        uint32_t i0 = i;
        while (i < nmem && mem[i].line <= y)
            i++;
        if (tid == 0)
            for (uint32_t k = i0; k < i; k++)
                gb_memw_apply(&mem[k], vram, pal);
        GV_BARRIER(nthr);
        int end = (i < nmem && mem[i].line < GB_H) ? mem[i].line : GB_H;
        for (int ly = y + tid; ly < end; ly += nthr)
            gb_render_line(&lines[ly], reg + lines[ly].reg_first, vram, pal, h->cgb, ly, fb + ly * GB_W * 3);
        GV_BARRIER(nthr);
        y = end;
    }
    if (tid == 0)
        for (; i < nmem; i++)
            gb_memw_apply(&mem[i], vram, pal);
    GV_BARRIER(nthr);
}

#endif
