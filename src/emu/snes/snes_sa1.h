/* snes_sa1.h: the SA-1 of a cartridge: a second 65C816 (our core, snes_cpu.h, with its own
 * bus) at 10.74 MHz, its 2 KiB I-RAM, the Super MMC (ROM banks CXB-FXB), BW-RAM (the
 * cartridge RAM) as both CPUs see it (BMAPS, BMAP, and the SA-1's bitmap view: banks
 * $60-$6F and BMAP bit 7, BBF), BW-RAM and I-RAM write protection (SBWE/CBWE with BWPA,
 * SIWP/CIWP), the control registers both ways (CCNT, SIE/SIC, SCNT, CIE/CIC, the messages,
 * the vector overrides CRV/CNV/CIV and SNV/SIV), the H/V timer (TMC, CTR, HCNT/VCNT, the
 * latch HCR/VCR, its IRQ), the arithmetic unit (MCNT: multiply, divide, cumulative sum), the
 * variable-length bit reader, the normal DMA and the character conversion DMA (type 1 from a
 * packed bitmap in BW-RAM as the SNES reads it, type 2 from BRF). docs/SNES.md says what is
 * modelled and what is not (bus conflicts and their wait states, DMA timing).
 *
 * Time: the SA-1's CPU counts its own clock in thirds of a master clock (an SA-1 cycle,
 * 2 master clocks, is 6 units, the core's internal cycle), so that its core needs no other
 * cycle length. The machine (snes_machine.c) owns one per SA-1 cartridge: it runs the SA-1
 * up to the SNES CPU's time whenever the SNES touches the chip's registers or I-RAM and
 * after each stretch of CPU time (the run stops at each timer IRQ on the way), rebuilds its
 * own page table when CXB-FXB, BMAPS, SBWE, BWPA or conversion type 1 change (bus_changed),
 * and ORs the SA-1's IRQ to the SNES into the SNES CPU's IRQ line. */
#ifndef GV_EMU_SNES_SNES_SA1_H
#define GV_EMU_SNES_SNES_SA1_H

#include <stddef.h>
#include <stdint.h>

#include "emu/snes/snes_cpu.h"

/* the SA-1's clock units per master clock */
#define SNES_SA1_UNITS 3u

typedef struct {
    uint8_t ccnt;            /* $2200: IRQ, wait, reset, NMI to the SA-1; message to the SA-1 */
    uint8_t sie, scnt, cie;  /* $2201, $2209, $220A */
    uint8_t sfr;             /* $2300 as the SNES reads it: bit 7 IRQ from the SA-1, bit 5 CC-DMA IRQ */
    uint8_t cfr;             /* $2301: bit 7 IRQ from the SNES, 6 timer, 5 DMA, 4 NMI */
    uint8_t mmc[4];          /* $2220-$2223 CXB-FXB */
    uint8_t bmaps, bmap, sbwe, cbwe, bwpa, siwp, ciwp; /* $2224-$222A */
    uint8_t mcnt, of;        /* $2250, $230B */
    uint8_t dcnt, cdma;      /* $2230, $2231 */
    uint8_t vbd, vbit;       /* $2258; the bit position (0-7) in the byte at va */
    uint8_t tmc, bbf;        /* $2210, $223F */
    uint8_t cc1;             /* 1 while character conversion type 1 serves the SNES */
    uint8_t cc_row;          /* character conversion type 2: the next row (0-15, two characters) */
    uint8_t pad0;
    uint16_t crv, cnv, civ, snv, siv; /* vectors */
    uint16_t ma, mb;         /* $2251-$2254 */
    uint16_t dtc, hcnt, vcnt;
    uint16_t hcr, vcr;       /* $2302-$2305: the timer as latched by reading $2302 */
    uint8_t brf[16];         /* $2240-$224F: two rows of pixels for conversion type 2 */
    uint32_t va;             /* $2259-$225B: the bit reader's byte address */
    uint32_t sda, dda;       /* $2232-$2237 */
    uint64_t mr;             /* $2306-$230A: the 40-bit result */
    uint64_t tbase;          /* the SA-1 clock (SNES_SA1_UNITS a master clock) at which the timer was 0 */
    snes_cpu_state cpu;      /* the SA-1's 65C816 (its clock in SNES_SA1_UNITS a master clock) */
    uint8_t iram[2048];
} snes_sa1_state;

typedef struct {
    snes_sa1_state s;
    snes_cpu cpu;            /* runs on bus; its state is copied to and from s.cpu by the state op */
    snes_cpu_bus bus;
    const uint8_t *rom;      /* the cartridge bus image */
    uint32_t rom_mask;       /* its size - 1 (a power of two) */
    uint8_t *bwram;          /* the cartridge RAM */
    uint32_t bw_mask;        /* its size - 1 (a power of two, at least 8 KiB - 1) */
    uint64_t twrite;         /* the SA-1 clock of its last write to a timer register */
    uint8_t bus_changed;     /* CXB-FXB, BMAPS, SBWE, BWPA or conversion type 1 changed: the SNES's page table is stale */
    uint8_t snes_irq_was;    /* the IRQ output to the SNES as last told */
} snes_sa1;

/* Binds the chip to the ROM's bus image (rom_size a power of two) and its BW-RAM (bw_size a
 * power of two, at least 8 KiB). */
void snes_sa1_init(snes_sa1 *a, const uint8_t *rom, size_t rom_size, uint8_t *bwram, size_t bw_size);
/* Power-on / reset at master clock clock: registers 0, the SA-1 CPU held in reset (CCNT $20),
 * Super MMC 0-3. */
void snes_sa1_reset(snes_sa1 *a, uint64_t clock);
/* Runs the SA-1 CPU up to master clock until (one held in reset or wait just moves on). */
void snes_sa1_run(snes_sa1 *a, uint64_t until);
/* The SNES CPU's accesses to $2200-$23FF and I-RAM $3000-$37FF (addr: the low 16 bits;
 * clock: the master clock of the access, the SA-1 already run up to it). */
uint8_t snes_sa1_snes_read(snes_sa1 *a, uint16_t addr, uint8_t open_bus);
void snes_sa1_snes_write(snes_sa1 *a, uint16_t addr, uint8_t v, uint64_t clock);
/* The SNES's ROM byte at 24-bit addr through the Super MMC, its vectors overridden by SNV
 * (SCNT bit 4) and SIV (SCNT bit 6). */
uint8_t snes_sa1_snes_rom(const snes_sa1 *a, uint32_t addr);
/* The SNES's accesses outside $2000-$5FFF that its page table leaves to the chip: the
 * vectors at $00:F000-$FFFF, BW-RAM while conversion type 1 serves it (banks $40-$4F) and
 * BW-RAM writes into the write-protected area (dropped unless SBWE allows them); anything
 * else reads open_bus. Also the SNES DMA's I-RAM writes ($3000-$37FF), which SIWP guards. */
uint8_t snes_sa1_snes_mem_read(snes_sa1 *a, uint32_t addr, uint8_t open_bus);
void snes_sa1_snes_mem_write(snes_sa1 *a, uint32_t addr, uint8_t v);
/* The limit of the BW-RAM write protection for a side whose enable register (SBWE or
 * CBWE) is we: offsets below it are protected (0 when the side may write everywhere). */
static inline uint32_t snes_sa1_bw_limit(const snes_sa1 *a, uint8_t we)
{
    return we & 0x80 ? 0 : 256u << (a->s.bwpa & 15);
}
/* The ROM offset (masked) of 24-bit addr in banks $00-$3F/$80-$BF:$8000-$FFFF or $C0-$FF. */
uint32_t snes_sa1_rom_offset(const snes_sa1 *a, uint32_t addr);
/* Rebuilds the SA-1's own page table (after a state load). */
void snes_sa1_map(snes_sa1 *a);
/* Memory checks of a state about to be loaded: 0 when usable. */
int snes_sa1_state_bad(const snes_sa1_state *s);

/* The IRQ output to the SNES: SFR bit 7 with SIE bit 7, bit 5 with SIE bit 5. */
static inline int snes_sa1_snes_irq(const snes_sa1 *a) { return (a->s.sfr & a->s.sie & 0xA0) != 0; }

#endif
