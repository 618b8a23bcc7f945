/* snes_machine.c: the SNES machine around the 65C816: the memory map (a fast page table for
 * ROM, WRAM and SRAM; slow callbacks for I/O), the 5A22's registers ($4200-$421F: NMI,
 * IRQ with the H/V timers, multiply/divide, joypad auto-read and the serial ports), DMA
 * and HDMA, the WRAM port, the APU ports with the SPC700 and S-DSP brought up to the CPU's
 * time in batches (only when the CPU touches a port, and at the end of each frame), and
 * the frame loop that draws each visible line with the PPU's registers at its start.
 *
 * Timing model (docs/SNES.md): 1364 master clocks a line, 262 lines; events are taken at
 * instruction boundaries (the CPU runs to the next event: refresh at dot 134, the H-IRQ
 * position, HDMA at dot 276, the line's end). Multiply and divide results are ready at
 * once (the real delay of 8 and 16 CPU cycles is not modelled). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/snes/snes_int.h"

/* ---- time ----------------------------------------------------------------------------- */

uint64_t snes_spc_time(uint64_t clk)
{
    /* SPC cycles at master clock clk: clk * 1024000 / 21477272 without overflow for any
     * reachable clock (2^64 / 1024000 master clocks is 27 years). */
    return (uint64_t)((unsigned __int128)clk * SNES_SPC_HZ / SNES_MASTER_HZ);
}

void snes_sync_spc(snes *m, uint64_t clk)
{
    uint64_t t = snes_spc_time(clk);
    if (m->spc.cycles < t)
        snes_spc_run(&m->spc, t);
}

/* Line and master clock within the line at clock clk. */
static inline uint32_t line_of(const snes *m, uint64_t clk, uint32_t *hclk)
{
    uint64_t d = clk >= m->s.frame_start ? clk - m->s.frame_start : 0;
    uint32_t line = (uint32_t)(d / SNES_LINE_CLOCKS);
    if (hclk)
        *hclk = (uint32_t)(d % SNES_LINE_CLOCKS);
    return line;
}

/* ---- the memory map ------------------------------------------------------------------- */

/* The page table of a GSU cartridge (fullsnes, GSU memory map at the SNES side): banks
 * $00-$3F/$80-$BF: WRAM, I/O (the GSU's registers at $3000-$34FF), the first 8 KiB of
 * Game Pak RAM at $6000-$7FFF, ROM in LoROM fashion at $8000-$FFFF; $40-$5F/$C0-$DF: the
 * same ROM linear; $70-$71/$F0-$F1: Game Pak RAM; the rest open bus. While the GSU runs
 * with RON (RAN) the ROM (RAM) pages go to the slow path: fixed vector bytes (open bus). */
static void gsu_map_pages(snes *m)
{
    snes_cpu_bus *b = &m->bus;
    int rom_off = snes_gsu_owns_rom(m->gsu), ram_off = snes_gsu_owns_ram(m->gsu);
    size_t rmask = m->rom_map - 1, smask = m->sram_size - 1;
    for (uint32_t bank = 0; bank < 256; bank++) {
        uint32_t lb = bank & 0x7F;
        for (uint32_t pg = 0; pg < 16; pg++) {
            snes_cpu_page *p = &b->page[bank << 4 | pg];
            p->r = NULL, p->w = NULL, p->len = 8;
            if (bank == 0x7E || bank == 0x7F) {
                p->r = p->w = m->s.wram + (size_t)(bank - 0x7E) * 0x10000 + pg * 0x1000;
            } else if (lb < 0x40 && pg < 2) {
                p->r = p->w = m->s.wram + pg * 0x1000;
            } else if (lb < 0x40 && pg < 6) {
                continue; /* I/O */
            } else if (lb < 0x40 && pg < 8) {
                if (!ram_off)
                    p->r = p->w = m->sram + (((pg - 6) * 0x1000u) & smask);
            } else if (lb < 0x40) {
                if (!rom_off)
                    p->r = m->romcopy + (((size_t)lb << 15 | (pg - 8) << 12) & rmask);
            } else if (lb < 0x60) {
                if (!rom_off)
                    p->r = m->romcopy + (((size_t)(lb - 0x40) << 16 | pg << 12) & rmask);
            } else if (lb == 0x70 || lb == 0x71) {
                if (!ram_off)
                    p->r = p->w = m->sram + (((size_t)(lb & 1) << 16 | pg << 12) & smask);
            }
        }
    }
}

void snes_gsu_sync(snes *m, uint64_t clk)
{
    snes_gsu *g = m->gsu;
    int irq = snes_gsu_irq(g);
    snes_gsu_run(g, clk);
    if (g->bus_changed) {
        g->bus_changed = 0;
        gsu_map_pages(m);
    }
    if (snes_gsu_irq(g) != irq)
        snes_cpu_set_irq(&m->cpu, m->s.irq_flag || snes_gsu_irq(g), irq ? clk : g->s.stop_at);
}

/* The page table of an SA-1 cartridge (fullsnes, SA-1 memory map at the SNES side): banks
 * $00-$3F/$80-$BF: WRAM, I/O (the SA-1's registers at $2200-$23FF and I-RAM at
 * $3000-$37FF through the slow path), the BW-RAM block BMAPS names at $6000-$7FFF, ROM
 * through the Super MMC at $8000-$FFFF ($00:F000-$FFFF slow: the vectors SNV/SIV may
 * replace); $40-$4F: BW-RAM; $C0-$FF: ROM through the Super MMC; the rest open bus.
 * BW-RAM pages reaching into the write-protected area (BWPA, while SBWE is clear) write
 * through the slow path, and banks $40-$4F read through it while character conversion
 * type 1 serves the SNES (snes_sa1_snes_mem_read/write). */
static void sa1_map_pages(snes *m)
{
    snes_cpu_bus *b = &m->bus;
    const snes_sa1 *a = m->sa1;
    uint32_t lim = snes_sa1_bw_limit(a, a->s.sbwe);
    for (uint32_t bank = 0; bank < 256; bank++) {
        uint32_t romlen = bank >= 0x80 && (m->s.memsel & 1) ? 6 : 8;
        for (uint32_t pg = 0; pg < 16; pg++) {
            snes_cpu_page *p = &b->page[bank << 4 | pg];
            p->r = NULL, p->w = NULL, p->len = 8;
            if (bank == 0x7E || bank == 0x7F) {
                p->r = p->w = m->s.wram + (size_t)(bank - 0x7E) * 0x10000 + pg * 0x1000;
            } else if (bank >= 0xC0) {
                p->r = a->rom + snes_sa1_rom_offset(a, bank << 16 | pg << 12);
                p->len = romlen;
            } else if (!(bank & 0x40)) {
                if (pg < 2) {
                    p->r = p->w = m->s.wram + pg * 0x1000;
                } else if (pg == 6 || pg == 7) {
                    uint32_t off = ((uint32_t)(a->s.bmaps & 0x1F) << 13) + (pg - 6) * 0x1000u;
                    uint8_t *bw = m->sram + (off & (m->sram_size - 1));
                    p->r = bw;
                    p->w = off < lim ? NULL : bw;
                } else if (pg >= 8 && !(bank == 0 && pg == 15)) {
                    p->r = a->rom + snes_sa1_rom_offset(a, bank << 16 | pg << 12);
                    p->len = romlen;
                }
            } else if (bank < 0x50) {
                uint32_t off = ((bank & 0x0F) << 16 | pg << 12) & 0x3FFFF;
                uint8_t *bw = m->sram + (off & (m->sram_size - 1));
                p->r = a->s.cc1 ? NULL : bw;
                p->w = off < lim ? NULL : bw;
            }
        }
    }
}

/* The IRQ outputs of the cartridge's chip (GSU, SA-1) to the SNES CPU. */
static int chip_irq(const snes *m)
{
    return (m->gsu && snes_gsu_irq(m->gsu)) || (m->sa1 && snes_sa1_snes_irq(m->sa1));
}

void snes_sa1_sync(snes *m, uint64_t clk)
{
    snes_sa1 *a = m->sa1;
    snes_sa1_run(a, clk);
    if (a->bus_changed) {
        a->bus_changed = 0;
        sa1_map_pages(m);
    }
    int irq = snes_sa1_snes_irq(a);
    if (irq != a->snes_irq_was) {
        a->snes_irq_was = (uint8_t)irq;
        snes_cpu_set_irq(&m->cpu, m->s.irq_flag || chip_irq(m), clk);
    }
}

/* Fills the page table from the cartridge, WRAM, SRAM and MEMSEL. */
void snes_map_pages(snes *m)
{
    snes_cpu_bus *b = &m->bus;
    if (m->gsu) {
        gsu_map_pages(m);
        return;
    }
    if (m->sa1) {
        sa1_map_pages(m);
        return;
    }
    int hi = snes_map_is_hi(m->ci->map);
    for (uint32_t bank = 0; bank < 256; bank++) {
        uint32_t lb = bank & 0x7F;
        uint32_t romlen = bank >= 0x80 && (m->s.memsel & 1) ? 6 : 8;
        for (uint32_t pg = 0; pg < 16; pg++) {
            snes_cpu_page *p = &b->page[bank << 4 | pg];
            p->r = NULL, p->w = NULL, p->len = 8;
            size_t off;
            if (bank == 0x7E || bank == 0x7F) {
                p->r = p->w = m->s.wram + (size_t)(bank - 0x7E) * 0x10000 + pg * 0x1000;
                continue;
            }
            if (lb < 0x40 && pg < 2) { /* the low 8 KiB of WRAM */
                p->r = p->w = m->s.wram + pg * 0x1000;
                continue;
            }
            if (lb < 0x40 && pg < 6)
                continue; /* I/O: slow */
            if (lb < 0x40 && pg < 8) { /* $6000-$7FFF: HiROM SRAM in banks $20-$3F */
                if (hi && lb >= 0x20 && m->sram_size >= 0x2000) {
                    off = (((size_t)(lb & 0x1F) << 13) + (pg - 6) * 0x1000) % m->sram_size;
                    p->r = p->w = m->sram + off;
                }
                continue;
            }
            if (!hi && lb >= 0x70 && lb < 0x7E && pg < 8) { /* LoROM SRAM: banks $70-$7D, $F0-$FF */
                if (m->sram_size >= 0x1000) {
                    off = (((size_t)(lb & 0x0F) << 15) + pg * 0x1000) % m->sram_size;
                    p->r = p->w = m->sram + off;
                }
                continue;
            }
            off = snes_map_offset(m->ci->map, bank << 16 | pg << 12);
            p->r = m->romcopy + off % m->rom_map;
            p->len = romlen;
        }
    }
    /* banks $F0-$FF (LoROM SRAM mirror) were covered by lb; $7E/$7F only in the low half */
}

/* SRAM behind the slow path (smaller than a page): the byte at addr, or NULL. */
static uint8_t *sram_at(snes *m, uint32_t addr)
{
    if (!m->sram_size || m->gsu || m->sa1)
        return NULL;
    uint32_t lb = (addr >> 16) & 0x7F, a = addr & 0xFFFF;
    if (snes_map_is_hi(m->ci->map)) {
        if (lb >= 0x20 && lb < 0x40 && a >= 0x6000 && a < 0x8000)
            return m->sram + ((((size_t)(lb & 0x1F) << 13) + a - 0x6000) % m->sram_size);
    } else if (lb >= 0x70 && lb < 0x7E && a < 0x8000) {
        return m->sram + ((((size_t)(lb & 0x0F) << 15) + a) % m->sram_size);
    }
    return NULL;
}

uint8_t snes_peek(const snes *m, uint32_t addr)
{
    const snes_cpu_page *p = &m->bus.page[(addr >> 12) & 0xFFF];
    if (p->r)
        return p->r[addr & 0xFFF];
    uint8_t *s = sram_at((snes *)m, addr);
    return s ? *s : 0;
}

/* ---- joypads -------------------------------------------------------------------------- */

/* Controller 1's buttons as the serial line gives them, first bit in bit 15: B Y Select
 * Start Up Down Left Right A X L R, then 0000 (the controller's ID). */
static uint16_t pad_bits(uint16_t buttons)
{
    uint16_t v = 0;
    for (int i = 0; i < 12; i++)
        if (buttons & (1u << i))
            v |= (uint16_t)(0x8000 >> i);
    return v;
}

static void joy_latch(snes *m)
{
    m->s.joy_shift[0] = pad_bits(m->s.buttons);
    m->s.joy_shift[1] = 0; /* nothing in port 2 */
}

/* ---- DMA ------------------------------------------------------------------------------ */

static void io_write(snes *m, uint32_t addr, uint8_t v, uint64_t *clk);
static uint8_t io_read(snes *m, uint32_t addr, uint64_t *clk);

/* The B-bus offsets of each DMA transfer pattern (DMAPx bits 0-2), per unit byte. */
static const uint8_t dma_pat[8][4] = {
    {0, 0, 0, 0}, {0, 1, 0, 1}, {0, 0, 0, 0}, {0, 0, 1, 1},
    {0, 1, 2, 3}, {0, 1, 0, 1}, {0, 0, 0, 0}, {0, 0, 1, 1},
};
static const uint8_t dma_units[8] = {1, 2, 2, 4, 4, 4, 2, 4};

/* An A-bus byte for DMA: memory through the page table (DMA cannot reach $21xx/$43xx); an
 * SA-1 cartridge's I-RAM, protected BW-RAM and converted characters through the chip. */
static uint8_t abus_read(snes *m, uint32_t addr)
{
    const snes_cpu_page *p = &m->bus.page[(addr >> 12) & 0xFFF];
    if (p->r)
        return p->r[addr & 0xFFF];
    if (m->sa1)
        return snes_sa1_snes_mem_read(m->sa1, addr, snes_cpu_open_bus(&m->cpu));
    uint8_t *s = sram_at(m, addr);
    return s ? *s : snes_cpu_open_bus(&m->cpu);
}

static void abus_write(snes *m, uint32_t addr, uint8_t v)
{
    snes_cpu_page *p = &m->bus.page[(addr >> 12) & 0xFFF];
    if (p->w) {
        p->w[addr & 0xFFF] = v;
        return;
    }
    if (m->sa1) {
        snes_sa1_snes_mem_write(m->sa1, addr, v);
        return;
    }
    uint8_t *s = sram_at(m, addr);
    if (s)
        *s = v;
}

static uint8_t bbus_read(snes *m, uint8_t reg, uint64_t *clk)
{
    uint64_t c = *clk;
    uint8_t v = io_read(m, 0x2100u | reg, &c);
    return v;
}

static void bbus_write(snes *m, uint8_t reg, uint8_t v, uint64_t *clk)
{
    uint64_t c = *clk;
    io_write(m, 0x2100u | reg, v, &c);
}

/* One byte of DMA or HDMA between A-bus address a and B-bus register $21reg, in the
 * direction of DMAPx bit 7; the byte goes over the data bus (the open bus after it). The
 * WRAM port cannot reach WRAM (Anomie's register doc, $2180): from WRAM to $2180 nothing
 * is written and WMADD stays; from $2180 to WRAM the WRAM gets the open bus and WMADD
 * stays. */
static void dma_byte(snes *m, uint8_t ctrl, uint8_t reg, uint32_t a, uint64_t *clk)
{
    uint32_t bank = a >> 16;
    int wram = reg == 0x80 && ((bank & 0xFE) == 0x7E || (!(bank & 0x40) && (a & 0xFFFF) < 0x2000));
    uint8_t v;
    if (ctrl & 0x80) {
        v = wram ? snes_cpu_open_bus(&m->cpu) : bbus_read(m, reg, clk);
        abus_write(m, a, v);
    } else {
        v = abus_read(m, a);
        if (!wram)
            bbus_write(m, reg, v, clk);
    }
    m->cpu.s.mdr = v;
}

/* The master clock at which HDMA next uses channel d (enabled in HDMAEN) after clk: dot 276
 * of a picture line while the channel's table runs, else the set-up at the next frame's
 * start. A general DMA on the channel ends there (HDMA takes priority and terminates a
 * conflicting DMA: the superfamicom.org wiki, DMA & HDMA). */
static uint64_t hdma_next_use(const snes *m, const snes_dma_ch *d, uint64_t clk)
{
    uint32_t hc, line = line_of(m, clk, &hc);
    uint64_t next_frame = m->s.frame_start + (uint64_t)snes_frame_lines(&m->s) * SNES_LINE_CLOCKS;
    if (line >= snes_frame_lines(&m->s))
        return clk;
    if (!d->done && line < m->s.vdisp) {
        if (hc < SNES_HDMA_AT)
            return m->s.frame_start + (uint64_t)line * SNES_LINE_CLOCKS + SNES_HDMA_AT;
        if (line + 1 < m->s.vdisp)
            return m->s.frame_start + (uint64_t)(line + 1) * SNES_LINE_CLOCKS + SNES_HDMA_AT;
    }
    return next_frame;
}

/* General DMA on the channels in mask, lowest first, started by a $420B write whose cycle
 * begins at *clk (Anomie's timing doc): the CPU gets one more cycle (the next opcode's
 * fetch) and pauses at P; the DMA waits 2-8 master clocks to a multiple of 8 since reset
 * (frames are a multiple of 8 clocks long: since the frame's start), takes 8 for itself,
 * 8 a channel and 8 a byte, then waits 1-S clocks (never 0) to a whole number of CPU
 * cycles since P, S being the length of the cycle after that fetch (6: the IO cycle of a
 * one-byte instruction; else the fetch's length, an operand from the same place). The
 * machine counts the write's and the fetch's clocks after the DMA: *clk advances by the
 * DMA's length alone. */
static void dma_run(snes *m, uint8_t mask, uint64_t *clk)
{
    uint32_t pc = (uint32_t)m->cpu.s.r.pbr << 16 | m->cpu.s.r.pc;
    const snes_cpu_page *pg = &m->bus.page[(pc >> 12) & 0xFFF];
    uint32_t fetch = pg->r ? pg->len : 8, op = pg->r ? pg->r[pc & 0xFFF] : 0, lo = op & 0xF;
    uint32_t speed = lo == 0x8 || lo == 0xA || lo == 0xB || op == 0x40 || op == 0x60 ? 6 : fetch;
    if (pg->r)
        m->cpu.s.mdr = (uint8_t)op; /* the last byte on the bus before the pause */
    uint64_t p = *clk + 6 + fetch;
    uint32_t since = (uint32_t)(p - m->s.reset_phase) & 7;
    uint64_t start = *clk;
    *clk += (8 - since) + 8;
    for (int ch = 0; ch < 8; ch++) {
        if (!(mask & (1u << ch)))
            continue;
        snes_dma_ch *d = &m->s.dma[ch];
        *clk += 8;
        int mode = d->ctrl & 7, step = d->ctrl & 8 ? 0 : d->ctrl & 0x10 ? -1 : 1;
        uint32_t n = d->das ? d->das : 0x10000, i;
        uint64_t stop = m->s.hdmaen & (1u << ch) ? hdma_next_use(m, d, *clk) : UINT64_MAX;
        for (i = 0; i < n && *clk < stop; i++) {
            dma_byte(m, d->ctrl, (uint8_t)(d->bbad + dma_pat[mode][i & 3]), (uint32_t)d->a1b << 16 | d->a1t, clk);
            d->a1t = (uint16_t)(d->a1t + step);
            *clk += 8;
        }
        d->das = (uint16_t)(n - i);
    }
    *clk += speed - (*clk - start) % speed;
}

/* HDMA: the channels' tables set up at the start of a frame. The CPU pauses ~18 master
 * clocks when any channel is enabled, plus 8 a direct channel and 24 an indirect one (its
 * indirect address loaded too; Anomie's timing doc). */
static void hdma_init(snes *m)
{
    if (m->s.hdmaen)
        m->cpu.s.clock += 18;
    for (int ch = 0; ch < 8; ch++) {
        snes_dma_ch *d = &m->s.dma[ch];
        d->done = 1;
        d->do_transfer = 0;
        if (!(m->s.hdmaen & (1u << ch)))
            continue;
        d->a2a = d->a1t;
        d->nltr = abus_read(m, (uint32_t)d->a1b << 16 | d->a2a++);
        if (d->ctrl & 0x40) {
            d->das = (uint16_t)(abus_read(m, (uint32_t)d->a1b << 16 | d->a2a) |
                                abus_read(m, (uint32_t)d->a1b << 16 | (uint16_t)(d->a2a + 1)) << 8);
            d->a2a += 2;
            m->cpu.s.clock += 16;
        }
        d->done = d->nltr == 0;
        d->do_transfer = 1;
        m->cpu.s.clock += 8;
    }
}

/* One line of HDMA (the transfers for the next line). */
static void hdma_line(snes *m)
{
    uint64_t clk = m->cpu.s.clock;
    int any = 0;
    for (int ch = 0; ch < 8; ch++) {
        snes_dma_ch *d = &m->s.dma[ch];
        if (!(m->s.hdmaen & (1u << ch)) || d->done)
            continue;
        any = 1;
        clk += 8;
        if (d->do_transfer) {
            int mode = d->ctrl & 7;
            for (int i = 0; i < dma_units[mode]; i++) {
                uint32_t a = d->ctrl & 0x40 ? (uint32_t)d->dasb << 16 | d->das++ : (uint32_t)d->a1b << 16 | d->a2a++;
                dma_byte(m, d->ctrl, (uint8_t)(d->bbad + dma_pat[mode][i]), a, &clk);
                clk += 8;
            }
        }
        d->nltr--;
        d->do_transfer = (d->nltr & 0x80) != 0;
        if (!(d->nltr & 0x7F)) {
            d->nltr = abus_read(m, (uint32_t)d->a1b << 16 | d->a2a++);
            if (d->ctrl & 0x40) {
                d->das = (uint16_t)(abus_read(m, (uint32_t)d->a1b << 16 | d->a2a) |
                                    abus_read(m, (uint32_t)d->a1b << 16 | (uint16_t)(d->a2a + 1)) << 8);
                d->a2a += 2;
                clk += 16;
            }
            d->done = d->nltr == 0;
            d->do_transfer = 1;
        }
    }
    if (any)
        m->cpu.s.clock = clk + 18;
}

/* ---- I/O registers -------------------------------------------------------------------- */

/* Room for `need` elements of `size` bytes in the video log's array *arr (capacity *cap,
 * doubled from `first`); 0 with the log marked unusable when memory runs out. */
static int vlog_room(snes_vlog *lg, void **arr, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap * 2 : first;
    void *a = realloc(*arr, c * size);
    if (!a) {
        lg->oom = 1;
        return 0;
    }
    *arr = a;
    *cap = c;
    return 1;
}

/* Appends video memory writes to the video log, in the segment of the lines drawn so far. */
static void vlog_writes(snes *m, const uint32_t *mw, int n)
{
    snes_vlog *lg = m->vlog;
    void *arr = lg->mw;
    int ok = vlog_room(lg, &arr, &lg->cap, lg->n + (size_t)n, sizeof *lg->mw, 4096);
    lg->mw = arr;
    if (!ok)
        return;
    if (!lg->nsegs || lg->segs[lg->nsegs - 1].stamp != m->lines_drawn) {
        snes_vseg sg = {(uint16_t)m->lines_drawn, 0, (uint32_t)lg->n};
        lg->segs[lg->nsegs++] = sg;
    }
    for (int k = 0; k < n; k++)
        lg->mw[lg->n++] = mw[k];
}

/* The register snapshot of picture line y (m->mid_regs) into the video log. */
static void vlog_line(snes *m, int y)
{
    snes_vlog *lg = m->vlog;
    const snes_vregs *r = &m->mid_regs;
    if (!lg->nregs || memcmp(r, &lg->regs[lg->nregs - 1], sizeof *r))
        lg->regs[lg->nregs++] = *r;
    lg->line_reg[y] = (uint8_t)(lg->nregs - 1);
}

/* A change inside picture line m->mid_y from pixel x on (snes_vmid) into the video log; a
 * second change at the same pixel replaces the first. */
static void vlog_mid(snes *m, int x)
{
    snes_vlog *lg = m->vlog;
    snes_vmid *last = lg->nmid ? &lg->mid[lg->nmid - 1] : NULL;
    if (last && last->y == m->mid_y && last->x == x) {
        last->r = m->mid_regs;
        last->wend = (uint32_t)lg->n;
        return;
    }
    void *arr = lg->mid;
    int ok = vlog_room(lg, &arr, &lg->midcap, lg->nmid + 1, sizeof *lg->mid, 64);
    lg->mid = arr;
    if (!ok)
        return;
    snes_vmid e;
    memset(&e, 0, sizeof e);
    e.r = m->mid_regs;
    e.x = (uint16_t)x, e.y = (uint16_t)m->mid_y;
    e.wstart = m->mid_w0, e.wend = (uint32_t)lg->n;
    lg->mid[lg->nmid++] = e;
}

/* The byte of the video memories at snes_vmem offset a (VRAM or OAM). */
static uint8_t *vm_byte(snes_ppu *p, uint32_t a)
{
    return a < SNES_VM_CGRAM ? &p->vram[a] : &p->oam[a - SNES_VM_OAM];
}

/* The VRAM and OAM bytes written inside the line swapped with their recorded values: back
 * to the line's start (the newest first), or forward again (the oldest first). */
static void mid_swap(snes *m, int back)
{
    snes_ppu *p = &m->s.ppu;
    int n = m->mid_nundo;
    for (int i = 0; i < n; i++) {
        uint32_t *u = &m->mid_undo[back ? n - 1 - i : i];
        uint8_t *b = vm_byte(p, *u & 0x1FFFF), cur = *b;
        *b = (uint8_t)(*u >> 17);
        *u = SNES_MW(*u & 0x1FFFF, cur);
    }
}

/* A PPU register write inside picture line m->mid_y (before its HDMA point; docs/SNES.md,
 * "Mid-line writes"). The PPU shows pixel x at dot x + 22 (fullsnes, "SNES Timing": the
 * picture at H=22-277), so a write at dot d changes pixels d - 22 on (all of them before
 * dot 22). INIDISP, BGMODE to the BG scrolls ($2105-$2114), mode 7 ($211A-$2120), CGRAM data
 * and the windows, screens and colour math ($2123-$2133) change the picture from there;
 * the sprites stay as the line's start fetched them (OBSEL, the OAM address); VRAM and OAM
 * writes show from the next line (the native renderer draws with their bytes put back). */
static void mid_write(snes *m, uint8_t reg, uint8_t v, uint64_t clk)
{
    snes_ppu *p = &m->s.ppu;
    uint32_t mw[2], ta[2];
    int nt = snes_ppu_write_targets(p, reg, ta);
    for (int k = 0; k < nt && m->mid_nundo < (int)(sizeof m->mid_undo / sizeof m->mid_undo[0]); k++)
        m->mid_undo[m->mid_nundo++] = SNES_MW(ta[k], *vm_byte(p, ta[k]));
    int n = snes_ppu_write(p, reg, v, mw);
    if (n && m->vlog)
        vlog_writes(m, mw, n);
    if (!(reg == 0x00 || (reg >= 0x05 && reg <= 0x14) || (reg >= 0x1A && reg <= 0x20) || reg >= 0x22))
        return;
    snes_vregs r;
    snes_vregs_of(p, &r);
    r.obsel = m->mid_regs.obsel, r.oam_reload = m->mid_regs.oam_reload, r.oam_prio = m->mid_regs.oam_prio;
    if (!(reg == 0x22 && n) && !memcmp(&r, &m->mid_regs, sizeof r))
        return;
    m->mid_regs = r;
    int x = (int)((clk - m->mid_ls) >> 2) - 22, y = m->mid_y;
    if (x < 0)
        x = 0;
    if (!m->wide && snes_hires(r.bgmode, r.setini)) {
        m->wide = 1; /* as at a line's start: the rows so far doubled, this line's too */
        if (m->outputs & SNES_OUT_VIDEO)
            snes_fb_widen(m->fb, m->il ? 2 * y + 2 : y + 1);
    }
    if (m->outputs & SNES_OUT_VIDEO) {
        mid_swap(m, 1);
        snes_render_rows_from(&r, p->vram, p->cgram, p->oam, y, m->il, m->wide, x, m->fb);
        mid_swap(m, 0);
    }
    if (m->vlog)
        vlog_mid(m, x);
}

/* The 5A22's multiplier and divider count CPU cycles, whatever their length (SNESdev wiki,
 * Multiplication: 8 cycles for a product, 16 for a quotient; the cycles of the instruction
 * that reads the result count, and an early read returns an intermediate result). The
 * machine computes the registers when they are read, from the cycles gone since the
 * starting write: k = the CPU cycles after that write and before the reading access.
 * Our model of the intermediate values, one bit per cycle: the product is shift-add from
 * the multiplier's bit 0, so after k steps RDMPY = A * (B's low k bits) and RDDIV = B;
 * the division is restoring, quotient bits from bit 15 down, so after k steps RDDIV holds
 * the quotient's top k bits and RDMPY the dividend less RDDIV * divisor (a divisor of 0
 * sets every quotient bit and leaves the dividend: $FFFF and the dividend at the end). */
static void alu_settle(snes *m)
{
    uint64_t gone = m->cpu.cyc_now - m->s.alu_at; /* a reset restarts the count: wraps */
    uint32_t k = gone <= 1 ? 0 : gone <= 17 ? (uint32_t)(gone - 1) : 16, b = m->s.alu_b;
    if (m->s.alu_op == 1) {
        if (k >= 8)
            k = 8, m->s.alu_op = 0;
        m->s.rdmpy = (uint16_t)(m->s.wrmpya * (b & ((1u << k) - 1)));
        m->s.rddiv = (uint16_t)b;
        return;
    }
    if (k >= 16)
        k = 16, m->s.alu_op = 0;
    uint32_t n = m->s.wrdiv, sh = 16 - k;
    uint32_t q = b ? (n / (b << sh)) << sh : (0xFFFFu << sh) & 0xFFFF;
    m->s.rddiv = (uint16_t)q;
    m->s.rdmpy = (uint16_t)(n - q * b);
}

/* The MSU-1's audio mixed into the DSP's samples made up to master clock clk (before a
 * register write changes it, and at the frame's end), so its changes land on the 32 kHz
 * sample of their time. */
static void msu_catch_up(snes *m, uint64_t clk)
{
    snes_sync_spc(m, clk);
    snes_dsp_run(&m->dsp, m->spc.cycles);
    size_t n = m->dsp.env.out_n;
    if (n > m->msu_mixed)
        snes_msu_mix(&m->s.msu, m->msu, m->dsp_out + 2 * m->msu_mixed, n - m->msu_mixed);
    m->msu_mixed = n;
}

static uint8_t io_read(snes *m, uint32_t addr, uint64_t *clk)
{
    uint16_t a = (uint16_t)addr;
    uint8_t ob = snes_cpu_open_bus(&m->cpu);
    if (a < 0x2100 && m->msu && a < 0x2008) {
        if (a == 0x2000)
            msu_catch_up(m, *clk); /* the playing bit falls at the track's end */
        return snes_msu_read(&m->s.msu, m->msu, a);
    }
    if (a >= 0x2134 && a < 0x2140) {
        return snes_ppu_read(m, (uint8_t)a, *clk);
    }
    if (a < 0x2130 && a >= 0x2100) { /* write-only: $21x4-6 and $21x8-A give PPU1's open bus */
        uint32_t lo = a & 0xF;
        return (lo >= 4 && lo <= 6) || (lo >= 8 && lo <= 0xA) ? m->s.ppu.mdr1 : ob;
    }
    if (a >= 0x2140 && a < 0x2180) {
        snes_sync_spc(m, *clk);
        return snes_spc_port_read(&m->spc, a & 3);
    }
    if (a == 0x2180) {
        uint8_t v = m->s.wram[m->s.wmadd & 0x1FFFF];
        m->s.wmadd = (m->s.wmadd + 1) & 0x1FFFF;
        return v;
    }
    if (a == 0x4016 || a == 0x4017) {
        int p = a & 1;
        uint8_t bit = (uint8_t)((m->s.joy_shift[p] >> 15) & 1);
        m->s.joy_shift[p] = ((m->s.joy_shift[p] << 1) | 1) & 0xFFFF;
        return (uint8_t)((ob & 0xFC) | bit | (p ? 0x1C : 0));
    }
    if (a >= 0x4300 && a < 0x4380) {
        const snes_dma_ch *d = &m->s.dma[(a >> 4) & 7];
        switch (a & 0xF) {
        case 0x0: return d->ctrl;
        case 0x1: return d->bbad;
        case 0x2: return (uint8_t)d->a1t;
        case 0x3: return (uint8_t)(d->a1t >> 8);
        case 0x4: return d->a1b;
        case 0x5: return (uint8_t)d->das;
        case 0x6: return (uint8_t)(d->das >> 8);
        case 0x7: return d->dasb;
        case 0x8: return (uint8_t)d->a2a;
        case 0x9: return (uint8_t)(d->a2a >> 8);
        case 0xA: return d->nltr;
        case 0xB: case 0xF: return d->unused;
        default: return ob;
        }
    }
    uint32_t hc;
    switch (a) {
    case 0x4210: {
        uint8_t v = (uint8_t)((m->s.nmi_flag << 7) | (ob & 0x70) | 0x02);
        m->s.nmi_flag = 0;
        return v;
    }
    case 0x4211: {
        uint8_t v = (uint8_t)((m->s.irq_flag << 7) | (ob & 0x7F));
        m->s.irq_flag = 0;
        snes_cpu_set_irq(&m->cpu, chip_irq(m), *clk);
        return v;
    }
    case 0x4212: {
        uint32_t line = line_of(m, *clk, &hc);
        uint8_t v = ob & 0x3E;
        if (line >= m->s.vdisp)
            v |= 0x80;
        if (hc >= SNES_HBLANK_AT || hc < SNES_HBLANK_END)
            v |= 0x40;
        if (*clk < m->s.joy_busy_until && *clk + SNES_JOY_CLOCKS >= m->s.joy_busy_until)
            v |= 0x01;
        return v;
    }
    case 0x4213: return m->s.wrio;
    case 0x4214: case 0x4215: case 0x4216: case 0x4217:
        if (m->s.alu_op)
            alu_settle(m);
        break;
    default: break;
    }
    switch (a) {
    case 0x4214: return (uint8_t)m->s.rddiv;
    case 0x4215: return (uint8_t)(m->s.rddiv >> 8);
    case 0x4216: return (uint8_t)m->s.rdmpy;
    case 0x4217: return (uint8_t)(m->s.rdmpy >> 8);
    default:
        if (a >= 0x4218 && a < 0x4220) {
            uint16_t j = m->s.joy[(a - 0x4218) >> 1];
            return (uint8_t)(a & 1 ? j >> 8 : j);
        }
        return ob;
    }
}

static void io_write(snes *m, uint32_t addr, uint8_t v, uint64_t *clk)
{
    uint16_t a = (uint16_t)addr;
    if (a < 0x2100 && m->msu && a < 0x2008) {
        if (a >= 0x2005)
            msu_catch_up(m, *clk);
        snes_msu_write(&m->s.msu, m->msu, a, v);
        return;
    }
    if (a >= 0x2100 && a < 0x2134) {
        if (*clk < m->mid_end) {
            mid_write(m, (uint8_t)a, v, *clk);
            return;
        }
        uint32_t mw[2];
        int n = snes_ppu_write(&m->s.ppu, (uint8_t)a, v, mw);
        if (n && m->vlog)
            vlog_writes(m, mw, n);
        return;
    }
    if (a >= 0x2140 && a < 0x2180) {
        snes_sync_spc(m, *clk);
        snes_spc_port_write(&m->spc, a & 3, v);
        return;
    }
    switch (a) {
    case 0x2180:
        m->s.wram[m->s.wmadd & 0x1FFFF] = v;
        m->s.wmadd = (m->s.wmadd + 1) & 0x1FFFF;
        return;
    case 0x2181: m->s.wmadd = (m->s.wmadd & 0x1FF00) | v; return;
    case 0x2182: m->s.wmadd = (m->s.wmadd & 0x100FF) | (uint32_t)v << 8; return;
    case 0x2183: m->s.wmadd = (m->s.wmadd & 0xFFFF) | (uint32_t)(v & 1) << 16; return;
    case 0x4016:
        if (m->s.joy_strobe && !(v & 1))
            joy_latch(m);
        m->s.joy_strobe = v & 1;
        if (v & 1)
            joy_latch(m);
        return;
    case 0x4200: {
        uint8_t old = m->s.nmitimen;
        m->s.nmitimen = v;
        m->cpu.yield = 1; /* the H/V IRQ may now fall later on this line */
        /* enabling NMI inside vertical blank with the flag still set fires it */
        if (!(old & 0x80) && (v & 0x80) && m->s.nmi_flag)
            snes_cpu_set_nmi(&m->cpu, *clk);
        if (!(v & 0x30)) {
            m->s.irq_flag = 0;
            snes_cpu_set_irq(&m->cpu, chip_irq(m), *clk);
        }
        return;
    }
    case 0x4201:
        if ((m->s.wrio & 0x80) && !(v & 0x80))
            snes_ppu_latch_counters(m, *clk);
        m->s.wrio = v;
        return;
    case 0x4202: m->s.wrmpya = v; return;
    case 0x4203: /* starts a multiplication: 8 CPU cycles (alu_settle) */
    case 0x4206: /* starts a division: 16 CPU cycles */
        if (m->s.alu_op)
            alu_settle(m);
        m->s.wrmpyb = a == 0x4203 ? v : m->s.wrmpyb;
        m->s.alu_op = a == 0x4203 ? 1 : 2;
        m->s.alu_b = v;
        m->s.alu_at = m->cpu.cyc_now;
        alu_settle(m);
        return;
    case 0x4204: m->s.wrdiv = (uint16_t)((m->s.wrdiv & 0xFF00) | v); return;
    case 0x4205: m->s.wrdiv = (uint16_t)((m->s.wrdiv & 0x00FF) | v << 8); return;
    case 0x4207: m->s.htime = (uint16_t)((m->s.htime & 0x100) | v); m->cpu.yield = 1; return;
    case 0x4208: m->s.htime = (uint16_t)((m->s.htime & 0xFF) | (v & 1) << 8); m->cpu.yield = 1; return;
    case 0x4209: m->s.vtime = (uint16_t)((m->s.vtime & 0x100) | v); m->cpu.yield = 1; return;
    case 0x420A: m->s.vtime = (uint16_t)((m->s.vtime & 0xFF) | (v & 1) << 8); m->cpu.yield = 1; return;
    case 0x420B:
        if (v)
            dma_run(m, v, clk);
        return;
    case 0x420C: m->s.hdmaen = v; return;
    case 0x420D:
        if ((m->s.memsel ^ v) & 1) {
            m->s.memsel = v & 1;
            snes_map_pages(m);
        }
        return;
    default:
        break;
    }
    if (a >= 0x4300 && a < 0x4380) {
        snes_dma_ch *d = &m->s.dma[(a >> 4) & 7];
        switch (a & 0xF) {
        case 0x0: d->ctrl = v; break;
        case 0x1: d->bbad = v; break;
        case 0x2: d->a1t = (uint16_t)((d->a1t & 0xFF00) | v); break;
        case 0x3: d->a1t = (uint16_t)((d->a1t & 0xFF) | v << 8); break;
        case 0x4: d->a1b = v; break;
        case 0x5: d->das = (uint16_t)((d->das & 0xFF00) | v); break;
        case 0x6: d->das = (uint16_t)((d->das & 0xFF) | v << 8); break;
        case 0x7: d->dasb = v; break;
        case 0x8: d->a2a = (uint16_t)((d->a2a & 0xFF00) | v); break;
        case 0x9: d->a2a = (uint16_t)((d->a2a & 0xFF) | v << 8); break;
        case 0xA: d->nltr = v; break;
        case 0xB: case 0xF: d->unused = v; break;
        default: break;
        }
    }
}

/* The DRAM refresh pauses the CPU in the middle of an instruction: an I/O access that
 * starts at or after the line's refresh point comes after the pause (the frame loop takes
 * it at the next instruction boundary otherwise; memory accesses are not looked at, their
 * time adds up the same). */
static inline void refresh_before(snes *m, uint64_t *clk)
{
    if (*clk >= m->refresh_at) {
        *clk += SNES_REFRESH_CLOCKS;
        m->refresh_at = UINT64_MAX;
    }
}

/* The slow path of the fast bus: I/O, SRAM smaller than a page, open bus. */
/* A GSU cartridge's slow path: the GSU's registers (the GSU brought up to the access
 * first; SFR's IRQ bit read out changes the IRQ line), and ROM or RAM while the GSU owns
 * it: fixed vector bytes from ROM, open bus from RAM (writes dropped). */
static uint8_t gsu_read(snes *m, uint32_t addr, uint64_t clk)
{
    uint32_t lb = (addr >> 16) & 0x7F, a = addr & 0xFFFF;
    if (lb < 0x40 && a >= 0x3000 && a < 0x3500) {
        snes_gsu_sync(m, clk);
        int irq = snes_gsu_irq(m->gsu);
        uint8_t v = snes_gsu_io_read(m->gsu, (uint16_t)a, snes_cpu_open_bus(&m->cpu));
        if (irq && !snes_gsu_irq(m->gsu))
            snes_cpu_set_irq(&m->cpu, m->s.irq_flag, clk);
        return v;
    }
    if ((lb < 0x40 && a >= 0x8000) || (lb >= 0x40 && lb < 0x60))
        return snes_gsu_rom_dummy((uint16_t)a);
    return snes_cpu_open_bus(&m->cpu);
}

static void gsu_write(snes *m, uint32_t addr, uint8_t v, uint64_t clk)
{
    uint32_t lb = (addr >> 16) & 0x7F, a = addr & 0xFFFF;
    if (lb < 0x40 && a >= 0x3000 && a < 0x3500) {
        snes_gsu_sync(m, clk);
        int irq = snes_gsu_irq(m->gsu);
        snes_gsu_io_write(m->gsu, (uint16_t)a, v);
        if (m->gsu->bus_changed)
            snes_gsu_sync(m, clk);
        if (irq != snes_gsu_irq(m->gsu))
            snes_cpu_set_irq(&m->cpu, m->s.irq_flag || snes_gsu_irq(m->gsu), clk);
    }
}

/* An SA-1 cartridge's registers and I-RAM (the SA-1 brought up to the access first). */
static uint8_t sa1_read(snes *m, uint32_t addr, uint64_t clk)
{
    snes_sa1_sync(m, clk);
    return snes_sa1_snes_read(m->sa1, (uint16_t)addr, snes_cpu_open_bus(&m->cpu));
}

static void sa1_write(snes *m, uint32_t addr, uint8_t v, uint64_t clk)
{
    snes_sa1_sync(m, clk);
    snes_sa1_snes_write(m->sa1, (uint16_t)addr, v, clk);
    snes_sa1_sync(m, clk);
}

static uint8_t slow_read(void *ctx, uint32_t addr, uint64_t *clk)
{
    snes *m = ctx;
    uint32_t lb = (addr >> 16) & 0x7F, a = addr & 0xFFFF;
    if (lb < 0x40 && a >= 0x2000 && a < 0x6000) {
        refresh_before(m, clk);
        uint64_t c0 = *clk;
        uint8_t v = m->gsu && a >= 0x3000 && a < 0x3500 ? gsu_read(m, addr, c0)
                  : m->sa1 && ((a >= 0x2200 && a < 0x2400) || (a >= 0x3000 && a < 0x3800)) ? sa1_read(m, addr, c0)
                  : io_read(m, addr, clk);
        *clk = c0 + (a >= 0x4000 && a < 0x4200 ? 12 : 6);
        return v;
    }
    *clk += 8;
    if (m->gsu)
        return gsu_read(m, addr, *clk);
    if (m->sa1)
        return snes_sa1_snes_mem_read(m->sa1, addr, snes_cpu_open_bus(&m->cpu));
    uint8_t *s = sram_at(m, addr);
    return s ? *s : snes_cpu_open_bus(&m->cpu);
}

static void slow_write(void *ctx, uint32_t addr, uint8_t v, uint64_t *clk)
{
    snes *m = ctx;
    uint32_t lb = (addr >> 16) & 0x7F, a = addr & 0xFFFF;
    if (lb < 0x40 && a >= 0x2000 && a < 0x6000) {
        refresh_before(m, clk);
        uint64_t c = *clk;
        if (m->gsu && a >= 0x3000 && a < 0x3500)
            gsu_write(m, addr, v, c);
        else if (m->sa1 && ((a >= 0x2200 && a < 0x2400) || (a >= 0x3000 && a < 0x3800)))
            sa1_write(m, addr, v, c);
        else
            io_write(m, addr, v, &c); /* DMA moves c on */
        *clk = c + (a >= 0x4000 && a < 0x4200 ? 12 : 6);
        return;
    }
    *clk += 8;
    if (m->sa1) {
        snes_sa1_snes_mem_write(m->sa1, addr, v);
        return;
    }
    uint8_t *s = sram_at(m, addr);
    if (s)
        *s = v;
}

/* ---- the machine ---------------------------------------------------------------------- */

gv_status snes_new(const snes_cart *cart, unsigned outputs, snes **out, gv_err *err)
{
    *out = NULL;
    snes *m = gv_aligned_alloc(sizeof *m);
    if (!m)
        return gv_fail(err, GV_ERR_ENV, "out of memory for a SNES machine");
    memset(m, 0, sizeof *m);
    m->cart = cart;
    m->ci = snes_cart_get_info(cart);
    m->msu = snes_cart_msu(cart);
    m->rom = snes_cart_rom(cart);
    const uint8_t *bus = snes_cart_bus(cart, &m->rom_map);
    m->rom_map = m->rom_map < 0x8000 ? 0x8000 : m->rom_map;
    m->romcopy = calloc(1, m->rom_map);
    m->sram_size = m->ci->sram_size;
    m->sram = m->sram_size ? calloc(1, m->sram_size) : NULL;
    if (m->ci->chip == SNES_CHIP_GSU && (m->gsu = calloc(1, sizeof *m->gsu)) != NULL && m->sram)
        snes_gsu_init(m->gsu, m->romcopy, m->rom_map, m->sram, m->sram_size, m->ci->rom_size > 0x100000 ? 4 : 1);
    if (m->ci->chip == SNES_CHIP_SA1 && (m->sa1 = calloc(1, sizeof *m->sa1)) != NULL && m->sram)
        snes_sa1_init(m->sa1, m->romcopy, m->rom_map, m->sram, m->sram_size);
    if (!m->romcopy || (m->sram_size && !m->sram) || (m->ci->chip == SNES_CHIP_GSU && !m->gsu) ||
        (m->ci->chip == SNES_CHIP_SA1 && !m->sa1)) {
        snes_free(m);
        return gv_fail(err, GV_ERR_ENV, "out of memory for a SNES machine");
    }
    size_t bs;
    snes_cart_bus(cart, &bs);
    for (size_t at = 0; at < m->rom_map; at += bs)
        memcpy(m->romcopy + at, bus, bs);
    m->outputs = outputs;
    if ((outputs & SNES_OUT_VIDEO_LOG) && !(m->vlog = calloc(1, sizeof *m->vlog))) {
        snes_free(m);
        return gv_fail(err, GV_ERR_ENV, "out of memory for a SNES machine");
    }
    m->bus.ctx = m;
    m->bus.read = slow_read;
    m->bus.write = slow_write;
    snes_power(m);
    *out = m;
    return GV_OK;
}

void snes_free(snes *m)
{
    if (!m)
        return;
    free(m->romcopy);
    free(m->sram);
    free(m->gsu);
    free(m->sa1);
    if (m->vlog)
        free(m->vlog->mw), free(m->vlog->mid);
    free(m->vlog);
    free(m);
}

/* CPU, PPU registers and sound to their reset state (WRAM and SRAM untouched). */
static void reset_common(snes *m, int power)
{
    uint64_t clk = m->cpu.s.clock, frame = m->s.frame;
    /* a new frame starts at the next line boundary */
    uint64_t start = (clk + SNES_LINE_CLOCKS - 1) / SNES_LINE_CLOCKS * SNES_LINE_CLOCKS;
    m->s.nmitimen = 0, m->s.wrio = 0xFF, m->s.hdmaen = 0, m->s.memsel = 0;
    m->s.nmi_flag = m->s.irq_flag = 0;
    m->s.htime = m->s.vtime = 0x1FF;
    m->s.wmadd = 0;
    m->s.vdisp = 225;
    m->s.frame = frame;
    m->s.frame_start = start;
    m->s.reset_phase = (uint16_t)start;
    m->s.joy_busy_until = 0;
    m->s.reset_frame = frame;
    memset(m->s.joy, 0, sizeof m->s.joy);
    memset(m->s.dma, 0xFF, sizeof m->s.dma);
    for (int ch = 0; ch < 8; ch++)
        m->s.dma[ch].do_transfer = 0, m->s.dma[ch].done = 1;
    if (power)
        snes_ppu_power(&m->s.ppu);
    else
        snes_ppu_reset(&m->s.ppu);
    m->vlog_snap = 1;
    m->refresh_at = UINT64_MAX;
    if (m->gsu)
        snes_gsu_reset(m->gsu, start);
    snes_msu_power(&m->s.msu);
    m->msu_mixed = 0;
    if (m->sa1)
        snes_sa1_reset(m->sa1, start);
    snes_map_pages(m);
    snes_cpu_state keep = m->cpu.s;
    snes_cpu_init(&m->cpu, &m->bus);
    m->cpu.s.r = keep.r;
    m->cpu.s.clock = start;
    snes_cpu_reset(&m->cpu);
    if (power) {
        uint64_t spc_cycles = snes_spc_time(start);
        snes_spc_power(&m->spc);
        m->spc.cycles = spc_cycles;
        m->spc.timer_time = spc_cycles;
    } else {
        snes_sync_spc(m, start);
        snes_spc_reset(&m->spc);
    }
    snes_dsp_power(&m->dsp, m->spc.ram);
    snes_dsp_attach(&m->dsp, &m->spc);
    m->dsp.env.out = m->dsp_out;
    m->dsp.env.out_cap = sizeof m->dsp_out / (2 * sizeof(int16_t));
}

void snes_power(snes *m)
{
    memset(&m->s, 0, sizeof m->s);
    memset(&m->cpu.s, 0, sizeof m->cpu.s);
    /* WRAM powers up holding a pattern no program may rely on: $55 here, every time */
    memset(m->s.wram, 0x55, sizeof m->s.wram);
    if (m->sram)
        memset(m->sram, 0, m->sram_size);
    m->audio_n = 0;
    memset(m->fb, 0, sizeof m->fb);
    m->lines = SNES_VH_STD, m->wide = m->il = 0;
    reset_common(m, 1);
}

void snes_reset(snes *m)
{
    reset_common(m, 0);
}

/* ---- the frame ------------------------------------------------------------------------ */

/* One trace line per instruction: PC, registers, flags and the master clock. */
static void trace_line(snes *m)
{
    snes_cpu_regs r;
    snes_cpu_get_regs(&m->cpu, &r);
    char buf[160];
    uint32_t pc = (uint32_t)r.pbr << 16 | r.pc;
    int n = snprintf(buf, sizeof buf,
                     "%06X %02X %02X %02X %02X A:%04X X:%04X Y:%04X S:%04X D:%04X DB:%02X P:%02X E:%u CLK:%llu", pc,
                     snes_peek(m, pc), snes_peek(m, (pc & 0xFF0000) | ((pc + 1) & 0xFFFF)),
                     snes_peek(m, (pc & 0xFF0000) | ((pc + 2) & 0xFFFF)),
                     snes_peek(m, (pc & 0xFF0000) | ((pc + 3) & 0xFFFF)), r.a, r.x, r.y, r.s, r.d, r.dbr, r.p, r.e,
                     (unsigned long long)m->cpu.s.clock);
    m->trace(m->trace_ctx, buf, (size_t)n);
}

static void cpu_run_to(snes *m, uint64_t t)
{
    if (!m->trace) {
        snes_cpu_run(&m->cpu, t);
        return;
    }
    while (m->cpu.s.clock < t && !m->cpu.yield) {
        if (m->cpu.s.waiting || m->cpu.s.stopped) {
            snes_cpu_run(&m->cpu, t);
            if (m->cpu.s.waiting || m->cpu.s.stopped)
                return;
            continue;
        }
        trace_line(m);
        snes_cpu_step(&m->cpu);
    }
}

/* Where on line `line` the H/V IRQ fires (a master clock offset), or -1 when it does not.
 * It comes 14 clocks after the start of dot HTIME, the dots counted as the H counter
 * counts them (323 and 327 are 6 clocks long), 10 for HTIME 0; for HTIME 337-339 that is past the line's
 * end, so it comes early on the next line (HTIME above 339 never matches). Dot 153 on the
 * frame's last line never triggers (Anomie's timing doc). */
static int32_t irq_pos(const snes *m, uint32_t line)
{
    uint8_t mode = (m->s.nmitimen >> 4) & 3;
    if (!mode)
        return -1;
    if (mode == 2) /* V only: at the start of line VTIME */
        return line == m->s.vtime ? 10 : -1;
    uint32_t h = m->s.htime;
    if (h >= 340)
        return -1;
    /* HTIME 0: 1374 clocks after dot 0 of the line before, i.e. 10 into this one, as a
     * V-IRQ (Anomie's timing doc); not 14 */
    int32_t p = h ? (int32_t)(h * 4 + (h > 323 ? 2 : 0) + (h > 327 ? 2 : 0) + 14) : 10;
    uint32_t vline = line, last = snes_frame_lines(&m->s) - 1;
    if (p >= SNES_LINE_CLOCKS) { /* the match was on the line before */
        p -= SNES_LINE_CLOCKS;
        if (line) {
            vline = line - 1;
        } else { /* the last line of the frame before (263 lines in interlace field 0) */
            last = SNES_LINES - 1 + ((m->s.ppu.setini & 1) && (m->s.frame & 1));
            vline = last;
        }
    }
    if (h == 153 && vline == last) /* never for dot 153 on a frame's last line */
        return -1;
    if (mode == 1) /* H only: every line */
        return p;
    return vline == m->s.vtime ? p : -1;
}

static void fire_irq(snes *m, uint64_t at)
{
    m->s.irq_flag = 1;
    snes_cpu_set_irq(&m->cpu, 1, at);
}

/* Vertical blank begins: the NMI flag, the NMI, auto joypad read, OAM address reload. */
static void vblank_start(snes *m, uint64_t t)
{
    m->s.nmi_flag = 1;
    if (m->s.nmitimen & 0x80)
        snes_cpu_set_nmi(&m->cpu, t);
    if (m->s.nmitimen & 1) {
        m->s.joy[0] = pad_bits(m->s.buttons);
        m->s.joy[1] = m->s.joy[2] = m->s.joy[3] = 0;
        m->s.joy_shift[0] = 0xFFFF, m->s.joy_shift[1] = 0xFFFF; /* read out by the auto-read */
        /* the read starts 256 clocks after the last one or a multiple of 256 more,
         * between dots 32.5 and 95.5; dot 74.5 on the first frame (Anomie's timing doc):
         * on a 256-clock grid from the reset (a 262-line frame is 248 clocks past a
         * multiple of 256, so 8 later each frame; a 263-line one 76) */
        uint32_t since = (uint32_t)(m->s.frame_start - m->s.reset_phase);
        m->s.joy_busy_until = t + 130 + ((168 - since) & 255) + SNES_JOY_CLOCKS;
    }
    if (!(m->s.ppu.inidisp & 0x80)) {
        m->s.ppu.oamadd = m->s.ppu.oam_reload;
    }
}

void snes_run_frame(snes *m)
{
    uint64_t fs = m->s.frame_start;
    m->dsp.env.out_n = 0;
    m->msu_mixed = 0;
    m->s.vdisp = m->s.ppu.setini & 4 ? 240 : 225;
    m->lines_drawn = 0;
    m->lines = (int)m->s.vdisp - 1;
    m->il = m->s.ppu.setini & 1;
    m->wide = 0;
    if (m->vlog) {
        snes_vlog *lg = m->vlog;
        lg->n = 0;
        lg->nsegs = lg->nregs = 0;
        lg->nmid = 0;
        lg->oom = 0;
        lg->snapshot = m->vlog_snap;
        if (m->vlog_snap) {
            memcpy(lg->snap.vram, m->s.ppu.vram, sizeof lg->snap.vram);
            memcpy(lg->snap.cgram, m->s.ppu.cgram, sizeof lg->snap.cgram);
            memcpy(lg->snap.oam, m->s.ppu.oam, sizeof lg->snap.oam);
            m->vlog_snap = 0;
        }
    }
    uint32_t line;
    for (line = 0; line < snes_frame_lines(&m->s); line++) {
        uint64_t ls = fs + (uint64_t)line * SNES_LINE_CLOCKS;
        if (line == 0) {
            m->s.nmi_flag = 0;
            m->s.ppu.stat_flags = 0;
            hdma_init(m);
        } else if (line == m->s.vdisp) {
            vblank_start(m, ls);
        }
        if (line >= 1 && line < m->s.vdisp) {
            int y = (int)line - 1;
            if (!m->wide && snes_hires(m->s.ppu.bgmode, m->s.ppu.setini)) {
                m->wide = 1; /* from here a 512-wide frame: the lines so far doubled */
                if (m->outputs & SNES_OUT_VIDEO)
                    snes_fb_widen(m->fb, m->il ? 2 * y : y);
            }
            snes_vregs_of(&m->s.ppu, &m->mid_regs);
            if (m->vlog) {
                vlog_line(m, y);
                m->mid_w0 = (uint32_t)m->vlog->n;
            }
            if (m->outputs & SNES_OUT_VIDEO)
                snes_ppu_draw_line(&m->s.ppu, &m->mid_regs, y, m->il, m->wide, m->fb);
            else
                snes_ppu_obj_flags(&m->s.ppu, y, m->il);
            m->lines_drawn++;
            m->mid_y = y, m->mid_ls = ls, m->mid_end = ls + SNES_HDMA_AT, m->mid_nundo = 0;
        }
        /* the refresh: 538 clocks in on the even lines since the reset, 534 on the odd */
        uint32_t pos = 0, refresh = (ls - m->s.reset_phase) & 4 ? SNES_REFRESH_AT - 2 : SNES_REFRESH_AT + 2;
        int hdma = line >= m->s.vdisp, irq = 0;
        m->refresh_at = ls + refresh;
        for (;;) {
            int32_t ip = irq ? -1 : irq_pos(m, line);
            uint32_t next = SNES_LINE_CLOCKS;
            if (m->refresh_at != UINT64_MAX && next > refresh)
                next = refresh;
            if (!hdma && next > SNES_HDMA_AT)
                next = SNES_HDMA_AT;
            if (ip >= (int32_t)pos && (uint32_t)ip < next)
                next = (uint32_t)ip;
            m->cpu.yield = 0;
            cpu_run_to(m, ls + next);
            if (m->gsu)
                snes_gsu_sync(m, m->cpu.s.clock);
            if (m->sa1)
                snes_sa1_sync(m, m->cpu.s.clock);
            if (m->cpu.yield && m->cpu.s.clock < ls + next) {
                /* a write moved the IRQ's position: look again from here (a position
                 * already passed does not fire) */
                pos = (uint32_t)(m->cpu.s.clock - ls);
                continue;
            }
            pos = next;
            if (next == SNES_LINE_CLOCKS)
                break;
            if (ip >= 0 && (uint32_t)ip == next) {
                irq = 1;
                fire_irq(m, ls + next);
            }
            if (m->refresh_at != UINT64_MAX && next == refresh) {
                m->refresh_at = UINT64_MAX;
                m->cpu.s.clock += SNES_REFRESH_CLOCKS;
            }
            if (!hdma && next == SNES_HDMA_AT) {
                hdma = 1;
                m->mid_end = 0; /* the line's picture is done */
                if (m->s.hdmaen)
                    hdma_line(m);
            }
        }
    }
    if (m->vlog)
        m->vlog->lines = m->lines, m->vlog->wide = m->wide, m->vlog->il = m->il;
    m->s.frame_start = fs + (uint64_t)line * SNES_LINE_CLOCKS;
    m->s.frame++;
    /* sound up to the frame's end, resampled to 48 kHz */
    snes_sync_spc(m, m->s.frame_start);
    snes_dsp_run(&m->dsp, m->spc.cycles);
    if (m->msu)
        msu_catch_up(m, m->s.frame_start);
    size_t n = m->dsp.env.out_n;
    m->audio_n = (int)snes_dsp_resample(&m->dsp.rs, m->dsp_out, n, m->audio);
    m->dsp.env.out_n = 0;
}

uint64_t snes_frame_count(const snes *m) { return m->s.frame; }
const uint8_t *snes_native_fb(const snes *m) { return m->fb; }
void snes_frame_size(const snes *m, int *w, int *h) { snes_frame_dims(m->lines, m->wide, m->il, w, h); }

const int16_t *snes_native_audio(const snes *m, int *n)
{
    *n = m->audio_n;
    return m->audio;
}

void snes_set_buttons(snes *m, uint16_t b) { m->s.buttons = b; }

void snes_set_trace(snes *m, emu_line_fn fn, void *ctx)
{
    m->trace = fn;
    m->trace_ctx = ctx;
}

gv_status snes_battery_get(const snes *m, uint8_t **data, size_t *len, gv_err *err)
{
    *data = NULL;
    *len = 0;
    if (!m->ci->has_battery)
        return GV_OK;
    if (!(*data = malloc(m->sram_size)))
        return gv_fail(err, GV_ERR_ENV, "out of memory for the battery RAM");
    memcpy(*data, m->sram, m->sram_size);
    *len = m->sram_size;
    return GV_OK;
}

gv_status snes_battery_set(snes *m, const uint8_t *data, size_t len, const char *name, gv_err *err)
{
    if (!m->ci->has_battery)
        return gv_fail(err, GV_ERR_INPUT, "%s: this cartridge has no battery-backed RAM", name);
    if (len != m->sram_size)
        return gv_fail(err, GV_ERR_INPUT, "%s: %zu bytes, but the cartridge's battery RAM has %zu", name, len,
                       m->sram_size);
    memcpy(m->sram, data, len);
    return GV_OK;
}
