/* nes_video.h: the picture rules of the NES PPU (2C02), written once and used by the three
 * video renderers: the native one inside the core (per dot), the host one (threads over the
 * frame log) and the device one (CUDA/HIP over the frame log). Plain C, static inline; when
 * compiled by nvcc or hipcc the functions are __host__ __device__. Nothing here touches
 * timing-side state (flags, NMI, IRQ): that lives in nes_ppu.c. */
#ifndef GV_EMU_NES_NES_VIDEO_H
#define GV_EMU_NES_NES_VIDEO_H

#include <stdint.h>
#include <string.h>

#include "dev/gpu_common.h" /* GV_INLINE, GV_ALWAYS_INLINE (the per-dot hot path), GV_UNROLL8 */

/* Frame geometry: 262 lines of 341 dots (NTSC; PAL and Dendy frames have 312, the timing
 * side's nes_timing); 240 visible lines of 256 pixels. The picture rules see the pre-render
 * line as NES_PRE on every region (nes_framelog.h). */
enum { NES_W = 256, NES_H = 240, NES_DOTS = 341, NES_LINES = 262, NES_PRE = 261 };

/* PPUCTRL ($2000) and PPUMASK ($2001) bits. */
enum {
    NES_CTRL_INC32 = 0x04, NES_CTRL_SPR_HI = 0x08, NES_CTRL_BG_HI = 0x10,
    NES_CTRL_SPR16 = 0x20, NES_CTRL_NMI = 0x80,
    NES_MASK_GREY = 0x01, NES_MASK_BG_LEFT = 0x02, NES_MASK_SPR_LEFT = 0x04,
    NES_MASK_BG = 0x08, NES_MASK_SPR = 0x10, NES_MASK_EMPH = 0xE0,
};

/* A chr_map entry with this bit set points into CHR-RAM, else into CHR-ROM. */
#define NES_CHR_RAM 0x80000000u
/* An nt_map entry is a byte offset into the 4 KiB of nametable RAM (the console's 2 KiB of
 * CIRAM, then the board's own 2 KiB), or with NES_NT_CHR a 1 KiB CHR page used as a
 * nametable: bits 0-13 the page, NES_NT_CHR_RAM of CHR-RAM (else CHR-ROM). */
#define NES_NT_CHR 0x8000u
#define NES_NT_CHR_RAM 0x4000u
#define NES_NT_PAGE 0x3FFFu

/* nes_pregs.ex: what the MMC5 changes in the PPU's fetches (0 for every other board).
 * NES_EX_SETS: two sets of pattern windows, chr_map (set B) and spr_map (set A): in 8x16
 * sprite mode the background fetches through chr_map and the sprites through spr_map; in
 * 8x8 mode both use the set written last (NES_EX_LAST_B: chr_map, else spr_map).
 * NES_EX_ATTR (ExRAM mode 1): each background tile's ExRAM byte (nametable RAM page 2, at
 * the tile's nametable index) gives its palette (bits 6-7) and 4 KiB pattern bank (bits
 * 0-5, with bits 16-17 of ex above them), taken modulo the count in bits 0-15 of ex, in
 * CHR-RAM with NES_EX_CHR_RAM. */
#define NES_EX_ATTR 0x80000000u
#define NES_EX_CHR_RAM 0x40000000u
#define NES_EX_SETS 0x20000000u
#define NES_EX_LAST_B 0x10000000u
/* NES_EX_NT0 (ExRAM modes 2-3): a nametable slot mapped to ExRAM (nametable RAM page 2) reads
 * as 0 for the PPU and $2007, and takes no $2007 writes. */
#define NES_EX_NT0 0x08000000u

/* nes_pregs.split: the MMC5's vertical split (NESdev wiki "MMC5", $5200-$5202), 0 when off:
 * bits 0-7 $5200 (bit 7 on, bit 6 the right side, bits 0-4 the threshold T in tiles), bits
 * 8-15 $5201 (the split's vertical scroll), bits 16-23 $5202 (its 4 KiB CHR bank, taken
 * modulo the count in bits 0-15 of ex). Of the 34 background tiles a line fetches (0-1 at
 * dots 321-336 of the line before), tiles 0..T-1 (left) or T..33 (right) are the split:
 * their nametable byte comes from ExRAM at row y / 8, column tile & 31, where y is the
 * scroll plus the picture line (wrapping at 240 from a scroll below 240, else at 256), their
 * attribute from ExRAM's attribute area ($3C0) the same way, their pattern from the split's
 * bank with the PPU's own fine Y (the CL wiring of every ExROM board). */
#define NES_SPLIT_ON 0x80u
#define NES_SPLIT_RIGHT 0x40u

/* The registers that decide what the PPU fetches and draws. v, t, x are the loopy scroll
 * registers (v: current VRAM address, t: temporary address, x: fine X scroll). */
typedef struct {
    uint16_t v, t;
    uint8_t x, ctrl, mask;
    uint8_t oam0;        /* OAMADDR at dot 65 of the line before: the OAM byte sprite evaluation starts at */
    uint32_t chr_map[8]; /* byte offset of each 1 KiB pattern window ($0000-$1FFF) */
    uint16_t nt_map[4];  /* each 1 KiB nametable slot ($2000-$2FFF): NES_NT_CHR, or an offset in nametable RAM */
    uint32_t spr_map[8]; /* NES_EX_SETS: the sprites' pattern windows (else unused) */
    uint32_t ex;         /* NES_EX_*: the MMC5's fetch rules */
    uint32_t split;      /* NES_SPLIT_*: the MMC5's vertical split (0: none) */
} nes_pregs;

/* One change recorded in a frame log, stamped with the PPU position (line, dot) before
 * which it applies. 16 bytes. */
typedef struct {
    uint16_t line, dot;
    uint8_t kind, slot;
    uint16_t spare;
    uint32_t a, b;
} nes_vev;

enum {
    NES_EV_REGS = 1, /* a = v | t << 16, b = ctrl | mask << 8 | x << 16 */
    NES_EV_NT = 2,   /* nametable RAM byte a = b */
    NES_EV_CHR = 3,  /* CHR-RAM byte a = b */
    NES_EV_PAL = 4,  /* palette entry a (0-31, canonical) = b */
    NES_EV_OAM = 5,  /* OAM byte a = b */
    NES_EV_MAP = 6,  /* slot 0-7: chr_map[slot] = a; 8-11: nt_map[slot - 8] = a; 12-19: spr_map[slot - 12] = a; 20: ex = a;
                      * 21: split = a; 22: oam0 = a */
};

/* Where pattern, nametable and OAM bytes come from. In the core these are the live
 * memories (ev == NULL). A frame-log renderer reads the frame-start images and overlays
 * the memory writes among events [0, ev_lim) of the frame. */
typedef struct {
    const uint8_t *chr_rom;
    const uint8_t *chr_ram;
    const uint8_t *nt;  /* 4 KiB */
    const uint8_t *oam; /* 256 bytes */
    const nes_vev *ev;
    uint32_t ev_lim;
} nes_pmem;

/* The drawing state of one PPU: registers, palette, the background fetch slots of the line
 * being drawn and the sprite pixels of that line. Slots 0-1 are fetched at dots 321-336 of
 * the previous line, slot 2 + j during dots 8j+1..8j+8 of the line itself. */
typedef struct {
    nes_pregs r;
    uint8_t pal[32];
    uint8_t nt_latch;
    uint8_t spr_on;
    uint8_t tlo[34], thi[34], tat[34];
    uint8_t spr[NES_W]; /* 0 transparent; bits 0-3 palette entry - 16, bit 5 behind, bit 6 sprite 0 */
    uint8_t *out;       /* the line's 256 RGB pixels (768 bytes); NULL: draw nothing */
    const uint32_t *rgb; /* colour | emphasis << 6 -> R | G << 8 | B << 16 (nes_palette_rgb32) */
    /* nes_group_pixels' colour table, kept by nes_lut_fresh: lut[i] is the RGB of palette
     * entry i (0-31) made from rgb, pal and the grey and emphasis bits of the mask, as they
     * were when it was made (lut_rgb, lut_pal, lut_mask; lut_rgb NULL: never made) */
    const uint32_t *lut_rgb;
    uint32_t lut[32];
    uint8_t lut_pal[32];
    uint8_t lut_mask;
} nes_pline;

/* Frame position of (line, dot) for ordering: the pre-render line comes first. */
GV_INLINE uint32_t nes_pos(int line, int dot)
{
    return (uint32_t)((line == NES_PRE ? 0 : line + 1) * NES_DOTS + dot);
}

/* Palette index as stored: $3F10/$3F14/$3F18/$3F1C are mirrors of $3F00/$3F04/$3F08/$3F0C. */
GV_INLINE int nes_pal_index(int a)
{
    a &= 0x1F;
    return (a & 0x13) == 0x10 ? a & 0x0F : a;
}

GV_INLINE int nes_rendering(const nes_pregs *r)
{
    return (r->mask & (NES_MASK_BG | NES_MASK_SPR)) != 0;
}

/* ---- the scroll counters (loopy v): the only rules for how v moves while rendering ---- */

/* Coarse X increment, wrapping into the horizontal nametable bit. */
GV_INLINE void nes_v_inc_x(nes_pregs *r)
{
    if ((r->v & 0x001F) == 31)
        r->v = (uint16_t)((r->v & ~0x001F) ^ 0x0400);
    else
        r->v++;
}

/* Fine Y increment, carrying into coarse Y; row 29 wraps into the vertical nametable bit,
 * rows 30-31 (attribute rows) wrap to 0 without switching. */
GV_INLINE void nes_v_inc_y(nes_pregs *r)
{
    if ((r->v & 0x7000) != 0x7000) {
        r->v += 0x1000;
        return;
    }
    r->v &= (uint16_t)~0x7000;
    int y = (r->v & 0x03E0) >> 5;
    if (y == 29) {
        y = 0;
        r->v ^= 0x0800;
    } else if (y == 31) {
        y = 0;
    } else {
        y++;
    }
    r->v = (uint16_t)((r->v & ~0x03E0) | (y << 5));
}

GV_INLINE void nes_v_copy_x(nes_pregs *r)
{
    r->v = (uint16_t)((r->v & ~0x041F) | (r->t & 0x041F));
}

GV_INLINE void nes_v_copy_y(nes_pregs *r)
{
    r->v = (uint16_t)((r->v & ~0x7BE0) | (r->t & 0x7BE0));
}

/* Moves v through dots [d0, d1) of `line` with rendering state fixed (the timing side, no
 * fetches): coarse X at dots 8..256 step 8 and 328, 336; fine Y at 256; horizontal copy at
 * 257; vertical copy at 280-304 of the pre-render line. Lines 240-260 leave v alone. */
GV_INLINE void nes_v_span(nes_pregs *r, int line, int d0, int d1)
{
    if (d0 >= d1 || !nes_rendering(r) || (line >= NES_H && line != NES_PRE))
        return;
    int first = d0 < 8 ? 8 : (d0 + 7) & ~7;
    int last = d1 - 1 < 256 ? d1 - 1 : 256;
    for (int d = first; d <= last; d += 8)
        nes_v_inc_x(r);
    if (d0 <= 256 && d1 > 256)
        nes_v_inc_y(r);
    if (d0 <= 257 && d1 > 257)
        nes_v_copy_x(r);
    if (line == NES_PRE && d0 <= 304 && d1 > 280)
        nes_v_copy_y(r);
    if (d0 <= 328 && d1 > 328)
        nes_v_inc_x(r);
    if (d0 <= 336 && d1 > 336)
        nes_v_inc_x(r);
}

/* ---- memory reads ------------------------------------------------------------------- */

/* The value a byte had at the current point of a logged frame: the image value, overridden
 * by the last write of `kind` to `addr` among events [0, ev_lim). */
GV_INLINE uint8_t nes_overlay(const nes_pmem *m, int kind, uint32_t addr, uint8_t v)
{
    for (uint32_t i = 0; i < m->ev_lim; i++)
        if (m->ev[i].kind == kind && m->ev[i].a == addr)
            v = (uint8_t)m->ev[i].b;
    return v;
}

/* CHR byte at offset off of CHR-ROM, or of CHR-RAM (through the overlay) when ram. */
GV_INLINE uint8_t nes_chr_byte(const nes_pmem *m, int ram, uint32_t off)
{
    if (!ram)
        return m->chr_rom[off];
    uint8_t v = m->chr_ram[off];
    return m->ev ? nes_overlay(m, NES_EV_CHR, off, v) : v;
}

/* Pattern byte at PPU address a ($0000-$1FFF) through the pattern windows map. */
GV_INLINE uint8_t nes_chr_rd_map(const nes_pmem *m, const uint32_t *map, int a)
{
    uint32_t w = map[(a >> 10) & 7];
    return nes_chr_byte(m, (w & NES_CHR_RAM) != 0, (w & ~NES_CHR_RAM) + (uint32_t)(a & 0x3FF));
}

/* The windows the background (and $2007) fetch through, and the sprites' (NES_EX_SETS). */
GV_INLINE const uint32_t *nes_bg_map(const nes_pregs *r)
{
    return (r->ex & NES_EX_SETS) && !(r->ctrl & NES_CTRL_SPR16) && !(r->ex & NES_EX_LAST_B) ? r->spr_map : r->chr_map;
}

GV_INLINE const uint32_t *nes_spr_map(const nes_pregs *r)
{
    return (r->ex & NES_EX_SETS) && ((r->ctrl & NES_CTRL_SPR16) || !(r->ex & NES_EX_LAST_B)) ? r->spr_map : r->chr_map;
}

/* Pattern byte at PPU address a ($0000-$1FFF) through the current bank mapping. */
GV_INLINE uint8_t nes_chr_rd(const nes_pmem *m, const nes_pregs *r, int a)
{
    return nes_chr_rd_map(m, r->ex ? nes_bg_map(r) : r->chr_map, a);
}

/* Nametable byte at PPU address a ($2000-$3EFF) through the current nametable mapping. */
GV_INLINE uint8_t nes_nt_rd(const nes_pmem *m, const nes_pregs *r, int a)
{
    uint32_t w = r->nt_map[(a >> 10) & 3];
    if (w & NES_NT_CHR) /* a CHR page as a nametable (boards that map one there) */
        return nes_chr_byte(m, (w & NES_NT_CHR_RAM) != 0, (w & NES_NT_PAGE) * 1024u + (uint32_t)(a & 0x3FF));
    uint32_t off = w + (uint32_t)(a & 0x3FF);
    uint8_t v = m->nt[off];
    return m->ev ? nes_overlay(m, NES_EV_NT, off, v) : v;
}

/* ExRAM byte i (0-1023; nametable RAM page 2): NES_EX_ATTR reads the one of the background
 * tile at v (i = v & $3FF), the split its nametable and attribute bytes. */
GV_INLINE uint8_t nes_ex_byte(const nes_pmem *m, int i)
{
    uint32_t off = 0x800u + (uint32_t)(i & 0x3FF);
    return m->ev ? nes_overlay(m, NES_EV_NT, off, m->nt[off]) : m->nt[off];
}

/* Nametable byte at PPU address a with the MMC5's rules: 0 from ExRAM under NES_EX_NT0. */
GV_INLINE uint8_t nes_ex_nt_rd(const nes_pmem *m, const nes_pregs *r, int a)
{
    if ((r->ex & NES_EX_NT0) && r->nt_map[(a >> 10) & 3] == 0x800u)
        return 0;
    return nes_nt_rd(m, r, a);
}

/* Background pattern byte of tile `tile` at v (plane: 0 low, 8 high), with the ExRAM's
 * 4 KiB bank in NES_EX_ATTR. */
GV_INLINE uint8_t nes_bg_pat(const nes_pmem *m, const nes_pregs *r, int v, int tile, int plane)
{
    int a = ((r->ctrl & NES_CTRL_BG_HI) ? 0x1000 : 0) | (tile << 4) | ((v >> 12) & 7) | plane;
    if (r->ex & NES_EX_ATTR) {
        uint32_t n = r->ex & 0xFFFFu;
        uint32_t bank = ((uint32_t)(nes_ex_byte(m, v) & 0x3F) | ((r->ex >> 10) & 0xC0)) % (n ? n : 1u);
        return nes_chr_byte(m, (r->ex & NES_EX_CHR_RAM) != 0, bank * 4096u + (uint32_t)(a & 0xFFF));
    }
    return nes_chr_rd(m, r, a);
}

/* The attribute bits (0-3) of the background tile at v. */
GV_INLINE uint8_t nes_bg_attr(const nes_pmem *m, const nes_pregs *r, int v)
{
    if (r->ex & NES_EX_ATTR)
        return (uint8_t)(nes_ex_byte(m, v) >> 6);
    uint8_t at = nes_ex_nt_rd(m, r, 0x23C0 | (v & 0x0C00) | ((v >> 4) & 0x38) | ((v >> 2) & 0x07));
    return (uint8_t)((at >> (((v >> 4) & 4) | (v & 2))) & 3);
}

/* ---- the MMC5's vertical split (NES_SPLIT_*) ------------------------------------------ */

/* Whether background tile s (0-33 in fetch order) is in the split region. */
GV_INLINE int nes_split_in(const nes_pregs *r, int s)
{
    int t = (int)(r->split & 31);
    return (r->split & NES_SPLIT_ON) && ((r->split & NES_SPLIT_RIGHT) ? s >= t : s < t);
}

/* The split's y on picture line ln: the scroll plus the line, wrapping at 240 (the
 * attribute rows are skipped) from a scroll of 0-239; from 240-255 the attribute rows show
 * first and y wraps at 256. */
GV_INLINE int nes_split_y(const nes_pregs *r, int ln)
{
    int sc = (int)((r->split >> 8) & 0xFF), y = sc + (ln & 0xFF);
    if (sc < 240)
        return y >= 240 ? y - 240 : y;
    return y & 0xFF;
}

/* Fetch component k (0 nametable, 1 attribute, 2-3 pattern planes) of split tile s of picture
 * line ln into slot s; v gives the pattern row (fine Y). */
GV_INLINE void nes_split_fetch(nes_pline *p, const nes_pmem *m, int k, int s, int ln)
{
    const nes_pregs *r = &p->r;
    int y = nes_split_y(r, ln), col = s & 31;
    if (k == 0) {
        p->nt_latch = nes_ex_byte(m, (y >> 3) * 32 + col);
    } else if (k == 1) {
        uint8_t at = nes_ex_byte(m, 0x3C0 + (y >> 5) * 8 + (col >> 2));
        p->tat[s] = (uint8_t)((at >> (((y >> 2) & 4) | (col & 2))) & 3);
    } else {
        uint32_t n = r->ex & 0xFFFFu;
        uint32_t bank = ((r->split >> 16) & 0xFF) % (n ? n : 1u);
        uint32_t off = bank * 4096u + (uint32_t)(p->nt_latch << 4) + (uint32_t)((r->v >> 12) & 7) + (k == 3 ? 8u : 0u);
        uint8_t b = nes_chr_byte(m, (r->ex & NES_EX_CHR_RAM) != 0, off);
        if (k == 2)
            p->tlo[s] = b;
        else
            p->thi[s] = b;
    }
}

/* Fetch component k of background tile s (fetch order) of picture line ln with the MMC5's
 * rules (r->ex set): the split, ExRAM modes 1 (extended attributes) and 2-3 (ExRAM reads 0). */
GV_INLINE void nes_ex_fetch(nes_pline *p, const nes_pmem *m, int k, int s, int ln)
{
    const nes_pregs *r = &p->r;
    if (r->split && nes_split_in(r, s)) {
        nes_split_fetch(p, m, k, s, ln);
        return;
    }
    int v = r->v;
    if (k == 0)
        p->nt_latch = nes_ex_nt_rd(m, r, 0x2000 | (v & 0x0FFF));
    else if (k == 1)
        p->tat[s] = nes_bg_attr(m, r, v);
    else if (k == 2)
        p->tlo[s] = nes_bg_pat(m, r, v, p->nt_latch, 0);
    else
        p->thi[s] = nes_bg_pat(m, r, v, p->nt_latch, 8);
}

GV_INLINE uint8_t nes_oam_rd(const nes_pmem *m, int i)
{
    uint8_t v = m->oam[i];
    return m->ev ? nes_overlay(m, NES_EV_OAM, (uint32_t)i, v) : v;
}

/* ---- background fetches: one component per call, at the dot the hardware does it ----- */

/* Component k of a fetch group (0: nametable at dot +1, 1: attribute at +3, 2: pattern low
 * at +5, 3: pattern high at +7) into slot s, for picture line ln (the MMC5's split counts
 * lines). With rendering off the component reads as 0. */
GV_INLINE void nes_bg_fetch(nes_pline *p, const nes_pmem *m, int k, int s, int ln)
{
    const nes_pregs *r = &p->r;
    if (!nes_rendering(r)) {
        if (k == 0)
            p->nt_latch = 0;
        else if (k == 1)
            p->tat[s] = 0;
        else if (k == 2)
            p->tlo[s] = 0;
        else
            p->thi[s] = 0;
        return;
    }
    if (r->ex) { /* the MMC5's rules */
        nes_ex_fetch(p, m, k, s, ln);
        return;
    }
    int v = r->v;
    if (k == 0) {
        p->nt_latch = nes_nt_rd(m, r, 0x2000 | (v & 0x0FFF));
    } else if (k == 1) {
        p->tat[s] = nes_bg_attr(m, r, v);
    } else if (k == 2) {
        p->tlo[s] = nes_bg_pat(m, r, v, p->nt_latch, 0);
    } else {
        p->thi[s] = nes_bg_pat(m, r, v, p->nt_latch, 8);
    }
}

/* ---- sprites ------------------------------------------------------------------------ */

/* The two pattern bytes of `row` (0..h-1 from the top, before flipping) of a sprite with
 * OAM tile byte `tile` and attribute byte `attr`. Horizontal flip is applied (bit 7 of the
 * returned planes is the leftmost pixel). */
GV_INLINE void nes_sprite_row(const nes_pmem *m, const nes_pregs *r, int tile, int attr, int row,
                              uint8_t *lo, uint8_t *hi)
{
    int a;
    if (r->ctrl & NES_CTRL_SPR16) {
        if (attr & 0x80)
            row = 15 - row;
        a = ((tile & 1) ? 0x1000 : 0) | ((tile & 0xFE) << 4);
        if (row >= 8) {
            a += 16;
            row -= 8;
        }
    } else {
        if (attr & 0x80)
            row = 7 - row;
        a = ((r->ctrl & NES_CTRL_SPR_HI) ? 0x1000 : 0) | (tile << 4);
    }
    const uint32_t *map = r->ex ? nes_spr_map(r) : r->chr_map;
    uint8_t l = nes_chr_rd_map(m, map, a + row), h = nes_chr_rd_map(m, map, a + row + 8);
    if (attr & 0x40) { /* horizontal flip: reverse the bits */
        l = (uint8_t)(((l * 0x0802u & 0x22110u) | (l * 0x8020u & 0x88440u)) * 0x10101u >> 16);
        h = (uint8_t)(((h * 0x0802u & 0x22110u) | (h * 0x8020u & 0x88440u)) * 0x10101u >> 16);
    }
    *lo = l;
    *hi = h;
}

/* Sprite evaluation and pattern fetches for line `n` (done by the hardware during dots
 * 65-320 of line n-1; here at once at dot 257). The first eight sprites in OAM order whose
 * rows cover the line are drawn; a lower OAM index wins where two overlap. OAM Y is the top
 * row minus one, so no sprite shows on line 0. Evaluation starts at OAM byte r.oam0 (the
 * NESdev wiki's "PPU sprite evaluation": OAMADDR at dot 65, normally 0): the 4-byte records
 * from there are the sprites (Y, tile, attribute, X, misaligned when oam0 is not a multiple
 * of 4, the last one wrapping to byte 0), up to the one in OAM's last 4-byte row; the first
 * record is the one sprite 0 hit watches. */
GV_INLINE void nes_sprite_setup(nes_pline *p, const nes_pmem *m, int n)
{
    if (p->spr_on)
        for (int i = 0; i < NES_W; i++)
            p->spr[i] = 0;
    p->spr_on = 0;
    if (!nes_rendering(&p->r) || n <= 0 || n >= NES_H)
        return;
    int h = (p->r.ctrl & NES_CTRL_SPR16) ? 16 : 8;
    /* first the (up to eight) sprites on the line, then their pixels: the search stores
     * nothing the compiler must assume aliases OAM or the overlay, so its loop stays short */
    int hit[8], found = 0, s = p->r.oam0, recs = 64 - (s >> 2);
    for (int i = 0; i < recs && found < 8; i++) {
        int row = n - 1 - nes_oam_rd(m, (s + 4 * i) & 255);
        if (row >= 0 && row < h)
            hit[found++] = i;
    }
    for (int f = 0; f < found; f++) {
        int i = hit[f], o = s + 4 * i, row = n - 1 - nes_oam_rd(m, o & 255);
        int tile = nes_oam_rd(m, (o + 1) & 255), attr = nes_oam_rd(m, (o + 2) & 255);
        int x0 = nes_oam_rd(m, (o + 3) & 255);
        uint8_t lo, hi;
        nes_sprite_row(m, &p->r, tile, attr, row, &lo, &hi);
        if (!(lo | hi))
            continue;
        uint8_t tag = (uint8_t)(((attr & 3) << 2) | ((attr & 0x20) ? 0x20 : 0) | (i == 0 ? 0x40 : 0));
        for (int k = 0; k < 8 && x0 + k < NES_W; k++) {
            int px = ((lo >> (7 - k)) & 1) | (((hi >> (7 - k)) & 1) << 1);
            if (px && !p->spr[x0 + k])
                p->spr[x0 + k] = (uint8_t)(tag | px);
        }
        p->spr_on = 1;
    }
}

/* ---- pixels ------------------------------------------------------------------------- */

/* Writes the RGB of colour index c at pixel x. */
GV_INLINE void nes_put(nes_pline *p, int x, uint16_t c)
{
    uint32_t v = p->rgb[c & 0x1FF];
    p->out[3 * x] = (uint8_t)v;
    p->out[3 * x + 1] = (uint8_t)(v >> 8);
    p->out[3 * x + 2] = (uint8_t)(v >> 16);
}

/* Writes the RGB of colour index c at the n pixels from x on. */
GV_INLINE void nes_fill(nes_pline *p, int x, int n, uint16_t c)
{
    uint32_t v = p->rgb[c & 0x1FF];
    uint8_t *o = p->out + 3 * x;
    for (int i = 0; i < n; i++) {
        o[3 * i] = (uint8_t)v;
        o[3 * i + 1] = (uint8_t)(v >> 8);
        o[3 * i + 2] = (uint8_t)(v >> 16);
    }
}

/* Colour index of pixel x (0-255) from the fetched slots, the sprite line, the mask and the
 * palette as they are now. With rendering off the PPU shows the backdrop, or the palette
 * entry v points at when v is inside $3F00-$3FFF. */
GV_INLINE uint16_t nes_pixel(const nes_pline *p, int x)
{
    const nes_pregs *r = &p->r;
    int ci = 0;
    if (!nes_rendering(r)) {
        if ((r->v & 0x3F00) == 0x3F00)
            ci = nes_pal_index(r->v);
    } else {
        int bg = 0;
        if ((r->mask & NES_MASK_BG) && (x >= 8 || (r->mask & NES_MASK_BG_LEFT))) {
            int col = x + r->x, s = col >> 3, b = 7 - (col & 7);
            int px = ((p->tlo[s] >> b) & 1) | (((p->thi[s] >> b) & 1) << 1);
            if (px)
                bg = (p->tat[s] << 2) | px;
        }
        int sp = 0;
        if (p->spr_on && (r->mask & NES_MASK_SPR) && (x >= 8 || (r->mask & NES_MASK_SPR_LEFT)))
            sp = p->spr[x];
        if ((sp & 3) && (!bg || !(sp & 0x20)))
            ci = 0x10 | (sp & 0x0F);
        else
            ci = bg;
    }
    int c = p->pal[ci] & ((r->mask & NES_MASK_GREY) ? 0x30 : 0x3F);
    return (uint16_t)(c | ((r->mask & NES_MASK_EMPH) << 1));
}

/* The greyscale bit of PPUMASK acts at the PPU's colour output, which comes two dots after
 * the stage where nes_pixel picks the colour (the NESdev wiki's PPU rendering timing: the
 * pixel output is delayed by the rendering pipeline). So a write landing before dot `dot`
 * (whose pixel is dot - 1) already greys pixels dot - 3 and dot - 2: blargg's nmi_sync
 * documents the write at CPU cycle 2286 + N + 5 of a frame starting its monochrome line at
 * pixel 3N - 290. Redraws those two pixels of line `line` with the registers they were drawn
 * with and the new greyscale bit, for writes at dots 3-256 (the ones of dots 0-2 and 257-258
 * would reach the line before, or pixels the log renderers have already passed: not
 * modelled); the other PPUMASK bits take effect at `dot` as before. Every renderer calls
 * this where it applies the write. */
GV_INLINE void nes_grey_back(nes_pline *p, int line, int dot, uint8_t old_mask, uint8_t new_mask)
{
    if (!((old_mask ^ new_mask) & NES_MASK_GREY) || !p->out || line >= NES_H || dot < 3 || dot > 256)
        return;
    uint8_t keep = p->r.mask;
    p->r.mask = (uint8_t)((old_mask & ~NES_MASK_GREY) | (new_mask & NES_MASK_GREY));
    for (int x = dot - 3; x < dot - 1; x++)
        nes_put(p, x, nes_pixel(p, x));
    p->r.mask = keep;
}

/* All four fetches of a group into slot s for picture line ln (the registers fixed through
 * the group). */
GV_ALWAYS_INLINE void nes_bg_group(nes_pline *p, const nes_pmem *m, int s, int ln)
{
    const nes_pregs *r = &p->r;
    if (!nes_rendering(r)) {
        p->nt_latch = 0;
        p->tat[s] = p->tlo[s] = p->thi[s] = 0;
        return;
    }
    int v = r->v;
    if (r->ex) { /* the MMC5's rules: nes_ex_fetch's four components */
        if (r->split && nes_split_in(r, s)) {
            for (int k = 0; k < 4; k++)
                nes_split_fetch(p, m, k, s, ln);
            return;
        }
        p->nt_latch = nes_ex_nt_rd(m, r, 0x2000 | (v & 0x0FFF));
        p->tat[s] = nes_bg_attr(m, r, v);
        p->tlo[s] = nes_bg_pat(m, r, v, p->nt_latch, 0);
        p->thi[s] = nes_bg_pat(m, r, v, p->nt_latch, 8);
        return;
    }
    p->nt_latch = nes_nt_rd(m, r, 0x2000 | (v & 0x0FFF));
    uint8_t at = nes_nt_rd(m, r, 0x23C0 | (v & 0x0C00) | ((v >> 4) & 0x38) | ((v >> 2) & 0x07));
    p->tat[s] = (uint8_t)((at >> (((v >> 4) & 4) | (v & 2))) & 3);
    int a = ((r->ctrl & NES_CTRL_BG_HI) ? 0x1000 : 0) | (p->nt_latch << 4) | ((v >> 12) & 7);
    p->tlo[s] = nes_chr_rd_map(m, r->chr_map, a);
    p->thi[s] = nes_chr_rd_map(m, r->chr_map, a | 8);
}

/* Makes p->lut again unless it was made from the palette, colour table and grey and
 * emphasis bits of now (a span's whole groups look it up instead of the two tables). */
GV_INLINE void nes_lut_fresh(nes_pline *p)
{
    uint8_t mb = (uint8_t)(p->r.mask & (NES_MASK_GREY | NES_MASK_EMPH));
    int same = p->lut_rgb == p->rgb && p->lut_mask == mb;
    for (int i = 0; i < 32 && same; i += 8) {
        uint64_t a, b;
        memcpy(&a, p->pal + i, 8);
        memcpy(&b, p->lut_pal + i, 8);
        same = a == b;
    }
    if (same)
        return;
    uint16_t emph = (uint16_t)((mb & NES_MASK_EMPH) << 1);
    uint8_t gm = (mb & NES_MASK_GREY) ? 0x30 : 0x3F;
    for (int i = 0; i < 32; i++) {
        p->lut[i] = p->rgb[(p->pal[i] & gm) | emph];
        p->lut_pal[i] = p->pal[i];
    }
    p->lut_mask = mb;
    p->lut_rgb = p->rgb;
}

/* Eight bytes from the bits of pattern byte b: byte k (bits 8k..8k+7, pixel k of the group)
 * is 1 where bit 7 - k of b is set, else 0. The byte is copied into all eight lanes, lane k
 * keeps only bit 7 - k, and adding $7F to every lane (no carry leaves a lane: each holds at
 * most $80) sets a lane's top bit exactly when the lane is not zero. */
GV_INLINE uint64_t nes_bits_to_lanes(unsigned b)
{
    uint64_t x = ((uint64_t)(b & 0xFFu) * 0x0101010101010101ull) & 0x0102040810204080ull;
    return ((x + 0x7F7F7F7F7F7F7F7Full) >> 7) & 0x0101010101010101ull;
}

/* Pixels 8j..8j+7 (the group drawn during dots 8j+1..8j+8) with the registers fixed: the
 * same colours as nes_pixel (the plain rule, used for the left column and with rendering
 * off), with the background's palette indexes of all eight pixels computed at once in the
 * eight byte lanes of a 64-bit word (this loop is most of a frame's work), their colours
 * from p->lut (nes_lut_fresh made it for the span), and written as RGB (eight pixels make
 * three 64-bit words). */
GV_ALWAYS_INLINE void nes_group_pixels(nes_pline *p, int j)
{
    const nes_pregs *r = &p->r;
    int x0 = 8 * j;
    uint8_t mask = r->mask;
    if (!nes_rendering(r) || (x0 == 0 && (mask & (NES_MASK_BG_LEFT | NES_MASK_SPR_LEFT)) !=
                                             (NES_MASK_BG_LEFT | NES_MASK_SPR_LEFT))) {
        for (int x = x0; x < x0 + 8; x++)
            nes_put(p, x, nes_pixel(p, x));
        return;
    }
    int fx = r->x; /* pixels k < 8 - fx come from slot j, the others from slot j + 1 */
    uint64_t ci = 0; /* lane k: the background's palette index of pixel k (0: transparent) */
    if (mask & NES_MASK_BG) {
        unsigned wl = ((unsigned)p->tlo[j] << 8 | p->tlo[j + 1]) << fx >> 8;
        unsigned wh = ((unsigned)p->thi[j] << 8 | p->thi[j + 1]) << fx >> 8;
        uint64_t px = nes_bits_to_lanes(wl) | nes_bits_to_lanes(wh) << 1;      /* 0-3 per lane */
        uint64_t opaque = ((px | px >> 1) & 0x0101010101010101ull) * 0xFFu; /* $FF where px != 0 */
        uint64_t left = ~0ull >> (8 * fx);                                   /* lanes k < 8 - fx */
        uint64_t at = ((uint64_t)(p->tat[j] << 2) * 0x0101010101010101ull & left) |
                      ((uint64_t)(p->tat[j + 1] << 2) * 0x0101010101010101ull & ~left);
        ci = (px | at) & opaque;
    }
    uint8_t cs[8];
    for (int k = 0; k < 8; k++)
        cs[k] = (uint8_t)(ci >> (8 * k));
    if (p->spr_on && (mask & NES_MASK_SPR)) {
        const uint8_t *spr = p->spr + x0;
        for (int k = 0; k < 8; k++) {
            int sp = spr[k];
            if ((sp & 3) && (!cs[k] || !(sp & 0x20)))
                cs[k] = (uint8_t)(0x10 | (sp & 0x0F));
        }
    }
    uint32_t c[8];
    GV_UNROLL8
    for (int k = 0; k < 8; k++) /* nes_pixel's colour: rgb[(pal[ci] & grey) | emphasis] */
        c[k] = p->lut[cs[k]];
    uint64_t q[3] = {c[0] | (uint64_t)c[1] << 24 | (uint64_t)c[2] << 48,
                     c[2] >> 16 | (uint64_t)c[3] << 8 | (uint64_t)c[4] << 32 | (uint64_t)c[5] << 56,
                     c[5] >> 8 | (uint64_t)c[6] << 16 | (uint64_t)c[7] << 40};
    uint8_t *o = p->out + 3 * x0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(o, q, sizeof q); /* the words' bytes lowest first are the pixels' R, G, B in order */
#else
    for (int i = 0; i < 24; i++) /* byte stores: the line buffer need not be aligned */
        o[i] = (uint8_t)(q[i >> 3] >> (8 * (i & 7)));
#endif
}

/* ---- one span of a line --------------------------------------------------------------- */

/* Draws dots [d0, d1) of `line` (0-239 or the pre-render line) with the registers fixed:
 * background fetches at their dots, pixels at dots 1-256 of visible lines, v moved exactly
 * as nes_v_span moves it, and at dot 257 the sprite setup for the next line. Callers split
 * spans at every logged change, so a change lands between two dots as on the hardware. */
GV_INLINE void nes_line_span(nes_pline *p, const nes_pmem *m, int line, int d0, int d1)
{
    if (line >= NES_H && line != NES_PRE)
        return;
    int vis = line < NES_H && p->out;
    int ren = nes_rendering(&p->r);
    int d = d0;
    while (d < d1) {
        if (d >= 1 && d <= 256) {
            int j = (d - 1) >> 3;
            if (!ren && ((d - 1) & 7) == 0 && d + 8 <= d1) {
                /* whole groups with rendering off: every fetch reads 0, v stays, and every
                 * pixel has the one colour nes_pixel gives (the backdrop or v's entry) */
                int g = ((d1 < 257 ? d1 : 257) - d) >> 3;
                p->nt_latch = 0;
                for (int s = j + 2; s < j + 2 + g; s++)
                    p->tat[s] = p->tlo[s] = p->thi[s] = 0;
                if (vis)
                    nes_fill(p, d - 1, 8 * g, nes_pixel(p, d - 1));
                d += 8 * g;
                continue;
            }
            if (((d - 1) & 7) == 0 && d + 8 <= d1) {
                /* whole fetch groups at once (rendering is on: the branch above took the
                 * groups with it off), up to the span's end or dot 256 */
                int end = d1 < 257 ? d1 : 257;
                if (vis)
                    nes_lut_fresh(p);
                for (; d + 8 <= end; d += 8) {
                    j = (d - 1) >> 3;
                    nes_bg_group(p, m, j + 2, line);
                    if (vis)
                        nes_group_pixels(p, j);
                    nes_v_inc_x(&p->r);
                    if (d + 7 == 256)
                        nes_v_inc_y(&p->r);
                }
                continue;
            }
            int ph = (d - 1) & 7;
            if (!(ph & 1))
                nes_bg_fetch(p, m, ph >> 1, j + 2, line);
            if (vis)
                nes_put(p, d - 1, nes_pixel(p, d - 1));
            if (ph == 7 && ren) {
                nes_v_inc_x(&p->r);
                if (d == 256)
                    nes_v_inc_y(&p->r);
            }
            d++;
            continue;
        }
        if (d == 257) {
            if (ren)
                nes_v_copy_x(&p->r);
            nes_sprite_setup(p, m, line == NES_PRE ? 0 : line + 1);
            d++;
            continue;
        }
        if (d >= 321 && d <= 336) {
            int ph = (d - 321) & 7, s = (d - 321) >> 3, next = line == NES_PRE ? 0 : line + 1;
            if (ph == 0 && d + 8 <= d1) {
                nes_bg_group(p, m, s, next);
                if (ren)
                    nes_v_inc_x(&p->r);
                d += 8;
                continue;
            }
            if (!(ph & 1))
                nes_bg_fetch(p, m, ph >> 1, s, next);
            if (ph == 7 && ren)
                nes_v_inc_x(&p->r);
            d++;
            continue;
        }
        if (line == NES_PRE && d >= 280 && d <= 304) {
            if (ren)
                nes_v_copy_y(&p->r);
            d = d1 < 305 ? d1 : 305;
            continue;
        }
        /* dots 0, 258-279, 305-320, 337-340: nothing that the picture depends on */
        int next = d < 1 ? 1 : d < 257 ? 257 : (line == NES_PRE && d < 280) ? 280 : d < 321 ? 321 : NES_DOTS;
        d = d1 < next ? d1 : next;
    }
}

/* Applies one logged change to the drawing state (memory writes are read through the
 * overlay; only palette writes change the local copy). */
GV_INLINE void nes_apply_event(nes_pline *p, const nes_vev *e)
{
    switch (e->kind) {
    case NES_EV_REGS:
        p->r.v = (uint16_t)(e->a & 0x7FFF);
        p->r.t = (uint16_t)((e->a >> 16) & 0x7FFF);
        p->r.ctrl = (uint8_t)e->b;
        p->r.mask = (uint8_t)(e->b >> 8);
        p->r.x = (uint8_t)((e->b >> 16) & 7);
        break;
    case NES_EV_PAL:
        p->pal[e->a & 31] = (uint8_t)(e->b & 0x3F);
        break;
    case NES_EV_MAP:
        if (e->slot < 8)
            p->r.chr_map[e->slot] = e->a;
        else if (e->slot < 12)
            p->r.nt_map[(e->slot - 8) & 3] = (uint16_t)e->a;
        else if (e->slot < 20)
            p->r.spr_map[(e->slot - 12) & 7] = e->a;
        else if (e->slot == 20)
            p->r.ex = e->a;
        else if (e->slot == 21)
            p->r.split = e->a;
        else
            p->r.oam0 = (uint8_t)e->a;
        break;
    default:
        break;
    }
}

#endif
