/* snes_spc.c: the S-SMP: SPC700 instruction set with its exact bus cycles, ARAM, the I/O
 * registers $00F0-$00FF and the IPL ROM mapping. One instruction body serves two paths
 * (see snes_spc.h): run_core is expanded once with `ref` = 0 (ARAM accessed in place, the
 * bus functions only for $00F0-$00FF and the IPL area) and once with `ref` = 1 (every cycle
 * through snes_spc_bus_*, which can log it). The per-cycle pattern of every opcode is listed
 * in docs/SNES_SPC700.md; F is an opcode/operand fetch, D a dummy read of PC (PC not
 * advanced), I an idle cycle, R/W a data read/write.
 *
 * Timers are brought up to date lazily: only reads of $FD-$FF and writes to $F0/$F1/$FA-$FC
 * can observe or change them, and timer_sync computes the stage-1 ticks since the last sync
 * in closed form. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/hd.h"
#include "emu/snes/snes_spc.h"

/* The state has no padding: every byte of a saved image is defined. */
_Static_assert(offsetof(snes_spc, pc) == offsetof(snes_spc, ipl_base) + 4 &&
                   offsetof(snes_spc, timer) + sizeof(snes_spc_timer) * 3 == offsetof(snes_spc, dsp) &&
                   offsetof(snes_spc, dsp) % 8 == 0 && offsetof(snes_spc, ram) + 65536 == SNES_SPC_STATE_BYTES &&
                   sizeof(snes_spc_port_event) == 16 && sizeof(snes_spc_timer) == 4,
               "snes_spc has padding");

enum { FC = SNES_SPC_C, FZ = SNES_SPC_Z, FI = SNES_SPC_I, FH = SNES_SPC_H,
       FB = SNES_SPC_B, FP = SNES_SPC_P, FV = SNES_SPC_V, FN = SNES_SPC_N };

/* Our IPL ROM: the bytes of src/emu/snes/snes_ipl.s as assembled by our ca65 macro pack
 * (src/emu/snes/spc700.inc). test_snes_spc assembles the source and compares. */
const uint8_t snes_spc_ipl_rom[64] = {
    0xCD, 0xEF, 0xBD, 0x3D, 0xE8, 0x00, 0x1D, 0xC6, 0xD0, 0xFC, 0xE8, 0xAA, 0x8D, 0xBB, 0xDA, 0xF4,
    0xE8, 0xCC, 0x2E, 0xF4, 0xFD, 0xBA, 0xF6, 0xDA, 0x00, 0xBA, 0xF4, 0xC4, 0xF4, 0xDD, 0xF0, 0x1A,
    0xE4, 0xF4, 0xD0, 0xFC, 0xFD, 0xE4, 0xF5, 0xCB, 0xF4, 0xC7, 0x00, 0x3A, 0x00, 0xFC, 0x7E, 0xF4,
    0xF0, 0xF3, 0x10, 0xFA, 0x7E, 0xF4, 0x10, 0xF6, 0x2F, 0xDB, 0x60, 0x1F, 0x00, 0x00, 0xC0, 0xFF,
};

/* ---- timers --------------------------------------------------------------------------- */

static const uint32_t timer_period[3] = {SNES_SPC_T01_PERIOD, SNES_SPC_T01_PERIOD, SNES_SPC_T2_PERIOD};

/* Advances one timer by n stage-1 ticks. Each tick increments stage 2 (8 bits, wrapping);
 * when the new value equals TnTARGET (0 standing for 256) stage 3 counts up and stage 2
 * returns to 0. The first match comes after ((target - stage2 - 1) & 255) + 1 ticks (a full
 * wrap when the target was set at or below the counter), then every `target` ticks. */
static void timer_ticks(snes_spc_timer *t, uint64_t n)
{
    uint32_t first = ((uint32_t)(t->target - t->stage2 - 1) & 255) + 1;
    if (n < first) {
        t->stage2 = (uint8_t)(t->stage2 + n);
        return;
    }
    uint32_t every = t->target ? t->target : 256;
    uint64_t rest = n - first;
    t->out = (uint8_t)((t->out + 1 + rest / every) & 15);
    t->stage2 = (uint8_t)(rest % every);
}

/* Brings the timers up to cycle `now`: stage 1 of timer n ticks whenever the timers' clock
 * (the cycle counter less the cycles TEST held it) reaches a multiple of its period; an
 * access made in cycle k sees the ticks at cycles <= k. Stage 1 runs unless TEST stops the
 * timers (bit 3 clear or bit 0 set), which holds the clock itself: the ticks come later by
 * the time it was held (fullsnes "Low Level Timings": the timers tick in step with the
 * S-DSP "unless one pauses the SPC Timers via TEST register"; anomie's SPC700 document:
 * TEST changes the sync between the S-DSP's samples and the timer ticks). Stage 2 counts
 * only while the timer is enabled in CONTROL. */
static void timer_sync(snes_spc *s, uint64_t now)
{
    uint64_t last = s->timer_time;
    if (now <= last)
        return;
    s->timer_time = now;
    if (!s->timers_run) {
        s->timer_lag += now - last;
        return;
    }
    last -= s->timer_lag;
    now -= s->timer_lag;
    for (int i = 0; i < 3; i++) {
        snes_spc_timer *t = &s->timer[i];
        if (!t->on)
            continue;
        uint64_t n = now / timer_period[i] - last / timer_period[i];
        if (n)
            timer_ticks(t, n);
    }
}

/* ---- the bus --------------------------------------------------------------------------- */

static void log_cycle(snes_spc *s, uint16_t addr, uint8_t v, uint8_t kind)
{
    if (s->env.log_n < s->env.log_cap) {
        snes_spc_bus *b = &s->env.log[s->env.log_n++];
        b->addr = addr;
        b->val = v;
        b->kind = kind;
    }
}

/* Main-CPU writes whose time has come (time <= cycle) reach the input ports. */
static void port_apply(snes_spc *s, uint64_t cycle)
{
    uint32_t i = 0;
    while (i < s->inq_n && s->inq[i].time <= cycle) {
        s->cpu_in[s->inq[i].port] = s->inq[i].val;
        i++;
    }
    if (i) {
        memmove(s->inq, s->inq + i, (s->inq_n - i) * sizeof s->inq[0]);
        s->inq_n -= i;
    }
}

static uint8_t io_read(snes_spc *s, uint16_t addr, uint64_t cycle)
{
    switch (addr) {
    case 0xF0: case 0xF1:              /* TEST, CONTROL: write-only, read as 0 */
    case 0xFA: case 0xFB: case 0xFC:   /* TnTARGET: write-only */
        return 0;
    case 0xF2:
        return s->dspaddr;
    case 0xF3: {                       /* DSP register at DSPADDR & $7F */
        uint8_t r = s->dspaddr & 0x7F;
        return s->env.dsp.read ? s->env.dsp.read(s->env.dsp.ctx, r, cycle) : s->dsp[r];
    }
    case 0xF4: case 0xF5: case 0xF6: case 0xF7:
        if (s->inq_n)
            port_apply(s, cycle);
        return s->cpu_in[addr - 0xF4];
    case 0xF8: case 0xF9:
        return s->aux[addr - 0xF8];
    default: {                         /* $FD-$FF: TnOUT, cleared by the read */
        snes_spc_timer *t = &s->timer[addr - 0xFD];
        timer_sync(s, cycle);
        uint8_t v = t->out;
        t->out = 0;
        return v;
    }
    }
}

static void io_write(snes_spc *s, uint16_t addr, uint8_t v, uint64_t cycle, uint8_t psw)
{
    switch (addr) {
    case 0xF0:                         /* TEST: ignored while P is set */
        if (psw & FP)
            return;
        timer_sync(s, cycle);
        s->test = v;
        s->ram_write = (v >> 1) & 1;
        s->timers_run = (v & 0x09) == 0x08;
        return;
    case 0xF1:                         /* CONTROL */
        timer_sync(s, cycle);
        if ((v & 0x30) && s->inq_n)
            port_apply(s, cycle);      /* main-CPU writes due before the clear */
        for (int i = 0; i < 3; i++) {
            int on = (v >> i) & 1;
            if (on && !s->timer[i].on) { /* 0 -> 1 resets stages 2 and 3 */
                s->timer[i].stage2 = 0;
                s->timer[i].out = 0;
            }
            s->timer[i].on = (uint8_t)on;
        }
        if (v & 0x10) /* clear input ports 0/1 (whenever a 1 is written) */
            s->cpu_in[0] = s->cpu_in[1] = 0;
        if (v & 0x20) /* clear input ports 2/3 */
            s->cpu_in[2] = s->cpu_in[3] = 0;
        s->control = v;
        s->ipl_base = (v & 0x80) ? 0xFFC0 : 0x10000;
        return;
    case 0xF2:
        s->dspaddr = v;
        return;
    case 0xF3:                         /* writes with DSPADDR >= $80 are ignored */
        if (s->dspaddr < 0x80) {
            if (s->env.dsp.write)
                s->env.dsp.write(s->env.dsp.ctx, s->dspaddr, v, cycle);
            else
                s->dsp[s->dspaddr] = v;
        }
        return;
    case 0xF4: case 0xF5: case 0xF6: case 0xF7: {
        int p = addr - 0xF4;
        s->out_prev[p] = s->cpu_out[p];
        s->cpu_out[p] = v;
        s->out_time[p] = cycle;
        return;
    }
    case 0xF8: case 0xF9:
        s->aux[addr - 0xF8] = v;
        return;
    case 0xFA: case 0xFB: case 0xFC:
        timer_sync(s, cycle);
        s->timer[addr - 0xFA].target = v;
        return;
    default:                           /* TnOUT: writes have no effect */
        return;
    }
}

/* Not inlined into the run loop: the fast path calls it only off its hot path. */
__attribute__((noinline)) uint8_t snes_spc_bus_read(snes_spc *s, uint16_t addr, uint64_t cycle)
{
    uint8_t v;
    if (s->flat)
        v = s->ram[addr];
    else if ((uint16_t)(addr - 0xF0) < 0x10)
        v = io_read(s, addr, cycle);
    else if (addr >= s->ipl_base)
        v = snes_spc_ipl_rom[addr & 0x3F];
    else
        v = s->ram[addr];
    if (s->env.log)
        log_cycle(s, addr, v, SNES_SPC_BUS_READ);
    return v;
}

/* Writes reach ARAM at every address, the IPL area and $F0-$FF included (those registers
 * are an overlay: reads see the register, the RAM below still takes the write), unless
 * TEST bit 1 is clear, which leaves only the registers writable. */
__attribute__((noinline)) void snes_spc_bus_write(snes_spc *s, uint16_t addr, uint8_t v, uint64_t cycle,
                                                  uint8_t psw)
{
    if (s->env.log)
        log_cycle(s, addr, v, SNES_SPC_BUS_WRITE);
    if (s->flat) {
        s->ram[addr] = v;
        return;
    }
    if (s->ram_write)
        s->ram[addr] = v;
    if ((uint16_t)(addr - 0xF0) < 0x10)
        io_write(s, addr, v, cycle, psw);
}

void snes_spc_bus_idle(snes_spc *s)
{
    if (s->env.log)
        log_cycle(s, 0, 0, SNES_SPC_BUS_IDLE);
}

/* ---- the CPU ---------------------------------------------------------------------------- */

/* The run loop keeps the registers and the clock in this struct, which the compiler holds in
 * registers (its address never escapes run_core): going through snes_spc would reload them
 * after every ARAM store, since a byte store may alias anything. */
typedef struct {
    snes_spc *s;
    uint8_t *ram;
    uint64_t cyc;
    uint64_t until;    /* the run's target; the fast path sets it to 0 to stop (TEST waits) */
    uint32_t ipl_base; /* copy of s->ipl_base, refreshed after every bus write */
    uint8_t ram_write; /* copy of s->ram_write, likewise */
    uint8_t w_ram, w_io; /* reference path: TEST's wait cycles on RAM and on I/O-ROM accesses */
    uint8_t io_left;   /* reference path: internal cycles of this opcode still on I/O timing */
    uint16_t pc;
    uint8_t a, x, y, sp, psw, halted;
} cpu;

/* TEST bits 4-5 (RAM) and 6-7 (I/O and ROM): 0, 1, 4 or 9 wait cycles on an access (fullsnes
 * "SPC700 I/O Ports"); internal cycles wait as RAM or as I/O accesses, per opcode below. */
static const uint8_t test_waits[4] = {0, 1, 4, 9};

/* How many internal cycles (D and I in the bus table) of each opcode wait as I/O accesses; the
 * rest wait as RAM accesses (fullsnes "SPC700 Waitstates on Internal Cycles"). The document
 * lists what was measured with flags and memory zero, so the branches that were taken there
 * (BPL BVC BCC BNE, BRA, BBC, CBNE, DBNZ) include their two taken-branch cycles; here those
 * entries are 2 less, and a taken branch adds its two idle cycles as I/O ones (the document's
 * rule: "for conditional jumps (with condition=true), add 2"). */
static const uint8_t io_internal[256] = {
    0,3,0,1,0,0,0,1,0,0,1,0,0,1,0,2, 0,3,0,1,1,1,1,1,0,0,0,1,0,0,0,1, /* 00-1F */
    0,3,0,1,0,0,0,1,0,0,1,0,0,1,1,0, 0,3,0,1,1,1,1,1,0,0,0,1,0,0,0,3, /* 20-3F */
    0,3,0,1,0,0,0,1,0,0,0,0,0,1,0,3, 0,3,0,1,1,1,1,1,0,0,0,1,0,0,0,0, /* 40-5F */
    0,3,0,1,0,0,0,1,0,1,0,0,0,1,0,1, 0,3,0,1,1,1,1,1,1,1,1,1,0,0,0,1, /* 60-7F */
    0,3,0,1,0,0,0,1,0,0,1,0,0,0,1,0, 0,3,0,1,1,1,1,1,0,0,1,1,0,0,10,3, /* 80-9F */
    1,3,0,1,0,0,0,1,0,0,0,0,0,0,1,1, 0,3,0,1,1,1,1,1,0,0,1,1,0,0,1,1, /* A0-BF */
    1,3,0,1,0,0,0,1,0,0,1,0,0,0,1,7, 0,3,0,1,1,1,1,1,0,1,0,1,0,0,2,1, /* C0-DF */
    0,3,0,1,0,0,0,1,0,0,0,0,0,1,1,0, 0,3,0,1,1,1,1,1,0,1,0,1,0,0,1,0, /* E0-FF */
};

/* The wait cycles of TEST for one access, and for one internal cycle (reference path). */
GV_ALWAYS_INLINE uint8_t access_wait(const cpu *c, uint16_t a)
{
    return ((uint16_t)(a - 0xF0) < 0x10 || a >= c->ipl_base) ? c->w_io : c->w_ram;
}
GV_ALWAYS_INLINE uint8_t internal_wait(cpu *c)
{
    if (c->io_left) {
        c->io_left--;
        return c->w_io;
    }
    return c->w_ram;
}
/* TEST's speed bits take effect outside flat mode (no I/O there). */
static int test_slow(const snes_spc *s)
{
    return (s->test & 0xF0) && !s->flat;
}
static void load_waits(cpu *c)
{
    int slow = test_slow(c->s);
    c->w_ram = slow ? test_waits[(c->s->test >> 4) & 3] : 0;
    c->w_io = slow ? test_waits[c->s->test >> 6] : 0;
}

/* The helpers below take the loop's cpu: always inlined into it (GV_ALWAYS_INLINE, core/hd.h).
 * rd_at: one read cycle with no TEST wait (the dummy read of PC is an internal cycle). */
GV_ALWAYS_INLINE uint8_t rd_at(cpu *c, uint16_t a, const int ref)
{
    uint8_t v;
    if (!ref && __builtin_expect((uint16_t)(a - 0xF0) >= 0x10 && a < c->ipl_base, 1))
        v = c->ram[a];
    else
        v = snes_spc_bus_read(c->s, a, c->cyc);
    c->cyc++;
    return v;
}

/* A read; on the reference path TEST's wait cycles come first (the access is in the last). */
GV_ALWAYS_INLINE uint8_t rd(cpu *c, uint16_t a, const int ref)
{
    if (ref)
        c->cyc += access_wait(c, a);
    return rd_at(c, a, ref);
}

GV_ALWAYS_INLINE void wr(cpu *c, uint16_t a, uint8_t v, const int ref)
{
    if (!ref && __builtin_expect((uint16_t)(a - 0xF0) >= 0x10 && c->ram_write, 1)) {
        c->ram[a] = v;
    } else {
        if (ref) /* a write into the IPL area goes to RAM: RAM timing */
            c->cyc += (uint16_t)(a - 0xF0) < 0x10 ? c->w_io : c->w_ram;
        snes_spc_bus_write(c->s, a, v, c->cyc, c->psw);
        c->ipl_base = c->s->ipl_base;
        c->ram_write = c->s->ram_write;
        if (ref)
            load_waits(c);
        else if (__builtin_expect(test_slow(c->s), 0))
            c->until = 0; /* TEST's waits: the reference path takes over after this instruction */
    }
    c->cyc++;
}

GV_ALWAYS_INLINE void idle(cpu *c, const int ref)
{
    if (ref) {
        c->cyc += internal_wait(c);
        snes_spc_bus_idle(c->s);
    }
    c->cyc++;
}

GV_ALWAYS_INLINE void dummy(cpu *c, const int ref)
{
    if (ref)
        c->cyc += internal_wait(c);
    (void)rd_at(c, c->pc, ref);
}

#define RD(a) rd(c, (uint16_t)(a), ref)
#define WR(a, v) wr(c, (uint16_t)(a), (uint8_t)(v), ref)
#define IDLE() idle(c, ref)
#define FETCH() RD(c->pc++)
#define DUMMY() dummy(c, ref) /* 1-byte opcodes read the next byte and drop it */
/* Direct page: $00xx, or $01xx while P is set; addresses wrap within the page. */
#define DP(o) ((uint16_t)(((c->psw & FP) << 3) | ((o) & 0xFF)))
#define PUSH(v) (WR(0x100 | c->sp, (v)), c->sp--)
#define POP() (c->sp++, RD(0x100 | c->sp))

GV_ALWAYS_INLINE uint16_t fetch16(cpu *c, const int ref)
{
    uint8_t lo = FETCH();
    return (uint16_t)(lo | (FETCH() << 8));
}
#define FETCH16() fetch16(c, ref)

GV_ALWAYS_INLINE void set_nz(cpu *c, uint8_t v)
{
    c->psw = (uint8_t)((c->psw & ~(FN | FZ)) | (v & 0x80) | (v ? 0 : FZ));
}

/* ALU operations: (destination value, source value) -> result, flags set. */
GV_ALWAYS_INLINE uint8_t alu_or(cpu *c, uint8_t a, uint8_t b) { uint8_t r = a | b; set_nz(c, r); return r; }
GV_ALWAYS_INLINE uint8_t alu_and(cpu *c, uint8_t a, uint8_t b) { uint8_t r = a & b; set_nz(c, r); return r; }
GV_ALWAYS_INLINE uint8_t alu_eor(cpu *c, uint8_t a, uint8_t b) { uint8_t r = a ^ b; set_nz(c, r); return r; }
/* CMP: N Z C from a - b; returns a (nothing is written). */
GV_ALWAYS_INLINE uint8_t alu_cmp(cpu *c, uint8_t a, uint8_t b)
{
    int r = a - b;
    c->psw = (uint8_t)((c->psw & ~FC) | (r >= 0 ? FC : 0));
    set_nz(c, (uint8_t)r);
    return a;
}
/* ADC: H is the carry out of bit 3, V signed overflow. */
GV_ALWAYS_INLINE uint8_t alu_adc(cpu *c, uint8_t a, uint8_t b)
{
    unsigned r = a + b + (c->psw & FC);
    uint8_t p = c->psw & ~(FN | FV | FH | FZ | FC);
    p |= (r > 0xFF) ? FC : 0;
    p |= ((a ^ b ^ r) & 0x10) ? FH : 0;
    p |= (~(a ^ b) & (a ^ r) & 0x80) ? FV : 0;
    c->psw = p;
    set_nz(c, (uint8_t)r);
    return (uint8_t)r;
}
/* SBC is ADC of the complement: C and H mean "no borrow". */
GV_ALWAYS_INLINE uint8_t alu_sbc(cpu *c, uint8_t a, uint8_t b) { return alu_adc(c, a, (uint8_t)~b); }

GV_ALWAYS_INLINE uint8_t alu_asl(cpu *c, uint8_t v)
{
    c->psw = (uint8_t)((c->psw & ~FC) | (v >> 7));
    v = (uint8_t)(v << 1);
    set_nz(c, v);
    return v;
}
GV_ALWAYS_INLINE uint8_t alu_rol(cpu *c, uint8_t v)
{
    uint8_t cin = c->psw & FC;
    c->psw = (uint8_t)((c->psw & ~FC) | (v >> 7));
    v = (uint8_t)((v << 1) | cin);
    set_nz(c, v);
    return v;
}
GV_ALWAYS_INLINE uint8_t alu_lsr(cpu *c, uint8_t v)
{
    c->psw = (uint8_t)((c->psw & ~FC) | (v & 1));
    v >>= 1;
    set_nz(c, v);
    return v;
}
GV_ALWAYS_INLINE uint8_t alu_ror(cpu *c, uint8_t v)
{
    uint8_t cin = (uint8_t)((c->psw & FC) << 7);
    c->psw = (uint8_t)((c->psw & ~FC) | (v & 1));
    v = (uint8_t)((v >> 1) | cin);
    set_nz(c, v);
    return v;
}
GV_ALWAYS_INLINE uint8_t alu_inc(cpu *c, uint8_t v) { v++; set_nz(c, v); return v; }
GV_ALWAYS_INLINE uint8_t alu_dec(cpu *c, uint8_t v) { v--; set_nz(c, v); return v; }

/* 16-bit results: N from bit 15, Z when all 16 bits are 0. */
GV_ALWAYS_INLINE void set_nz16(cpu *c, uint16_t v)
{
    c->psw = (uint8_t)((c->psw & ~(FN | FZ)) | ((v >> 8) & 0x80) | (v ? 0 : FZ));
}

/* ADDW/SUBW: YA +/- word without carry in; C out of bit 15, H out of bit 11, V signed.
 * SUBW is YA + ~b + 1, so both are YA + b + cin. */
GV_ALWAYS_INLINE void addw_c(cpu *c, uint16_t b, int cin)
{
    uint16_t a = (uint16_t)(c->y << 8 | c->a);
    uint32_t r = (uint32_t)a + b + (uint32_t)cin;
    uint8_t p = c->psw & ~(FV | FH | FC);
    p |= (r > 0xFFFF) ? FC : 0;
    p |= ((a ^ b ^ r) & 0x1000) ? FH : 0;
    p |= (~(a ^ b) & (a ^ r) & 0x8000) ? FV : 0;
    c->psw = p;
    set_nz16(c, (uint16_t)r);
    c->a = (uint8_t)r;
    c->y = (uint8_t)(r >> 8);
}
GV_ALWAYS_INLINE void addw(cpu *c, uint16_t b)
{
    addw_c(c, b, 0);
}
GV_ALWAYS_INLINE void subw(cpu *c, uint16_t b)
{
    addw_c(c, (uint16_t)~b, 1);
}

/* DIV YA,X, as documented: a 9-step restoring division of the 17-bit YA by X<<9 that gives
 * the right quotient and remainder while YA/X < $200, and after it Y = bits 16-9, V = bit 8,
 * A = bits 7-0 of the working register. H is (X & 15) <= (Y & 15) of the operands; N and Z
 * come from A. */
GV_ALWAYS_INLINE void div_ya_x(cpu *c)
{
    uint32_t w = (uint32_t)(c->y << 8 | c->a); /* 17 bits */
    uint32_t d = (uint32_t)c->x << 9;
    uint8_t h = (c->x & 15) <= (c->y & 15);
    for (int i = 0; i < 9; i++) {
        w = ((w << 1) | (w >> 16)) & 0x1FFFF; /* rotate left within 17 bits */
        if (w >= d)
            w ^= 1;
        if (w & 1)
            w = (w - d) & 0x1FFFF;
    }
    c->a = (uint8_t)w;
    c->y = (uint8_t)(w >> 9);
    c->psw = (uint8_t)((c->psw & ~(FV | FH)) | ((w & 0x100) ? FV : 0) | (h ? FH : 0));
    set_nz(c, c->a);
}

/* DAA/DAS, as documented: first the high digit (C, or A > $99), then the low digit (H, or
 * A & 15 > 9), on the value after the first step; H is left alone. */
GV_ALWAYS_INLINE void daa(cpu *c)
{
    if ((c->psw & FC) || c->a > 0x99) {
        c->a = (uint8_t)(c->a + 0x60);
        c->psw |= FC;
    }
    if ((c->psw & FH) || (c->a & 15) > 9)
        c->a = (uint8_t)(c->a + 6);
    set_nz(c, c->a);
}
GV_ALWAYS_INLINE void das(cpu *c)
{
    if (!(c->psw & FC) || c->a > 0x99) {
        c->a = (uint8_t)(c->a - 0x60);
        c->psw &= (uint8_t)~FC;
    }
    if (!(c->psw & FH) || (c->a & 15) > 9)
        c->a = (uint8_t)(c->a - 6);
    set_nz(c, c->a);
}

static cpu cpu_load(snes_spc *s)
{
    cpu c;
    c.s = s;
    c.ram = s->ram;
    c.cyc = s->cycles;
    c.until = 0;
    c.ipl_base = s->ipl_base;
    c.ram_write = s->ram_write;
    c.pc = s->pc;
    c.a = s->a, c.x = s->x, c.y = s->y, c.sp = s->sp, c.psw = s->psw;
    c.halted = s->halted;
    c.io_left = 0;
    load_waits(&c);
    return c;
}

static void cpu_store(snes_spc *s, const cpu *c)
{
    s->cycles = c->cyc;
    s->pc = c->pc;
    s->a = c->a, s->x = c->x, s->y = c->y, s->sp = c->sp, s->psw = c->psw;
    s->halted = c->halted;
}

/* Relative branch: the offset byte was fetched; a taken branch adds two idle cycles. */
#define BRANCH(cond)                                      \
    do {                                                  \
        int8_t r_ = (int8_t)FETCH();                      \
        if (cond) {                                       \
            if (ref)                                      \
                c->io_left += 2;                          \
            IDLE();                                       \
            IDLE();                                       \
            c->pc = (uint16_t)(c->pc + r_);               \
        }                                                 \
    } while (0)

/* The 13-bit address and bit number of an m.b operand (bit in the top 3 bits). */
#define MB_ADDR(w) ((uint16_t)((w) & 0x1FFF))
#define MB_BIT(w) ((w) >> 13)

/* The six ALU groups: OR $00, AND $20, EOR $40, CMP $60, ADC $80, SBC $A0; each has these
 * twelve forms. ST is 0 for CMP, whose memory forms end with an idle cycle where the
 * others write. */
#define ALU_GROUP(B, F, ST)                                                             \
    case (B) + 0x04: { /* A, d: F F R */                                                \
        uint8_t d = FETCH();                                                            \
        c->a = F(c, c->a, RD(DP(d)));                                                   \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x05: { /* A, !a: F F F R */                                             \
        uint16_t ad = FETCH16();                                                        \
        c->a = F(c, c->a, RD(ad));                                                      \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x06: /* A, (X): F D R */                                                \
        DUMMY();                                                                        \
        c->a = F(c, c->a, RD(DP(c->x)));                                                \
        break;                                                                          \
    case (B) + 0x07: { /* A, [d+X]: F F I R R R */                                      \
        uint8_t d = FETCH();                                                            \
        IDLE();                                                                         \
        uint8_t lo = RD(DP(d + c->x));                                                  \
        uint16_t ad = (uint16_t)(lo | RD(DP(d + c->x + 1)) << 8);                       \
        c->a = F(c, c->a, RD(ad));                                                      \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x08: /* A, #i: F F */                                                   \
        c->a = F(c, c->a, FETCH());                                                     \
        break;                                                                          \
    case (B) + 0x09: { /* dd, ds: F F(ds) R F(dd) R W|I */                              \
        uint8_t ds = FETCH();                                                           \
        uint8_t sv = RD(DP(ds));                                                        \
        uint8_t dd = FETCH();                                                           \
        uint8_t r = F(c, RD(DP(dd)), sv);                                               \
        if (ST)                                                                         \
            WR(DP(dd), r);                                                              \
        else                                                                            \
            IDLE();                                                                     \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x14: { /* A, d+X: F F I R */                                            \
        uint8_t d = FETCH();                                                            \
        IDLE();                                                                         \
        c->a = F(c, c->a, RD(DP(d + c->x)));                                            \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x15: { /* A, !a+X: F F F I R */                                         \
        uint16_t ad = FETCH16();                                                        \
        IDLE();                                                                         \
        c->a = F(c, c->a, RD(ad + c->x));                                               \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x16: { /* A, !a+Y: F F F I R */                                         \
        uint16_t ad = FETCH16();                                                        \
        IDLE();                                                                         \
        c->a = F(c, c->a, RD(ad + c->y));                                               \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x17: { /* A, [d]+Y: F F I R R R */                                      \
        uint8_t d = FETCH();                                                            \
        IDLE();                                                                         \
        uint8_t lo = RD(DP(d));                                                         \
        uint16_t ad = (uint16_t)(lo | RD(DP(d + 1)) << 8);                              \
        c->a = F(c, c->a, RD(ad + c->y));                                               \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x18: { /* d, #i: F F(i) F(d) R W|I */                                   \
        uint8_t i = FETCH();                                                            \
        uint8_t d = FETCH();                                                            \
        uint8_t r = F(c, RD(DP(d)), i);                                                 \
        if (ST)                                                                         \
            WR(DP(d), r);                                                               \
        else                                                                            \
            IDLE();                                                                     \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x19: { /* (X), (Y): F D R(Y) R(X) W|I */                                \
        DUMMY();                                                                        \
        uint8_t sv = RD(DP(c->y));                                                      \
        uint8_t r = F(c, RD(DP(c->x)), sv);                                             \
        if (ST)                                                                         \
            WR(DP(c->x), r);                                                            \
        else                                                                            \
            IDLE();                                                                     \
        break;                                                                          \
    }

/* The four shift groups: ASL $00, ROL $20, LSR $40, ROR $60. */
#define SHIFT_GROUP(B, F)                                                               \
    case (B) + 0x0B: { /* d: F F R W */                                                 \
        uint16_t ad = DP(FETCH());                                                      \
        WR(ad, F(c, RD(ad)));                                                           \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x0C: { /* !a: F F F R W */                                              \
        uint16_t ad = FETCH16();                                                        \
        WR(ad, F(c, RD(ad)));                                                           \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x1B: { /* d+X: F F I R W */                                             \
        uint8_t d = FETCH();                                                            \
        IDLE();                                                                         \
        uint16_t ad = DP(d + c->x);                                                     \
        WR(ad, F(c, RD(ad)));                                                           \
        break;                                                                          \
    }                                                                                   \
    case (B) + 0x1C: /* A: F D */                                                       \
        DUMMY();                                                                        \
        c->a = F(c, c->a);                                                              \
        break;

/* Runs instructions until the clock reaches `until`. ref selects the path (see the top of
 * the file); the compiler makes one copy of this function per value. */
GV_ALWAYS_INLINE void run_core(snes_spc *s, uint64_t until, const int ref)
{
    cpu cs = cpu_load(s), *const c = &cs;
    c->until = until;
    while (c->cyc < c->until) {
        if (__builtin_expect(c->halted, 0)) {
            /* SLEEP/STOP: the clock runs on, each step a read of PC and an idle cycle */
            DUMMY();
            IDLE();
            continue;
        }
        uint8_t op = FETCH();
        if (ref)
            c->io_left = io_internal[op];
        switch (op) {
        ALU_GROUP(0x00, alu_or, 1)
        ALU_GROUP(0x20, alu_and, 1)
        ALU_GROUP(0x40, alu_eor, 1)
        ALU_GROUP(0x60, alu_cmp, 0)
        ALU_GROUP(0x80, alu_adc, 1)
        ALU_GROUP(0xA0, alu_sbc, 1)
        SHIFT_GROUP(0x00, alu_asl)
        SHIFT_GROUP(0x20, alu_rol)
        SHIFT_GROUP(0x40, alu_lsr)
        SHIFT_GROUP(0x60, alu_ror)

        /* ---- column 0: NOP, flag operations, conditional branches ---- */
        case 0x00: DUMMY(); break;                                   /* NOP */
        case 0x20: DUMMY(); c->psw &= (uint8_t)~FP; break;           /* CLRP */
        case 0x40: DUMMY(); c->psw |= FP; break;                     /* SETP */
        case 0x60: DUMMY(); c->psw &= (uint8_t)~FC; break;           /* CLRC */
        case 0x80: DUMMY(); c->psw |= FC; break;                     /* SETC */
        case 0xA0: DUMMY(); IDLE(); c->psw |= FI; break;             /* EI */
        case 0xC0: DUMMY(); IDLE(); c->psw &= (uint8_t)~FI; break;   /* DI */
        case 0xE0: DUMMY(); c->psw &= (uint8_t)~(FV | FH); break;    /* CLRV: V and H */
        case 0x10: BRANCH(!(c->psw & FN)); break;                    /* BPL */
        case 0x30: BRANCH(c->psw & FN); break;                       /* BMI */
        case 0x50: BRANCH(!(c->psw & FV)); break;                    /* BVC */
        case 0x70: BRANCH(c->psw & FV); break;                       /* BVS */
        case 0x90: BRANCH(!(c->psw & FC)); break;                    /* BCC */
        case 0xB0: BRANCH(c->psw & FC); break;                       /* BCS */
        case 0xD0: BRANCH(!(c->psw & FZ)); break;                    /* BNE */
        case 0xF0: BRANCH(c->psw & FZ); break;                       /* BEQ */

        /* ---- column 1: TCALL n: F D I W(PCh) W(PCl) I R R, vector at $FFDE - 2n ---- */
        case 0x01: case 0x11: case 0x21: case 0x31: case 0x41: case 0x51: case 0x61: case 0x71:
        case 0x81: case 0x91: case 0xA1: case 0xB1: case 0xC1: case 0xD1: case 0xE1: case 0xF1: {
            uint16_t v = (uint16_t)(0xFFDE - 2 * (op >> 4));
            DUMMY();
            IDLE();
            PUSH(c->pc >> 8);
            PUSH(c->pc & 0xFF);
            IDLE();
            uint8_t lo = RD(v);
            c->pc = (uint16_t)(lo | RD(v + 1) << 8);
            break;
        }

        /* ---- column 2: SET1 / CLR1 d.b: F F R W ---- */
        case 0x02: case 0x22: case 0x42: case 0x62: case 0x82: case 0xA2: case 0xC2: case 0xE2: {
            uint16_t ad = DP(FETCH());
            WR(ad, RD(ad) | (1 << (op >> 5)));
            break;
        }
        case 0x12: case 0x32: case 0x52: case 0x72: case 0x92: case 0xB2: case 0xD2: case 0xF2: {
            uint16_t ad = DP(FETCH());
            WR(ad, RD(ad) & ~(1 << (op >> 5)));
            break;
        }

        /* ---- column 3: BBS / BBC d.b, r: F F(d) R I F(r) [I I] ---- */
        case 0x03: case 0x23: case 0x43: case 0x63: case 0x83: case 0xA3: case 0xC3: case 0xE3:
        case 0x13: case 0x33: case 0x53: case 0x73: case 0x93: case 0xB3: case 0xD3: case 0xF3: {
            uint8_t v = RD(DP(FETCH()));
            IDLE();
            int set = (v >> (op >> 5)) & 1;
            BRANCH(set == !(op & 0x10));
            break;
        }

        /* ---- MOV: loads ---- */
        case 0xE8: c->a = FETCH(); set_nz(c, c->a); break;          /* MOV A, #i */
        case 0xCD: c->x = FETCH(); set_nz(c, c->x); break;          /* MOV X, #i */
        case 0x8D: c->y = FETCH(); set_nz(c, c->y); break;          /* MOV Y, #i */
        case 0xE6: DUMMY(); c->a = RD(DP(c->x)); set_nz(c, c->a); break; /* MOV A, (X) */
        case 0xBF: /* MOV A, (X)+: F D R I */
            DUMMY();
            c->a = RD(DP(c->x));
            IDLE();
            c->x++;
            set_nz(c, c->a);
            break;
        case 0xE4: c->a = RD(DP(FETCH())); set_nz(c, c->a); break;  /* MOV A, d */
        case 0xF8: c->x = RD(DP(FETCH())); set_nz(c, c->x); break;  /* MOV X, d */
        case 0xEB: c->y = RD(DP(FETCH())); set_nz(c, c->y); break;  /* MOV Y, d */
        case 0xF4: { uint8_t d = FETCH(); IDLE(); c->a = RD(DP(d + c->x)); set_nz(c, c->a); break; }
        case 0xF9: { uint8_t d = FETCH(); IDLE(); c->x = RD(DP(d + c->y)); set_nz(c, c->x); break; }
        case 0xFB: { uint8_t d = FETCH(); IDLE(); c->y = RD(DP(d + c->x)); set_nz(c, c->y); break; }
        case 0xE5: c->a = RD(FETCH16()); set_nz(c, c->a); break;    /* MOV A, !a */
        case 0xE9: c->x = RD(FETCH16()); set_nz(c, c->x); break;    /* MOV X, !a */
        case 0xEC: c->y = RD(FETCH16()); set_nz(c, c->y); break;    /* MOV Y, !a */
        case 0xF5: { uint16_t ad = FETCH16(); IDLE(); c->a = RD(ad + c->x); set_nz(c, c->a); break; }
        case 0xF6: { uint16_t ad = FETCH16(); IDLE(); c->a = RD(ad + c->y); set_nz(c, c->a); break; }
        case 0xE7: { /* MOV A, [d+X]: F F I R R R */
            uint8_t d = FETCH();
            IDLE();
            uint8_t lo = RD(DP(d + c->x));
            uint16_t ad = (uint16_t)(lo | RD(DP(d + c->x + 1)) << 8);
            c->a = RD(ad);
            set_nz(c, c->a);
            break;
        }
        case 0xF7: { /* MOV A, [d]+Y: F F I R R R */
            uint8_t d = FETCH();
            IDLE();
            uint8_t lo = RD(DP(d));
            uint16_t ad = (uint16_t)(lo | RD(DP(d + 1)) << 8);
            c->a = RD(ad + c->y);
            set_nz(c, c->a);
            break;
        }

        /* ---- MOV: register to register (F D) ---- */
        case 0x7D: DUMMY(); c->a = c->x; set_nz(c, c->a); break;    /* MOV A, X */
        case 0xDD: DUMMY(); c->a = c->y; set_nz(c, c->a); break;    /* MOV A, Y */
        case 0x5D: DUMMY(); c->x = c->a; set_nz(c, c->x); break;    /* MOV X, A */
        case 0xFD: DUMMY(); c->y = c->a; set_nz(c, c->y); break;    /* MOV Y, A */
        case 0x9D: DUMMY(); c->x = c->sp; set_nz(c, c->x); break;   /* MOV X, SP */
        case 0xBD: DUMMY(); c->sp = c->x; break;                    /* MOV SP, X: no flags */

        /* ---- MOV: stores; all but (X)+ and dd,ds read the destination first ---- */
        case 0xC6: { DUMMY(); uint16_t ad = DP(c->x); RD(ad); WR(ad, c->a); break; } /* (X), A */
        case 0xAF: DUMMY(); IDLE(); WR(DP(c->x), c->a); c->x++; break;  /* (X)+, A: F D I W */
        case 0xC4: { uint16_t ad = DP(FETCH()); RD(ad); WR(ad, c->a); break; }  /* d, A */
        case 0xD8: { uint16_t ad = DP(FETCH()); RD(ad); WR(ad, c->x); break; }  /* d, X */
        case 0xCB: { uint16_t ad = DP(FETCH()); RD(ad); WR(ad, c->y); break; }  /* d, Y */
        case 0xD4: { uint8_t d = FETCH(); IDLE(); uint16_t ad = DP(d + c->x); RD(ad); WR(ad, c->a); break; }
        case 0xDB: { uint8_t d = FETCH(); IDLE(); uint16_t ad = DP(d + c->x); RD(ad); WR(ad, c->y); break; }
        case 0xD9: { uint8_t d = FETCH(); IDLE(); uint16_t ad = DP(d + c->y); RD(ad); WR(ad, c->x); break; }
        case 0xC5: { uint16_t ad = FETCH16(); RD(ad); WR(ad, c->a); break; }    /* !a, A */
        case 0xC9: { uint16_t ad = FETCH16(); RD(ad); WR(ad, c->x); break; }    /* !a, X */
        case 0xCC: { uint16_t ad = FETCH16(); RD(ad); WR(ad, c->y); break; }    /* !a, Y */
        case 0xD5: { uint16_t ad = (uint16_t)(FETCH16() + c->x); IDLE(); RD(ad); WR(ad, c->a); break; }
        case 0xD6: { uint16_t ad = (uint16_t)(FETCH16() + c->y); IDLE(); RD(ad); WR(ad, c->a); break; }
        case 0xC7: { /* MOV [d+X], A: F F I R R R W */
            uint8_t d = FETCH();
            IDLE();
            uint8_t lo = RD(DP(d + c->x));
            uint16_t ad = (uint16_t)(lo | RD(DP(d + c->x + 1)) << 8);
            RD(ad);
            WR(ad, c->a);
            break;
        }
        case 0xD7: { /* MOV [d]+Y, A: F F R R I R W (the idle cycle comes after the pointer) */
            uint8_t d = FETCH();
            uint8_t lo = RD(DP(d));
            uint16_t ad = (uint16_t)((lo | RD(DP(d + 1)) << 8) + c->y);
            IDLE();
            RD(ad);
            WR(ad, c->a);
            break;
        }
        case 0x8F: { /* MOV d, #i: F F(i) F(d) R W */
            uint8_t i = FETCH();
            uint16_t ad = DP(FETCH());
            RD(ad);
            WR(ad, i);
            break;
        }
        case 0xFA: { /* MOV dd, ds: F F(ds) R F(dd) W (no read of dd) */
            uint8_t v = RD(DP(FETCH()));
            WR(DP(FETCH()), v);
            break;
        }

        /* ---- compares with X and Y ---- */
        case 0xC8: alu_cmp(c, c->x, FETCH()); break;                       /* CMP X, #i */
        case 0xAD: alu_cmp(c, c->y, FETCH()); break;                       /* CMP Y, #i */
        case 0x3E: alu_cmp(c, c->x, RD(DP(FETCH()))); break;               /* CMP X, d */
        case 0x7E: alu_cmp(c, c->y, RD(DP(FETCH()))); break;               /* CMP Y, d */
        case 0x1E: alu_cmp(c, c->x, RD(FETCH16())); break;                 /* CMP X, !a */
        case 0x5E: alu_cmp(c, c->y, RD(FETCH16())); break;                 /* CMP Y, !a */

        /* ---- INC / DEC ---- */
        case 0xBC: DUMMY(); c->a = alu_inc(c, c->a); break;
        case 0x3D: DUMMY(); c->x = alu_inc(c, c->x); break;
        case 0xFC: DUMMY(); c->y = alu_inc(c, c->y); break;
        case 0x9C: DUMMY(); c->a = alu_dec(c, c->a); break;
        case 0x1D: DUMMY(); c->x = alu_dec(c, c->x); break;
        case 0xDC: DUMMY(); c->y = alu_dec(c, c->y); break;
        case 0xAB: { uint16_t ad = DP(FETCH()); WR(ad, alu_inc(c, RD(ad))); break; }
        case 0x8B: { uint16_t ad = DP(FETCH()); WR(ad, alu_dec(c, RD(ad))); break; }
        case 0xBB: { uint8_t d = FETCH(); IDLE(); uint16_t ad = DP(d + c->x); WR(ad, alu_inc(c, RD(ad))); break; }
        case 0x9B: { uint8_t d = FETCH(); IDLE(); uint16_t ad = DP(d + c->x); WR(ad, alu_dec(c, RD(ad))); break; }
        case 0xAC: { uint16_t ad = FETCH16(); WR(ad, alu_inc(c, RD(ad))); break; }
        case 0x8C: { uint16_t ad = FETCH16(); WR(ad, alu_dec(c, RD(ad))); break; }

        /* ---- 16-bit operations on a direct-page word (low byte at d, high at d+1 in the page) ---- */
        case 0xBA: { /* MOVW YA, d: F F R I R */
            uint8_t d = FETCH();
            c->a = RD(DP(d));
            IDLE();
            c->y = RD(DP(d + 1));
            set_nz16(c, (uint16_t)(c->y << 8 | c->a));
            break;
        }
        case 0xDA: { /* MOVW d, YA: F F R(lo) W W */
            uint8_t d = FETCH();
            RD(DP(d));
            WR(DP(d), c->a);
            WR(DP(d + 1), c->y);
            break;
        }
        case 0x3A: case 0x1A: { /* INCW / DECW d: F F R W R W */
            uint8_t d = FETCH();
            int step = op == 0x3A ? 1 : -1;
            uint16_t lo = (uint16_t)(RD(DP(d)) + step);
            WR(DP(d), lo);
            uint16_t w = (uint16_t)((RD(DP(d + 1)) << 8) + lo);
            WR(DP(d + 1), w >> 8);
            set_nz16(c, w);
            break;
        }
        case 0x7A: case 0x9A: { /* ADDW / SUBW YA, d: F F R I R */
            uint8_t d = FETCH();
            uint8_t lo = RD(DP(d));
            IDLE();
            uint16_t w = (uint16_t)(lo | RD(DP(d + 1)) << 8);
            if (op == 0x7A)
                addw(c, w);
            else
                subw(c, w);
            break;
        }
        case 0x5A: { /* CMPW YA, d: F F R R */
            uint8_t d = FETCH();
            uint8_t lo = RD(DP(d));
            uint16_t w = (uint16_t)(lo | RD(DP(d + 1)) << 8);
            int32_t r = (int32_t)(c->y << 8 | c->a) - w;
            c->psw = (uint8_t)((c->psw & ~FC) | (r >= 0 ? FC : 0));
            set_nz16(c, (uint16_t)r);
            break;
        }

        /* ---- multiply, divide, decimal adjust, nibble swap ---- */
        case 0xCF: { /* MUL YA: F D I*7; N Z from Y */
            DUMMY();
            for (int i = 0; i < 7; i++)
                IDLE();
            uint16_t p = (uint16_t)(c->y * c->a);
            c->a = (uint8_t)p;
            c->y = (uint8_t)(p >> 8);
            set_nz(c, c->y);
            break;
        }
        case 0x9E: /* DIV YA, X: F D I*10 */
            DUMMY();
            for (int i = 0; i < 10; i++)
                IDLE();
            div_ya_x(c);
            break;
        case 0xDF: DUMMY(); IDLE(); daa(c); break;                    /* DAA: F D I */
        case 0xBE: DUMMY(); IDLE(); das(c); break;                    /* DAS: F D I */
        case 0x9F: /* XCN: F D I I I */
            DUMMY();
            IDLE();
            IDLE();
            IDLE();
            c->a = (uint8_t)(c->a >> 4 | c->a << 4);
            set_nz(c, c->a);
            break;
        case 0xED: DUMMY(); IDLE(); c->psw ^= FC; break;              /* NOTC: F D I */

        /* ---- bit operations on m.b (13-bit address, bit in the top 3 bits) ---- */
        case 0x0A: case 0x2A: { /* OR1 C, m.b / C, /m.b: F F F R I */
            uint16_t w = FETCH16();
            int b = (RD(MB_ADDR(w)) >> MB_BIT(w)) & 1;
            IDLE();
            if (op == 0x2A)
                b ^= 1;
            c->psw |= (uint8_t)b;
            break;
        }
        case 0x4A: case 0x6A: { /* AND1 C, m.b / C, /m.b: F F F R */
            uint16_t w = FETCH16();
            int b = (RD(MB_ADDR(w)) >> MB_BIT(w)) & 1;
            if (op == 0x6A)
                b ^= 1;
            if (!b)
                c->psw &= (uint8_t)~FC;
            break;
        }
        case 0x8A: { /* EOR1 C, m.b: F F F R I */
            uint16_t w = FETCH16();
            int b = (RD(MB_ADDR(w)) >> MB_BIT(w)) & 1;
            IDLE();
            c->psw ^= (uint8_t)b;
            break;
        }
        case 0xAA: { /* MOV1 C, m.b: F F F R */
            uint16_t w = FETCH16();
            int b = (RD(MB_ADDR(w)) >> MB_BIT(w)) & 1;
            c->psw = (uint8_t)((c->psw & ~FC) | b);
            break;
        }
        case 0xCA: { /* MOV1 m.b, C: F F F R I W */
            uint16_t w = FETCH16();
            uint8_t v = RD(MB_ADDR(w));
            IDLE();
            uint8_t m = (uint8_t)(1 << MB_BIT(w));
            WR(MB_ADDR(w), (c->psw & FC) ? (v | m) : (v & ~m));
            break;
        }
        case 0xEA: { /* NOT1 m.b: F F F R W */
            uint16_t w = FETCH16();
            WR(MB_ADDR(w), RD(MB_ADDR(w)) ^ (1 << MB_BIT(w)));
            break;
        }
        case 0x0E: case 0x4E: { /* TSET1 / TCLR1 !a: F F F R R W; N Z from A - (a) */
            uint16_t ad = FETCH16();
            uint8_t v = RD(ad);
            RD(ad);
            set_nz(c, (uint8_t)(c->a - v));
            WR(ad, op == 0x0E ? (v | c->a) : (v & ~c->a));
            break;
        }

        /* ---- compare-and-branch, decrement-and-branch ---- */
        case 0x2E: { /* CBNE d, r: F F R I F(r) [I I] */
            uint8_t v = RD(DP(FETCH()));
            IDLE();
            BRANCH(c->a != v);
            break;
        }
        case 0xDE: { /* CBNE d+X, r: F F I R I F(r) [I I] */
            uint8_t d = FETCH();
            IDLE();
            uint8_t v = RD(DP(d + c->x));
            IDLE();
            BRANCH(c->a != v);
            break;
        }
        case 0x6E: { /* DBNZ d, r: F F R W F(r) [I I] */
            uint16_t ad = DP(FETCH());
            uint8_t v = (uint8_t)(RD(ad) - 1);
            WR(ad, v);
            BRANCH(v != 0);
            break;
        }
        case 0xFE: /* DBNZ Y, r: F D I F(r) [I I] */
            DUMMY();
            IDLE();
            c->y--;
            BRANCH(c->y != 0);
            break;
        case 0x2F: BRANCH(1); break;                                  /* BRA: F F I I */

        /* ---- jumps, calls, returns ---- */
        case 0x5F: c->pc = FETCH16(); break;                          /* JMP !a: F F F */
        case 0x1F: { /* JMP [!a+X]: F F F I R R */
            uint16_t ad = (uint16_t)(FETCH16() + c->x);
            IDLE();
            uint8_t lo = RD(ad);
            c->pc = (uint16_t)(lo | RD(ad + 1) << 8);
            break;
        }
        case 0x3F: { /* CALL !a: F F F I W(PCh) W(PCl) I I */
            uint16_t ad = FETCH16();
            IDLE();
            PUSH(c->pc >> 8);
            PUSH(c->pc & 0xFF);
            IDLE();
            IDLE();
            c->pc = ad;
            break;
        }
        case 0x4F: { /* PCALL u: F F I W W I, to $FF00 + u */
            uint8_t u = FETCH();
            IDLE();
            PUSH(c->pc >> 8);
            PUSH(c->pc & 0xFF);
            IDLE();
            c->pc = (uint16_t)(0xFF00 | u);
            break;
        }
        case 0x0F: { /* BRK: F D W(PCh) W(PCl) W(PSW) I R R; B = 1, I = 0, vector $FFDE */
            DUMMY();
            PUSH(c->pc >> 8);
            PUSH(c->pc & 0xFF);
            PUSH(c->psw);
            IDLE();
            c->psw = (uint8_t)((c->psw | FB) & ~FI);
            uint8_t lo = RD(0xFFDE);
            c->pc = (uint16_t)(lo | RD(0xFFDF) << 8);
            break;
        }
        case 0x6F: { /* RET: F D I R R */
            DUMMY();
            IDLE();
            uint8_t lo = POP();
            c->pc = (uint16_t)(lo | POP() << 8);
            break;
        }
        case 0x7F: { /* RETI: F D I R(PSW) R R */
            DUMMY();
            IDLE();
            c->psw = POP();
            uint8_t lo = POP();
            c->pc = (uint16_t)(lo | POP() << 8);
            break;
        }

        /* ---- stack: PUSH F D W I, POP F D I R ---- */
        case 0x2D: DUMMY(); PUSH(c->a); IDLE(); break;
        case 0x4D: DUMMY(); PUSH(c->x); IDLE(); break;
        case 0x6D: DUMMY(); PUSH(c->y); IDLE(); break;
        case 0x0D: DUMMY(); PUSH(c->psw); IDLE(); break;
        case 0xAE: DUMMY(); IDLE(); c->a = POP(); break;
        case 0xCE: DUMMY(); IDLE(); c->x = POP(); break;
        case 0xEE: DUMMY(); IDLE(); c->y = POP(); break;
        case 0x8E: DUMMY(); IDLE(); c->psw = POP(); break;

        /* ---- SLEEP, STOP: halt until reset ---- */
        case 0xEF: case 0xFF:
            c->halted = 1;
            break;
        }
    }
    cpu_store(s, c);
}

static void run_fast(snes_spc *s, uint64_t until) { run_core(s, until, 0); }
static void run_ref(snes_spc *s, uint64_t until) { run_core(s, until, 1); }

/* The fast path knows no TEST waits: while TEST asks for them the reference path runs (the
 * fast path stops after the instruction that sets them). */
void snes_spc_run(snes_spc *s, uint64_t until)
{
    while (s->cycles < until) {
        if (s->env.reference || s->env.log || test_slow(s))
            run_ref(s, until);
        else
            run_fast(s, until);
    }
}

int snes_spc_step(snes_spc *s)
{
    uint64_t t0 = s->cycles;
    snes_spc_run(s, t0 + 1);
    return (int)(s->cycles - t0);
}

/* ---- ports, power, reset, peek/poke, states ----------------------------------------------- */

uint8_t snes_spc_port_read(const snes_spc *s, int port)
{
    assert(port >= 0 && port < 4);
    return s->cpu_out[port];
}

uint8_t snes_spc_port_read_at(const snes_spc *s, int port, uint64_t when)
{
    assert(port >= 0 && port < 4);
    return s->out_time[port] < when ? s->cpu_out[port] : s->out_prev[port];
}

void snes_spc_port_write_at(snes_spc *s, int port, uint8_t v, uint64_t when)
{
    assert(port >= 0 && port < 4);
    if (when <= s->cycles && s->inq_n == 0) {
        s->cpu_in[port] = v;
        return;
    }
    if (when < s->cycles)
        when = s->cycles; /* passed already: from now on, after the writes still queued */
    if (s->inq_n == SNES_SPC_PORT_QUEUE) {
        s->cpu_in[s->inq[0].port] = s->inq[0].val;
        memmove(s->inq, s->inq + 1, (SNES_SPC_PORT_QUEUE - 1) * sizeof s->inq[0]);
        s->inq_n--;
    }
    if (s->inq_n && s->inq[s->inq_n - 1].time > when)
        when = s->inq[s->inq_n - 1].time; /* keep the queue in time order */
    memset(&s->inq[s->inq_n], 0, sizeof s->inq[0]);
    s->inq[s->inq_n].time = when;
    s->inq[s->inq_n].port = (uint8_t)port;
    s->inq[s->inq_n].val = v;
    s->inq_n++;
}

void snes_spc_port_write(snes_spc *s, int port, uint8_t v)
{
    snes_spc_port_write_at(s, port, v, s->cycles);
}

uint8_t snes_spc_peek(const snes_spc *s, uint16_t addr)
{
    if (s->flat)
        return s->ram[addr];
    if ((uint16_t)(addr - 0xF0) < 0x10) {
        switch (addr) {
        case 0xF2: return s->dspaddr;
        case 0xF3: return s->dsp[s->dspaddr & 0x7F];
        case 0xF4: case 0xF5: case 0xF6: case 0xF7: return s->cpu_in[addr - 0xF4];
        case 0xF8: case 0xF9: return s->aux[addr - 0xF8];
        case 0xFD: case 0xFE: case 0xFF: return s->timer[addr - 0xFD].out; /* as of the last sync */
        default: return 0;
        }
    }
    if (addr >= s->ipl_base)
        return snes_spc_ipl_rom[addr & 0x3F];
    return s->ram[addr];
}

void snes_spc_poke(snes_spc *s, uint16_t addr, uint8_t v)
{
    s->ram[addr] = v;
}

void snes_spc_set_flat(snes_spc *s, int flat)
{
    s->flat = (uint8_t)(flat != 0);
    s->ipl_base = (!s->flat && (s->control & 0x80)) ? 0xFFC0 : 0x10000;
    s->ram_write = s->flat ? 1 : (s->test >> 1) & 1;
}

void snes_spc_reset(snes_spc *s)
{
    timer_sync(s, s->cycles);
    s->halted = 0;
    s->a = s->x = s->y = s->sp = s->psw = 0;
    s->control = 0xB0;
    s->ipl_base = s->flat ? 0x10000 : 0xFFC0;
    s->dspaddr = 0;
    memset(s->cpu_in, 0, sizeof s->cpu_in);
    memset(s->cpu_out, 0, sizeof s->cpu_out);
    memset(s->out_prev, 0, sizeof s->out_prev);
    memset(s->out_time, 0, sizeof s->out_time);
    s->inq_n = 0;
    for (int i = 0; i < 3; i++) {
        s->timer[i].on = 0;
        s->timer[i].out = 0;
        s->timer[i].stage2 = 0;
    }
    s->pc = (uint16_t)(snes_spc_peek(s, 0xFFFE) | snes_spc_peek(s, 0xFFFF) << 8);
}

void snes_spc_power(snes_spc *s)
{
    memset(s, 0, sizeof *s);
    s->test = 0x0A;
    s->ram_write = 1;
    s->timers_run = 1;
    for (int i = 0; i < 3; i++)
        s->timer[i].out = 0x0F;
    snes_spc_reset(s);
    for (int i = 0; i < 3; i++)
        s->timer[i].out = 0x0F; /* reset clears them; power-on leaves them at $F */
}

void snes_spc_state_save(const snes_spc *s, uint8_t *buf)
{
    memcpy(buf, s, SNES_SPC_STATE_BYTES);
}

gv_status snes_spc_state_load(snes_spc *s, const uint8_t *buf, size_t len, gv_err *err)
{
    if (len != SNES_SPC_STATE_BYTES)
        return gv_fail(err, GV_ERR_INPUT, "SPC700 state: %zu bytes, expected %zu", len,
                       (size_t)SNES_SPC_STATE_BYTES);
    /* check the fields first, then copy: s is untouched on failure */
    snes_spc *t = malloc(sizeof *t);
    if (!t)
        return gv_fail(err, GV_ERR_ENV, "SPC700 state: out of memory");
    memcpy(t, buf, SNES_SPC_STATE_BYTES);
    uint32_t want = (!t->flat && (t->control & 0x80)) ? 0xFFC0 : 0x10000;
    int ok = t->ipl_base == want && t->inq_n <= SNES_SPC_PORT_QUEUE && t->halted <= 1 && t->flat <= 1 &&
             t->ram_write <= 1 && t->timers_run <= 1 && t->timer_lag <= t->timer_time;
    for (int i = 0; i < 3; i++)
        ok &= t->timer[i].out <= 15 && t->timer[i].on <= 1;
    free(t);
    if (!ok)
        return gv_fail(err, GV_ERR_INPUT, "SPC700 state: inconsistent fields (corrupt image)");
    memcpy(s, buf, SNES_SPC_STATE_BYTES);
    return GV_OK;
}
