/* snes_gsu.h: the Super FX (GSU-1/GSU-2, "Mario Chip") of a cartridge: the 16-register
 * RISC core with its one-byte opcode prefetch, the 512-byte code cache, the ROM read buffer
 * (R14), the RAM address register (SBK), PLOT/RPIX with the pixel cache into the bitplane
 * formats the SCMR/POR registers choose, and the registers the SNES CPU sees at
 * $3000-$34FF. docs/SNES.md says what is modelled and which timing approximation is used.
 *
 * The machine (snes_machine.c) owns one per GSU cartridge: it runs the GSU up to the CPU's
 * time whenever the CPU touches the chip and after each stretch of CPU time, rebuilds its
 * page table when the bus ownership changes (GO with RON/RAN), and ORs the GSU's IRQ output
 * into the CPU's IRQ line. The state is plain data (save states). */
#ifndef GV_EMU_SNES_SNES_GSU_H
#define GV_EMU_SNES_SNES_GSU_H

#include <stddef.h>
#include <stdint.h>

/* SFR bits */
enum {
    GSU_Z = 0x0002, GSU_CY = 0x0004, GSU_S = 0x0008, GSU_OV = 0x0010, GSU_GO = 0x0020,
    GSU_ALT1 = 0x0100, GSU_ALT2 = 0x0200, GSU_B = 0x1000, GSU_IRQ = 0x8000,
};

typedef struct {
    uint16_t r[16];
    uint16_t sfr;            /* status/flags ($3030/$3031) */
    uint16_t cbr;            /* cache base (upper 12 bits) */
    uint16_t ramaddr;        /* the RAM address the last load or store used (SBK) */
    uint8_t pbr, rombr, rambr, cfgr, scbr, clsr, scmr, bramr;
    uint8_t colr, por;       /* COLOR and CMODE's registers */
    uint8_t sreg, dreg;      /* FROM/TO prefix selections (0-15) */
    uint8_t pipe;            /* the opcode byte fetched ahead; R15 points past it */
    uint8_t refill;          /* started by the SNES: the prefetch is still to be made */
    uint8_t rombuf;          /* the ROM read buffer: [ROMBR:R14] as loaded when R14 changed */
    uint8_t latch;           /* the SNES's low byte of a register write (even address) */
    uint8_t vcr;             /* version code ($303B) */
    uint8_t px_x, px_y, px_mask; /* pixel cache: the row (X & F8, Y) and its plotted pixels (bit 7: X&7 = 0) */
    uint8_t px_col[8];
    uint32_t cache_lines;    /* bit n: code cache line n (16 bytes) is loaded */
    uint32_t pad;
    uint64_t clock;          /* the master clock the GSU has run to */
    uint64_t stop_at;        /* the master clock of the last STOP */
    uint64_t rombuf_at;      /* the master clock at which the ROM buffer holds its byte */
    uint8_t cache[512];      /* code cache RAM ($3100-$32FF) */
} snes_gsu_state;

typedef struct {
    snes_gsu_state s;
    const uint8_t *rom;      /* the cartridge bus image */
    uint32_t rom_mask;       /* its size - 1 (a power of two) */
    uint8_t *ram;            /* Game Pak RAM */
    uint32_t ram_mask;       /* its size - 1 (a power of two) */
    uint32_t cyc;            /* GSU cycles of the instruction under way */
    uint8_t r15_set;         /* the instruction wrote R15: no increment */
    uint8_t bus_changed;     /* GO, RON or RAN changed: the SNES's page table is stale */
} snes_gsu;

/* Binds the chip to the ROM's bus image (rom_size a power of two) and its RAM (ram_size a
 * power of two, at least 8 KiB); vcr: the version code ($303B: 1 GSU-1, 4 GSU-2). */
void snes_gsu_init(snes_gsu *g, const uint8_t *rom, size_t rom_size, uint8_t *ram, size_t ram_size, uint8_t vcr);
/* Power-on / reset: registers 0, stopped, cache empty; its clock set to clock. */
void snes_gsu_reset(snes_gsu *g, uint64_t clock);
/* Runs the GSU (while GO) up to master clock until; a stopped GSU's clock just moves on. */
void snes_gsu_run(snes_gsu *g, uint64_t until);
/* The SNES CPU's accesses to $3000-$34FF (addr: the low 16 bits). */
uint8_t snes_gsu_io_read(snes_gsu *g, uint16_t addr, uint8_t open_bus);
void snes_gsu_io_write(snes_gsu *g, uint16_t addr, uint8_t v);
/* What the SNES reads from ROM while the GSU owns it: fixed bytes by the address's low
 * nibble (the exception vectors point to $0100-$010C in WRAM). */
uint8_t snes_gsu_rom_dummy(uint16_t addr);
/* Memory checks of a state about to be loaded: 0 when usable. */
int snes_gsu_state_bad(const snes_gsu_state *s);

static inline int snes_gsu_owns_rom(const snes_gsu *g) { return (g->s.sfr & GSU_GO) && (g->s.scmr & 0x10); }
static inline int snes_gsu_owns_ram(const snes_gsu *g) { return (g->s.sfr & GSU_GO) && (g->s.scmr & 0x08); }
/* The IRQ output to the SNES: set by STOP, cleared by reading $3031, masked by CFGR bit 7. */
static inline int snes_gsu_irq(const snes_gsu *g) { return (g->s.sfr & GSU_IRQ) && !(g->s.cfgr & 0x80); }

#endif
