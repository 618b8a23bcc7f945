/* snes_sa1.c: the SA-1 (snes_sa1.h): its 65C816's memory map and I/O, the control and
 * interrupt registers of both sides, the Super MMC, the arithmetic unit, the variable-length
 * bit reader and the normal DMA. Register layout and meaning from fullsnes ("SNES Cart SA-1")
 * and the superfamicom.org wiki's SA-1 register list; docs/SNES.md lists what is left out. */
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
    if (!(addr & 0xFF0000) && (lo | 1) == 0xFFEB && (a->s.scnt & 0x40))
        return (uint8_t)(a->s.snv >> (lo & 1) * 8);
    if (!(addr & 0xFF0000) && (lo | 1) == 0xFFEF && (a->s.scnt & 0x10))
        return (uint8_t)(a->s.siv >> (lo & 1) * 8);
    return a->rom[snes_sa1_rom_offset(a, addr)];
}

void snes_sa1_map(snes_sa1 *a)
{
    snes_cpu_bus *b = &a->bus;
    for (uint32_t bank = 0; bank < 256; bank++) {
        for (uint32_t pg = 0; pg < 16; pg++) {
            snes_cpu_page *p = &b->page[bank << 4 | pg];
            p->r = NULL, p->w = NULL, p->len = 6;
            if (bank >= 0xC0) {
                p->r = a->rom + snes_sa1_rom_offset(a, bank << 16 | pg << 12);
            } else if (!(bank & 0x40)) {
                if (pg == 6 || pg == 7) {
                    if (!(a->s.bmap & 0x80)) {
                        p->r = p->w = a->bwram + ((((uint32_t)(a->s.bmap & 0x1F) << 13) + (pg - 6) * 0x1000u) & a->bw_mask);
                        p->len = 12; /* BW-RAM: 5.37 MHz */
                    }
                } else if (pg >= 8 && !(bank == 0 && pg == 15)) {
                    p->r = a->rom + snes_sa1_rom_offset(a, bank << 16 | pg << 12);
                }
            } else if (bank < 0x50) {
                p->r = p->w = a->bwram + ((((bank & 0x0F) << 16) | pg << 12) & a->bw_mask);
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
        if (!a->s.mb) { /* by zero: quotient $FFFF or 1 by the dividend's sign, remainder |MA| */
            a->s.mr = (uint64_t)(ma < 0 ? 1u : 0xFFFFu) | (uint64_t)(uint16_t)(ma < 0 ? -ma : ma) << 16;
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

/* ---- registers ----------------------------------------------------------------------------- */

/* Registers both CPUs may write (the DMA's) and the SA-1's own; sa1: the SA-1 writes. */
static void reg_write(snes_sa1 *a, uint16_t addr, uint8_t v, int sa1, uint64_t at)
{
    switch (addr) {
    /* the SA-1's registers */
    case 0x2209: if (sa1) { a->s.scnt = v; if (v & 0x80) a->s.sfr |= 0x80; } break;
    case 0x220A: if (sa1) { a->s.cie = v; sa1_irq_line(a, at); } break;
    case 0x220B: if (sa1) { a->s.cfr &= (uint8_t)~(v & 0xF0); sa1_irq_line(a, at); } break;
    case 0x220C: if (sa1) a->s.snv = (uint16_t)((a->s.snv & 0xFF00) | v); break;
    case 0x220D: if (sa1) a->s.snv = (uint16_t)((a->s.snv & 0xFF) | v << 8); break;
    case 0x220E: if (sa1) a->s.siv = (uint16_t)((a->s.siv & 0xFF00) | v); break;
    case 0x220F: if (sa1) a->s.siv = (uint16_t)((a->s.siv & 0xFF) | v << 8); break;
    case 0x2210: if (sa1) a->s.tmc = v; break;
    case 0x2212: if (sa1) a->s.hcnt = (uint16_t)((a->s.hcnt & 0x100) | v); break;
    case 0x2213: if (sa1) a->s.hcnt = (uint16_t)((a->s.hcnt & 0xFF) | (v & 1) << 8); break;
    case 0x2214: if (sa1) a->s.vcnt = (uint16_t)((a->s.vcnt & 0x100) | v); break;
    case 0x2215: if (sa1) a->s.vcnt = (uint16_t)((a->s.vcnt & 0xFF) | (v & 1) << 8); break;
    case 0x2225: if (sa1 && a->s.bmap != v) { a->s.bmap = v; snes_sa1_map(a); } break;
    case 0x2227: if (sa1) a->s.cbwe = v; break;
    case 0x222A: if (sa1) a->s.ciwp = v; break;
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
    case 0x2230: a->s.dcnt = v; break;
    case 0x2231: a->s.cdma = v; break;
    case 0x2232: a->s.sda = (a->s.sda & 0xFFFF00) | v; break;
    case 0x2233: a->s.sda = (a->s.sda & 0xFF00FF) | (uint32_t)v << 8; break;
    case 0x2234: a->s.sda = (a->s.sda & 0x00FFFF) | (uint32_t)v << 16; break;
    case 0x2235: a->s.dda = (a->s.dda & 0xFFFF00) | v; break;
    case 0x2236: a->s.dda = (a->s.dda & 0xFF00FF) | (uint32_t)v << 8; if (!(a->s.dcnt & 4)) dma(a, at); break;
    case 0x2237: a->s.dda = (a->s.dda & 0x00FFFF) | (uint32_t)v << 16; if (a->s.dcnt & 4) dma(a, at); break;
    case 0x2238: a->s.dtc = (uint16_t)((a->s.dtc & 0xFF00) | v); break;
    case 0x2239: a->s.dtc = (uint16_t)((a->s.dtc & 0xFF) | v << 8); break;
    default: break;
    }
}

void snes_sa1_snes_write(snes_sa1 *a, uint16_t addr, uint8_t v, uint64_t clock)
{
    uint64_t at = clock * SNES_SA1_UNITS;
    if (addr >= 0x3000 && addr < 0x3800) {
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
    case 0x2226: a->s.sbwe = v; break;
    case 0x2228: a->s.bwpa = v; break;
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
    if (addr == 0x230E)
        return 0x23; /* the chip's version */
    return open_bus;
}

/* ---- the SA-1 CPU's bus ---------------------------------------------------------------- */

static uint8_t sa1_io_read(snes_sa1 *a, uint16_t addr, uint8_t open_bus)
{
    switch (addr) {
    case 0x2300: return sfr(a);
    case 0x2301: return (uint8_t)((a->s.cfr & 0xF0) | (a->s.ccnt & 0x0F));
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
    case 0x230E: return 0x23;
    default: return open_bus;
    }
}

static uint8_t sa1_read(void *ctx, uint32_t addr, uint64_t *clock)
{
    snes_sa1 *a = ctx;
    uint32_t bank = addr >> 16 & 0xFF;
    uint16_t lo = (uint16_t)addr;
    *clock += 6;
    if (!(bank & 0x40)) {
        if (lo < 0x0800 || (lo >= 0x3000 && lo < 0x3800))
            return a->s.iram[lo & 0x7FF];
        if (lo >= 0x2200 && lo < 0x2400)
            return sa1_io_read(a, lo, snes_cpu_open_bus(&a->cpu));
        if (bank == 0 && lo >= 0xF000) { /* the SA-1's vectors from CRV, CNV, CIV */
            switch (lo | 1) {
            case 0xFFFD: return (uint8_t)(a->s.crv >> (lo & 1) * 8);
            case 0xFFEB: case 0xFFFB: return (uint8_t)(a->s.cnv >> (lo & 1) * 8);
            case 0xFFEF: case 0xFFFF: return (uint8_t)(a->s.civ >> (lo & 1) * 8);
            default: return a->rom[snes_sa1_rom_offset(a, addr)];
            }
        }
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
    if (bank & 0x40)
        return;
    if (lo < 0x0800 || (lo >= 0x3000 && lo < 0x3800))
        a->s.iram[lo & 0x7FF] = v;
    else if (lo >= 0x2200 && lo < 0x2300)
        reg_write(a, lo, v, 1, at);
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
    for (int i = 0; i < 4; i++)
        a->s.mmc[i] = (uint8_t)i;
    snes_cpu_init(&a->cpu, &a->bus);
    a->cpu.s.clock = clock * SNES_SA1_UNITS;
    a->bus_changed = 1;
    a->snes_irq_was = 0;
    snes_sa1_map(a);
}

void snes_sa1_run(snes_sa1 *a, uint64_t until)
{
    uint64_t t = until * SNES_SA1_UNITS;
    if (a->s.ccnt & 0x60) { /* held in reset or wait */
        if (a->cpu.s.clock < t)
            a->cpu.s.clock = t;
        return;
    }
    if (a->cpu.s.clock < t)
        snes_cpu_run(&a->cpu, t);
    if (a->cpu.s.stopped && a->cpu.s.clock < t) /* STP: only CCNT's reset restarts it */
        a->cpu.s.clock = t;
}

int snes_sa1_state_bad(const snes_sa1_state *s)
{
    return s->cpu.waiting > 1 || s->cpu.stopped > 1 || s->cpu.nmi_pending > 1 || s->cpu.irq_line > 1 ||
           s->cpu.r.e > 1 || s->vbit > 7;
}
