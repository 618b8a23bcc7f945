/* snes_spc.h: the SNES sound CPU side (the S-SMP): the SPC700 core, its 64 KiB of audio RAM,
 * the I/O registers at $00F0-$00FF (TEST, CONTROL, the S-DSP address/data pair, the four
 * ports to the main CPU, two RAM-like registers, three timers) and our own 64-byte IPL boot
 * ROM at $FFC0-$FFFF. The S-DSP is not here: $F2/$F3 reach a 128-byte register file that a
 * hook can replace (snes_spc_dsp_hook).
 *
 * Time is counted in SPC700 cycles (1.024 MHz) in s->cycles, from 0 at power-on. Every cycle
 * is one bus event: a read, a write or an idle cycle, at the address and in the order the real
 * chip uses (docs/SNES_SPC700.md has the table). snes_spc_run executes whole instructions
 * until s->cycles reaches a target, so it can end up to 11 cycles past it (DIV takes 12);
 * the ports carry timestamps so that the main CPU still sees the SPC's writes at the right
 * cycle (snes_spc_port_read_at) and the SPC sees the main CPU's writes no earlier than their
 * time (snes_spc_port_write_at).
 *
 * The state is one plain struct with no pointers into itself: everything before `env` is the
 * machine (SNES_SPC_STATE_BYTES bytes, copied whole by save states); `env` holds what the
 * caller attaches (the DSP hook, the bus log) and is never part of a state.
 *
 * Two paths run the same instruction code: the fast path reads and writes ARAM directly and
 * calls the bus only for $00F0-$00FF and the IPL area; the reference path sends every cycle
 * through one bus function (snes_spc_bus_read/write/idle) and can log it. Tests run both. */
#ifndef GV_EMU_SNES_SNES_SPC_H
#define GV_EMU_SNES_SNES_SPC_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"

/* PSW bits: N V P B H I Z C. P selects the direct page ($0000 or $0100). */
enum {
    SNES_SPC_C = 0x01, SNES_SPC_Z = 0x02, SNES_SPC_I = 0x04, SNES_SPC_H = 0x08,
    SNES_SPC_B = 0x10, SNES_SPC_P = 0x20, SNES_SPC_V = 0x40, SNES_SPC_N = 0x80,
};

/* Stage-1 timer periods in SPC cycles: T0 and T1 tick at 8 kHz, T2 at 64 kHz. */
enum { SNES_SPC_T01_PERIOD = 128, SNES_SPC_T2_PERIOD = 16 };

/* One bus cycle, as logged by the reference path. */
typedef enum { SNES_SPC_BUS_READ = 1, SNES_SPC_BUS_WRITE = 2, SNES_SPC_BUS_IDLE = 3 } snes_spc_bus_kind;
typedef struct {
    uint16_t addr; /* 0 for idle cycles */
    uint8_t val;   /* the byte read or written; 0 for idle cycles */
    uint8_t kind;  /* snes_spc_bus_kind */
} snes_spc_bus;

/* The S-DSP side of $F2/$F3. With no hook the SPC keeps a 128-byte register file (s->dsp);
 * the S-DSP replaces it by setting read and write, which then get every access with the SPC
 * cycle it happens in. reg is 0-$7F; writes with DSPADDR >= $80 never reach the hook. */
typedef struct {
    uint8_t (*read)(void *ctx, uint8_t reg, uint64_t cycle);
    void (*write)(void *ctx, uint8_t reg, uint8_t v, uint64_t cycle);
    void *ctx;
} snes_spc_dsp_hook;

typedef struct {
    uint8_t target; /* TnTARGET ($FA-$FC): 0 means 256 */
    uint8_t stage2; /* the 0-255 divider counter */
    uint8_t out;    /* TnOUT ($FD-$FF): 4-bit up-counter, cleared when read */
    uint8_t on;     /* CONTROL bit n */
} snes_spc_timer;

/* A main-CPU write to a port that the SPC has not reached yet (see snes_spc_port_write_at). */
typedef struct {
    uint64_t time;
    uint8_t port, val;
    uint8_t pad_[6];          /* explicit, always 0: a state image has no undefined bytes */
} snes_spc_port_event;

#define SNES_SPC_PORT_QUEUE 16

/* The fields are ordered so that the compiler adds no padding (snes_spc.c checks it). */
typedef struct snes_spc {
    /* ---- the machine (SNES_SPC_STATE_BYTES bytes from here) ---- */
    uint64_t cycles;          /* SPC cycles since power-on */
    uint64_t timer_time;      /* the timers are up to date for ticks at cycles <= this */
    uint64_t timer_lag;       /* cycles the timers' clock was held by TEST: stage 1 runs on
                               * cycles - timer_lag */
    uint64_t out_time[4];     /* the cycle of the SPC's last write to each output port ... */
    snes_spc_port_event inq[SNES_SPC_PORT_QUEUE]; /* pending main-CPU writes, oldest first */
    uint32_t inq_n;
    uint32_t ipl_base;        /* $FFC0 while CONTROL bit 7 maps the IPL ROM, else $10000 */
    uint16_t pc;
    uint8_t a, x, y, sp, psw;
    uint8_t halted;           /* 1 after SLEEP or STOP: only reset resumes */
    uint8_t flat;             /* test mode: all 64 KiB are RAM (no I/O, no IPL) */
    uint8_t test;             /* $F0 */
    uint8_t control;          /* $F1 */
    uint8_t dspaddr;          /* $F2 */
    uint8_t ram_write;        /* TEST bit 1: ARAM takes writes */
    uint8_t timers_run;       /* TEST bits 3 and 0 are 1 and 0: the timers count */
    uint8_t aux[2];           /* $F8, $F9 */
    uint8_t cpu_in[4];        /* main CPU -> SPC: read at $F4-$F7 */
    uint8_t cpu_out[4];       /* SPC -> main CPU: written at $F4-$F7 */
    uint8_t out_prev[4];      /* ... and each output port's value before that write */
    snes_spc_timer timer[3];
    uint8_t dsp[128];         /* S-DSP register file while no hook is attached */
    uint8_t ram[65536];       /* ARAM */

    /* ---- the environment: set by the caller, never saved ---- */
    struct {
        snes_spc_dsp_hook dsp;
        snes_spc_bus *log;    /* reference-path bus log: log[log_n++] per cycle while log_n < log_cap */
        size_t log_cap, log_n;
        int reference;        /* 1: always run the reference path (also implied by log) */
    } env;
} snes_spc;

#define SNES_SPC_STATE_BYTES offsetof(snes_spc, env)

/* Our IPL ROM (64 bytes, mapped at $FFC0-$FFFF while CONTROL bit 7 is set), assembled from
 * src/emu/snes/snes_ipl.s; a test checks that these bytes are what our assembler makes. */
extern const uint8_t snes_spc_ipl_rom[64];

/* Power-on: everything zeroed (ARAM too: real ARAM powers up holding a pattern no program
 * may rely on), env cleared, TEST = $0A, TnTARGET = 0; then snes_spc_reset, after which the
 * three TnOUT read $F as documented for power-on. s need not be initialised. */
void snes_spc_power(snes_spc *s);
/* The reset line: CONTROL = $B0 (IPL mapped, both port pairs cleared), the four input and
 * output ports zero, timers stopped with TnOUT = 0 (targets kept), DSPADDR 0, registers
 * A = X = Y = SP = PSW = 0, PC from the reset vector at $FFFE (our IPL: $FFC0). ARAM, the
 * cycle counter and env are kept. */
void snes_spc_reset(snes_spc *s);
/* Test mode: with flat set, every address is plain RAM (no I/O registers, no IPL ROM), as
 * in the SingleStepTests set. */
void snes_spc_set_flat(snes_spc *s, int flat);

/* Runs whole instructions until s->cycles >= until (nothing when it already is). After
 * SLEEP or STOP the CPU is halted: time still advances, two cycles per halted step (a read
 * of PC, an idle cycle). */
void snes_spc_run(snes_spc *s, uint64_t until);
/* Runs one instruction (or one halted step); returns the cycles it took. */
int snes_spc_step(snes_spc *s);

/* The main CPU's side of the ports ($2140-$2143, port 0-3).
 * port_read: the value the SPC last wrote (at s->cycles).
 * port_read_at: the value the main CPU sees at SPC cycle `when`: a write the SPC made in
 *   cycle k is seen when k < when. Exact as long as the SPC has not written that port
 *   twice at or after `when` (it never does when it was run to `when` just before: only
 *   the last instruction can pass `when`, and no instruction writes a port twice).
 * port_write: the SPC sees v from its next cycle on.
 * port_write_at: the SPC sees v in cycles >= when; a `when` the SPC has already passed
 *   takes effect now. Writes wait in a queue of SNES_SPC_PORT_QUEUE; when it is full the
 *   oldest one takes effect at once. Calls must come in non-decreasing `when` order. */
uint8_t snes_spc_port_read(const snes_spc *s, int port);
uint8_t snes_spc_port_read_at(const snes_spc *s, int port, uint64_t when);
void snes_spc_port_write(snes_spc *s, int port, uint8_t v);
void snes_spc_port_write_at(snes_spc *s, int port, uint8_t v, uint64_t when);

/* The bus as the CPU sees it, for tests and debuggers: peek has no side effects (timer
 * counters are not cleared, the DSP hook is not called); poke writes ARAM only. */
uint8_t snes_spc_peek(const snes_spc *s, uint16_t addr);
void snes_spc_poke(snes_spc *s, uint16_t addr, uint8_t v);

/* One bus cycle at cycle `cycle`, with every side effect (timer counters cleared on read,
 * port queue, DSP hook, CONTROL); the reference path uses nothing else, the fast path uses
 * them for $00F0-$00FF and the IPL area. They log when env.log is set. psw is the CPU's
 * flags (writes to TEST are ignored while P is set). */
uint8_t snes_spc_bus_read(snes_spc *s, uint16_t addr, uint64_t cycle);
void snes_spc_bus_write(snes_spc *s, uint16_t addr, uint8_t v, uint64_t cycle, uint8_t psw);
void snes_spc_bus_idle(snes_spc *s);

/* Save states: the whole machine in SNES_SPC_STATE_BYTES bytes. Loading checks the size and
 * the invariants (ipl_base agrees with CONTROL, inq_n in range): bad data is GV_ERR_INPUT
 * and leaves s untouched. env is kept. */
void snes_spc_state_save(const snes_spc *s, uint8_t *buf /* SNES_SPC_STATE_BYTES */);
gv_status snes_spc_state_load(snes_spc *s, const uint8_t *buf, size_t len, gv_err *err);

#endif
