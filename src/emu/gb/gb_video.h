/* gb_video.h: the frame log the core emits and the per-line renderer that turns it into
 * pixels. Written once for C and CUDA/HIP (GV_HD marks functions for both), so the host
 * renderer and the device renderer run the same code; the core's native renderer is a
 * separate span-by-span implementation of the same rules for lines without mode-3 writes
 * (checked against this one by hash) and runs gb_mode3 below for lines with them.
 *
 * A frame period runs from one VBlank start to the next. The log holds, per visible line,
 * the registers at the start of mode 3, the objects the OAM scan selected (at most 10, in
 * priority order) and the window state; the register writes made during mode 3 with the
 * dot of the line at which they were made; and every VRAM / palette RAM write, tagged with the
 * line before which it lands. */
#ifndef GV_EMU_GB_GB_VIDEO_H
#define GV_EMU_GB_GB_VIDEO_H

#include <stdint.h>

#include "dev/gpu_common.h" /* GV_HD, GV_BARRIER */

#define GB_W 160
#define GB_H 144
#define GB_FB_BYTES (GB_W * GB_H * 3)
#define GB_LINE_OBJS 10
#define GB_VRAM_BYTES 0x4000 /* two 8 KiB banks (DMG uses bank 0 only) */
#define GB_PAL_BYTES 128     /* CGB palette RAM: 64 bytes BG, then 64 bytes OBJ */
typedef struct {
    uint8_t y, x, tile, attr; /* OAM bytes 0-3 */
} gb_obj;

/* GB_LINE_WINDOW: the window shows with the registers at mode 3's start; GB_LINE_WY: the
 * window's Y condition holds on this line (WY equalled LY on a line of this frame). */
enum { GB_LINE_DRAWN = 1, GB_LINE_WINDOW = 2, GB_LINE_WY = 4 };

typedef struct {
    uint8_t lcdc, scy, scx, wx, bgp, obp0, obp1, flags; /* registers at mode 3 start */
    uint8_t win_line;   /* the window line counter at mode 3's start (the row it shows next) */
    uint8_t nobj;       /* selected objects, highest priority first */
    uint8_t nreg;       /* register writes during this line's mode 3 */
    uint8_t pad;
    uint32_t reg_first; /* index of the first of them in the frame's register writes */
    gb_obj obj[GB_LINE_OBJS];
} gb_line;

/* A register write during mode 3: at dot t of the line (dots from LY's change; the CPU's
 * M-cycle of the write), IO register $FF00+reg becomes val. reg is one of LCDC $40, SCY
 * $42, SCX $43, BGP $47, OBP0 $48, OBP1 $49, WX $4B. Writes of a line come in time order. */
typedef struct {
    uint16_t t;
    uint8_t reg, val;
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

/* ---- mode 3, dot by dot -------------------------------------------------------------- */

/* Mode 3 as the DMG's pixel pipeline runs it (Pan Docs, "Pixel FIFO" and "Rendering";
 * the dots are those mealybug-tearoom-tests and mooneye's ppu tests show), in dots from
 * the line's start (dot 0: LY changes). The BG/window fetcher takes 2 dots for each of
 * its steps: the tile number (B), the tile's low and high bit planes (L, H); it pushes 8
 * pixels into the BG FIFO when that is empty, and starts the next tile the dot after.
 * The FIFO pops one pixel a dot unless an object fetch stalls it. The fetch of the line's
 * first tile starts at dot 88 while the FIFO drains 8 pixels of an earlier fetch (pops
 * -8 to -1: nothing is shown), so pop 0 comes at dot 96; pops 0 to SCX%8 - 1 are
 * discarded, then pixel x is pop x + SCX%8. Mode 3 ends after pixel 159 (mooneye:
 * 172 + SCX%8 dots + the window's and the objects' stalls from dot 84). A popped pixel
 * takes its colour 3 dots later (the palettes and LCDC's enable bits as of then). */
#define GB_M3_DOT 84   /* mode 3 begins (as STAT shows it) */
#define GB_M3_FETCH 88 /* the first tile's fetch begins; SCX%8 is taken */
#define GB_M3_LAG 3    /* pop to colour */
/* The window's first tile (after each start of the window) reads its map entry and bit
 * planes 2 dots after the fetcher steps below would (its pixels still come at their dots,
 * and the next tile's reads at theirs): what mealybug-tearoom-tests' m3_lcdc_win_map_change
 * and m3_lcdc_tile_sel_win_change show, LCDC written in mode 3 with WX=7 and an object at
 * X=0-8, the window's first two tiles taking the map and tile data of different dots. */
#define GB_M3_WIN0 2
/* An object's fetch: its pixels join the line at the fetch's last dot (6 dots, below), its
 * low and high bit planes take the object size (LCDC.2) of 1 and 3 dots after that dot
 * (mealybug-tearoom-tests, m3_lcdc_obj_size_change and m3_lcdc_obj_size_change_scx: LCDC.2
 * toggled in mode 3 gives objects whose planes come from different rows and tiles). */
#define GB_M3_OBJ_LO 1
#define GB_M3_OBJ_HI 3

/* Dots from the CPU's write (the first dot of its M-cycle) to the dot from which the
 * PPU's fetcher and object and window triggers see the new value: WX reaches the window's
 * comparison a dot before that (mealybug-tearoom-tests, m3_wx_6_change: WX=6 set in mode 2
 * and rewritten in the dot after the one in which pixel -1 would start the window does not
 * start it there). */
GV_HD static inline int gb_regw_delay(uint8_t reg)
{
    return reg == 0x4B ? -1 : 0;
}

/* The same for a popped pixel's colour (GB_M3_LAG after the pop): LCDC's enable bits come
 * a dot later than the palettes, except to the line's first pixel (first set), which takes
 * them with the palettes (mealybug-tearoom-tests, m3_lcdc_bg_en_change and
 * m3_lcdc_obj_en_change: with an object at X=2 pixel 0 takes the LCDC written 3 dots after
 * its pop, where pixel 1 with one at X=3 does not). */
GV_HD static inline int gb_regw_out_delay(uint8_t reg, int first)
{
    return reg == 0x40 && !first ? 1 : 0;
}

/* LCDC as the fetcher sees it at dot t (at or after the current dot): lcdc, the value now,
 * with the writes rw[wi..nreg) that land by then. */
GV_HD static inline uint8_t gb_lcdc_at(const gb_regw *rw, int nreg, int wi, uint8_t lcdc, int t)
{
    for (; wi < nreg && (int)rw[wi].t + gb_regw_delay(rw[wi].reg) <= t; wi++)
        if (rw[wi].reg == 0x40)
            lcdc = rw[wi].val;
    return lcdc;
}

/* Bit plane pl (0 low, 1 high) of object ob's row on line y, its size from lcdc (bit 2)
 * as the plane is read: 8x16 takes the tile pair's row 0-15, 8x8 the tile's row 0-7 (an
 * object the OAM scan took as 8x16 keeps its row's low 3 bits). */
GV_HD static inline uint8_t gb_obj_plane(const uint8_t *vram, const gb_obj *ob, int y, uint8_t lcdc, int cmode, int pl)
{
    const int h = (lcdc & 4) ? 16 : 8;
    int row = y + 16 - ob->y;
    if (ob->attr & 0x40)
        row = h - 1 - row;
    const int tile = h == 16 ? (ob->tile & 0xFE) : ob->tile;
    const int bank = (cmode && (ob->attr & 8)) ? 0x2000 : 0;
    return vram[bank + tile * 16 + (row & (h - 1)) * 2 + pl];
}

/* The dot at which mode 3 of a line without register writes ends: what gb_mode3 gives,
 * in closed form (Pan Docs' OBJ penalty algorithm, which is what the fetcher does): 172 +
 * SCX%8 dots from dot 84, 6 when the window begins (its first tile's fetch), and per object
 * (fetched in X order, when its first pixel is next in the BG FIFO; X=0 at pop -8) 6 dots
 * of fetch, after waiting for the fetcher's tile number and low plane of the tile after
 * the one it is in (5 - its pixels into that tile, the first object of a tile only). Tiles
 * count from pop 0, or from the window's first pixel. cgb: GB_LOG_CGB fetches objects
 * with LCDC.1 clear too. */
GV_HD static inline int gb_mode3_end(const gb_line *ln, int cgb)
{
    const int fine = ln->scx & 7;
    int end = GB_M3_DOT + 172 + fine;
    const int win = ln->flags & GB_LINE_WINDOW;
    const int pw = ln->wx - 7 + fine;
    if (win)
        end += 6 + (!ln->wx && fine); /* WX=0 with SCX%8 > 0: the window begins a dot later */
    if (!(cgb == GB_LOG_CGB || (ln->lcdc & 2)))
        return end;
    int xs[GB_LINE_OBJS];
    const int n = ln->nobj;
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && xs[j - 1] > ln->obj[i].x; j--)
            xs[j] = xs[j - 1];
        xs[j] = ln->obj[i].x;
    }
    int last = -1000; /* tile of the previous object */
    for (int i = 0; i < n && xs[i] < 168; i++) {
        const int p = xs[i] ? xs[i] - 8 + fine : -8;
        const int q = (win && p >= pw) ? p - pw : p; /* pops into the BG or the window */
        const int tile = ((q + 8) >> 3) + ((win && p >= pw) ? 1000 : 0);
        const int in = q & 7;
        if (tile != last && in < 5)
            end += 5 - in;
        last = tile;
        end += 6;
    }
    return end;
}

/* Runs mode 3 of line y (record ln, its writes rw[0..nreg)) dot by dot. With rgb (GB_W * 3
 * bytes) it draws the line from vram and pal (cgb: the frame's GB_LOG_* mode). Returns the
 * dot at which mode 3 ends; *wins gets how many times the window began on the line (the
 * window line counter advances by that much). */
GV_HD static inline int gb_mode3(const gb_line *ln, const gb_regw *rw, int nreg, const uint8_t *vram,
                                 const uint8_t *pal, int cgb, int y, uint8_t *rgb, int *wins)
{
    const int cmode = cgb == GB_LOG_CGB;
    gb_lregs r = {ln->lcdc, ln->scy, ln->scx, ln->wx, ln->bgp, ln->obp0, ln->obp1}; /* fetcher's view */
    gb_lregs o = r;                                                                 /* output's view */
    int wi = 0, oi = 0;
    /* objects in fetch order: by X, ties in priority order (index in ln->obj) */
    int ord[GB_LINE_OBJS];
    const int nobj = ln->nobj;
    for (int i = 0; i < nobj; i++) {
        int j = i;
        for (; j > 0 && ln->obj[ord[j - 1]].x > ln->obj[i].x; j--)
            ord[j] = ord[j - 1];
        ord[j] = i;
    }
    /* object pixels by pop index + 8: colour index (0: none), attributes, priority rank */
    uint8_t oci[GB_W + 24], oat[GB_W + 24], ork[GB_W + 24];
    for (int i = 0; i < GB_W + 24; i++)
        oci[i] = oat[i] = 0, ork[i] = 0xFF;
    int on = 0, ok = -1, odots = 0;
    int fine = 0, p = -8, x = 0;
    int bgn = 8;                   /* pixels in the BG FIFO (8 of the earlier fetch) */
    uint8_t blo = 0, bhi = 0, bat = 0;
    int fst = -2, fx = 0, fwin = 0; /* fetcher step (-2, -1 idle; 0-5; 6: ready to push), tile, window */
    uint8_t ftn = 0, fat = 0, flo = 0, fhi = 0;
    int nwin = 0, wrow = ln->win_line, wlate = 0, zp = -100, zout = 0;
    int zs = 0;    /* zero pixels so far: objects go by the pixels shown, p + zs */
    int wmiss = 0; /* the window's comparison matched last dot with LCDC.5 clear */
    int t = GB_M3_FETCH;
    for (; t < GB_M3_FETCH + 2 * 456; t++) {
        while (wi < nreg && (int)rw[wi].t + gb_regw_delay(rw[wi].reg) <= t)
            gb_lregs_set(&r, rw[wi].reg, rw[wi].val), wi++;
        if (t == GB_M3_FETCH + 2)
            fine = r.scx & 7; /* as the first tile's fetch begins */
        if (ok < 0) {
            /* the window begins when the next pixel shown (p + zs) has X + 7 = WX and LCDC.5
             * is set GB_M3_WIN0 dots later; a match that finds it clear starts the window at
             * the next dot's pixel if it is set by then (mealybug-tearoom-tests,
             * m3_lcdc_win_en_change_multiple_wx) */
            const int wm = (ln->flags & GB_LINE_WY) && p + zs - fine + 7 == r.wx;
            const int wprev = wmiss;
            wmiss = 0;
            if (!fwin && (wm || wprev) && (gb_lcdc_at(rw, nreg, wi, r.lcdc, t + GB_M3_WIN0) & 0x20)) {
                /* WX=0 with SCX%8 > 0: a dot later (mealybug-tearoom-tests, m3_window_timing_wx_0) */
                if (!r.wx && (r.scx & 7) && !wlate) {
                    wlate = 1;
                    continue;
                }
                fwin = 1, bgn = 0, fst = 0, fx = 0, zp = p;
                wrow = ln->win_line + nwin++;
            } else if (!fwin && wm && (ln->lcdc & 0x20)) {
                /* the same with LCDC.5 cleared since mode 3 began: as a tile's first pixel
                 * is next, one pixel of colour 0 comes first (as below) */
                wmiss = 1;
                if (bgn == 8 && zp != p)
                    zp = p, zout = 1;
            } else if (fwin && bgn == 8 && zp != p && (r.lcdc & 0x20) && p - fine + 7 == r.wx) {
                /* WX matched again while the window shows, as a window tile's first pixel
                 * is next: one pixel of colour 0 comes first (mealybug-tearoom-tests,
                 * m3_wx_4_change: "window reactivation zero pixels") */
                zp = p;
                zout = 1;
            }
            /* an object whose left edge is the next pixel in the FIFO (X=0: the first pop) */
            while (bgn && on < nobj) {
                const gb_obj *ob = &ln->obj[ord[on]];
                int op = ob->x ? ob->x - 8 + fine : -8;
                if (op != p + zs)
                    break;
                on++;
                if (cmode || (r.lcdc & 2)) {
                    ok = ord[on - 1];
                    break;
                }
            }
        }
        /* the fetcher: 2 idle dots after a push, then B, L and H, reading in their second dot */
        if (fst < 0) {
            fst++;
        } else if (fst < 6) {
            if (fst == 1 || fst == 3 || fst == 5) {
                /* the window's first tile: LCDC as of GB_M3_WIN0 dots later */
                const uint8_t lc = (fwin && !fx) ? gb_lcdc_at(rw, nreg, wi, r.lcdc, t + GB_M3_WIN0) : r.lcdc;
                if (fst == 1 && fwin && !(lc & 0x20))
                    fwin = 0; /* LCDC.5 clear at a tile number's read: the window ends there */
                const int row = fwin ? wrow : (y + r.scy) & 255;
                if (fst == 1) {
                    const int col = fwin ? fx : ((r.scx >> 3) + fx);
                    const int mi = ((lc & (fwin ? 0x40 : 0x08)) ? 0x1C00 : 0x1800) + ((row >> 3) & 31) * 32 + (col & 31);
                    ftn = vram[mi];
                    fat = cmode ? vram[0x2000 + mi] : 0;
                } else {
                    const int base = (lc & 0x10) ? ftn * 16 : 0x1000 + (int)(int8_t)ftn * 16;
                    const int trow = (fat & 0x40) ? 7 - (row & 7) : (row & 7);
                    const uint8_t v = vram[((fat & 0x08) ? 0x2000 : 0) + base + trow * 2 + (fst == 5)];
                    if (fst == 3)
                        flo = v;
                    else
                        fhi = v;
                }
            }
            fst++;
        }
        /* an object fetch (6 dots) starts once the fetcher has read B and L; the fetcher
         * reads H meanwhile (mooneye's OBJ timings: 11 - the pixels into the tile) */
        if (ok >= 0 && !odots && fst >= 4)
            odots = 6;
        if (ok >= 0) {
            if (odots && --odots == 0) {
                const gb_obj ob = ln->obj[ok];
                const uint8_t lo = gb_obj_plane(vram, &ob, y, gb_lcdc_at(rw, nreg, wi, r.lcdc, t + GB_M3_OBJ_LO), cmode, 0);
                const uint8_t hi = gb_obj_plane(vram, &ob, y, gb_lcdc_at(rw, nreg, wi, r.lcdc, t + GB_M3_OBJ_HI), cmode, 1);
                for (int j = 0; j < 8; j++) {
                    const int ci = gb_tile_px(lo, hi, (ob.attr & 0x20) ? 7 - j : j);
                    const int s = p + zs + 8 + j;
                    if (ci && s >= 0 && s < GB_W + 24 && (!oci[s] || ok < ork[s]))
                        oci[s] = (uint8_t)ci, oat[s] = ob.attr, ork[s] = (uint8_t)ok;
                }
                ok = -1;
            }
            continue; /* no pop while an object is fetched */
        }
        if (bgn) {
            const int zero = zout; /* a zero pixel: the FIFO keeps its pixels */
            int bci = 0;
            zout = 0;
            if (!zero)
                bci = ((blo >> 7) & 1) | (((bhi >> 7) & 1) << 1), blo = (uint8_t)(blo << 1),
                bhi = (uint8_t)(bhi << 1), bgn--;
            if (p >= fine) {
                if (rgb) {
                    int bgp_or = -1; /* DMG: a BGP write in the dot a pixel takes its colour gives it old | new */
                    while (oi < nreg && (int)rw[oi].t + gb_regw_out_delay(rw[oi].reg, !x) <= t + GB_M3_LAG) {
                        if (!cgb && rw[oi].reg == 0x47 && (int)rw[oi].t == t + GB_M3_LAG)
                            bgp_or = o.bgp;
                        gb_lregs_set(&o, rw[oi].reg, rw[oi].val), oi++;
                    }
                    gb_lregs oo = o;
                    if (bgp_or >= 0)
                        oo.bgp = (uint8_t)(oo.bgp | bgp_or);
                    gb_compose_px(&oo, pal, cgb, bci, bat, oci[p + zs + 8], oat[p + zs + 8], rgb + x * 3);
                }
                zs += zero;
                if (++x == GB_W) {
                    p += !zero;
                    t++;
                    break;
                }
            }
            p += !zero;
        }
        if (fst == 6 && !bgn) { /* push */
            const int fl = (fat & 0x20) != 0;
            blo = fl ? 0 : flo, bhi = fl ? 0 : fhi;
            if (fl)
                for (int j = 0; j < 8; j++)
                    blo |= (uint8_t)(((flo >> j) & 1) << (7 - j)), bhi |= (uint8_t)(((fhi >> j) & 1) << (7 - j));
            bat = fat, bgn = 8, fst = -2, fx++;
        }
    }
    if (wins)
        *wins = nwin;
    return t;
}

/* Renders line y of a frame into rgb (GB_W * 3 bytes). ln is the line's record, rw its
 * mode-3 register writes (ln->nreg of them), vram/pal the memory state for this line. A
 * line with writes runs mode 3 dot by dot (gb_mode3); one without is drawn span by span,
 * the same pixels. */
GV_HD static inline void gb_render_line(const gb_line *ln, const gb_regw *rw, const uint8_t *vram,
                                        const uint8_t *pal, int cgb, int y, uint8_t *rgb)
{
    if (!(ln->flags & GB_LINE_DRAWN)) {
        for (int i = 0; i < GB_W * 3; i++)
            rgb[i] = 0xFF;
        return;
    }
    if (ln->nreg) {
        gb_mode3(ln, rw, ln->nreg, vram, pal, cgb, y, rgb, 0);
        return;
    }
    uint8_t oci[GB_W], oattr[GB_W];
    for (int x = 0; x < GB_W; x++)
        oci[x] = oattr[x] = 0;
    gb_render_objs(ln, vram, cgb, y, oci, oattr);
    gb_lregs r = {ln->lcdc, ln->scy, ln->scx, ln->wx, ln->bgp, ln->obp0, ln->obp1};
    gb_render_span(ln, &r, vram, pal, cgb, y, 0, GB_W, oci, oattr, rgb);
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
