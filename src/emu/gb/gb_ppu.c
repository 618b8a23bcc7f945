/* gb_ppu.c: the PPU's timing side, the frame log and the native per-dot renderer.
 *
 * Timing (per line of 456 dots, as the CPU sees it on the DMG; mooneye's ppu tests measure
 * every step): LY changes at dot 0 and the OAM scan begins (OAM locked to reads); STAT
 * shows mode 0 and a clear LY=LYC flag for 4 dots, then mode 2 and the comparison, when
 * the mode-2 and LY=LYC interrupts come; OAM writes pass again at dot 80 and VRAM reads
 * are refused from there; mode 3 from dot 84 for 172 + SCX%8 + 6 if the window shows +
 * 6..11 per object (Pan Docs' OBJ penalty algorithm) dots, of which STAT shows the last 3
 * as mode 0 already (the mode-0 interrupt comes at the end); mode 0 to the end. Lines
 * 144-153 are mode 1 from dot 4 of line 144, when VBlank is requested (with the mode-2
 * STAT source too). On line 153, LY reads 153 for 4 dots, then 0. The STAT interrupt
 * fires on a rising edge of (LYC=LY and bit 6) or (mode 0/1/2 and bit 3/4/5); the flag
 * keeps its value while the LCD is off. The first line after the LCD is switched on has
 * no OAM scan: STAT shows mode 0 until mode 3. The OAM scan (taken at the start of mode
 * 3) selects the first 10 objects of OAM covering the line; they are drawn by X then OAM
 * index on DMG (and CGB with OPRI bit 0), by OAM index on CGB. The window shows on a line
 * when LCDC.5 is set, WY equalled LY at dot 4 of some line of this frame, and WX <= 166;
 * its line counter advances only on such lines.
 *
 * The native renderer draws a line when its mode 3 ends: span by span when no register
 * changed during mode 3, else with the log renderer's dot-by-dot run (gb_mode3 in
 * gb_video.h), which also gives mode 3's length once a write could change it. */
#include <string.h>

#include "emu/gb/gb_int.h"

/* The last 4 dots of a line, before the next line's GB_PPU_LINE event: LY has changed
 * already (the CPU sees it), the rest of the line's start has not. */
static inline int line_pending(const gb_state *s)
{
    return s->ppu_ev == GB_PPU_LINE && s->clk + 4 >= s->ev[GB_EV_PPU];
}

/* LY as the CPU reads it: 153 reads 0 from its dot 4 (ly_reg), and the next line's LY
 * shows from its dot 0. */
static inline uint8_t ly_seen(const gb_state *s)
{
    if ((s->lcdc & 0x80) && line_pending(s))
        return s->ly >= 152 ? (uint8_t)(s->ly == 152 ? 153 : 0) : (uint8_t)(s->ly + 1);
    return s->ly_reg;
}

/* STAT's LY=LYC flag: clear in the 4 dots after LY changes (until the comparison at dot
 * 4), kept while the LCD is off. */
static inline int lyc_flag(const gb_state *s)
{
    if ((s->lcdc & 0x80) && line_pending(s) && s->ly != 153)
        return 0;
    return s->lyc_eq;
}

/* Mode 3's last 3 dots: STAT shows mode 0 and OAM and VRAM are free already. */
static inline int mode3_ending(const gb_state *s)
{
    return s->mode == 3 && s->ppu_ev == GB_PPU_MODE0 && s->clk + 3 >= s->ev[GB_EV_PPU];
}

/* The STAT interrupt line: the OR of the selected sources (Pan Docs, "STAT blocking"); a
 * rising edge requests the interrupt. The mode sources see the mode of the PPU's events
 * (no mode with the LCD off); the LY=LYC source is STAT's flag. */
static inline void stat_update(gb *g)
{
    gb_state *s = &g->s;
    int mode = (s->lcdc & 0x80) ? s->mode : 4;
    int line = ((s->stat & 0x40) && lyc_flag(s)) || ((s->stat & 0x20) && mode == 2) ||
               ((s->stat & 0x10) && mode == 1) || ((s->stat & 0x08) && mode == 0);
    if (line && !s->stat_line)
        s->iflag |= 2;
    s->stat_line = (uint8_t)line;
}

static void ppu_next(gb *g, int ev, uint64_t t)
{
    g->s.ppu_ev = (uint8_t)ev;
    gb_sched(g, GB_EV_PPU, t);
}

static gb_frame_log *cur_log(gb *g)
{
    return &g->log[g->log_cur];
}

/* Line s.ly began at dot t; this is its dot 4. LY changed at dot 0 (ly_seen), when the
 * OAM scan began (OAM locked to reads: gb_ppu_oam_locked); STAT showed mode 0 and a clear
 * LY=LYC flag until now, when it shows the line's mode and the comparison and the mode-2,
 * VBlank and LY=LYC interrupts come (mooneye's lcdon_timing, intr_2_*, intr_1_2 and
 * stat_lyc_onoff measure these). Line 0 leaves VBlank here; on line 153 LY reads 0 from
 * here and the comparison with 0 follows 4 dots later. */
static void line_begin(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    s->line_clk = t;
    s->ly_reg = s->ly == 153 ? 0 : s->ly;
    s->lyc_eq = (s->ly == 153 ? 153 : s->ly) == s->lyc;
    if (s->ly < GB_H) {
        if (s->ly == 0) {
            s->wy_trig = 0;
            s->win_counter = 0;
        }
        s->mode = 2;
        gb_map_vram(g);
        if (s->wy == s->ly)
            s->wy_trig = 1;
        ppu_next(g, GB_PPU_MODE3, t + 84);
    } else {
        if (s->ly == GB_H) {
            gb_period_end(g, t); /* the frame period ends as LY reaches 144 */
            if ((s->stat & 0x20) && !s->stat_line)
                s->iflag |= 2;
            s->mode = 1;
            s->iflag |= 1;
        }
        if (s->ly == 153)
            ppu_next(g, GB_PPU_LY0, t + 8);
        else
            ppu_next(g, GB_PPU_LINE, t + GB_DOTS_LINE + 4);
    }
    stat_update(g);
}

/* The CPU's access to OAM: refused to reads from the scan's start (dot 0) to mode 0, to
 * writes while the scan reads it (dots 4-79) and in mode 3 (mooneye's lcdon_timing and
 * lcdon_write_timing). */
int gb_ppu_oam_locked(const gb *g, int write)
{
    const gb_state *s = &g->s;
    if (!(s->lcdc & 0x80))
        return 0;
    if (s->mode < 2) /* the next line's scan from its dot 0 */
        return !write && line_pending(s) && s->ly < GB_H - 1;
    if (mode3_ending(s))
        return 0;
    if (s->mode == 3 || !write)
        return 1;
    return s->clk - s->line_clk < 80;
}

/* The CPU's access to VRAM: refused in mode 3, and to reads from dot 80 of mode 2. */
int gb_ppu_vram_locked(const gb *g, int write)
{
    const gb_state *s = &g->s;
    if (!(s->lcdc & 0x80) || s->mode < 2 || mode3_ending(s))
        return 0;
    if (s->mode == 3)
        return 1;
    return !write && s->clk - s->line_clk >= 80;
}

/* OAM scan for line s.ly: the first 10 objects (in OAM order) whose rows cover the line,
 * then ordered by drawing priority. */
/* Object i covers line ly when its row ly + 16 - y is in [0, h): ly in [y - 16, y - 16 + h). */
static void oam_rows_build(gb *g, int h)
{
    const gb_state *s = &g->s;
    memset(g->oam_rows, 0, sizeof g->oam_rows);
    for (int i = 0; i < 40; i++) {
        int top = s->oam[4 * i] - 16;
        for (int ly = top < 0 ? 0 : top; ly < top + h && ly < GB_H; ly++)
            g->oam_rows[ly] |= 1ull << i;
    }
    g->oam_rows_h = h;
}

/* Selects the (at most 10) objects of line ly in OAM order, then orders them by X where
 * that decides priority (DMG, or CGB with OPRI set). */
static void oam_scan(gb *g)
{
    gb_state *s = &g->s;
    int h = (s->lcdc & 4) ? 16 : 8;
    if (g->oam_rows_h != h)
        oam_rows_build(g, h);
    uint64_t hit = g->oam_rows[s->ly];
    int n = 0;
    for (; hit && n < GB_LINE_OBJS; hit &= hit - 1)
        s->obj_idx[n++] = (uint8_t)__builtin_ctzll(hit);
    s->nobj = (uint8_t)n;
    if (s->cgb && !(s->opri & 1))
        return;
    for (int i = 1; i < n; i++) /* stable: X ties keep OAM order */
        for (int j = i; j > 0 && s->oam[s->obj_idx[j] * 4 + 1] < s->oam[s->obj_idx[j - 1] * 4 + 1]; j--) {
            uint8_t t = s->obj_idx[j];
            s->obj_idx[j] = s->obj_idx[j - 1];
            s->obj_idx[j - 1] = t;
        }
}

/* The native renderer's view of this line's objects: each object's row of pixels (VRAM
 * is locked during mode 3, so they cannot change while the line is drawn), and for each
 * pixel the set of objects covering it. */
static void native_line_objs(gb *g)
{
    gb_state *s = &g->s;
    int h = g->nat_h;
    memset(g->nat_mask, 0, sizeof g->nat_mask);
    memset(g->nat_cover, 0, sizeof g->nat_cover);
    for (int k = 0; k < s->nobj; k++) {
        const gb_obj *o = &g->nat_obj[k];
        int r = s->ly - (o->y - 16);
        if (o->attr & 0x40)
            r = h - 1 - r;
        int tn = h == 16 ? (o->tile & 0xFE) : o->tile;
        const uint8_t *op = s->vram + ((s->cgb && (o->attr & 8)) ? 0x2000 : 0) + tn * 16 + r * 2;
        g->nat_lo[k] = op[0];
        g->nat_hi[k] = op[1];
        for (int x = o->x - 8; x < o->x; x++)
            if (x >= 0 && x < GB_W) {
                g->nat_mask[x] |= (uint16_t)(1u << k);
                g->nat_cover[x >> 6] |= 1ull << (x & 63);
            }
    }
}

/* CGB palette RAM entry i (0-63: BG colours then OBJ colours) as RGB888, $FF in the top
 * byte (see native_draw). */
static void pal_rgb_update(gb *g, int i)
{
    unsigned c = g->s.pal[i * 2] | (g->s.pal[i * 2 + 1] << 8);
    g->pal_rgb[i] = gb_cgb_c8(c & 31) | ((uint32_t)gb_cgb_c8((c >> 5) & 31) << 8) |
                    ((uint32_t)gb_cgb_c8((c >> 10) & 31) << 16) | 0xFF000000u;
}

void gb_pal_rgb_refresh(gb *g)
{
    for (int i = 0; i < 64; i++)
        pal_rgb_update(g, i);
}

static void mode3_begin(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    s->mode = 3;
    oam_scan(g);
    s->line_win = (s->lcdc & 0x20) && s->wy_trig && s->wx <= 166;
    s->line_win_line = s->win_counter;
    if (s->line_win)
        s->win_counter++;
    s->fine = s->scx & 7;
    s->lines_drawn = (uint8_t)(s->ly + 1);
    for (int k = 0; k < s->nobj; k++)
        memcpy(&g->nat_obj[k], s->oam + s->obj_idx[k] * 4, 4);
    g->nat_h = (s->lcdc & 4) ? 16 : 8; /* object height as of the OAM scan */
    if (g->outputs & GB_OUT_VIDEO_NATIVE)
        native_line_objs(g);
    gb_line *ln = &g->m3_line;
    ln->lcdc = s->lcdc;
    ln->scy = s->scy;
    ln->scx = s->scx;
    ln->wx = s->wx;
    ln->bgp = s->bgp;
    ln->obp0 = s->obp0;
    ln->obp1 = s->obp1;
    ln->flags = (uint8_t)(GB_LINE_DRAWN | (s->line_win ? GB_LINE_WINDOW : 0) | (s->wy_trig ? GB_LINE_WY : 0));
    ln->win_line = s->line_win_line;
    ln->nobj = s->nobj;
    ln->nreg = 0;
    ln->pad = 0;
    ln->reg_first = g->regw[g->log_cur].n;
    memset(ln->obj, 0, sizeof ln->obj);
    memcpy(ln->obj, g->nat_obj, (size_t)s->nobj * sizeof(gb_obj));
    g->m3_nw = 0;
    if (g->outputs & GB_OUT_VIDEO_LOG)
        cur_log(g)->line[s->ly] = *ln;
    const int end = gb_mode3_end(ln, gb_log_mode(s));
    s->mode3_len = (uint16_t)(end - GB_M3_DOT);
    ppu_next(g, GB_PPU_MODE0, s->line_clk + (uint64_t)end);
    gb_map_vram(g);
    stat_update(g);
}

/* ---- native renderer ------------------------------------------------------------------ */

/* Tables that spread a tile row byte into 2-bit slots, slot p = pixel p from the left:
 * bit 7-p of the byte goes to bit 2p (table 0), bit p to bit 2p (table 1, X-flipped). The
 * high-bit-plane byte is spread the same way and shifted left by one. */
void gb_native_init(gb *g)
{
    for (int v = 0; v < 256; v++) {
        unsigned a = 0, b = 0;
        for (int p = 0; p < 8; p++) {
            a |= ((v >> (7 - p)) & 1u) << (2 * p);
            b |= ((v >> p) & 1u) << (2 * p);
        }
        g->spread[0][v] = (uint16_t)a;
        g->spread[1][v] = (uint16_t)b;
    }
}

/* The n (<= 8) bits of the object-coverage bitmap from pixel x. */
static inline unsigned cover_bits(const gb *g, int x, int n)
{
    uint64_t w = g->nat_cover[x >> 6] >> (x & 63);
    if (x & 63)
        w |= g->nat_cover[(x >> 6) + 1] << (64 - (x & 63));
    return (unsigned)w & ((1u << n) - 1);
}

/* Draws the current line with the registers as they are now (no write changed them in
 * mode 3). The BG or window is walked tile by tile; each
 * pixel inside the objects' span takes the first opaque pixel of the selected objects
 * in priority order. */
static void native_draw(gb *g)
{
    gb_state *s = &g->s;
    if (!(g->outputs & GB_OUT_VIDEO_NATIVE))
        return;
    int x = 0;
    const int xe = GB_W;
    uint8_t *px = g->fb[g->fb_cur] + s->ly * GB_W * 3;
    const unsigned lcdc = s->lcdc;
    if (!(lcdc & 0x80)) {
        memset(px, 0xFF, (size_t)(xe - x) * 3);
        return;
    }
    const int cgb = s->cgb, compat = !cgb && s->cgb_hw, prio_off = !(lcdc & 1);
    const uint8_t *vram = s->vram;
    /* Colour tables: BG index (attr & 7) * 4 + colour, object index palette * 4 + colour,
     * where the object palette is attribute bits 0-2 on CGB and bit 4 (OBP0/OBP1) on DMG.
     * DMG with LCDC.0 clear: the BG is white and objects are always above it. */
    uint32_t dmg_bg[4], dmg_ob[8];
    const uint32_t *btab = g->pal_rgb, *otab = g->pal_rgb + 32;
    const int osh = cgb ? 0 : 4, omk = cgb ? 7 : 1;
    if (compat) {
        /* DMG compatibility mode: the shades index CGB BG palette 0 and OBJ palettes 0-1 */
        for (int c = 0; c < 4; c++) {
            dmg_bg[c] = g->pal_rgb[prio_off ? 0 : (s->bgp >> (2 * c)) & 3];
            dmg_ob[c] = g->pal_rgb[32 + ((s->obp0 >> (2 * c)) & 3)];
            dmg_ob[4 + c] = g->pal_rgb[36 + ((s->obp1 >> (2 * c)) & 3)];
        }
        btab = dmg_bg;
        otab = dmg_ob;
    } else if (!cgb) {
        for (int c = 0; c < 4; c++) {
            dmg_bg[c] = 0xFF000000u | (prio_off ? 0xFFFFFFu : 0x010101u * gb_dmg_grey((s->bgp >> (2 * c)) & 3));
            dmg_ob[c] = 0xFF000000u | 0x010101u * gb_dmg_grey((s->obp0 >> (2 * c)) & 3);
            dmg_ob[4 + c] = 0xFF000000u | 0x010101u * gb_dmg_grey((s->obp1 >> (2 * c)) & 3);
        }
        btab = dmg_bg;
        otab = dmg_ob;
    }
    const int wstart = (s->line_win && (lcdc & 0x20)) ? (s->wx >= 7 ? s->wx - 7 : 0) : GB_W;
    const int objs = (lcdc & 2) && s->nobj;
    while (x < xe) {
        const int inwin = x >= wstart;
        const int seg_end = inwin ? xe : (xe < wstart ? xe : wstart);
        unsigned col = inwin ? (unsigned)(x + 7 - s->wx) & 255 : (unsigned)(x + s->scx) & 255;
        const unsigned row = inwin ? s->line_win_line : (unsigned)(s->ly + s->scy) & 255;
        const int mapbase = ((lcdc & (inwin ? 0x40 : 0x08)) ? 0x1C00 : 0x1800) + (int)(row >> 3) * 32;
        while (x < seg_end) {
            const int mi = mapbase + (int)(col >> 3);
            const unsigned tno = vram[mi], at = cgb ? vram[0x2000 + mi] : 0;
            const int taddr = (lcdc & 0x10) ? (int)tno * 16 : 0x1000 + (int)(int8_t)tno * 16;
            const unsigned ty = (at & 0x40) ? 7 - (row & 7) : (row & 7);
            const uint8_t *tp = vram + ((at & 8) ? 0x2000 : 0) + taddr + ty * 2;
            const uint16_t *sp = g->spread[(at & 0x20) ? 1 : 0];
            const unsigned row2 = sp[tp[0]] | (sp[tp[1]] << 1); /* colour of pixel p: bits 2p-2p+1 */
            const uint32_t *bt = btab + (at & 7) * 4;
            int n = 8 - (int)(col & 7);
            if (n > seg_end - x)
                n = seg_end - x;
            unsigned c = col & 7;
            if (!objs || !cover_bits(g, x, n)) {
                for (int k = 0; k < n; k++, x++, px += 3, c++) {
                    const uint32_t rgb = bt[(row2 >> (2 * c)) & 3];
                    memcpy(px, &rgb, 4); /* R, G, B and $FF into the next pixel's red (see below) */
                }
                col = (col + (unsigned)n) & 255;
                continue;
            }
            for (int k = 0; k < n; k++, x++, px += 3, c++) {
                const unsigned bci = (row2 >> (2 * c)) & 3;
                unsigned m = g->nat_mask[x], oci = 0, oat = 0;
                while (m) { /* covering objects, highest priority (lowest bit) first */
                    const int j = __builtin_ctz(m);
                    m &= m - 1;
                    const unsigned dx = (unsigned)(x - (g->nat_obj[j].x - 8));
                    oat = g->nat_obj[j].attr;
                    const unsigned ob = (oat & 0x20) ? dx : 7 - dx;
                    oci = ((g->nat_lo[j] >> ob) & 1) | (((g->nat_hi[j] >> ob) & 1) << 1);
                    if (oci)
                        break;
                }
                const uint32_t rgb = (oci && (prio_off || !bci || !((at | oat) & 0x80)))
                                         ? otab[((oat >> osh) & omk) * 4 + oci]
                                         : bt[bci];
                /* Little-endian R, G, B, then $FF into the next pixel's red: it is drawn
                 * after this one, or stays white when it is not drawn at all. */
                memcpy(px, &rgb, 4);
            }
            col = (col + (unsigned)n) & 255;
        }
    }
}

/* A register that shapes the picture is written during mode 3, or in mode 0's first 3 dots
 * while the last pixels still take their colours (GB_M3_LAG): the write is kept with its
 * dot for the line (and the log). One that can change mode 3's length (LCDC's object and
 * window bits, WX, SCX before its low bits are taken) runs mode 3 again with the writes so
 * far, and mode 0 moves to where it ends now; one after mode 3 draws the line again. */
static void native_line_end(gb *g);

static void midline_write(gb *g, uint8_t reg, uint8_t v)
{
    gb_state *s = &g->s;
    if (!(s->lcdc & 0x80) || g->m3_nw >= GB_M3_WRITES)
        return;
    const int m3 = s->mode == 3;
    if (!m3 && !(s->mode == 0 && s->clk < g->m3_close))
        return;
    const uint64_t d = s->clk - s->line_clk;
    gb_regw *w = &g->m3_w[g->m3_nw++];
    w->t = (uint16_t)d;
    w->reg = reg;
    w->val = v;
    if (g->outputs & GB_OUT_VIDEO_LOG) {
        *(gb_regw *)gb_vec_push(&g->regw[g->log_cur], sizeof *w) = *w;
        cur_log(g)->line[s->ly].nreg++;
    }
    if (!m3) {
        native_line_end(g);
        return;
    }
    int timing = reg == 0x4B || (reg == 0x40 && ((v ^ s->lcdc) & 0x22)) || (reg == 0x43 && d <= GB_M3_FETCH);
    if (timing && (v & 0x80 || reg != 0x40)) {
        g->m3_line.nreg = (uint8_t)g->m3_nw;
        uint64_t end = s->line_clk + (uint64_t)gb_mode3(&g->m3_line, g->m3_w, g->m3_nw, s->vram, s->pal,
                                                        gb_log_mode(s), s->ly, 0, 0);
        ppu_next(g, GB_PPU_MODE0, end > s->clk ? end : s->clk);
    }
}

/* The native picture of the line in mode 3 once it ends (or the LCD goes off): drawn as the
 * dots passed (native_draw) when no register changed, else by running mode 3 dot by dot;
 * the window line counter then advances by the times the window began. */
static void native_line_end(gb *g)
{
    gb_state *s = &g->s;
    if (!g->m3_nw) {
        native_draw(g);
        return;
    }
    g->m3_line.nreg = (uint8_t)g->m3_nw;
    int wins = 0;
    uint8_t *row = (g->outputs & GB_OUT_VIDEO_NATIVE) ? g->fb[g->fb_cur] + s->ly * GB_W * 3 : 0;
    gb_mode3(&g->m3_line, g->m3_w, g->m3_nw, s->vram, s->pal, gb_log_mode(s), s->ly, row, &wins);
    if (s->mode == 3)
        s->win_counter = (uint8_t)(g->m3_line.win_line + wins);
}

static void hdma_block(gb *g, uint64_t t);
static int gdma_run(gb *g);

/* Mode 3 ends (STAT has shown mode 0 for 3 dots: mode3_ending; mooneye's
 * intr_2_mode0_timing_sprites reads STAT, hblank_ly_scx_timing takes the interrupt). */
static void mode0_begin(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    native_line_end(g);
    s->mode = 0;
    g->m3_close = t + GB_M3_LAG;
    /* line 0 out of VBlank runs 4 dots early (line_begin): the next line is on time */
    uint64_t next = s->line_clk + GB_DOTS_LINE + 4 + (s->ly == 0 && !s->lcdon_line ? 4 : 0);
    s->lcdon_line = 0;
    gb_map_vram(g);
    ppu_next(g, GB_PPU_LINE, next);
    if (s->gdma_pending) { /* the CPU already waits for it (gb_hdma_write) */
        s->gdma_pending = 0;
        uint64_t c = s->clk;
        gdma_run(g);
        s->clk = c;
    }
    if (s->hdma_active)
        hdma_block(g, t);
    stat_update(g);
}

void gb_ppu_event(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    switch (s->ppu_ev) {
    case GB_PPU_LINE:
        s->ly = s->ly >= 153 ? 0 : (uint8_t)(s->ly + 1);
        line_begin(g, t - (s->ly ? 4 : 8));
        break;
    case GB_PPU_MODE3:
        mode3_begin(g, t);
        break;
    case GB_PPU_MODE0:
        mode0_begin(g, t);
        break;
    default: /* GB_PPU_LY0 */
        s->lyc_eq = s->lyc == 0;
        stat_update(g);
        ppu_next(g, GB_PPU_LINE, s->line_clk + GB_DOTS_LINE + 4);
        break;
    }
}

/* ---- registers ------------------------------------------------------------------------ */

uint8_t gb_ppu_read(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    switch (a & 0xFF) {
    case 0x40: return s->lcdc;
    case 0x41: {
        int mode = !(s->lcdc & 0x80) || mode3_ending(s) ? 0 : s->mode;
        return (uint8_t)(0x80 | (s->stat & 0x78) | (lyc_flag(s) << 2) | mode);
    }
    case 0x42: return s->scy;
    case 0x43: return s->scx;
    case 0x44: return ly_seen(s);
    case 0x45: return s->lyc;
    case 0x46: return s->dma_reg;
    case 0x47: return s->bgp;
    case 0x48: return s->obp0;
    case 0x49: return s->obp1;
    case 0x4A: return s->wy;
    case 0x4B: return s->wx;
    case 0x68: return (uint8_t)(s->bcps | 0x40);
    case 0x6A: return (uint8_t)(s->ocps | 0x40);
    case 0x69: case 0x6B: {
        if ((s->lcdc & 0x80) && s->mode == 3)
            return 0xFF;
        int obj = (a & 0xFF) == 0x6B;
        return s->pal[(obj ? 64 : 0) + ((obj ? s->ocps : s->bcps) & 0x3F)];
    }
    default: return 0xFF;
    }
}

static void lcd_off(gb *g)
{
    gb_state *s = &g->s;
    if (s->mode == 3)
        native_line_end(g); /* the rest of a line being drawn is white */
    s->ly = s->ly_reg = 0;
    s->mode = 0;
    s->lcdon_line = 0;
    gb_sched(g, GB_EV_PPU, GB_NEVER);
    uint64_t dl = s->period_start + GB_DOTS_FRAME;
    gb_sched(g, GB_EV_FRAME, dl > s->clk ? dl : s->clk);
    gb_map_vram(g);
    stat_update(g);
}

static void lcd_on(gb *g)
{
    gb_state *s = &g->s;
    gb_sched(g, GB_EV_FRAME, GB_NEVER);
    /* A period shows each line once: if lines were drawn already, the period ends here. */
    if (s->lines_drawn)
        gb_period_end(g, s->clk);
    s->ly = 0;
    /* The first line starts as if it had begun one M-cycle before the write: LY reaches 1
     * 452 dots after it (blargg's oam_bug 1-lcd_sync measures this on the DMG). It has no
     * OAM scan: STAT shows mode 0 until mode 3 (mooneye's lcdon_timing). The comparison
     * starts again at once. */
    s->line_clk = s->clk - 4;
    s->ly_reg = 0;
    s->wy_trig = s->wy == 0;
    s->win_counter = 0;
    s->mode = 0;
    s->lcdon_line = 1;
    g->m3_close = 0;
    s->lyc_eq = s->lyc == 0;
    gb_map_vram(g);
    ppu_next(g, GB_PPU_MODE3, s->line_clk + 84);
    stat_update(g);
}

void gb_ppu_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    uint8_t r = (uint8_t)a;
    switch (r) {
    case 0x40: {
        uint8_t old = s->lcdc;
        midline_write(g, r, v);
        s->lcdc = v;
        if ((old & 0x80) && !(v & 0x80))
            lcd_off(g);
        else if (!(old & 0x80) && (v & 0x80))
            lcd_on(g);
        else
            gb_map_vram(g);
        return;
    }
    case 0x41:
        /* DMG: the write acts as $FF for one M-cycle first (Pan Docs, "Spurious STAT
         * interrupts"): any active mode or LYC condition can raise the interrupt */
        if (!s->cgb_hw) {
            s->stat = 0x78;
            stat_update(g);
        }
        s->stat = v & 0x78;
        stat_update(g);
        return;
    case 0x42: midline_write(g, r, v); s->scy = v; return;
    case 0x43: midline_write(g, r, v); s->scx = v; return;
    case 0x45:
        s->lyc = v;
        if (s->lcdc & 0x80) /* the comparison runs while the LCD is on */
            s->lyc_eq = s->ly_reg == s->lyc;
        stat_update(g);
        return;
    case 0x46: gb_oam_dma(g, v); return;
    case 0x47: midline_write(g, r, v); s->bgp = v; return;
    case 0x48: midline_write(g, r, v); s->obp0 = v; return;
    case 0x49: midline_write(g, r, v); s->obp1 = v; return;
    case 0x4A: s->wy = v; return;
    case 0x4B: midline_write(g, r, v); s->wx = v; return;
    case 0x68: s->bcps = v & 0xBF; return;
    case 0x6A: s->ocps = v & 0xBF; return;
    case 0x69: case 0x6B: {
        int obj = r == 0x6B;
        uint8_t *ps = obj ? &s->ocps : &s->bcps;
        if (!((s->lcdc & 0x80) && s->mode == 3)) { /* locked during mode 3 */
            int i = (obj ? 64 : 0) + (*ps & 0x3F);
            s->pal[i] = v;
            pal_rgb_update(g, i >> 1);
            gb_ppu_mem_logged(g, (uint16_t)(GB_MEMW_PAL + i), v);
        }
        if (*ps & 0x80) /* auto-increment */
            *ps = (uint8_t)(0x80 | ((*ps + 1) & 0x3F));
        return;
    }
    default: return;
    }
}

/* ---- logs and frame periods ----------------------------------------------------------- */

void gb_ppu_mem_logged(gb *g, uint16_t addr, uint8_t v)
{
    if (!(g->outputs & GB_OUT_VIDEO_LOG))
        return;
    gb_memw *w = gb_vec_push(&g->memw[g->log_cur], sizeof *w);
    w->line = g->s.lines_drawn;
    w->val = v;
    w->addr = addr;
}

/* The frame period switched: the finished log and framebuffer become the "last complete"
 * ones, the new period starts empty (every line undrawn: white). */
void gb_ppu_period_begin(gb *g)
{
    gb_state *s = &g->s;
    if (g->outputs & GB_OUT_VIDEO_NATIVE) {
        g->fb_cur ^= 1;
        memset(g->fb[g->fb_cur], 0xFF, GB_FB_BYTES);
    }
    if (g->outputs & GB_OUT_VIDEO_LOG) {
        gb_frame_log *done = cur_log(g);
        done->nmem = g->memw[g->log_cur].n;
        done->nreg = g->regw[g->log_cur].n;
        done->mem = g->memw[g->log_cur].v;
        done->reg = g->regw[g->log_cur].v;
        g->log_cur ^= 1;
        gb_frame_log *nl = cur_log(g);
        memset(nl->line, 0, sizeof nl->line);
        g->memw[g->log_cur].n = 0;
        g->regw[g->log_cur].n = 0;
        nl->cgb = gb_log_mode(s);
        nl->snapshot = (uint8_t)g->want_snapshot;
        if (g->want_snapshot) {
            memcpy(nl->vram, s->vram, GB_VRAM_BYTES);
            memcpy(nl->pal, s->pal, GB_PAL_BYTES);
            g->want_snapshot = 0;
        }
    }
    s->lines_drawn = 0;
    if (!(s->lcdc & 0x80))
        gb_sched(g, GB_EV_FRAME, s->period_start + GB_DOTS_FRAME);
}

/* ---- the OAM corruption bug (DMG) ------------------------------------------------------- */

/* OAM as 20 rows of four 16-bit words (little-endian pairs of bytes). */
static unsigned oam_w(const uint8_t *oam, int row, int w)
{
    return oam[row * 8 + w * 2] | (oam[row * 8 + w * 2 + 1] << 8);
}

static void oam_w_set(uint8_t *oam, int row, int w, unsigned v)
{
    oam[row * 8 + w * 2] = (uint8_t)v;
    oam[row * 8 + w * 2 + 1] = (uint8_t)(v >> 8);
}

/* The plain corruption of row r (>= 1): its first word becomes f(a, b, c) of itself (a),
 * the preceding row's first word (b) and third word (c); its other three words become
 * the preceding row's. Write: ((a ^ c) & (b ^ c)) ^ c; read: b | (a & c). */
static void oam_corrupt_row(uint8_t *oam, int r, int write)
{
    unsigned a = oam_w(oam, r, 0), b = oam_w(oam, r - 1, 0), c = oam_w(oam, r - 1, 2);
    oam_w_set(oam, r, 0, write ? (((a ^ c) & (b ^ c)) ^ c) : (b | (a & c)));
    memcpy(oam + r * 8 + 2, oam + (r - 1) * 8 + 2, 6);
}

void gb_oam_bug(gb *g, int kind)
{
    gb_state *s = &g->s;
    if (s->cgb_hw || !(s->lcdc & 0x80) || s->mode != 2 || s->ly >= GB_H)
        return;
    /* mode 2 reads one row per M-cycle, row 0 (objects 0 and 1) first; row 0 is immune */
    /* line 0 out of VBlank: its dots count from 4 dots before the scan (line_begin) */
    const uint64_t d = s->clk - s->line_clk, d0 = s->ly == 0 ? 4 : 0;
    if (d < d0)
        return;
    int r = (int)((d - d0) >> 2);
    if (r < 1 || r >= 20)
        return;
    uint8_t *oam = s->oam;
    if (kind == GB_OAM_READ_IDU && r >= 4 && r < 19) {
        /* a read and a write in one M-cycle: the preceding row's first word becomes
         * (b & (a | c | d)) | (a & c & d) (a: first word two rows up, b: itself, c: first
         * word of this row, d: the preceding row's third word), then the preceding row is
         * copied to this row and to the one two rows up */
        unsigned a = oam_w(oam, r - 2, 0), b = oam_w(oam, r - 1, 0), c = oam_w(oam, r, 0), e = oam_w(oam, r - 1, 2);
        oam_w_set(oam, r - 1, 0, (b & (a | c | e)) | (a & c & e));
        memcpy(oam + r * 8, oam + (r - 1) * 8, 8);
        memcpy(oam + (r - 2) * 8, oam + (r - 1) * 8, 8);
    }
    oam_corrupt_row(oam, r, kind == GB_OAM_WRITE);
    gb_oam_changed(g);
}

/* One 16-byte block of VRAM DMA (HBlank DMA at mode 0, or each block of a general DMA);
 * the CPU is stalled 32 dots per block (8 us) in both speeds. */
static int hdma_copy(gb *g)
{
    gb_state *s = &g->s;
    for (int i = 0; i < 16; i++) {
        uint8_t b = gb_rd(g, s->hdma_src);
        uint16_t off = (uint16_t)((s->vbk & 1) * 0x2000 + (s->hdma_dst & 0x1FFF));
        s->vram[off] = b;
        gb_ppu_mem_logged(g, off, b);
        s->hdma_src++;
        s->hdma_dst++;
    }
    int done = s->hdma_len == 0 || (s->hdma_dst & 0x1FFF) == 0; /* end, or past $9FFF */
    s->hdma_len = done ? 0x7F : (uint8_t)(s->hdma_len - 1);
    return done;
}

static int gdma_run(gb *g)
{
    int blocks = 1;
    while (!hdma_copy(g))
        blocks++;
    g->s.clk += 32u * (uint64_t)blocks;
    return blocks;
}

static void hdma_block(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    if (s->ly >= GB_H || !(s->lcdc & 0x80))
        return;
    if (hdma_copy(g))
        s->hdma_active = 0;
    if (s->clk < t + 32)
        s->clk = t + 32;
}

void gb_hdma_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    switch (a & 0xFF) {
    case 0x51: s->hdma_src = (uint16_t)((s->hdma_src & 0x00F0) | (v << 8)); return;
    case 0x52: s->hdma_src = (uint16_t)((s->hdma_src & 0xFF00) | (v & 0xF0)); return;
    case 0x53: s->hdma_dst = (uint16_t)((s->hdma_dst & 0x00F0) | ((v & 0x1F) << 8)); return;
    case 0x54: s->hdma_dst = (uint16_t)((s->hdma_dst & 0x1F00) | (v & 0xF0)); return;
    default: break;
    }
    s->hdma_len = v & 0x7F;
    if (s->hdma_active && !(v & 0x80)) { /* stops an HBlank DMA; FF55 then reads $80 | the
                                          * length bits written (SameSuite's hdma_mode0) */
        s->hdma_active = 0;
        return;
    }
    if (v & 0x80) {
        /* HBlank DMA: a block at each mode 0 of lines 0-143. Started during one (which Pan
         * Docs warns against) or with the LCD off, its first block is copied at once, the
         * CPU waiting for it; the rest follow at the next HBlanks (SameSuite's hdma_mode0
         * and hdma_lcd_off measure this). */
        s->hdma_active = 1;
        if (!(s->lcdc & 0x80) || (s->mode == 0 && s->ly < GB_H)) {
            if (hdma_copy(g))
                s->hdma_active = 0;
            s->clk += 32;
        }
        return;
    }
    /* General DMA: all blocks at once, the CPU waits 32 dots per block. Started while the
     * PPU reads VRAM (mode 3), the copy is made when mode 0 begins, so VRAM changes between
     * lines for every renderer; the CPU waits until it is done. */
    if ((s->lcdc & 0x80) && s->mode == 3) {
        s->gdma_pending = 1;
        s->clk = s->ev[GB_EV_PPU] + 32u * (uint64_t)(s->hdma_len + 1);
        return;
    }
    gdma_run(g);
}
