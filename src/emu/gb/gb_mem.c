/* gb_mem.c: the CPU's view of the address space. ROM, WRAM and (outside mode 3) VRAM are
 * reached through page pointers (gb_rd/gb_wr in gb_int.h); everything else comes here:
 * VRAM and OAM with their mode-dependent locks, cartridge RAM and MBC registers, echo
 * RAM, HRAM and the IO registers, which first bring every unit up to the current dot.
 * Also the OAM DMA, byte by byte at its M-cycles, and its bus conflicts: while it runs
 * every access comes here. */
#include <string.h>

#include "emu/gb/gb_int.h"

/* ---- page maps ------------------------------------------------------------------------ */

/* The CPU's pages are the memory's (bus_rmap, bus_wmap) except while an OAM DMA is pending
 * or running (ev[GB_EV_DMA] set, from the $FF46 write to the transfer's end): then every
 * page of $0000-$EFFF is NULL, so that each access goes through gb_read_slow or
 * gb_write_slow, where the DMA's bus conflicts apply. Pages first to first + n - 1. */
static void map_cpu(gb *g, int first, int n)
{
    int dma = g->s.ev[GB_EV_DMA] != GB_NEVER;
    for (int i = first; i < first + n; i++) {
        g->rmap[i] = dma ? NULL : g->bus_rmap[i];
        g->wmap[i] = dma ? NULL : g->bus_wmap[i];
    }
}

/* The cartridge's pages ($0000-$7FFF, $A000-$BFFF), which gb_cart_map has just written
 * into rmap and wmap: writes to $0000-$7FFF go to the MBC's registers. */
static void map_cart_taken(gb *g)
{
    for (int i = 0; i < 8; i++) {
        g->bus_rmap[i] = g->rmap[i];
        g->bus_wmap[i] = NULL;
    }
    for (int i = 0xA; i < 0xC; i++) {
        g->bus_rmap[i] = g->rmap[i];
        g->bus_wmap[i] = g->wmap[i];
    }
    map_cpu(g, 0, 8);
    map_cpu(g, 0xA, 2);
}

void gb_map_vram(gb *g)
{
    gb_state *s = &g->s;
    /* off the fast path while the PPU may lock it (from mode 2: gb_ppu_vram_locked) */
    int locked = (s->lcdc & 0x80) && (s->mode >= 2 || s->lcdon_line);
    uint8_t *p = s->vram + (s->vbk & 1) * 0x2000;
    for (int i = 0; i < 2; i++) {
        g->bus_rmap[8 + i] = locked ? NULL : p + i * 0x1000;
        /* With a video log every VRAM write is recorded, so writes take the slow path. */
        g->bus_wmap[8 + i] = (locked || (g->outputs & GB_OUT_VIDEO_LOG)) ? NULL : p + i * 0x1000;
    }
    map_cpu(g, 8, 2);
}

void gb_map_update(gb *g)
{
    gb_state *s = &g->s;
    gb_cart_map(g);
    map_cart_taken(g);
    gb_map_vram(g);
    int bank = s->cgb ? (s->svbk & 7) : 1;
    if (bank == 0)
        bank = 1;
    g->bus_rmap[0xC] = g->bus_wmap[0xC] = s->wram;
    g->bus_rmap[0xD] = g->bus_wmap[0xD] = s->wram + bank * 0x1000;
    g->bus_rmap[0xE] = g->bus_wmap[0xE] = s->wram; /* echo of $C000-$CFFF */
    g->bus_rmap[0xF] = g->bus_wmap[0xF] = NULL;
    map_cpu(g, 0xC, 4);
}

static int oam_locked(const gb *g, int write)
{
    /* an OAM DMA's own hold on the bus is the DMA's (gb_dma_oam_busy), not the PPU's */
    return gb_ppu_oam_locked(g, write);
}

/* ---- OAM DMA ------------------------------------------------------------------------ */

/* A write to $FF46 starts a transfer of 160 bytes from $XX00-$XX9F to OAM, one byte per
 * M-cycle (Pan Docs, "OAM DMA Transfer"). Its timing, as mooneye's oam_dma_start,
 * oam_dma_timing and oam_dma_restart measure it: nothing happens in the M-cycle after the
 * write, byte 0 is copied in the second, byte 159 in the 161st; a write while a transfer
 * runs starts a new one the same way, the old one reading on until then. Pages $E0-$FF
 * read $C0-$DF. While it copies, the DMA holds OAM's bus and the bus of its source: the
 * external bus (cartridge ROM and RAM, and on the DMG work RAM too) or the video bus
 * (VRAM); the CGB has a bus of its own for work RAM. A CPU access to OAM reads $FF and a
 * write is lost; on the DMA's source bus a read returns the byte the DMA reads in that
 * M-cycle and a write is lost; the CPU reaches the other bus, the IO registers, HRAM and
 * IE as usual. The copy is made lazily, byte by byte in order, up to the dot of whatever
 * looks at OAM or may change the source (the PPU's events, IO writes, the transfer's end),
 * each byte read as it is at that dot. */
enum { BUS_NONE, BUS_EXT, BUS_VRAM, BUS_WRAM, BUS_OAM };

static int bus_of(const gb_state *s, unsigned a)
{
    if (a < 0x8000)
        return BUS_EXT;
    if (a < 0xA000)
        return BUS_VRAM;
    if (a < 0xC000)
        return BUS_EXT;
    if (a < 0xFE00)
        return s->cgb_hw ? BUS_WRAM : BUS_EXT;
    if (a < 0xFF00)
        return BUS_OAM;
    return BUS_NONE;
}

static unsigned dma_base(uint8_t page)
{
    return (unsigned)(page >= 0xE0 ? page - 0x20 : page) << 8;
}

/* The byte the DMA reads at a ($0000-$DFFF). VRAM in mode 3 reads $FF, as for the CPU. */
static uint8_t dma_src_read(gb *g, unsigned a)
{
    const uint8_t *p = g->bus_rmap[a >> 12];
    if (p)
        return p[a & 0xFFF];
    return a >= 0xA000 ? gb_cram_read(g, (uint16_t)a) : 0xFF;
}

/* The source address the DMA reads in the M-cycle at dot t, or -1 when it reads none
 * (no transfer, the two M-cycles before a transfer's first byte, after its last). */
static int dma_addr(const gb *g, uint64_t t)
{
    const gb_state *s = &g->s;
    uint64_t end = s->ev[GB_EV_DMA], md = g->md;
    if (end == GB_NEVER || t >= end)
        return -1;
    uint64_t t0 = end - 160 * md;
    if (t >= t0)
        return (int)(dma_base(s->dma_reg) + (t - t0) / md);
    if (s->dma_old_idx && t + 2 * md >= t0) { /* an interrupted transfer, until t0 */
        unsigned i = s->dma_old_idx - 1u + (unsigned)((t + 2 * md - t0) / md);
        if (i < 160)
            return (int)(dma_base(s->dma_old_page) + i);
    }
    return -1;
}

int gb_dma_oam_busy(const gb *g, uint64_t t)
{
    return dma_addr(g, t) >= 0;
}

/* Bytes from to to - 1 of the transfer from page into OAM. */
static void dma_copy(gb *g, uint8_t page, unsigned from, unsigned to)
{
    unsigned src = dma_base(page);
    for (unsigned i = from; i < to; i++)
        g->s.oam[i] = dma_src_read(g, src + i);
    if (from < to)
        gb_oam_changed(g);
}

void gb_dma_catchup(gb *g, uint64_t t)
{
    gb_state *s = &g->s;
    uint64_t end = s->ev[GB_EV_DMA], md = g->md;
    if (end == GB_NEVER || s->dma_done >= 160 || t <= end - 160 * md)
        return;
    /* the bytes whose M-cycles began before t */
    unsigned n = t >= end ? 160u : (unsigned)((t - (end - 160 * md) + md - 1) / md);
    if (n > s->dma_done) {
        dma_copy(g, s->dma_reg, s->dma_done, n);
        s->dma_done = (uint8_t)n;
    }
}

void gb_oam_dma(gb *g, uint8_t v)
{
    gb_state *s = &g->s;
    uint64_t t = s->clk;
    int a = dma_addr(g, t);
    gb_dma_catchup(g, t);
    s->dma_old_idx = 0;
    if (a >= 0) {
        /* a restart: the transfer being made reads on in this M-cycle and the next */
        unsigned i = (unsigned)a & 0xFF;
        uint8_t page = (uint8_t)(a >> 8);
        dma_copy(g, page, i, i + 2 < 160 ? i + 2 : 160);
        s->dma_old_page = page;
        s->dma_old_idx = (uint8_t)(i + 1);
    }
    s->dma_reg = v;
    s->dma_done = 0;
    gb_sched(g, GB_EV_DMA, t + 162u * g->md);
    map_cpu(g, 0, 15);
}

void gb_dma_event(gb *g, uint64_t t)
{
    gb_dma_catchup(g, t);
    g->s.dma_old_idx = 0;
    gb_sched(g, GB_EV_DMA, GB_NEVER);
    map_cpu(g, 0, 15);
}

/* ---- accesses --------------------------------------------------------------------------- */

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

/* Work RAM at a ($C000-$FDFF: $E000-$FDFF mirrors $C000-$DDFF). */
static uint8_t *wram_at(gb *g, uint16_t a)
{
    uint16_t m = a >= 0xE000 ? (uint16_t)(a - 0x2000) : a;
    return g->bus_wmap[m >> 12] + (m & 0xFFF);
}

/* An access as the memory map has it, without the OAM DMA's bus conflicts. */
static uint8_t read_plain(gb *g, uint16_t a)
{
    gb_state *s = &g->s;
    if (a < 0x8000)
        return g->bus_rmap[a >> 12][a & 0xFFF];
    if (a < 0xA000) {
        gb_sync(g);
        if (gb_ppu_vram_locked(g, 0))
            return 0xFF;
        return s->vram[(s->vbk & 1) * 0x2000 + (a - 0x8000)];
    }
    if (a < 0xC000)
        return gb_cram_read(g, a);
    if (a < 0xFE00)
        return *wram_at(g, a);
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

static void write_plain(gb *g, uint16_t a, uint8_t v)
{
    gb_state *s = &g->s;
    if (a < 0x8000) {
        gb_mbc_write(g, a, v);
        map_cart_taken(g);
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
        *wram_at(g, a) = v;
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

/* Whether the OAM DMA holds the bus of an access to a at s.clk; *src: the address it reads. */
static int dma_conflict(const gb *g, uint16_t a, int *src)
{
    *src = dma_addr(g, g->s.clk);
    if (*src < 0)
        return 0;
    int b = bus_of(&g->s, a);
    return b == BUS_OAM || (b != BUS_NONE && b == bus_of(&g->s, (unsigned)*src));
}

/* Accesses while an OAM DMA is pending or running: out of line, so that the common path
 * of gb_read_slow and gb_write_slow stays as short as it was. */
static __attribute__((noinline)) uint8_t dma_read(gb *g, uint16_t a)
{
    int src;
    if (dma_conflict(g, a, &src))
        return a >= 0xFE00 ? 0xFF : dma_src_read(g, (unsigned)src);
    return read_plain(g, a);
}

static __attribute__((noinline)) void dma_write(gb *g, uint16_t a, uint8_t v)
{
    int src;
    if (dma_conflict(g, a, &src))
        return; /* lost */
    if (a >= 0xFF00 && a < 0xFF80) { /* an IO write may change what the DMA reads next */
        gb_sync(g);
        gb_dma_catchup(g, g->s.clk);
    }
    write_plain(g, a, v);
}

uint8_t gb_read_slow(gb *g, uint16_t a)
{
    if (__builtin_expect(g->s.ev[GB_EV_DMA] != GB_NEVER, 0))
        return dma_read(g, a);
    return read_plain(g, a);
}

void gb_write_slow(gb *g, uint16_t a, uint8_t v)
{
    if (__builtin_expect(g->s.ev[GB_EV_DMA] != GB_NEVER, 0))
        dma_write(g, a, v);
    else
        write_plain(g, a, v);
}

/* The memory as it is, whatever an OAM DMA holds. */
uint8_t gb_peek(gb *g, uint16_t a)
{
    const uint8_t *p = g->bus_rmap[a >> 12];
    return p ? p[a & 0xFFF] : read_plain(g, a);
}

void gb_poke(gb *g, uint16_t a, uint8_t v)
{
    uint8_t *p = g->bus_wmap[a >> 12];
    if (p)
        p[a & 0xFFF] = v;
    else
        write_plain(g, a, v);
}
