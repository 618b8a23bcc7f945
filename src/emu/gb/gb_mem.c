/* gb_mem.c: the CPU's view of the address space. ROM, WRAM and (outside mode 3) VRAM are
 * reached through page pointers (gb_rd/gb_wr in gb_int.h); everything else comes here:
 * VRAM and OAM with their mode-dependent locks, cartridge RAM and MBC registers, echo
 * RAM, HRAM and the IO registers, which first bring every unit up to the current dot. */
#include <string.h>

#include "emu/gb/gb_int.h"

void gb_map_vram(gb *g)
{
    gb_state *s = &g->s;
    /* off the fast path while the PPU may lock it (from mode 2: gb_ppu_vram_locked) */
    int locked = (s->lcdc & 0x80) && (s->mode >= 2 || s->lcdon_line);
    uint8_t *p = s->vram + (s->vbk & 1) * 0x2000;
    for (int i = 0; i < 2; i++) {
        g->rmap[8 + i] = locked ? NULL : p + i * 0x1000;
        /* With a video log every VRAM write is recorded, so writes take the slow path. */
        g->wmap[8 + i] = (locked || (g->outputs & GB_OUT_VIDEO_LOG)) ? NULL : p + i * 0x1000;
    }
}

void gb_map_update(gb *g)
{
    gb_state *s = &g->s;
    gb_cart_map(g);
    gb_map_vram(g);
    int bank = s->cgb ? (s->svbk & 7) : 1;
    if (bank == 0)
        bank = 1;
    g->rmap[0xC] = g->wmap[0xC] = s->wram;
    g->rmap[0xD] = g->wmap[0xD] = s->wram + bank * 0x1000;
    g->rmap[0xE] = g->wmap[0xE] = s->wram; /* echo of $C000-$CFFF */
    g->rmap[0xF] = g->wmap[0xF] = NULL;
    for (int i = 0; i < 8; i++)
        g->wmap[i] = NULL; /* MBC registers */
}

static int oam_locked(const gb *g, int write)
{
    return g->s.ev[GB_EV_DMA] != GB_NEVER || gb_ppu_oam_locked(g, write);
}

static uint8_t io_read(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    uint8_t r = (uint8_t)a;
    if (r >= 0x10 && r <= 0x3F)
        return gb_apu_read(g, a);
    if (r >= 0x40 && r <= 0x4B)
        return gb_ppu_read(g, a);
    switch (r) {
    case 0x00: return gb_joyp(g);
    case 0x01: return s->sb;
    case 0x02: return (uint8_t)(s->sc | (s->cgb ? 0x7C : 0x7E));
    case 0x04: case 0x05: case 0x06: case 0x07: return gb_timer_read(g, a);
    case 0x0F: return (uint8_t)(s->iflag | 0xE0);
    default: break;
    }
    if (!s->cgb)
        return 0xFF;
    switch (r) {
    case 0x4D: return (uint8_t)(0x7E | (s->double_speed << 7) | (s->key1 & 1));
    case 0x4F: return (uint8_t)(0xFE | s->vbk);
    case 0x55: return s->hdma_active ? (uint8_t)(s->hdma_len & 0x7F) : (uint8_t)(0x80 | s->hdma_len);
    case 0x68: case 0x69: case 0x6A: case 0x6B: return gb_ppu_read(g, a);
    case 0x6C: return (uint8_t)(0xFE | s->opri);
    case 0x70: return (uint8_t)(0xF8 | s->svbk);
    case 0x72: case 0x73: case 0x74: return s->io_misc[r - 0x72];
    case 0x75: return (uint8_t)(0x8F | s->io_misc[3]);
    case 0x76: case 0x77: return gb_apu_read(g, a);
    default: return 0xFF;
    }
}

static void io_write(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    uint8_t r = (uint8_t)a;
    if (r >= 0x10 && r <= 0x3F) {
        gb_apu_write(g, a, v);
        return;
    }
    if (r >= 0x40 && r <= 0x4B) {
        gb_ppu_write(g, a, v);
        return;
    }
    switch (r) {
    case 0x00: s->p1 = v & 0x30; return;
    case 0x01: s->sb = v; return;
    case 0x02: gb_serial_write(g, v); return;
    case 0x04: case 0x05: case 0x06: case 0x07: gb_timer_write(g, a, v); return;
    case 0x0F: s->iflag = v & 0x1F; return;
    default: break;
    }
    if (!s->cgb)
        return;
    switch (r) {
    case 0x4D: s->key1 = v & 1; return;
    case 0x4F:
        s->vbk = v & 1;
        gb_map_vram(g);
        return;
    case 0x51: case 0x52: case 0x53: case 0x54: case 0x55: gb_hdma_write(g, a, v); return;
    case 0x68: case 0x69: case 0x6A: case 0x6B: gb_ppu_write(g, a, v); return;
    case 0x6C: s->opri = v & 1; return;
    case 0x70:
        s->svbk = v & 7;
        gb_map_update(g);
        return;
    case 0x72: case 0x73: case 0x74: s->io_misc[r - 0x72] = v; return;
    case 0x75: s->io_misc[3] = v & 0x70; return;
    default: return;
    }
}

static uint8_t *wram_echo(gb *g, uint16_t a)
{
    /* $E000-$FDFF mirrors $C000-$DDFF. */
    uint16_t m = (uint16_t)(a - 0x2000);
    return (uint8_t *)g->rmap[m >> 12] + (m & 0xFFF);
}

uint8_t gb_read_slow(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    if (a < 0x8000)
        return g->rmap[a >> 12][a & 0xFFF];
    if (a < 0xA000) {
        gb_sync(g);
        if (gb_ppu_vram_locked(g, 0))
            return 0xFF;
        return s->vram[(s->vbk & 1) * 0x2000 + (a - 0x8000)];
    }
    if (a < 0xC000)
        return gb_cram_read(g, a);
    if (a < 0xFE00)
        return *wram_echo(g, a);
    if (a < 0xFF00) {
        gb_sync(g);
        /* the DMG's OAM bug: a read in mode 2 (with an increment in the same M-cycle when
         * the CPU says so) corrupts the row being scanned */
        gb_oam_bug(g, g->oam_idu ? GB_OAM_READ_IDU : GB_OAM_READ);
        if (a >= 0xFEA0)
            return 0xFF;
        return oam_locked(g, 0) ? 0xFF : s->oam[a - 0xFE00];
    }
    if (a >= 0xFF80)
        return a == 0xFFFF ? s->ie : s->hram[a - 0xFF80];
    gb_sync(g);
    return io_read(g, a);
}

void gb_write_slow(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    if (a < 0x8000) {
        gb_mbc_write(g, a, v);
        return;
    }
    if (a < 0xA000) {
        gb_sync(g);
        if (gb_ppu_vram_locked(g, 1))
            return;
        uint16_t off = (uint16_t)((s->vbk & 1) * 0x2000 + (a - 0x8000));
        s->vram[off] = v;
        gb_ppu_mem_logged(g, off, v);
        return;
    }
    if (a < 0xC000) {
        gb_cram_write(g, a, v);
        return;
    }
    if (a < 0xFE00) {
        *wram_echo(g, a) = v;
        return;
    }
    if (a < 0xFF00) {
        gb_sync(g);
        gb_oam_bug(g, GB_OAM_WRITE); /* the DMG's OAM bug: a write in mode 2 */
        if (a < 0xFEA0 && !oam_locked(g, 1))
            s->oam[a - 0xFE00] = v, gb_oam_changed(g);
        return;
    }
    if (a >= 0xFF80) {
        if (a == 0xFFFF)
            s->ie = v;
        else
            s->hram[a - 0xFF80] = v;
        return;
    }
    gb_sync(g);
    io_write(g, a, v);
}

uint8_t gb_peek(gb *g, uint16_t a)
{
    return gb_rd(g, a);
}

void gb_poke(gb *g, uint16_t a, uint8_t v)
{
    gb_wr(g, a, v);
}
