/* snes_sa1.c: the SA-1 (snes_sa1.h): its 65C816's memory map and I/O, the control and
 * interrupt registers of both sides, the Super MMC, BW-RAM and I-RAM write protection, the
 * BW-RAM bitmap views, the H/V timer, the arithmetic unit, the variable-length bit reader,
 * the normal DMA and the character conversion DMA (types 1 and 2). Register layout and
 * meaning from fullsnes ("SNES Cart SA-1"), the superfamicom.org wiki's SA-1 register list
 * and Vitor Vilela's SNES-SA-1-doc (memory maps, open bus); docs/SNES.md lists what is left
 * out and where a document leaves a choice open. */
#include <string.h>

#include "emu/snes/snes_sa1.h"

/* ---- memory ------------------------------------------------------------------------------ */

uint32_t snes_sa1_rom_offset(const snes_sa1 *a, uint32_t addr)
{
    uint32_t bank = addr >> 16 & 0xFF, off;
    if (bank >= 0xC0) { /* HiROM banks: the 1 MiB block CXB-FXB names, always */
        uint32_t blk = a->s.mmc[(bank >> 4) & 3] & 7;
        off = blk << 20 | (bank & 0x0F) << 16 | (addr & 0xFFFF);
    } else { /* LoROM banks $00-$1F, $20-$3F, $80-$9F, $A0-$BF: blocks 0-3, or CXB-FXB with bit 7 */
        uint32_t r = (bank >> 5 & 1) | (bank >> 6 & 2);
        uint8_t x = a->s.mmc[r];
        uint32_t blk = x & 0x80 ? x & 7u : r;
        off = blk << 20 | (bank & 0x1F) << 15 | (addr & 0x7FFF);
    }
    return off & a->rom_mask;
}

uint8_t snes_sa1_snes_rom(const snes_sa1 *a, uint32_t addr)
{
    uint16_t lo = (uint16_t)addr;
    if (!(addr & 0xFF0000) && (lo | 1) == 0xFFEB && (a->s.scnt & 0x10))
        return (uint8_t)(a->s.snv >> (lo & 1) * 8);
    if (!(addr & 0xFF0000) && (lo | 1) == 0xFFEF && (a->s.scnt & 0x40))
        return (uint8_t)(a->s.siv >> (lo & 1) * 8);
    return a->rom[snes_sa1_rom_offset(a, addr)];
}

void snes_sa1_map(snes_sa1 *a)
{
    snes_cpu_bus *b = &a->bus;
    uint32_t lim = snes_sa1_bw_limit(a, a->s.cbwe);
    for (uint32_t bank = 0; bank < 256; bank++) {
        for (uint32_t pg = 0; pg < 16; pg++) {
            snes_cpu_page *p = &b->page[bank << 4 | pg];
            p->r = NULL, p->w = NULL, p->len = 6;
            if (bank >= 0xC0) {
                p->r = a->rom + snes_sa1_rom_offset(a, bank << 16 | pg << 12);
            } else if (!(bank & 0x40)) {
                if (pg == 6 || pg == 7) {
                    if (!(a->s.bmap & 0x80)) { /* else the bitmap view, through sa1_read/sa1_write */
                        uint32_t off = ((uint32_t)(a->s.bmap & 0x1F) << 13) + (pg - 6) * 0x1000u;
                        uint8_t *m = a->bwram + (off & a->bw_mask);
                        p->r = m;
                        p->w = off < lim ? NULL : m; /* the protected area: sa1_write checks */
                        p->len = 12; /* BW-RAM: 5.37 MHz */
                    }
                } else if (pg >= 8 && !(bank == 0 && pg == 15)) {
                    p->r = a->rom + snes_sa1_rom_offset(a, bank << 16 | pg << 12);
                }
            } else if (bank < 0x50) {
                uint32_t off = ((bank & 0x0F) << 16 | pg << 12) & 0x3FFFF;
                uint8_t *m = a->bwram + (off & a->bw_mask);
                p->r = m;
                p->w = off < lim ? NULL : m;
                p->len = 12;
            }
        }
    }
}

/* ---- interrupts ------------------------------------------------------------------------- */

/* The SA-1 CPU's IRQ input: CFR's IRQ, timer and DMA flags where CIE enables them. */
static void sa1_irq_line(snes_sa1 *a, uint64_t at)
{
    snes_cpu_set_irq(&a->cpu, (a->s.cfr & a->s.cie & 0xE0) != 0, at);
}

/* ---- the bit reader and the arithmetic unit --------------------------------------------- */

/* A byte of the SA-1's view without side effects (ROM, BW-RAM, I-RAM), for the bit reader
 * and DMA. */
static uint8_t peek(const snes_sa1 *a, uint32_t addr)
{
    uint32_t bank = addr >> 16 & 0xFF, lo = addr & 0xFFFF;
    if (bank >= 0xC0 || (!(bank & 0x40) && lo >= 0x8000))
        return a->rom[snes_sa1_rom_offset(a, addr)];
    if (bank >= 0x40 && bank < 0x50)
        return a->bwram[addr & 0xFFFFF & a->bw_mask];
    if (!(bank & 0x40) && (lo < 0x0800 || (lo >= 0x3000 && lo < 0x3800)))
        return a->s.iram[lo & 0x7FF];
    if (!(bank & 0x40) && lo >= 0x6000 && lo < 0x8000)
        return a->bwram[(((uint32_t)(a->s.bmap & 0x1F) << 13) + (lo - 0x6000)) & a->bw_mask];
    return 0;
}

static uint16_t vdp(const snes_sa1 *a)
{
    uint32_t w = peek(a, a->s.va) | peek(a, (a->s.va + 1) & 0xFFFFFF) << 8 | peek(a, (a->s.va + 2) & 0xFFFFFF) << 16;
    return (uint16_t)(w >> a->s.vbit);
}

static void vshift(snes_sa1 *a)
{
    uint32_t n = a->s.vbd & 0x0F ? a->s.vbd & 0x0Fu : 16u, pos = a->s.vbit + n;
    a->s.va = (a->s.va + (pos >> 3)) & 0xFFFFFF;
    a->s.vbit = (uint8_t)(pos & 7);
}

/* MB's high byte written: multiply (signed 16 x 16), divide (signed 16 / unsigned 16: a
 * quotient rounded down, a remainder 0 to MB - 1) or add the product to the 40-bit sum. */
static void math(snes_sa1 *a)
{
    int32_t ma = (int16_t)a->s.ma;
    if (a->s.mcnt & 2) {
        int64_t sum = (int64_t)(a->s.mr & 0xFFFFFFFFFFull);
        if (sum & 0x8000000000ll)
            sum -= 0x10000000000ll;
        sum += (int64_t)ma * (int16_t)a->s.mb;
        if (sum >= 0x8000000000ll || sum < -0x8000000000ll)
            a->s.of = 0x80;
        a->s.mr = (uint64_t)sum & 0xFFFFFFFFFFull;
    } else if (a->s.mcnt & 1) {
        if (!a->s.mb) { /* by zero: quotient and remainder 0 (fullsnes) */
            a->s.mr = 0;
        } else {
            int32_t d = a->s.mb, q = ma / d, r = ma % d;
            if (r < 0)
                q--, r += d;
            a->s.mr = (uint64_t)(uint16_t)q | (uint64_t)(uint16_t)r << 16;
        }
    } else {
        a->s.mr = (uint64_t)(uint32_t)(ma * (int16_t)a->s.mb);
    }
}

/* ---- BW-RAM: write protection and the bitmap view ------------------------------------ */

/* A write to BW-RAM offset off (18 bits, before the RAM's own mirroring) by a side whose
 * enable register is we: dropped in the protected area (BWPA) unless we allows it. */
static void bw_write(snes_sa1 *a, uint32_t off, uint8_t v, uint8_t we)
{
    off &= 0x3FFFF;
    if (off >= snes_sa1_bw_limit(a, we))
        a->bwram[off & a->bw_mask] = v;
}

/* The bitmap view (banks $60-$6F, or BMAP bit 7 at $6000-$7FFF): address b (20 bits) is a
 * pixel of 4 bits (BBF bit 7 clear: two a byte) or 2 bits (set: four a byte) of BW-RAM, the
 * left-most pixel in the low bits. Reads give the pixel in the low bits, the rest 0. */
static uint8_t bitmap_read(const snes_sa1 *a, uint32_t b)
{
    uint32_t two = a->s.bbf >> 7, sh = two ? (b & 3) * 2 : (b & 1) * 4;
    uint32_t off = (two ? b >> 2 : b >> 1) & 0x3FFFF;
    return (uint8_t)(a->bwram[off & a->bw_mask] >> sh & (two ? 3 : 15));
}

static void bitmap_write(snes_sa1 *a, uint32_t b, uint8_t v)
{
    uint32_t two = a->s.bbf >> 7, sh = two ? (b & 3) * 2 : (b & 1) * 4, m = (two ? 3u : 15u) << sh;
    uint32_t off = (two ? b >> 2 : b >> 1) & 0x3FFFF;
    uint8_t old = a->bwram[off & a->bw_mask];
    bw_write(a, off, (uint8_t)((old & ~m) | ((uint32_t)v << sh & m)), a->s.cbwe);
}

/* ---- DMA --------------------------------------------------------------------------------- */

/* The normal DMA (DCNT bit 5 clear): DTC bytes from ROM, BW-RAM or I-RAM to I-RAM or
 * BW-RAM at once; its end raises CFR's DMA flag. */
static void dma(snes_sa1 *a, uint64_t at)
{
    if ((a->s.dcnt & 0xA0) != 0x80)
        return;
    int src = a->s.dcnt & 3, dst = a->s.dcnt >> 2 & 1;
    for (uint32_t i = 0; i < a->s.dtc; i++) {
        uint32_t s = a->s.sda + i;
        uint8_t v = src == 0 ? a->rom[snes_sa1_rom_offset(a, s & 0xFFFFFF)]
                  : src == 1 ? a->bwram[s & 0x3FFFF & a->bw_mask]
                             : a->s.iram[s & 0x7FF];
        uint32_t d = a->s.dda + i;
        if (dst)
            a->bwram[d & 0x3FFFF & a->bw_mask] = v;
        else
            a->s.iram[d & 0x7FF] = v;
    }
    a->s.cfr |= 0x20;
    sa1_irq_line(a, at);
}

/* Character conversion: CDMA bits 0-1 the colour depth (0: 8 bits a pixel, 1: 4, 2: 2;
 * 3, reserved, taken as 2), bits 2-4 the characters a bitmap line (1 << n, 32 at most).
 * A character is 8 rows of the SNES's planar format: planes 0/1 interleaved a row at a
 * time, then planes 2/3 16 bytes on, 4/5 and 6/7 16 and 32 bytes further. */
static uint32_t cc_bpp(const snes_sa1 *a)
{
    uint32_t d = a->s.cdma & 3;
    return d == 0 ? 8 : d == 1 ? 4 : 2;
}

/* The planar byte k of a character from its 8 pixel rows at row(y, x). */
static uint8_t planar_byte(const uint8_t px[8], uint32_t plane)
{
    uint8_t v = 0;
    for (uint32_t x = 0; x < 8; x++)
        v = (uint8_t)(v | ((px[x] >> plane) & 1) << (7 - x));
    return v;
}

/* Type 2: the SA-1 wrote the eighth pixel of a row into BRF (half: 0 or 8); the row goes
 * into I-RAM at DDA as row cc_row & 7 of character cc_row >> 3 (two characters, then round). */
static void cc2_row(snes_sa1 *a, uint32_t half)
{
    uint32_t bpp = cc_bpp(a), y = a->s.cc_row & 7u;
    uint32_t base = (a->s.dda & 0x7FF) + (a->s.cc_row >> 3 & 1u) * bpp * 8;
    for (uint32_t pl = 0; pl < bpp; pl++)
        a->s.iram[(base + (pl >> 1) * 16 + y * 2 + (pl & 1)) & 0x7FF] = planar_byte(&a->s.brf[half], pl);
    a->s.cc_row = (uint8_t)((a->s.cc_row + 1) & 15);
}

/* Type 1: byte k of character c of the packed bitmap at SDA (BW-RAM), characters in rows of
 * 1 << (CDMA bits 2-4); a bitmap line is that many times bpp bytes, the left-most pixel in a
 * byte's low bits. */
static uint8_t cc1_byte(const snes_sa1 *a, uint32_t c, uint32_t k)
{
    uint32_t bpp = cc_bpp(a), wl = (a->s.cdma >> 2 & 7) > 5 ? 5 : a->s.cdma >> 2 & 7;
    uint32_t y = (k & 15) >> 1, plane = (k >> 4) * 2 + (k & 1);
    uint32_t line = (c >> wl) * 8 + y;
    uint32_t base = a->s.sda + (line << wl) * bpp + (c & ((1u << wl) - 1)) * bpp;
    uint8_t px[8];
    for (uint32_t x = 0; x < 8; x++) {
        uint32_t bit = x * bpp;
        px[x] = (uint8_t)(a->bwram[(base + bit / 8) & 0x3FFFF & a->bw_mask] >> (bit & 7) & ((1u << bpp) - 1));
    }
    return planar_byte(px, plane);
}

/* The SNES reads BW-RAM offset off while type 1 runs: the character it reaches is converted
 * into I-RAM's buffer at DDA (the two characters alternate) as its first byte is read, and
 * the byte comes from there. */
static uint8_t cc1_read(snes_sa1 *a, uint32_t off)
{
    uint32_t bpc = cc_bpp(a) * 8, o = (off - a->s.sda) & 0x3FFFF, c = o / bpc, k = o % bpc;
    uint32_t base = (a->s.dda & 0x7FF) + (c & 1) * bpc;
    if (!k)
        for (uint32_t i = 0; i < bpc; i++)
            a->s.iram[(base + i) & 0x7FF] = cc1_byte(a, c, i);
    return a->s.iram[(base + k) & 0x7FF];
}

/* DDA's I-RAM byte written with DCNT enabled for character conversion: type 1 starts
 * serving the SNES (SFR's CC-DMA flag: the first character is ready), type 2 starts at row 0. */
static void cc_start(snes_sa1 *a)
{
    if ((a->s.dcnt & 0xB0) == 0xB0) {
        a->s.cc1 = 1;
        a->s.sfr |= 0x20;
        a->bus_changed = 1;
        (void)cc1_read(a, a->s.sda & 0x3FFFF);
    } else if ((a->s.dcnt & 0xB0) == 0xA0) {
        a->s.cc_row = 0;
    }
}

static void cc1_stop(snes_sa1 *a)
{
    if (a->s.cc1) {
        a->s.cc1 = 0;
        a->bus_changed = 1;
    }
}

/* ---- the H/V timer ------------------------------------------------------------------------- */

/* A timer dot: 4 master clocks. HV mode counts 341 dots a line, 262 lines (NTSC); linear
 * mode 512 and 512. */
#define DOT_UNITS (4u * SNES_SA1_UNITS)

static void timer_geom(const snes_sa1 *a, uint32_t *w, uint32_t *l)
{
    *w = a->s.tmc & 0x80 ? 512u : 341u;
    *l = a->s.tmc & 0x80 ? 512u : 262u;
}

/* The timer's position (dots since CTR) at SA-1 clock at. */
static uint64_t timer_pos(const snes_sa1 *a, uint64_t at)
{
    return at > a->s.tbase ? (at - a->s.tbase) / DOT_UNITS : 0;
}

/* The first SA-1 clock at or after from at which the timer reaches the position TMC asks
 * for (HEN: H = HCNT on every line; VEN: the start of line VCNT; both: H = HCNT on line
 * VCNT), or UINT64_MAX. */
static uint64_t timer_next(const snes_sa1 *a, uint64_t from)
{
    uint32_t en = a->s.tmc & 3, w, l;
    if (!en)
        return UINT64_MAX;
    timer_geom(a, &w, &l);
    if (((en & 1) && a->s.hcnt >= w) || ((en & 2) && a->s.vcnt >= l))
        return UINT64_MAX;
    uint64_t period = en == 1 ? w : (uint64_t)w * l;
    uint64_t target = (en & 2 ? (uint64_t)a->s.vcnt * w : 0) + (en & 1 ? a->s.hcnt : 0);
    uint64_t p = from > a->s.tbase ? (from - a->s.tbase + DOT_UNITS - 1) / DOT_UNITS : 0;
    return a->s.tbase + (p + (target + period - p % period) % period) * DOT_UNITS;
}

/* ---- registers ----------------------------------------------------------------------------- */

/* A write to a timer register at SA-1 clock at: the run loop looks again from there. */
static void timer_changed(snes_sa1 *a, uint64_t at)
{
    a->twrite = at;
    a->cpu.yield = 1;
}

/* Registers both CPUs may write (the DMA's) and the SA-1's own; sa1: the SA-1 writes. */
static void reg_write(snes_sa1 *a, uint16_t addr, uint8_t v, int sa1, uint64_t at)
{
    if (addr >= 0x2240 && addr < 0x2250) { /* BRF */
        if (sa1) {
            a->s.brf[addr & 15] = v;
            if ((addr & 7) == 7 && (a->s.dcnt & 0xB0) == 0xA0)
                cc2_row(a, addr & 8);
        }
        return;
    }
    switch (addr) {
    /* the SA-1's registers */
    case 0x2209: if (sa1) { a->s.scnt = v; if (v & 0x80) a->s.sfr |= 0x80; } break;
    case 0x220A: if (sa1) { a->s.cie = v; sa1_irq_line(a, at); } break;
    case 0x220B: if (sa1) { a->s.cfr &= (uint8_t)~(v & 0xF0); sa1_irq_line(a, at); } break;
    case 0x220C: if (sa1) a->s.snv = (uint16_t)((a->s.snv & 0xFF00) | v); break;
    case 0x220D: if (sa1) a->s.snv = (uint16_t)((a->s.snv & 0xFF) | v << 8); break;
    case 0x220E: if (sa1) a->s.siv = (uint16_t)((a->s.siv & 0xFF00) | v); break;
    case 0x220F: if (sa1) a->s.siv = (uint16_t)((a->s.siv & 0xFF) | v << 8); break;
    case 0x2210: if (sa1) { a->s.tmc = v; timer_changed(a, at); } break;
    case 0x2211: if (sa1) { a->s.tbase = at; timer_changed(a, at); } break;
    case 0x2212: if (sa1) { a->s.hcnt = (uint16_t)((a->s.hcnt & 0x100) | v); timer_changed(a, at); } break;
    case 0x2213: if (sa1) { a->s.hcnt = (uint16_t)((a->s.hcnt & 0xFF) | (v & 1) << 8); timer_changed(a, at); } break;
    case 0x2214: if (sa1) { a->s.vcnt = (uint16_t)((a->s.vcnt & 0x100) | v); timer_changed(a, at); } break;
    case 0x2215: if (sa1) { a->s.vcnt = (uint16_t)((a->s.vcnt & 0xFF) | (v & 1) << 8); timer_changed(a, at); } break;
    case 0x2225: if (sa1 && a->s.bmap != v) { a->s.bmap = v; snes_sa1_map(a); } break;
    case 0x2227: if (sa1 && a->s.cbwe != v) { a->s.cbwe = v; snes_sa1_map(a); } break;
    case 0x222A: if (sa1) a->s.ciwp = v; break;
    case 0x2230:
        if (sa1) {
            a->s.dcnt = v;
            a->s.cc_row = 0;
            if (!(v & 0x80))
                cc1_stop(a);
        }
        break;
    case 0x2238: if (sa1) a->s.dtc = (uint16_t)((a->s.dtc & 0xFF00) | v); break;
    case 0x2239: if (sa1) a->s.dtc = (uint16_t)((a->s.dtc & 0xFF) | v << 8); break;
    case 0x223F: if (sa1) a->s.bbf = v; break;
    case 0x2250: if (sa1) { a->s.mcnt = v & 3; if (v & 2) a->s.mr = 0, a->s.of = 0; } break;
    case 0x2251: if (sa1) a->s.ma = (uint16_t)((a->s.ma & 0xFF00) | v); break;
    case 0x2252: if (sa1) a->s.ma = (uint16_t)((a->s.ma & 0xFF) | v << 8); break;
    case 0x2253: if (sa1) a->s.mb = (uint16_t)((a->s.mb & 0xFF00) | v); break;
    case 0x2254: if (sa1) { a->s.mb = (uint16_t)((a->s.mb & 0xFF) | v << 8); math(a); } break;
    case 0x2258: if (sa1) { a->s.vbd = v; if (!(v & 0x80)) vshift(a); } break;
    case 0x2259: if (sa1) a->s.va = (a->s.va & 0xFFFF00) | v; break;
    case 0x225A: if (sa1) a->s.va = (a->s.va & 0xFF00FF) | (uint32_t)v << 8; break;
    case 0x225B: if (sa1) { a->s.va = (a->s.va & 0x00FFFF) | (uint32_t)v << 16; a->s.vbit = 0; } break;
    /* DMA: either side */
    case 0x2231:
        a->s.cdma = v;
        if (v & 0x80)
            cc1_stop(a);
        break;
    case 0x2232: a->s.sda = (a->s.sda & 0xFFFF00) | v; break;
    case 0x2233: a->s.sda = (a->s.sda & 0xFF00FF) | (uint32_t)v << 8; break;
    case 0x2234: a->s.sda = (a->s.sda & 0x00FFFF) | (uint32_t)v << 16; break;
    case 0x2235: a->s.dda = (a->s.dda & 0xFFFF00) | v; break;
    case 0x2236:
        a->s.dda = (a->s.dda & 0xFF00FF) | (uint32_t)v << 8;
        if (a->s.dcnt & 0x20)
            cc_start(a);
        else if (!(a->s.dcnt & 4))
            dma(a, at);
        break;
    case 0x2237: a->s.dda = (a->s.dda & 0x00FFFF) | (uint32_t)v << 16; if ((a->s.dcnt & 0x24) == 4) dma(a, at); break;
    default: break;
    }
}

void snes_sa1_snes_write(snes_sa1 *a, uint16_t addr, uint8_t v, uint64_t clock)
{
    uint64_t at = clock * SNES_SA1_UNITS;
    if (addr >= 0x3000 && addr < 0x3800) {
        if (a->s.siwp >> (addr >> 8 & 7) & 1) /* SIWP: a write enable for each 256 bytes */
            a->s.iram[addr & 0x7FF] = v;
        return;
    }
    switch (addr) {
    case 0x2200: {
        uint8_t was = a->s.ccnt;
        a->s.ccnt = v;
        if (v & 0x80)
            a->s.cfr |= 0x80;
        if (v & 0x10) {
            a->s.cfr |= 0x10;
            if (a->s.cie & 0x10)
                snes_cpu_set_nmi(&a->cpu, at > a->cpu.s.clock ? at : a->cpu.s.clock);
        }
        if ((was & 0x20) && !(v & 0x20)) { /* out of reset: from CRV */
            snes_cpu_regs keep = a->cpu.s.r;
            snes_cpu_init(&a->cpu, &a->bus);
            a->cpu.s.r = keep;
            a->cpu.s.clock = at;
            snes_cpu_reset(&a->cpu);
        }
        sa1_irq_line(a, at);
        break;
    }
    case 0x2201: a->s.sie = v; break;
    case 0x2202: a->s.sfr &= (uint8_t)~(v & 0xA0); break;
    case 0x2203: a->s.crv = (uint16_t)((a->s.crv & 0xFF00) | v); break;
    case 0x2204: a->s.crv = (uint16_t)((a->s.crv & 0xFF) | v << 8); break;
    case 0x2205: a->s.cnv = (uint16_t)((a->s.cnv & 0xFF00) | v); break;
    case 0x2206: a->s.cnv = (uint16_t)((a->s.cnv & 0xFF) | v << 8); break;
    case 0x2207: a->s.civ = (uint16_t)((a->s.civ & 0xFF00) | v); break;
    case 0x2208: a->s.civ = (uint16_t)((a->s.civ & 0xFF) | v << 8); break;
    case 0x2220: case 0x2221: case 0x2222: case 0x2223:
        if (a->s.mmc[addr & 3] != v) {
            a->s.mmc[addr & 3] = v;
            a->bus_changed = 1;
            snes_sa1_map(a);
        }
        break;
    case 0x2224:
        if (a->s.bmaps != v) {
            a->s.bmaps = v;
            a->bus_changed = 1;
        }
        break;
    case 0x2226:
        if (a->s.sbwe != v) {
            a->s.sbwe = v;
            a->bus_changed = 1;
        }
        break;
    case 0x2228:
        if (a->s.bwpa != v) {
            a->s.bwpa = v;
            a->bus_changed = 1;
            snes_sa1_map(a);
        }
        break;
    case 0x2229: a->s.siwp = v; break;
    default: reg_write(a, addr, v, 0, at); break;
    }
}

static uint8_t sfr(const snes_sa1 *a) { return (uint8_t)((a->s.sfr & 0xA0) | (a->s.scnt & 0x5F)); }

uint8_t snes_sa1_snes_read(snes_sa1 *a, uint16_t addr, uint8_t open_bus)
{
    if (addr >= 0x3000 && addr < 0x3800)
        return a->s.iram[addr & 0x7FF];
    if (addr == 0x2300)
        return sfr(a);
    return open_bus; /* the rest of $2200-$23FF, $230E included (SNES-SA-1-doc) */
}

uint8_t snes_sa1_snes_mem_read(snes_sa1 *a, uint32_t addr, uint8_t open_bus)
{
    uint32_t bank = addr >> 16 & 0xFF, lo = addr & 0xFFFF;
    if ((addr & 0xFFF000) == 0x00F000)
        return snes_sa1_snes_rom(a, addr);
    if (bank >= 0x40 && bank < 0x50) {
        uint32_t off = addr & 0x3FFFF;
        return a->s.cc1 ? cc1_read(a, off) : a->bwram[off & a->bw_mask];
    }
    if ((bank & 0x7F) < 0x40 && lo >= 0x6000 && lo < 0x8000)
        return a->bwram[(((uint32_t)(a->s.bmaps & 0x1F) << 13) + (lo - 0x6000)) & a->bw_mask];
    if ((bank & 0x7F) < 0x40 && lo >= 0x3000 && lo < 0x3800)
        return a->s.iram[lo & 0x7FF];
    return open_bus;
}

void snes_sa1_snes_mem_write(snes_sa1 *a, uint32_t addr, uint8_t v)
{
    uint32_t bank = addr >> 16 & 0xFF, lo = addr & 0xFFFF;
    if (bank >= 0x40 && bank < 0x50)
        bw_write(a, addr, v, a->s.sbwe);
    else if ((bank & 0x7F) < 0x40 && lo >= 0x6000 && lo < 0x8000)
        bw_write(a, ((uint32_t)(a->s.bmaps & 0x1F) << 13) + (lo - 0x6000), v, a->s.sbwe);
    else if ((bank & 0x7F) < 0x40 && lo >= 0x3000 && lo < 0x3800 && (a->s.siwp >> (lo >> 8 & 7) & 1))
        a->s.iram[lo & 0x7FF] = v;
}

/* ---- the SA-1 CPU's bus ---------------------------------------------------------------- */

static uint8_t sa1_io_read(snes_sa1 *a, uint16_t addr, uint8_t open_bus, uint64_t at)
{
    switch (addr) {
    case 0x2300: return sfr(a);
    case 0x2301: return (uint8_t)((a->s.cfr & 0xF0) | (a->s.ccnt & 0x0F));
    case 0x2302: { /* latches the timer's H and V */
        uint32_t w, l;
        timer_geom(a, &w, &l);
        uint64_t p = timer_pos(a, at);
        a->s.hcr = (uint16_t)(p % w);
        a->s.vcr = (uint16_t)(p / w % l);
        return (uint8_t)a->s.hcr;
    }
    case 0x2303: return (uint8_t)(a->s.hcr >> 8);
    case 0x2304: return (uint8_t)a->s.vcr;
    case 0x2305: return (uint8_t)(a->s.vcr >> 8);
    case 0x2306: case 0x2307: case 0x2308: case 0x2309: case 0x230A:
        return (uint8_t)(a->s.mr >> (addr - 0x2306) * 8);
    case 0x230B: return a->s.of;
    case 0x230C: return (uint8_t)vdp(a);
    case 0x230D: {
        uint8_t v = (uint8_t)(vdp(a) >> 8);
        if (a->s.vbd & 0x80)
            vshift(a);
        return v;
    }
    default: return open_bus;
    }
}

static uint8_t sa1_read(void *ctx, uint32_t addr, uint64_t *clock)
{
    snes_sa1 *a = ctx;
    uint32_t bank = addr >> 16 & 0xFF;
    uint16_t lo = (uint16_t)addr;
    uint64_t at = *clock;
    *clock += 6;
    if (!(bank & 0x40)) {
        if (lo < 0x0800 || (lo >= 0x3000 && lo < 0x3800))
            return a->s.iram[lo & 0x7FF];
        if (lo >= 0x2200 && lo < 0x2400)
            return sa1_io_read(a, lo, snes_cpu_open_bus(&a->cpu), at);
        if (lo >= 0x6000 && lo < 0x8000 && (a->s.bmap & 0x80)) {
            *clock += 6;
            return bitmap_read(a, ((uint32_t)(a->s.bmap & 0x7F) << 13) + (lo - 0x6000u));
        }
        if (bank == 0 && lo >= 0xF000) { /* the SA-1's vectors from CRV, CNV, CIV */
            switch (lo | 1) {
            case 0xFFFD: return (uint8_t)(a->s.crv >> (lo & 1) * 8);
            case 0xFFEB: case 0xFFFB: return (uint8_t)(a->s.cnv >> (lo & 1) * 8);
            case 0xFFEF: case 0xFFFF: return (uint8_t)(a->s.civ >> (lo & 1) * 8);
            default: return a->rom[snes_sa1_rom_offset(a, addr)];
            }
        }
    } else if (bank >= 0x60 && bank < 0x70) {
        *clock += 6;
        return bitmap_read(a, addr & 0xFFFFF);
    }
    return snes_cpu_open_bus(&a->cpu);
}

static void sa1_write(void *ctx, uint32_t addr, uint8_t v, uint64_t *clock)
{
    snes_sa1 *a = ctx;
    uint32_t bank = addr >> 16 & 0xFF;
    uint16_t lo = (uint16_t)addr;
    uint64_t at = *clock;
    *clock += 6;
    if (bank & 0x40) {
        if (bank < 0x50)
            *clock += 6, bw_write(a, addr, v, a->s.cbwe);
        else if (bank >= 0x60 && bank < 0x70)
            *clock += 6, bitmap_write(a, addr & 0xFFFFF, v);
        return;
    }
    if (lo < 0x0800 || (lo >= 0x3000 && lo < 0x3800)) {
        if (a->s.ciwp >> (lo >> 8 & 7) & 1) /* CIWP: a write enable for each 256 bytes */
            a->s.iram[lo & 0x7FF] = v;
    } else if (lo >= 0x2200 && lo < 0x2300) {
        reg_write(a, lo, v, 1, at);
    } else if (lo >= 0x6000 && lo < 0x8000) {
        *clock += 6;
        if (a->s.bmap & 0x80)
            bitmap_write(a, ((uint32_t)(a->s.bmap & 0x7F) << 13) + (lo - 0x6000u), v);
        else
            bw_write(a, ((uint32_t)(a->s.bmap & 0x1F) << 13) + (lo - 0x6000u), v, a->s.cbwe);
    }
}

/* ---- the chip -------------------------------------------------------------------------- */

void snes_sa1_init(snes_sa1 *a, const uint8_t *rom, size_t rom_size, uint8_t *bwram, size_t bw_size)
{
    memset(a, 0, sizeof *a);
    a->rom = rom;
    a->rom_mask = (uint32_t)rom_size - 1;
    a->bwram = bwram;
    a->bw_mask = (uint32_t)bw_size - 1;
    a->bus.ctx = a;
    a->bus.read = sa1_read;
    a->bus.write = sa1_write;
}

void snes_sa1_reset(snes_sa1 *a, uint64_t clock)
{
    memset(&a->s, 0, sizeof a->s);
    a->s.ccnt = 0x20;
    a->s.bwpa = 0xFF; /* fullsnes: BWPA $FF at reset, the whole BW-RAM protected */
    for (int i = 0; i < 4; i++)
        a->s.mmc[i] = (uint8_t)i;
    snes_cpu_init(&a->cpu, &a->bus);
    a->cpu.s.clock = clock * SNES_SA1_UNITS;
    a->s.tbase = a->cpu.s.clock;
    a->twrite = 0;
    a->bus_changed = 1;
    a->snes_irq_was = 0;
    snes_sa1_map(a);
}

/* The SA-1 CPU on to SA-1 clock to (one held in reset or wait, or stopped, just moves on). */
static void advance(snes_sa1 *a, uint64_t to)
{
    if (!(a->s.ccnt & 0x60) && !a->cpu.s.stopped && a->cpu.s.clock < to)
        snes_cpu_run(&a->cpu, to);
    if (a->cpu.s.clock < to && ((a->s.ccnt & 0x60) || a->cpu.s.stopped))
        a->cpu.s.clock = to; /* STP: only CCNT's reset restarts it */
}

void snes_sa1_run(snes_sa1 *a, uint64_t until)
{
    uint64_t t = until * SNES_SA1_UNITS, from = a->cpu.s.clock;
    for (;;) {
        uint64_t ev = timer_next(a, from);
        if (ev <= a->cpu.s.clock) { /* the timer's IRQ (CFR bit 6), late by an instruction at most */
            a->s.cfr |= 0x40;
            sa1_irq_line(a, ev);
            from = ev + 1;
            continue;
        }
        if (a->cpu.s.clock >= t)
            break;
        advance(a, ev < t ? ev : t);
        if (a->cpu.yield) { /* the SA-1 wrote a timer register: look again from there */
            a->cpu.yield = 0;
            if (a->twrite > from)
                from = a->twrite;
        }
    }
}

int snes_sa1_state_bad(const snes_sa1_state *s)
{
    return s->cpu.waiting > 1 || s->cpu.stopped > 1 || s->cpu.nmi_pending > 1 || s->cpu.irq_line > 1 ||
           s->cpu.r.e > 1 || s->vbit > 7 || s->cc1 > 1 || s->cc_row > 15 || s->tbase > s->cpu.clock;
}
