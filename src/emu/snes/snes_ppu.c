/* snes_ppu.c: the SNES PPU (S-PPU1/S-PPU2): its registers ($2100-$213F), the native
 * renderer's entry (a whole scanline at a time with the registers as they are at the line's
 * start, redrawn from a pixel on by a write inside the line) and the packing of the frame's video log. The picture rules themselves, shared by
 * the native, host and device renderers, are in snes_video.h:
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
 * Hi-res (modes 5 and 6, pseudo-hires), interlace (both fields), OBJ interlace and the
 * 239-line overscan set the frame's size (snes_video.h); register writes inside a line
 * redraw it from their pixel on (snes_machine.c, docs/SNES.md "Mid-line writes"). Not
 * emulated (docs/SNES.md): sprite mosaic. */
#include <string.h>

#include "emu/snes/snes_int.h"

_Static_assert(sizeof(snes_vregs) == 64, "snes_vregs: 64 bytes, no padding");
_Static_assert(sizeof(snes_vmid) == 80, "snes_vmid: 80 bytes, no padding");
_Static_assert(sizeof(snes_vmem) == SNES_VM_BYTES, "snes_vmem: the memories back to back");
_Static_assert(SNES_W == SNES_VW_MAX && SNES_H == SNES_VH_MAX, "one largest picture");

/* ---- registers ------------------------------------------------------------------------ */

void snes_ppu_power(snes_ppu *p)
{
    memset(p, 0, sizeof *p);
    p->inidisp = 0x80; /* forced blank */
}

void snes_ppu_reset(snes_ppu *p)
{
    /* the reset button clears no memory and leaves the PPU's registers as they are, but for
     * forced blank: a program that sets them up on a cold boot only (a signature in WRAM)
     * shows its picture again once it turns the screen on */
    p->inidisp = (uint8_t)(p->inidisp | 0x80);
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

/* A BG scroll register written twice (the PPU keeps the previous byte): HOFS = Current << 8
 * | Prev & ~7 | (HOFS >> 8) & 7. The low three bits come from bits 8-10 of the value the
 * first write left, so the register keeps them (the renderer uses bits 0-9): kept to 10
 * bits, `sta lo; stz hi` lost bit 2 of lo (HOFS 4 became 0, PeterLemon's 8bpp 32x32 map
 * scroller 4 pixels off). */
static uint16_t bg_hofs(snes_ppu *p, uint16_t old, uint8_t v)
{
    uint16_t r = (uint16_t)(((v << 8) | (p->ofs_prev & ~7) | ((old >> 8) & 7)) & 0x7FF);
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

int snes_ppu_write(snes_ppu *p, uint8_t reg, uint8_t v, uint32_t mw[2])
{
    int n = 0;
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
            mw[n++] = SNES_MW(SNES_VM_OAM + 0x200 + (a & 0x1F), v);
        } else if (!(a & 1)) {
            p->oam_latch = v;
        } else {
            p->oam[a - 1] = p->oam_latch;
            p->oam[a] = v;
            mw[n++] = SNES_MW(SNES_VM_OAM + a - 1, p->oam_latch);
            mw[n++] = SNES_MW(SNES_VM_OAM + a, v);
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
        mw[n++] = SNES_MW(SNES_VM_VRAM + a, v);
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
            mw[n++] = SNES_MW(SNES_VM_CGRAM + p->cgadd * 2, p->cg_latch);
            mw[n++] = SNES_MW(SNES_VM_CGRAM + p->cgadd * 2 + 1, (v & 0x7F));
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
    return n;
}

int snes_ppu_write_targets(const snes_ppu *p, uint8_t reg, uint32_t a[2])
{
    switch (reg) {
    case 0x04: {
        uint16_t o = p->oamadd & 0x3FF;
        if (o >= 0x200) {
            a[0] = SNES_VM_OAM + 0x200 + (o & 0x1F);
            return 1;
        }
        if (!(o & 1))
            return 0;
        a[0] = SNES_VM_OAM + o - 1u, a[1] = SNES_VM_OAM + o;
        return 2;
    }
    case 0x18: case 0x19: a[0] = SNES_VM_VRAM + (vram_addr(p) & 0x7FFFu) * 2 + (reg & 1u); return 1;
    default: return 0;
    }
}

/* The H counter (dot 0-339) at master clock hclk of a line: 4 clocks a dot, but dots 323
 * and 327 take 6 (340 dots in 1364 clocks). */
static uint16_t h_counter(uint32_t hclk)
{
    if (hclk < 323 * 4)
        return (uint16_t)(hclk >> 2);
    if (hclk < 323 * 4 + 6)
        return 323;
    if (hclk < 327 * 4 + 2)
        return (uint16_t)(324 + (hclk - (323 * 4 + 6)) / 4);
    if (hclk < 327 * 4 + 8)
        return 327;
    return (uint16_t)(328 + (hclk - (327 * 4 + 8)) / 4);
}

void snes_ppu_latch_counters(snes *m, uint64_t clk)
{
    snes_ppu *p = &m->s.ppu;
    uint64_t d = clk - m->s.frame_start;
    p->vlatch = (uint16_t)((d / SNES_LINE_CLOCKS) % snes_frame_lines(&m->s));
    p->hlatch = h_counter((uint32_t)(d % SNES_LINE_CLOCKS));
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

uint8_t snes_ppu_read(snes *m, uint8_t reg, uint64_t clk)
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
            snes_ppu_latch_counters(m, clk);
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
        v = (uint8_t)((m->s.frame & 1) << 7 | (p->latched << 6) | (p->mdr2 & 0x20) | 0x03);
        if (m->s.wrio & 0x80)
            p->latched = 0;
        p->hl_hi = p->vl_hi = 0;
        return p->mdr2 = v;
    default: return p->mdr1;
    }
}

/* ---- the scanline renderer (snes_video.h) -------------------------------------------- */

void snes_vregs_of(const snes_ppu *p, snes_vregs *r)
{
    memcpy(r->hofs, p->hofs, sizeof r->hofs);
    memcpy(r->vofs, p->vofs, sizeof r->vofs);
    r->m7a = p->m7a, r->m7b = p->m7b, r->m7c = p->m7c, r->m7d = p->m7d;
    r->m7x = p->m7x, r->m7y = p->m7y, r->m7hofs = p->m7hofs, r->m7vofs = p->m7vofs;
    r->fixed = p->fixed, r->oam_reload = p->oam_reload;
    r->inidisp = p->inidisp, r->obsel = p->obsel, r->bgmode = p->bgmode, r->mosaic = p->mosaic;
    memcpy(r->bgsc, p->bgsc, sizeof r->bgsc);
    memcpy(r->bgnba, p->bgnba, sizeof r->bgnba);
    r->m7sel = p->m7sel, r->oam_prio = p->oam_prio;
    memcpy(r->wsel, p->wsel, sizeof r->wsel);
    memcpy(r->wpos, p->wpos, sizeof r->wpos);
    r->wbglog = p->wbglog, r->wobjlog = p->wobjlog, r->tm = p->tm, r->ts = p->ts, r->tmw = p->tmw;
    r->tsw = p->tsw, r->cgwsel = p->cgwsel, r->cgadsub = p->cgadsub, r->setini = p->setini;
}

void snes_ppu_draw_line(snes_ppu *p, const snes_vregs *r, int y, int il, int wide, uint8_t *fb)
{
    p->stat_flags |= snes_render_rows(r, p->vram, p->cgram, p->oam, y, il, wide, fb);
}

void snes_ppu_obj_flags(snes_ppu *p, int y, int il)
{
    if ((p->stat_flags & 0xC0) == 0xC0)
        return; /* both flags already raised this frame: nothing a line can change */
    snes_vregs r;
    snes_vregs_of(p, &r);
    p->stat_flags |= snes_draw_obj(&r, p->oam, p->vram, y + 1, il && (r.setini & 2), 0, NULL);
}

/* ---- the packed video log (snes_video.h) ---------------------------------------------- */

snes_vview snes_vlog_view(const snes_vlog *lg)
{
    snes_vview v = {lg->line_reg, lg->regs, lg->segs, lg->mw, (uint32_t)lg->nsegs, (uint32_t)lg->n,
                    lg->snapshot ? (const uint8_t *)&lg->snap : NULL, lg->lines, lg->wide, lg->il,
                    lg->mid, (uint32_t)lg->nmid};
    return v;
}

size_t snes_vlog_packed_size(const snes_vlog *lg)
{
    size_t n = SNES_ALIGN8(sizeof(snes_vpacked)) + (size_t)lg->nregs * sizeof(snes_vregs);
    n += SNES_ALIGN8((size_t)lg->nsegs * sizeof(snes_vseg)) + SNES_ALIGN8(lg->n * sizeof(uint32_t));
    n += lg->nmid * sizeof(snes_vmid);
    return n + (lg->snapshot ? SNES_ALIGN8(sizeof(snes_vmem)) : 0);
}

void snes_vlog_pack(const snes_vlog *lg, uint8_t *dst)
{
    snes_vpacked h;
    memset(&h, 0, sizeof h);
    h.nwrites = (uint32_t)lg->n;
    h.nregs = (uint16_t)lg->nregs;
    h.nsegs = (uint16_t)lg->nsegs;
    h.snapshot = (uint32_t)lg->snapshot;
    h.lines = (uint8_t)lg->lines, h.wide = (uint8_t)lg->wide, h.il = (uint8_t)lg->il;
    memcpy(h.line_reg, lg->line_reg, sizeof h.line_reg);
    size_t o = SNES_ALIGN8(sizeof h);
    h.off_regs = (uint32_t)o;
    memcpy(dst + o, lg->regs, (size_t)lg->nregs * sizeof(snes_vregs));
    o += (size_t)lg->nregs * sizeof(snes_vregs);
    h.off_segs = (uint32_t)o;
    memcpy(dst + o, lg->segs, (size_t)lg->nsegs * sizeof(snes_vseg));
    o += SNES_ALIGN8((size_t)lg->nsegs * sizeof(snes_vseg));
    h.off_writes = (uint32_t)o;
    if (lg->n)
        memcpy(dst + o, lg->mw, lg->n * sizeof(uint32_t));
    o += SNES_ALIGN8(lg->n * sizeof(uint32_t));
    h.nmid = (uint32_t)lg->nmid;
    h.off_mid = (uint32_t)o;
    if (lg->nmid)
        memcpy(dst + o, lg->mid, lg->nmid * sizeof(snes_vmid));
    o += lg->nmid * sizeof(snes_vmid);
    h.off_snap = (uint32_t)o;
    if (lg->snapshot) {
        memcpy(dst + o, &lg->snap, sizeof lg->snap);
        o += SNES_ALIGN8(sizeof lg->snap);
    }
    h.bytes = (uint32_t)o;
    memcpy(dst, &h, sizeof h);
}
