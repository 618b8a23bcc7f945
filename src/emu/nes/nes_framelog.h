/* nes_framelog.h: the per-frame record the core emits for the host and device renderers. Plain
 * data, no pointers inside: the drawing state at the start of the frame's picture (the
 * pre-render line), the changes after it stamped with (line, dot), and the audible spans of
 * the frame's CPU cycles. A frame log is self-contained apart from CHR-ROM, which is the
 * same for every frame and instance and is passed beside it. It covers the pre-render line
 * and the picture, which every region has alike: the pre-render line is numbered NES_PRE
 * (261) in the log whichever line it is in the region's frame (311 in the 312-line PAL and
 * Dendy frames), so the renderers know nothing of regions but the sample clock. */
#ifndef GV_EMU_NES_NES_FRAMELOG_H
#define GV_EMU_NES_NES_FRAMELOG_H

#include <stdint.h>

#include "emu/nes/nes_audio.h"
#include "emu/nes/nes_video.h"
#include "emu/nes/nes_xaudio.h"

#define NES_LOG_MAGIC 0x474C534Eu /* "NSLG" */
#define NES_CHR_RAM_MAX 32768

/* The fixed part of a frame log. */
typedef struct {
    uint32_t magic;
    uint32_t frame;            /* frame number (0 = the first after power-on) */
    uint16_t start_line;       /* the snapshot's position: (261, 0), or (0, 0) at power-on */
    uint16_t start_dot;
    uint32_t nev;              /* video events */
    uint32_t nmem;             /* of which memory writes (nametable, CHR-RAM, OAM) */
    uint32_t chr_ram_size;     /* bytes of CHR-RAM that follow (0: the cart has CHR-ROM only) */
    uint32_t nspan;            /* audio spans */
    uint32_t nxspan;           /* the expansion sound chip's spans (0: the board has none) */
    uint32_t nxmem;            /* bytes of the chip's memory images (nes_xaudio.h; 0: none) */
    uint32_t nfm;              /* the VRC7's levels, one a 36-cycle tick from tick a_c0 / 36 (nes_vrc7.h; 0: none) */
    uint32_t a_len;            /* CPU cycles of the frame */
    uint32_t region;           /* NES_REGION_*: the CPU clock the sample clock counts */
    uint64_t a_c0;             /* absolute CPU cycle at which the frame's audio starts */
    nes_pregs regs;            /* registers at the snapshot */
    uint8_t pal[32];
    uint8_t oam[256];
    uint8_t nt[4096];
} nes_loghead;

/* A frame log as the core holds it: the head and its four arrays. */
typedef struct {
    const nes_loghead *h;
    const uint8_t *chr_ram; /* h->chr_ram_size bytes */
    const nes_vev *ev;      /* h->nev */
    const nes_osc *span;    /* h->nspan */
    const nes_xosc *xspan;  /* h->nxspan */
    const uint8_t *xmem;    /* h->nxmem bytes: the chip spans' memory images */
    const int16_t *fm;      /* h->nfm */
} nes_logview;

/* Packed form (for copying to a device): head, CHR-RAM, events, spans, chip spans, chip
 * memory images, FM levels, each part starting at a multiple of 16 bytes. */
GV_INLINE uint32_t nes_log_align(uint32_t n)
{
    return (n + 15u) & ~15u;
}

GV_INLINE uint32_t nes_log_packed_size(const nes_loghead *h)
{
    return nes_log_align((uint32_t)sizeof(nes_loghead)) + nes_log_align(h->chr_ram_size) +
           nes_log_align(h->nev * (uint32_t)sizeof(nes_vev)) +
           nes_log_align(h->nspan * (uint32_t)sizeof(nes_osc)) + nes_log_align(h->nxspan * (uint32_t)sizeof(nes_xosc)) +
           nes_log_align(h->nxmem) + h->nfm * (uint32_t)sizeof(int16_t);
}

/* The view of a packed log at p (16-byte aligned). */
GV_INLINE nes_logview nes_log_unpack(const uint8_t *p)
{
    nes_logview v;
    v.h = (const nes_loghead *)p;
    uint32_t o = nes_log_align((uint32_t)sizeof(nes_loghead));
    v.chr_ram = p + o;
    o += nes_log_align(v.h->chr_ram_size);
    v.ev = (const nes_vev *)(p + o);
    o += nes_log_align(v.h->nev * (uint32_t)sizeof(nes_vev));
    v.span = (const nes_osc *)(p + o);
    o += nes_log_align(v.h->nspan * (uint32_t)sizeof(nes_osc));
    v.xspan = (const nes_xosc *)(p + o);
    o += nes_log_align(v.h->nxspan * (uint32_t)sizeof(nes_xosc));
    v.xmem = p + o;
    o += nes_log_align(v.h->nxmem);
    v.fm = (const int16_t *)(p + o);
    return v;
}

/* Per visible line L, the drawing registers at (L - 1, 257) (the pre-render line for
 * L = 0) and the index of the first event at or after that point: what a renderer needs
 * to draw line L without walking the frame from its start. */
typedef struct {
    nes_pregs regs;
    uint32_t ev;
} nes_linestart;

/* Walks the frame's register changes once and fills ls[0..240): the sequential part of a
 * log renderer, O(lines + events). */
GV_INLINE void nes_log_prepass(const nes_logview *lv, nes_linestart *ls)
{
    nes_pregs r = lv->h->regs;
    uint32_t ei = 0, nev = lv->h->nev;
    int line = lv->h->start_line, dot = lv->h->start_dot;
    uint32_t pos = nes_pos(line, dot);
    for (int L = 0; L < NES_H; L++) {
        int tl = L == 0 ? NES_PRE : L - 1;
        uint32_t tpos = nes_pos(tl, 257);
        /* advance (line, dot) to (tl, 257) through events and line ends; events stamped
         * exactly at (tl, 257) are left to the line's renderer, which applies them before
         * drawing that dot */
        for (;;) {
            uint32_t epos = 0xFFFFFFFFu;
            while (ei < nev && (epos = nes_pos(lv->ev[ei].line, lv->ev[ei].dot)) <= pos && pos < tpos) {
                const nes_vev *e = &lv->ev[ei];
                if (e->kind == NES_EV_REGS || e->kind == NES_EV_MAP) {
                    nes_pline tmp; /* only its registers are touched */
                    tmp.r = r;
                    nes_apply_event(&tmp, e);
                    r = tmp.r;
                }
                ei++;
                epos = 0xFFFFFFFFu;
            }
            if (pos >= tpos)
                break;
            if (ei >= nev)
                epos = 0xFFFFFFFFu;
            uint32_t stop = epos < tpos ? epos : tpos;
            uint32_t line_end = nes_pos(line, 0) + NES_DOTS;
            if (stop > line_end)
                stop = line_end;
            nes_v_span(&r, line, dot, dot + (int)(stop - pos));
            dot += (int)(stop - pos);
            pos = stop;
            if (dot >= NES_DOTS) {
                line = line == NES_PRE ? 0 : line + 1;
                dot = 0;
            }
        }
        ls[L].regs = r;
        ls[L].ev = ei;
    }
}

/* Draws visible line L of a logged frame into out_rgb (256 x 3 bytes) with the picture
 * rules of nes_video.h: starts from the registers at (L - 1, 257), applies the events up to
 * (L, 257) at their dots. p is caller scratch (per thread). rgb is the 512-entry colour
 * table (nes_palette_rgb32). */
GV_INLINE void nes_log_draw_line(const nes_logview *lv, const nes_linestart *ls, int L,
                                 const uint8_t *chr_rom, const uint32_t *rgb, uint8_t *out_rgb,
                                 nes_pline *p)
{
    const nes_loghead *h = lv->h;
    p->r = ls[L].regs;
    for (int i = 0; i < 32; i++)
        p->pal[i] = h->pal[i];
    uint32_t ei = ls[L].ev, nev = h->nev;
    for (uint32_t i = 0; i < ei; i++)
        if (lv->ev[i].kind == NES_EV_PAL)
            nes_apply_event(p, &lv->ev[i]);
    p->nt_latch = 0;
    p->spr_on = 1; /* forces nes_sprite_setup to clear the scratch sprite line */
    p->out = out_rgb;
    p->rgb = rgb;
    p->lut_rgb = (const uint32_t *)0; /* p's colour table is made afresh (nes_lut_fresh) */
    nes_pmem m;
    m.chr_rom = chr_rom;
    m.chr_ram = lv->chr_ram;
    m.nt = h->nt;
    m.oam = h->oam;
    m.ev = h->nmem ? lv->ev : (const nes_vev *)0;
    m.ev_lim = 0;
    for (int seg = 0; seg < 2; seg++) {
        int line = seg == 0 ? (L == 0 ? NES_PRE : L - 1) : L;
        int d = seg == 0 ? 257 : 0, d1 = seg == 0 ? NES_DOTS : 257;
        uint32_t base = nes_pos(line, 0);
        while (d < d1) {
            while (ei < nev && nes_pos(lv->ev[ei].line, lv->ev[ei].dot) <= base + (uint32_t)d) {
                uint8_t old_mask = p->r.mask;
                nes_apply_event(p, &lv->ev[ei]);
                if (seg == 1 && lv->ev[ei].kind == NES_EV_REGS) /* greyscale acts two pixels back */
                    nes_grey_back(p, L, d, old_mask, p->r.mask);
                ei++;
            }
            int nd = d1;
            if (ei < nev) {
                uint32_t ep = nes_pos(lv->ev[ei].line, lv->ev[ei].dot);
                if (ep < base + (uint32_t)d1)
                    nd = (int)(ep - base);
            }
            m.ev_lim = ei;
            nes_line_span(p, &m, line, d, nd);
            d = nd;
        }
    }
}

/* ---- audio pieces: the frame's cycles cut at sample ends ------------------------------ */

/* The frame's first sample index (the first whose end lies after the frame start) and the
 * number of pieces: one per sample ending inside the frame plus the tail after the last. */
GV_INLINE void nes_log_pieces(const nes_loghead *h, uint64_t *n0, uint32_t *npieces)
{
    uint64_t first = nes_sample_at_or_after((int)h->region, h->a_c0 + 1);
    uint64_t after = nes_sample_at_or_after((int)h->region, h->a_c0 + h->a_len + 1);
    *n0 = first;
    *npieces = (uint32_t)(after - first) + 1;
}

/* Sum of the mixer output over piece k of the frame. */
GV_INLINE uint64_t nes_log_piece(const nes_atab *tab, const nes_logview *lv, uint64_t n0,
                                 uint32_t npieces, uint32_t k)
{
    const nes_loghead *h = lv->h;
    uint64_t a = k == 0 ? h->a_c0 : nes_sample_end((int)h->region, n0 + k - 1);
    uint64_t b = k + 1 == npieces ? h->a_c0 + h->a_len : nes_sample_end((int)h->region, n0 + k);
    uint32_t ra = (uint32_t)(a - h->a_c0), rb = (uint32_t)(b - h->a_c0);
    uint64_t sum = nes_spans_integrate(tab, lv->span, h->nspan, ra, rb);
    if (h->nxspan) /* the cartridge's sound chip joins the mix */
        sum += nes_xspans_integrate(tab, lv->xspan, h->nxspan, h->nxmem ? lv->xmem : (const uint8_t *)0, ra, rb);
    if (h->nfm) /* the VRC7's levels */
        sum += nes_vrc7_sum(tab, lv->fm, h->nfm, h->a_c0, ra, rb);
    return sum;
}

#endif
