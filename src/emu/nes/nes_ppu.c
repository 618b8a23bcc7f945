/* nes_ppu.c: the timing side of the 2C02 (and of the PAL 2C07 and the Dendy's PPU: 312
 * lines, nes_timing): registers $2000-$2007, the dot clock (3 dots per CPU cycle, 3.2 on
 * PAL, caught up lazily when the CPU looks), VBlank and NMI, sprite 0 hit and sprite
 * overflow computed per line from OAM and pattern data (no pixels), the odd-frame dot skip,
 * the $2007 read buffer, palette mirroring, the A12 fetch pattern the MMC3 counts, the
 * pattern fetches a latch board watches, and the frame log. Pixels are drawn here only
 * when the native renderer is on, through nes_video.h. */
#include "emu/nes/nes_int.h"

#include <string.h>

/* ---- frame log -------------------------------------------------------------------- */

/* Line as the picture rules and the frame log number it: the pre-render line is NES_PRE on
 * every region (nes_framelog.h). */
static inline int vline(const nes *m, int line)
{
    return line == m->tm.pre ? NES_PRE : line;
}

static void log_push(nes *m, int kind, int slot, uint32_t a, uint32_t b)
{
    nes_ppu *p = &m->ppu;
    nes_loghead *h = m->lh;
    if (h->nev == m->lev_cap) {
        m->lev_cap = m->lev_cap ? 2 * m->lev_cap : 1024;
        m->lev = gv_xrealloc(m->lev, (size_t)m->lev_cap * sizeof *m->lev);
    }
    nes_vev *e = &m->lev[h->nev++];
    e->line = (uint16_t)vline(m, p->line);
    e->dot = p->dot;
    e->kind = (uint8_t)kind;
    e->slot = (uint8_t)slot;
    e->spare = 0;
    e->a = a;
    e->b = b;
    if (kind == NES_EV_NT || kind == NES_EV_CHR || kind == NES_EV_OAM)
        h->nmem++;
}

static void log_regs(nes *m)
{
    const nes_pregs *r = &m->ppu.pl.r;
    if (m->ppu.log_on)
        log_push(m, NES_EV_REGS, 0, (uint32_t)r->v | ((uint32_t)r->t << 16),
                 (uint32_t)r->ctrl | ((uint32_t)r->mask << 8) | ((uint32_t)r->x << 16));
}

/* The drawing state at (261, 0) (or at power-on): the start of a frame log. */
static void log_snapshot(nes *m)
{
    nes_ppu *p = &m->ppu;
    nes_loghead *h = m->lh;
    h->magic = NES_LOG_MAGIC;
    h->start_line = (uint16_t)vline(m, p->line);
    h->start_dot = p->dot;
    h->nev = h->nmem = 0;
    h->regs = p->pl.r;
    memcpy(h->pal, p->pl.pal, sizeof h->pal);
    memcpy(h->oam, p->oam, sizeof h->oam);
    memcpy(h->nt, p->nt, sizeof h->nt);
    h->chr_ram_size = m->cart->chr_ram_size;
    if (h->chr_ram_size)
        memcpy(m->lchr, m->chr_ram, h->chr_ram_size);
    p->log_on = 1;
}

void nes_ppu_begin_log(nes *m)
{
    if (m->opt.log_video)
        log_snapshot(m);
}

void nes_ppu_maps_changed(nes *m, const nes_pregs *old)
{
    const nes_pregs *r = &m->ppu.pl.r;
    if (!m->ppu.log_on)
        return;
    for (int i = 0; i < 8; i++)
        if (r->chr_map[i] != old->chr_map[i])
            log_push(m, NES_EV_MAP, i, r->chr_map[i], 0);
    for (int i = 0; i < 4; i++)
        if (r->nt_map[i] != old->nt_map[i])
            log_push(m, NES_EV_MAP, 8 + i, r->nt_map[i], 0);
    for (int i = 0; i < 8; i++)
        if (r->spr_map[i] != old->spr_map[i])
            log_push(m, NES_EV_MAP, 12 + i, r->spr_map[i], 0);
    if (r->ex != old->ex)
        log_push(m, NES_EV_MAP, 20, r->ex, 0);
    if (r->split != old->split)
        log_push(m, NES_EV_MAP, 21, r->split, 0);
}

/* ---- power ------------------------------------------------------------------------- */

void nes_ppu_power(nes *m)
{
    nes_ppu *p = &m->ppu;
    nes_pregs keep = p->pl.r; /* the mapper owns chr_map / nt_map / spr_map / ex / split */
    memset(p, 0, sizeof *p);
    memcpy(p->pl.r.chr_map, keep.chr_map, sizeof keep.chr_map);
    memcpy(p->pl.r.nt_map, keep.nt_map, sizeof keep.nt_map);
    memcpy(p->pl.r.spr_map, keep.spr_map, sizeof keep.spr_map);
    p->pl.r.ex = keep.ex;
    p->pl.r.split = keep.split;
    p->hit_clk = p->ovf_clk = p->rd7_at = NES_NEVER;
    p->watch_addr = NES_NO_WATCH;
    p->mem.chr_rom = m->cart->chr;
    p->mem.chr_ram = m->chr_ram;
    p->mem.nt = p->nt;
    p->mem.oam = p->oam;
    p->mem.ev = NULL;
    p->mem.ev_lim = 0;
    p->pl.rgb = m->rgb32;
    p->rst = 1;
}

/* The PPU's internal reset signal (the NESdev wiki's "PPU power up state"; a front-loading
 * NES resets the PPU with the CPU): it clears PPUCTRL, PPUMASK, t and fine X, the write
 * latch and the read buffer, and holds them cleared until the end of VBlank, so writes to
 * $2000, $2001, $2005 and $2006 are lost until then (also after power-on). v is kept. */
void nes_ppu_reset(nes *m)
{
    nes_ppu *p = &m->ppu;
    nes_ppu_sync(m);
    p->pl.r.ctrl = p->pl.r.mask = 0;
    p->w = 0;
    p->rbuf = 0;
    p->rd7_at = NES_NEVER;
    p->rd7_v = 0;
    p->pl.r.x = 0;
    p->pl.r.t = 0;
    p->rst = 1;
    log_regs(m);
}

/* ---- A12 as the MMC3 sees it ---------------------------------------------------------- */

/* A rising edge counts only after A12 was low for a while (the MMC3 filters the short lows
 * between pattern fetches): 10 dots here. */
#define A12_LOW_DOTS 10

void nes_ppu_a12(nes *m, int level, uint64_t t)
{
    nes_ppu *p = &m->ppu;
    if (level == p->a12)
        return;
    p->a12 = (uint8_t)level;
    if (!level)
        p->a12_low = t;
    else if (t - p->a12_low >= A12_LOW_DOTS)
        nes_board_a12(m, t);
}

/* A12 of the sprite pattern fetches of slot k on this line. */
static int spr_a12(const nes_ppu *p, int k)
{
    if (p->pl.r.ctrl & NES_CTRL_SPR16)
        return p->spr_a12[k];
    return (p->pl.r.ctrl & NES_CTRL_SPR_HI) ? 1 : 0;
}

/* Walks the PPU fetches of dots [d0, d1) of a rendering line, where dot 0 is at dot time
 * base. Background groups fetch the nametable (+0) and attribute (+2) bytes from $2xxx
 * (A12 low) and pattern bytes (+4, +6) from the background table; sprite groups (257-320)
 * do two garbage nametable fetches then the sprite patterns. Live (dry 0): the mapper sees
 * each change through nes_ppu_a12, and level/low must be the PPU's own. Dry: only the copies
 * in level/low move, and the time of the first counted edge is returned (NES_NEVER: none). */
static uint64_t a12_walk(nes *m, int d0, int d1, uint64_t base, int dry, uint8_t *level, uint64_t *low)
{
    nes_ppu *p = &m->ppu;
    int bg = (p->pl.r.ctrl & NES_CTRL_BG_HI) ? 1 : 0;
    int d = d0;
    while (d < d1) {
        int at, lv;
        if ((d >= 1 && d <= 256) || (d >= 321 && d <= 336)) {
            int end = d <= 256 ? 257 : 337;
            if (!bg) { /* every fetch of the region is at $0xxx/$2xxx: low from its first fetch */
                at = d | 1;
                lv = 0;
                d = end;
            } else {
                int g = (d - 1) & ~7, ph = (d - 1) & 7;
                if (ph > 4) {
                    d = g + 9;
                    continue;
                }
                at = ph == 0 ? g + 1 : g + 5;
                lv = ph == 0 ? 0 : 1;
                d = at + 1;
            }
        } else if (d >= 257 && d <= 320) {
            int k = (d - 257) >> 3, g = 257 + 8 * k, ph = d - g;
            if (ph > 4) {
                d = g + 8;
                continue;
            }
            at = ph == 0 ? g : g + 4;
            lv = ph == 0 ? 0 : spr_a12(p, k);
            d = at + 1;
        } else if (d >= 337 && d <= 339) {
            at = d | 1;
            lv = 0;
            d = NES_DOTS;
        } else {
            d = d < 1 ? 1 : NES_DOTS;
            continue;
        }
        if (at >= d1)
            break;
        if (lv == *level)
            continue;
        uint64_t t = base + (uint64_t)at;
        if (!dry) {
            nes_ppu_a12(m, lv, t);
            continue;
        }
        if (lv && t - *low >= A12_LOW_DOTS)
            return t;
        *level = (uint8_t)lv;
        if (!lv)
            *low = t;
    }
    return NES_NEVER;
}

/* The sprite slots fetched on line L (sprites for line L + 1): A12 of each (for 8x16
 * sprites the tile's bit 0) and the address of its low pattern plane, for the boards that
 * count A12 or watch fetches. Empty slots fetch tile $FF. */
static void plan_sprites(nes_ppu *p, int L)
{
    int n = L + 1, found = 0, tall = (p->pl.r.ctrl & NES_CTRL_SPR16) != 0;
    int table = (p->pl.r.ctrl & NES_CTRL_SPR_HI) ? 0x1000 : 0;
    int s = L < 0 ? 0 : p->pl.r.oam0, recs = 64 - (s >> 2); /* the records from oam0 (nes_sprite_setup) */
    for (int i = 0; i < recs && found < 8; i++) {
        int o = s + 4 * i;
        int row = n - 1 - p->oam[o & 255], tile = p->oam[(o + 1) & 255], attr = p->oam[(o + 2) & 255];
        if (row < 0 || row >= (tall ? 16 : 8))
            continue;
        if (attr & 0x80) /* vertical flip */
            row = (tall ? 15 : 7) - row;
        p->spr_a12[found] = tile & 1;
        p->spr_addr[found++] = (uint16_t)(tall ? ((tile & 1) << 12) | ((tile & 0xFE) << 4) | ((row & 8) << 1) | (row & 7)
                                               : table | (tile << 4) | row);
    }
    for (; found < 8; found++) {
        p->spr_a12[found] = 1;
        p->spr_addr[found] = (uint16_t)(tall ? 0x1FF0 : table | 0xFF0);
    }
}

/* ---- pattern fetches a board watches (MMC2/MMC4 latches) ------------------------------ */

/* The fetch groups of a rendering line start at dots 8i + 1 (i = 0..41: 32 background
 * tiles, 8 sprite slots from dot 257, the next line's first two tiles from 321); each reads
 * the low pattern plane at +4 and the high plane at +6. Returns the dot after the first
 * pattern fetch in [d0, d1) whose address the board watches, with the address in
 * p->watch_addr; d1 when there is none. Background addresses come from v as the scroll
 * rules move it (on a copy of the registers) and the nametable byte there. */
static int watch_stop(nes *m, int line, int d0, int d1)
{
    nes_ppu *p = &m->ppu;
    uint16_t mask = m->bd->watch_mask, val = m->bd->watch_val;
    nes_pregs r = p->pl.r;
    int at = d0;
    for (int i = d0 / 8; i < 42; i++) { /* the first group whose high-plane fetch is at or after d0 */
        for (int plane = 0; plane < 2; plane++) {
            int f = 8 * i + 5 + 2 * plane;
            if (f < d0)
                continue;
            if (f >= d1)
                return d1;
            int a;
            if (i >= 32 && i < 40) {
                a = p->spr_addr[i - 32];
            } else {
                nes_v_span(&r, line, at, f);
                at = f;
                int tile = nes_nt_rd(&p->mem, &r, 0x2000 | (r.v & 0x0FFF));
                a = ((r.ctrl & NES_CTRL_BG_HI) ? 0x1000 : 0) | (tile << 4) | ((r.v >> 12) & 7);
            }
            a |= plane << 3;
            if ((a & mask) == val) {
                p->watch_addr = (uint16_t)a;
                return f + 1;
            }
        }
    }
    return d1;
}

/* ---- sprite 0 hit and overflow, per line, from OAM and pattern data ------------------ */

/* At dot 321 of line L: if sprite 0 covers line L + 1 and an opaque sprite-0 pixel meets an
 * opaque background pixel there (x 0-254), the hit flag will be set at the dot that pixel is
 * drawn if PPUMASK then shows both layers there (hit_check): the PPU evaluates and fetches
 * sprites and background with either layer on, and the layers and the left-column clips
 * act per pixel (the NESdev wiki's "PPU OAM", sprite 0 hits), so a PPUMASK write during
 * the line counts from the pixel it reaches.
 * Sprite 0 is the first record evaluated: the 4 bytes from OAM byte oam0 (nes_sprite_setup).
 * Background slot s of the next line is the tile s coarse-X steps after v (now), fetched
 * by the drawing rules (nes_bg_group: the MMC5's too). */
static void plan_hit(nes *m, int L)
{
    nes_ppu *p = &m->ppu;
    const nes_pregs *r = &p->pl.r;
    if ((p->status & 0x40) || !nes_rendering(r))
        return;
    int n = L + 1, h = (r->ctrl & NES_CTRL_SPR16) ? 16 : 8, s0 = r->oam0;
    int row = n - 1 - p->oam[s0];
    if (row < 0 || row >= h)
        return;
    uint8_t slo, shi;
    nes_sprite_row(&p->mem, r, p->oam[(s0 + 1) & 255], p->oam[(s0 + 2) & 255], row, &slo, &shi);
    if (!(slo | shi))
        return;
    int x0 = p->oam[(s0 + 3) & 255];
    nes_pline bg; /* only its registers and fetch slots are used */
    bg.r = *r;
    int have = -1, first = -1;
    uint8_t blo = 0, bhi = 0;
    for (int k = 0; k < 8; k++) {
        int x = x0 + k;
        if (x > 254)
            break;
        if (!(((slo | shi) >> (7 - k)) & 1))
            continue;
        int col = x + r->x, s = col >> 3;
        if (s != have) {
            while (have < s) {
                if (have >= 0)
                    nes_v_inc_x(&bg.r);
                have++;
            }
            nes_bg_group(&bg, &p->mem, s, n);
            blo = bg.tlo[s];
            bhi = bg.thi[s];
        }
        int b = 7 - (col & 7);
        if (((blo | bhi) >> b) & 1) {
            if (first < 0) {
                first = k;
                p->hit_clk = p->clk + (uint64_t)(NES_DOTS - 321) + (uint64_t)(x + 1);
                p->hit_cand = 0;
            }
            p->hit_cand |= (uint8_t)(1u << (k - first));
        }
    }
}

/* On arriving at the dot that draws a candidate pixel (hit_clk): the flag is set if PPUMASK
 * shows the background and the sprites there (pixels 0-7: both left columns too), else the
 * next candidate of the line is waited for. */
static void hit_check(nes_ppu *p)
{
    int x = p->dot - 1;
    uint8_t mk = p->pl.r.mask;
    int left = (mk & (NES_MASK_BG_LEFT | NES_MASK_SPR_LEFT)) == (NES_MASK_BG_LEFT | NES_MASK_SPR_LEFT);
    if ((mk & NES_MASK_BG) && (mk & NES_MASK_SPR) && (x >= 8 || left)) {
        p->status |= 0x40;
        p->hit_clk = NES_NEVER;
        return;
    }
    uint8_t rest = (uint8_t)(p->hit_cand >> 1);
    if (!rest) {
        p->hit_clk = NES_NEVER;
        return;
    }
    int j = 1;
    while (!(rest & 1))
        rest >>= 1, j++;
    p->hit_cand = (uint8_t)(p->hit_cand >> j);
    p->hit_clk += (uint64_t)j;
}

/* At dot 65 of line L: sprite evaluation for line L + 1 with the hardware's overflow bug.
 * Each OAM entry takes 2 dots to check, 8 when it is copied; after eight sprites the PPU
 * keeps checking but steps the byte index along with the sprite index, so it reads tile,
 * attribute or X bytes as Y coordinates. Evaluation starts at OAM byte oam0: sprite index
 * oam0 / 4, byte index oam0 % 4 (nes_sprite_setup). */
static void plan_overflow(nes *m, int L)
{
    nes_ppu *p = &m->ppu;
    if ((p->status & 0x20) || !nes_rendering(&p->pl.r))
        return;
    int h = (p->pl.r.ctrl & NES_CTRL_SPR16) ? 16 : 8, count = 0, n0 = p->pl.r.oam0 >> 2, m0 = p->pl.r.oam0 & 3;
    for (int i = n0; i < 64; i++)
        count += (unsigned)(L - p->oam[4 * i + m0]) < (unsigned)h;
    if (count < 8)
        return;
    int dot = 65, found = 0, n = n0;
    for (; n < 64 && found < 8; n++) {
        if ((unsigned)(L - p->oam[4 * n + m0]) < (unsigned)h) {
            found++;
            dot += 8;
        } else {
            dot += 2;
        }
    }
    for (int mm = m0; n < 64; dot += 2) {
        if ((unsigned)(L - p->oam[4 * n + mm]) < (unsigned)h) {
            p->ovf_clk = p->clk + (uint64_t)((dot > 256 ? 256 : dot) - 65);
            return;
        }
        n++;
        mm = (mm + 1) & 3;
    }
}

/* ---- the dot clock ------------------------------------------------------------------- */

static int line_len(const nes *m)
{
    return (m->ppu.line == m->tm.pre && m->ppu.short_line) ? NES_DOTS - 1 : NES_DOTS;
}

/* The next dot after `dot` on this line where something is processed. */
static int next_stop(const nes *m, int line, int dot, int len)
{
    int c[5], n = 0;
    int mmc3 = (nes_board_counts_a12(m) && (m->ppu.pl.r.ctrl & NES_CTRL_SPR16)) || (m->hooks & NES_HOOK_FETCH);
    if (line < NES_H) {
        c[n++] = 65;
        if (mmc3)
            c[n++] = 257;
        c[n++] = 321;
    } else if (line == m->tm.vbl) {
        c[n++] = 1;
    } else if (line == m->tm.pre) {
        c[n++] = 1;
        if (mmc3)
            c[n++] = 257;
        c[n++] = 321;
        c[n++] = 339;
    }
    int best = len;
    for (int i = 0; i < n; i++)
        if (c[i] > dot && c[i] < best)
            best = c[i];
    return best;
}

/* The PPU's open bus: a bit of the decay register not refreshed with a 1 for about 600 ms
 * (nes_timing.io_decay) reads 0 (the NESdev wiki; blargg's ppu_open_bus). Checked once a
 * frame, at VBlank: a bit lasts 600 ms to a frame more. */

#define IO_GROUP(b) ((b) >= 6 ? 0 : (b) == 5 ? 1 : 2)

static void io_decay(nes_ppu *p, uint64_t dots)
{
    for (int b = 0; p->io >> b; b++)
        if (((p->io >> b) & 1) && p->clk - p->io_at[IO_GROUP(b)] >= dots)
            p->io &= (uint8_t)~(1u << b);
}

/* At dot 339 of the pre-render line: odd frames with rendering on skip the line's last dot
 * (NTSC; the PAL and Dendy frames keep every dot). */
static inline void decide_skip(nes *m)
{
    nes_ppu *p = &m->ppu;
    p->short_line = p->odd && m->tm.odd_skip && nes_rendering(&p->pl.r);
}

/* Rendering lines set OAMADDR to 0 during their sprite fetches (dots 257-320): done on
 * arriving at dot 321, so a $2003 write at dots 321-340 holds into the next line's sprite
 * evaluation (the NESdev wiki's "PPU registers", OAMADDR). */
static inline void oam_addr_reset(nes *m)
{
    if (nes_rendering(&m->ppu.pl.r))
        m->ppu.oamaddr = 0;
}

/* At dot 65 of a picture line: sprite evaluation starts at the OAM byte OAMADDR points at
 * (r.oam0; the 2C02's copy of eight bytes to OAM's start when OAMADDR is 8 or more as
 * rendering starts is not modelled). A change goes into the frame log for the renderers. */
static inline void oam_start(nes *m)
{
    nes_ppu *p = &m->ppu;
    if (p->oamaddr == p->pl.r.oam0)
        return;
    p->pl.r.oam0 = p->oamaddr;
    if (p->log_on)
        log_push(m, NES_EV_MAP, 22, p->oamaddr, 0);
}

/* What happens on arriving at (line, dot), before that dot is processed. */
static void at_position(nes *m)
{
    nes_ppu *p = &m->ppu;
    int line = p->line, dot = p->dot;
    if (p->clk == p->hit_clk)
        hit_check(p);
    if (p->clk == p->ovf_clk) {
        p->status |= 0x20;
        p->ovf_clk = NES_NEVER;
    }
    if (line < NES_H) {
        if (dot == 65) {
            oam_start(m);
            plan_overflow(m, line);
        } else if (dot == 321) {
            oam_addr_reset(m);
            if (line < NES_H - 1)
                plan_hit(m, line);
        } else if (dot == 257 && m->hooks) {
            plan_sprites(p, line);
        }
        return;
    }
    if (line == NES_H && dot == 0) {
        m->frame_done = 1;
        p->log_on = 0;
    } else if (line == m->tm.vbl && dot == 1) {
        io_decay(p, m->tm.io_decay);
        if (!p->vbl_suppress) {
            p->status |= 0x80;
            if (p->pl.r.ctrl & NES_CTRL_NMI) {
                m->nmi_pending = 1;
                /* the CPU sees the edge from the cycle whose last dot is at or after
                 * this one (ppu_vbl_nmi 05, vbl_nmi_timing 7) */
                m->nmi_at = nes_cycle_at(m, p->clk);
            }
        }
        p->vbl_suppress = 0;
    } else if (line == m->tm.pre) {
        if (dot == 0) {
            if (m->opt.log_video)
                log_snapshot(m);
        } else if (dot == 1) {
            p->status &= 0x1F;
            p->rst = 0;
            p->hit_clk = p->ovf_clk = NES_NEVER;
        } else if (dot == 257 && m->hooks) {
            plan_sprites(p, -1);
        } else if (dot == 321) {
            oam_addr_reset(m);
        } else if (dot == 339) {
            decide_skip(m);
        }
    }
}

/* Processes dots [d0, d1) of the current line: pixels when the native renderer is on, else
 * only the scroll counters; then the fetches the mapper sees. */
static void run_span(nes *m, int d0, int d1)
{
    nes_ppu *p = &m->ppu;
    int line = p->line;
    if (line >= NES_H && line != m->tm.pre)
        return;
    line = vline(m, line);
    if (m->opt.video_native) {
        p->pl.out = line < NES_H ? m->fb + line * NES_W * 3 : NULL;
        nes_line_span(&p->pl, &p->mem, line, d0, d1);
    } else {
        nes_v_span(&p->pl.r, line, d0, d1);
    }
    if (nes_board_counts_a12(m) && nes_rendering(&p->pl.r))
        a12_walk(m, d0, d1, p->clk - (uint64_t)d0, 0, &p->a12, &p->a12_low);
}

void nes_ppu_sync(nes *m)
{
    nes_ppu *p = &m->ppu;
    uint64_t target = nes_dots_at(m, m->cyc);
    while (p->clk < target) {
        if (!p->here_done) {
            at_position(m);
            p->here_done = 1;
        }
        int len = line_len(m);
        int stop = next_stop(m, p->line, p->dot, len);
        uint64_t stop_clk = p->clk + (uint64_t)(stop - p->dot);
        if (stop_clk > target)
            stop_clk = target;
        if (p->hit_clk > p->clk && p->hit_clk < stop_clk)
            stop_clk = p->hit_clk;
        if (p->ovf_clk > p->clk && p->ovf_clk < stop_clk)
            stop_clk = p->ovf_clk;
        int d1 = p->dot + (int)(stop_clk - p->clk);
        if ((m->hooks & NES_HOOK_FETCH) && (p->line < NES_H || p->line == m->tm.pre) && nes_rendering(&p->pl.r)) {
            int w = watch_stop(m, vline(m, p->line), p->dot, d1); /* stop after a watched fetch */
            stop_clk -= (uint64_t)(d1 - w);
            d1 = w;
        }
        run_span(m, p->dot, d1);
        p->clk = stop_clk;
        p->dot = (uint16_t)d1;
        p->here_done = 0;
        if (p->watch_addr != NES_NO_WATCH) { /* the board sees it; a bank change applies from dot d1 */
            uint16_t a = p->watch_addr;
            p->watch_addr = NES_NO_WATCH;
            m->bd->ppu_read(m, a);
        }
        if (d1 >= len) {
            p->dot = 0;
            if (p->line == m->tm.pre) {
                p->line = 0;
                p->odd ^= 1;
                p->short_line = 0;
            } else {
                p->line++;
            }
        }
    }
}

/* Dot time of the next arrival at (L, D) from the current position (now if we are there and
 * it has not been processed). The pre-render line may be one dot short on odd frames; this
 * assumes it is, so the answer is never late. */
static uint64_t time_of(const nes *m, int L, int D)
{
    const nes_ppu *p = &m->ppu;
    int line = p->line, dot = p->dot, pre = m->tm.pre, lines = pre + 1;
    int rel = (L - line + lines) % lines;
    if (rel == 0 && (D < dot || (D == dot && p->here_done)))
        rel = lines;
    uint64_t dots = (uint64_t)rel * NES_DOTS + (uint64_t)D - (uint64_t)dot;
    int decided = line == pre && (dot > 339 || (dot == 339 && p->here_done));
    int shortable = decided ? p->short_line : p->odd && m->tm.odd_skip;
    if (line + rel > pre && shortable)
        dots -= 1;
    return p->clk + dots;
}

/* Dot time of the next counted A12 edge, looking at the rest of this line and the next
 * three rendered lines (assuming the registers stay as they are). */
static uint64_t next_a12_edge(nes *m)
{
    nes_ppu *p = &m->ppu;
    if (!nes_rendering(&p->pl.r))
        return NES_NEVER;
    int line = p->line, dot = p->dot;
    uint64_t base = p->clk - (uint64_t)dot;
    uint8_t level = p->a12;
    uint64_t low = p->a12_low;
    int pre = m->tm.pre;
    for (int i = 0; i < 4; i++) {
        if (line >= NES_H && line != pre) { /* no fetches until the pre-render line */
            base += (uint64_t)(pre - line) * NES_DOTS;
            line = pre;
            dot = 0;
        }
        uint64_t t = a12_walk(m, dot, NES_DOTS, base, 1, &level, &low);
        if (t != NES_NEVER)
            return t;
        base += (line == pre && p->odd && m->tm.odd_skip) ? NES_DOTS - 1 : NES_DOTS;
        line = line == pre ? 0 : line + 1;
        dot = 0;
    }
    return NES_NEVER;
}

uint64_t nes_ppu_cycle_of(nes *m, int line, int dot)
{
    return nes_cycle_at(m, time_of(m, line, dot) + 1);
}

void nes_ppu_nt_poke(nes *m, uint32_t off, uint8_t v)
{
    nes_ppu *p = &m->ppu;
    if (p->nt[off] == v)
        return;
    p->nt[off] = v;
    if (p->log_on)
        log_push(m, NES_EV_NT, 0, off, v);
}

uint64_t nes_ppu_next_event(nes *m)
{
    uint64_t t = time_of(m, m->tm.vbl, 1);
    uint64_t fe = time_of(m, NES_H, 0);
    if (fe < t)
        t = fe;
    if (nes_board_counts_a12(m) && m->a12_irq) {
        uint64_t e = next_a12_edge(m);
        if (e < t)
            t = e;
    }
    return nes_cycle_at(m, t + 1);
}

/* ---- registers ----------------------------------------------------------------------- */

static int rendering_now(const nes *m)
{
    const nes_ppu *p = &m->ppu;
    return nes_rendering(&p->pl.r) && (p->line < NES_H || p->line == m->tm.pre);
}

/* v after a $2007 access: +1 or +32, or during rendering the coarse X and Y increments. */
static void vram_step(nes *m)
{
    nes_ppu *p = &m->ppu;
    if (rendering_now(m)) {
        nes_v_inc_x(&p->pl.r);
        nes_v_inc_y(&p->pl.r);
    } else {
        p->pl.r.v = (uint16_t)((p->pl.r.v + ((p->pl.r.ctrl & NES_CTRL_INC32) ? 32 : 1)) & 0x7FFF);
    }
}

/* After a $2007 access: v moves on and, when not rendering, the PPU drives the new v onto
 * its address bus, where the mapper sees it (a $0FFF access leaves $1000 there: an A12
 * rise the MMC3 counts); the frame log records the new v. */
static void vram_access_done(nes *m)
{
    nes_ppu *p = &m->ppu;
    vram_step(m);
    if (nes_board_counts_a12(m) && !rendering_now(m))
        nes_ppu_a12(m, (p->pl.r.v >> 12) & 1, p->clk);
    log_regs(m);
}

static uint8_t vram_read(const nes_ppu *p, int a)
{
    a &= 0x3FFF;
    if (a < 0x2000)
        return nes_chr_rd(&p->mem, &p->pl.r, a);
    return nes_ex_nt_rd(&p->mem, &p->pl.r, a);
}

static void vram_write(nes *m, int a, uint8_t v)
{
    nes_ppu *p = &m->ppu;
    const nes_pregs *r = &p->pl.r;
    a &= 0x3FFF;
    if (a < 0x2000) {
        uint32_t w = r->chr_map[a >> 10];
        if (!(w & NES_CHR_RAM))
            return; /* CHR-ROM */
        uint32_t off = (w & ~NES_CHR_RAM) + (uint32_t)(a & 0x3FF);
        m->chr_ram[off] = v;
        if (p->log_on)
            log_push(m, NES_EV_CHR, 0, off, v);
    } else if (a < 0x3F00) {
        uint32_t w = r->nt_map[(a >> 10) & 3];
        if (w & NES_NT_CHR) { /* a CHR page as nametable: CHR-RAM takes the write, ROM not */
            if (w & NES_NT_CHR_RAM) {
                uint32_t off = (w & NES_NT_PAGE) * 1024u + (uint32_t)(a & 0x3FF);
                m->chr_ram[off] = v;
                if (p->log_on)
                    log_push(m, NES_EV_CHR, 0, off, v);
            }
            return;
        }
        if ((r->ex & NES_EX_NT0) && w == 0x800u)
            return; /* the MMC5's ExRAM in modes 2-3 is no nametable */
        uint32_t off = w + (uint32_t)(a & 0x3FF);
        p->nt[off] = v;
        if (p->log_on)
            log_push(m, NES_EV_NT, 0, off, v);
    } else {
        int i = nes_pal_index(a);
        p->pl.pal[i] = v & 0x3F;
        if (p->log_on)
            log_push(m, NES_EV_PAL, 0, (uint32_t)i, v & 0x3F);
    }
}

static void oam_write(nes *m, uint8_t v)
{
    nes_ppu *p = &m->ppu;
    if (rendering_now(m)) { /* writes during rendering only bump the address */
        p->oamaddr = (uint8_t)(p->oamaddr + 4);
        return;
    }
    if ((p->oamaddr & 3) == 2)
        v &= 0xE3; /* attribute bits 2-4 do not exist */
    p->oam[p->oamaddr] = v;
    if (p->log_on)
        log_push(m, NES_EV_OAM, 0, p->oamaddr, v);
    p->oamaddr++;
}

void nes_ppu_oam_write(nes *m, uint8_t v)
{
    nes_ppu_sync(m);
    oam_write(m, v);
}

/* The bits of mask take v's values and their decay starts again (io_decay). Reads
 * refresh bits 7-6, 5 and 4-0 each as a group (IO_GROUP). */
static inline void io_refresh(nes_ppu *p, uint8_t mask, uint8_t v)
{
    p->io = (uint8_t)((p->io & ~mask) | (v & mask));
    if (mask & 0xC0)
        p->io_at[0] = p->clk;
    if (mask & 0x20)
        p->io_at[1] = p->clk;
    if (mask & 0x1F)
        p->io_at[2] = p->clk;
}

/* What a $2004 read returns: OAM at OAMADDR, except on a picture line with rendering on,
 * where it is the OAM bus of sprite evaluation and fetching at the current dot (the NESdev
 * wiki's "PPU sprite evaluation"): $FF while secondary OAM is cleared (dots 1-64); during
 * evaluation (65-256) the byte read at the last odd dot; during the sprite fetches
 * (257-320) the secondary OAM byte of the slot (Y, tile, attribute, X, then X four times;
 * the first empty slot reads sprite 63's Y, which evaluation left there, then $FF); from
 * dot 321 to the next line's dot 0 the first byte of secondary OAM. Evaluation is run
 * again here from dot 65, which only a $2004 read during rendering pays for. */
static uint8_t oam_bus(const nes_ppu *p)
{
    int L = p->line, d = p->dot;
    if (!nes_rendering(&p->pl.r) || L >= NES_H || (L == 0 && d == 0))
        return p->oam[p->oamaddr];
    if (d == 0) /* the previous line's secondary OAM is still there */
        L--, d = 340;
    if (d <= 64)
        return 0xFF;
    unsigned h = (p->pl.r.ctrl & NES_CTRL_SPR16) ? 16 : 8;
    const uint8_t *oam = p->oam;
    if (d <= 256) {
        /* states: found < 8: check Y (in range: copy 3 more bytes); 8 found: the overflow
         * search, which steps the byte index with the sprite index; after the last sprite
         * (or the overflow's 3 bytes): reads of OAM[n][0] that copy nothing */
        int n = 0, m = 0, found = 0, copy = 0, ovf = 0, done = 0;
        uint8_t v = 0xFF;
        for (int t = 65; t <= d; t += 2) {
            if (done) {
                v = oam[4 * n];
                n = (n + 1) & 63;
            } else if (copy) {
                v = oam[4 * n + (4 - copy)];
                if (--copy == 0 && ++n == 64)
                    done = 1, n = 0;
            } else if (ovf) { /* the 3 bytes after an overflow, then nothing more is copied */
                v = oam[4 * n + m];
                if (++m == 4)
                    m = 0, n = (n + 1) & 63;
                done = --ovf == 0;
            } else if (found < 8) {
                v = oam[4 * n];
                if ((unsigned)(L - v) < h)
                    found++, copy = 3;
                else if (++n == 64)
                    done = 1, n = 0;
            } else {
                v = oam[4 * n + m];
                int hit = (unsigned)(L - v) < h;
                if (++m == 4 || !hit)
                    m &= 3;
                if (hit) {
                    ovf = 3;
                    if (m == 0)
                        n = (n + 1) & 63;
                } else if (++n == 64) {
                    done = 1, n = 0;
                }
            }
        }
        return v;
    }
    /* secondary OAM: the first 8 sprites in range of line L */
    int slot = d <= 320 ? (d - 257) / 8 : 0, byte = d <= 320 ? (d - 257) % 8 : 0, k = 0;
    for (int i = 0; i < 64; i++) {
        if ((unsigned)(L - oam[4 * i]) >= h)
            continue;
        if (k++ == slot)
            return oam[4 * i + (byte > 3 ? 3 : byte)];
    }
    return (k == slot && byte == 0) ? oam[252] : 0xFF;
}

uint8_t nes_ppu_read(nes *m, int reg)
{
    nes_ppu *p = &m->ppu;
    nes_ppu_sync(m);
    uint8_t v, driven = 0xFF; /* the bits the PPU drives: they refresh the decay register */
    switch (reg & 7) {
    case 2:
        v = (uint8_t)((p->status & 0xE0) | (p->io & 0x1F));
        driven = 0xE0;
        if (p->line == m->tm.vbl && p->dot == 1 && !p->here_done) {
            p->vbl_suppress = 1; /* read just before VBlank: no flag, no NMI this frame */
        } else if (p->line == m->tm.vbl && p->dot <= 3) {
            m->nmi_pending = 0;  /* read as it is set: the flag reads set, the NMI is lost */
        }
        p->status &= 0x7F;
        p->w = 0;
        break;
    case 4:
        v = oam_bus(p);
        break;
    case 7: {
        int a = p->pl.r.v & 0x3FFF;
        if (a >= 0x3F00) {
            v = (uint8_t)((p->pl.pal[nes_pal_index(a)] & ((p->pl.r.mask & NES_MASK_GREY) ? 0x30 : 0x3F)) | (p->io & 0xC0));
            driven = 0x3F;
            p->rbuf = vram_read(p, a & 0x2FFF); /* the nametable byte underneath */
        } else {
            /* a read in the CPU cycle right after another one (LDA $20F7,X crossing into
             * $2107, a DMA halting a read) gets what that one got: the buffer's refill is
             * still under way, though both increment the address */
            v = p->rd7_at == m->cyc - 1 ? p->rd7_v : p->rbuf;
            p->rbuf = vram_read(p, a);
            /* a pattern read through $2007 puts its address on the PPU bus as a fetch does */
            if ((m->hooks & NES_HOOK_FETCH) && a < 0x2000 && (a & m->bd->watch_mask) == m->bd->watch_val)
                m->bd->ppu_read(m, (uint16_t)a);
        }
        p->rd7_at = m->cyc;
        p->rd7_v = v;
        vram_access_done(m);
        break;
    }
    default:
        v = p->io; /* write-only registers read back the decay register, unrefreshed */
        driven = 0;
        break;
    }
    io_refresh(p, driven, v);
    return v;
}

uint8_t nes_ppu_peek(const nes *m, int reg)
{
    const nes_ppu *p = &m->ppu;
    switch (reg & 7) {
    case 2: return (uint8_t)((p->status & 0xE0) | (p->io & 0x1F));
    case 4: return p->oam[p->oamaddr];
    case 7: return p->rbuf;
    default: return p->io;
    }
}

void nes_ppu_write(nes *m, int reg, uint8_t v)
{
    nes_ppu *p = &m->ppu;
    nes_pregs *r = &p->pl.r;
    nes_ppu_sync(m);
    io_refresh(p, 0xFF, v);
    /* the reset signal holds PPUCTRL, PPUMASK, t, x and the latch cleared (nes_ppu_reset) */
    if (p->rst && ((reg & 7) <= 1 || (reg & 7) == 5 || (reg & 7) == 6))
        return;
    switch (reg & 7) {
    case 0: {
        uint8_t old = r->ctrl;
        r->ctrl = v;
        r->t = (uint16_t)((r->t & ~0x0C00) | ((v & 3) << 10));
        /* enabling NMI while the VBlank flag is up raises NMI after the next instruction; a
         * write on the dot the flag clears comes too late */
        int vbl = (p->status & 0x80) && !(p->line == m->tm.pre && p->dot == 1 && !p->here_done);
        if ((v & NES_CTRL_NMI) && !(old & NES_CTRL_NMI) && vbl) {
            m->nmi_pending = 1;
            m->nmi_at = m->cyc + 1;
        }
        /* disabling it no later than the cycle in which the CPU would first see the edge
         * loses that NMI (ppu_vbl_nmi 08, vbl_nmi_timing 6) */
        if (!(v & NES_CTRL_NMI) && m->nmi_pending && m->nmi_at >= m->cyc)
            m->nmi_pending = 0;
        log_regs(m);
        nes_resched(m);
        break;
    }
    case 1:
        /* the odd-frame skip is decided at dot 339 before a write landing on that dot
         * takes effect (ppu_vbl_nmi 10-even_odd_timing) */
        if (p->line == m->tm.pre && p->dot == 339 && !p->here_done) {
            decide_skip(m); /* all that position (PRE, 339) does */
            p->here_done = 1;
        }
        /* the 2C07 and the Dendy's PPU take bit 5 as green emphasis and bit 6 as red (the
         * NESdev wiki's "Colour emphasis"): kept as the colour output uses them, red in bit 5 */
        if (m->tm.emph_swap)
            v = (uint8_t)((v & 0x9F) | ((v & 0x20) << 1) | ((v & 0x40) >> 1));
        if (m->opt.video_native && p->line < NES_H) /* greyscale acts two pixels back */
            nes_grey_back(&p->pl, p->line, p->dot, r->mask, v);
        r->mask = v;
        log_regs(m);
        nes_resched(m);
        break;
    case 3:
        p->oamaddr = v;
        break;
    case 4:
        oam_write(m, v);
        break;
    case 5:
        if (!p->w) {
            r->t = (uint16_t)((r->t & ~0x001F) | (v >> 3));
            r->x = v & 7;
        } else {
            r->t = (uint16_t)((r->t & ~0x73E0) | ((v & 7) << 12) | ((v & 0xF8) << 2));
        }
        p->w ^= 1;
        log_regs(m);
        break;
    case 6:
        if (!p->w) {
            r->t = (uint16_t)((r->t & 0x00FF) | ((v & 0x3F) << 8));
        } else {
            r->t = (uint16_t)((r->t & 0xFF00) | v);
            r->v = r->t;
            if (nes_board_counts_a12(m) && !rendering_now(m))
                nes_ppu_a12(m, (r->v >> 12) & 1, p->clk);
        }
        p->w ^= 1;
        log_regs(m);
        break;
    case 7: {
        int a = r->v & 0x3FFF;
        vram_write(m, a, v);
        vram_access_done(m);
        break;
    }
    default:
        break;
    }
}
