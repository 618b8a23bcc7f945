/* snes_cpu.h: the SNES main CPU, a WDC 65C816 core (the 5A22's CPU), standalone.
 *
 * The core runs instructions against a bus until the master clock reaches a limit. It is
 * exact to the bus cycle: every cycle is a read, a write or an internal cycle at the
 * 24-bit address the chip puts out, in the chip's order (WDC W65C816S datasheet, table
 * 5-7), and each one advances the master clock by its length. On the SNES a bus cycle
 * lasts 6, 8 or 12 master clocks depending on the address, and an internal cycle 6; the
 * machine says which through the bus below. docs/SNES_65816.md has the details and the
 * sources.
 *
 * Two buses, one instruction set:
 *   - the fast bus: a table of 4 KiB pages over the 16 MiB space, each a pointer to the
 *     bytes to read, one to write (NULL: go through the slow callbacks) and the access
 *     length in master clocks; the slow callbacks serve I/O and unmapped pages, and may
 *     advance the clock further (DMA, wait states).
 *   - the reference (cycle) bus: one callback per cycle, reads, writes and internal
 *     cycles alike, with the VDA/VPA/VPB/MLB signals; it returns the cycle's length. The
 *     SingleStepTests runner and the tests that compare the two buses use it.
 * The instruction code is compiled once for each; snes_cpu_run picks by bus->cycle.
 *
 * Ownership: snes_cpu is plain data that the machine embeds; `s` is the whole state (a
 * save state is a memcpy of it). The bus belongs to the machine, which must keep it alive
 * while the CPU runs and rebuild it after loading a state. Nothing here allocates. */
#ifndef GV_EMU_SNES_SNES_CPU_H
#define GV_EMU_SNES_SNES_CPU_H

#include <stdint.h>

#define SNES_CPU_PAGE_SHIFT 12
#define SNES_CPU_PAGES 4096 /* 16 MiB in 4 KiB pages */

/* Processor status bits (native mode). In emulation mode bit 5 reads as 1 and bit 4 (the
 * "break" position) as 1; the core keeps both set, so m and x always say 8 bits there. */
enum {
    SNES_P_C = 0x01, SNES_P_Z = 0x02, SNES_P_I = 0x04, SNES_P_D = 0x08,
    SNES_P_X = 0x10, SNES_P_M = 0x20, SNES_P_V = 0x40, SNES_P_N = 0x80,
};

/* Signals of one bus cycle, as the reference bus reports them (the pins of the same
 * names; "active" is the chip's low level). An internal cycle has neither VDA nor VPA. */
enum {
    SNES_CYC_VDA = 0x01,   /* valid data address: data, pointer, stack, opcode */
    SNES_CYC_VPA = 0x02,   /* valid program address: opcode and operand bytes */
    SNES_CYC_VPB = 0x04,   /* vector pull */
    SNES_CYC_WRITE = 0x08, /* RWB low */
    SNES_CYC_MLB = 0x10,   /* memory lock: the cycles of a read-modify-write */
    SNES_CYC_E = 0x20,     /* the E pin: emulation mode during this cycle */
    SNES_CYC_M = 0x40,     /* the MX pin's M phase: m flag during this cycle */
    SNES_CYC_X = 0x80,     /* the MX pin's X phase: x flag during this cycle */
};

typedef struct {
    uint16_t a, x, y, s, d, pc; /* A is the 16-bit C (B:A); X, Y high bytes are 0 when x=1 */
    uint8_t dbr, pbr, p, e;     /* e: 1 in emulation mode */
} snes_cpu_regs;

/* One page of the fast bus. r and w point at byte 0 of the page (address & ~0xFFF);
 * NULL sends the access to the slow callback. len is the access length in master clocks
 * (6, 8 or 12 on the SNES) for fast accesses; slow accesses set their own. */
typedef struct {
    const uint8_t *r;
    uint8_t *w;
    uint32_t len;
    uint32_t pad;
} snes_cpu_page;

/* Slow read/write: addr is 24-bit; *clock is the master clock when the cycle starts,
 * which the callback must advance by the cycle's length (plus any stall it models). The
 * callback may change the page table and call snes_cpu_set_nmi/irq (the core looks at
 * both again after the current instruction). A read returns the byte on the data bus
 * (open bus: snes_cpu_open_bus gives the last byte the CPU saw). */
typedef uint8_t (*snes_cpu_read_fn)(void *ctx, uint32_t addr, uint64_t *clock);
typedef void (*snes_cpu_write_fn)(void *ctx, uint32_t addr, uint8_t v, uint64_t *clock);

/* Reference bus: called once per cycle. For a read (no SNES_CYC_WRITE and VDA, VPA or
 * VPB set) it stores the byte read in *v; for a write *v is the byte written; for an
 * internal cycle *v is untouched and must not be used. clock is the master clock at the
 * start of the cycle; returns the cycle's length in master clocks. */
typedef unsigned (*snes_cpu_cycle_fn)(void *ctx, uint32_t addr, uint8_t *v, unsigned flags, uint64_t clock);

typedef struct {
    snes_cpu_page page[SNES_CPU_PAGES];
    void *ctx;                 /* first argument of the callbacks */
    snes_cpu_read_fn read;     /* slow path of the fast bus (pages with r == NULL) */
    snes_cpu_write_fn write;   /* slow path of the fast bus (pages with w == NULL) */
    snes_cpu_cycle_fn cycle;   /* non-NULL: use the reference bus for everything */
} snes_cpu_bus;

/* Master clocks of an internal (IO) cycle on the fast bus. */
#define SNES_CPU_IO_CLOCKS 6

/* The state: plain data, memcpy'able. */
typedef struct {
    snes_cpu_regs r;
    uint32_t last_len;   /* master clocks of the last bus cycle (interrupt sampling) */
    uint8_t mdr;         /* last byte on the data bus (open bus) */
    uint8_t waiting;     /* WAI executed, no interrupt seen yet */
    uint8_t stopped;     /* STP executed: only a reset restarts the CPU */
    uint8_t nmi_pending; /* an NMI edge not yet serviced */
    uint8_t irq_line;    /* the IRQ input (level) */
    uint8_t pad[3];
    uint64_t clock;      /* master clocks since power-on */
    uint64_t nmi_at;     /* clock of the pending NMI edge */
    uint64_t irq_at;     /* clock at which the IRQ line last went active */
    uint64_t cycles;     /* CPU cycles executed (bus and internal), for statistics */
} snes_cpu_state;

typedef struct snes_cpu {
    snes_cpu_state s;
    const snes_cpu_bus *bus;
    /* the CPU cycle number (bus and internal cycles since power-on) of the access a bus
     * callback is serving: set before every callback, so that the machine can time the
     * hardware that counts CPU cycles whatever their length ($4202-$4206's arithmetic) */
    uint64_t cyc_now;
    /* set by a bus callback (the machine: a write that moves the H/V IRQ) to end
     * snes_cpu_run at the next instruction boundary, before its limit */
    uint8_t yield;
} snes_cpu;

/* Binds the CPU to a bus and clears the state (clock 0, all registers 0, emulation mode
 * bits as after reset but PC 0); call snes_cpu_reset before running. */
void snes_cpu_init(snes_cpu *c, const snes_cpu_bus *bus);

/* The RESB sequence: emulation mode, D=0, DBR=PBR=0, SH=$01, XH=YH=0, m=x=1, d=0, i=1
 * (datasheet 2.25; A, SL, XL, YL and n, v, z, c keep their values), WAI and STP cleared,
 * then PC from the vector at $00FFFC. Takes 7 cycles (2 internal at PBR:PC, 3 internal at
 * the stack, no writes: RWB stays high during reset; then the 2 vector reads). */
void snes_cpu_reset(snes_cpu *c);

/* Runs whole instructions (and interrupt entries) while the clock is below
 * until_master_clock (and yield is clear); the last one may end past it. Returns at once when stopped (STP);
 * while waiting (WAI) with no interrupt, the clock advances in internal cycles to the
 * limit. */
void snes_cpu_run(snes_cpu *c, uint64_t until_master_clock);

/* Runs exactly one instruction, or one interrupt entry if one is due (a WAI or STP CPU
 * does nothing and returns 0). Returns the CPU cycles it took. */
int snes_cpu_step(snes_cpu *c);

/* Interrupt inputs. at is the master clock of the change (the machine's event time; use
 * the CPU's clock when in doubt). The CPU samples its inputs at instruction boundaries: a
 * change counts for the boundary after an instruction if it came no later than the start
 * of that instruction's last bus cycle, else for the next boundary (datasheet: interrupts
 * are recognised before the last cycle of an instruction). NMI is an edge, latched until
 * serviced; IRQ is a level, serviced while active and the i flag is clear. */
void snes_cpu_set_nmi(snes_cpu *c, uint64_t at);
void snes_cpu_set_irq(snes_cpu *c, int level, uint64_t at);

void snes_cpu_get_regs(const snes_cpu *c, snes_cpu_regs *r);
/* Sets the registers, then applies the emulation-mode invariants when r->e is 1 (m=x=1,
 * XH=YH=0, SH=$01) and the x invariant (XH=YH=0 when x=1). */
void snes_cpu_set_regs(snes_cpu *c, const snes_cpu_regs *r);

/* The last byte on the data bus (what an unmapped read returns on the SNES). */
uint8_t snes_cpu_open_bus(const snes_cpu *c);

#endif
