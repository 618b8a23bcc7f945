/* nes_cpu.c: the 2A03's 6502 core (no decimal mode). Every bus cycle an instruction makes is a
 * nes_read/nes_write, dummy reads and writes included, so cycle counts (page-cross and
 * branch penalties) and the side effects of dummy accesses come out of the access pattern
 * itself. Interrupts are polled at the end of each instruction using the state of the
 * penultimate cycle; CLI, SEI and PLP change I after the poll. All official opcodes and the
 * commonly used unofficial ones are implemented; KIL stops the CPU. */
#include "emu/nes/nes_int.h"

/* The helpers below are small and hot: always inlined into the opcode switch (GV_HOT_INLINE:
 * except in sanitizer builds). */

#define RD(a) nes_read(m, (uint16_t)(a))
#define WR(a, v) nes_write(m, (uint16_t)(a), (uint8_t)(v))

/* ---- flags ---------------------------------------------------------------------------- */

GV_HOT_INLINE void nz(nes_cpu *c, uint8_t v)
{
    c->fz = v == 0;
    c->fn = v >> 7;
}

GV_HOT_INLINE uint8_t get_p(const nes_cpu *c, int b)
{
    return (uint8_t)(c->fn << 7 | c->fv << 6 | 0x20 | b << 4 | c->fd << 3 | c->fi << 2 | c->fz << 1 | c->fc);
}

GV_HOT_INLINE void set_p(nes_cpu *c, uint8_t p)
{
    c->fn = (p >> 7) & 1;
    c->fv = (p >> 6) & 1;
    c->fd = (p >> 3) & 1;
    c->fi = (p >> 2) & 1;
    c->fz = (p >> 1) & 1;
    c->fc = p & 1;
}

/* ---- stack and addressing modes (each performs the mode's bus cycles) ------------------ */

GV_HOT_INLINE void push(nes *m, uint8_t v)
{
    WR(0x100 | m->cpu.s, v);
    m->cpu.s--;
}

GV_HOT_INLINE uint8_t pull(nes *m)
{
    m->cpu.s++;
    return RD(0x100 | m->cpu.s);
}

GV_HOT_INLINE uint16_t ad_zp(nes *m)
{
    return RD(m->cpu.pc++);
}

GV_HOT_INLINE uint16_t ad_zpi(nes *m, uint8_t i)
{
    uint8_t b = RD(m->cpu.pc++);
    RD(b); /* the CPU reads the unindexed address while it adds */
    return (uint8_t)(b + i);
}

GV_HOT_INLINE uint16_t ad_abs(nes *m)
{
    uint16_t lo = RD(m->cpu.pc++);
    uint16_t hi = RD(m->cpu.pc++);
    return (uint16_t)(lo | hi << 8);
}

/* Absolute indexed. The first read goes to the address with the high byte not yet carried:
 * reads use it when no page is crossed (no extra cycle); otherwise, and for writes and
 * read-modify-writes always, it is a dummy read and the real access follows. */
GV_HOT_INLINE uint16_t ad_absi(nes *m, uint8_t i, int always)
{
    uint16_t base = ad_abs(m), a = (uint16_t)(base + i);
    if (always || ((base ^ a) & 0xFF00))
        RD((base & 0xFF00) | (a & 0xFF));
    return a;
}

GV_HOT_INLINE uint16_t ad_indx(nes *m)
{
    uint8_t p = RD(m->cpu.pc++);
    RD(p);
    p = (uint8_t)(p + m->cpu.x);
    uint16_t lo = RD(p);
    uint16_t hi = RD((uint8_t)(p + 1));
    return (uint16_t)(lo | hi << 8);
}

GV_HOT_INLINE uint16_t ind_base(nes *m)
{
    uint8_t p = RD(m->cpu.pc++);
    uint16_t lo = RD(p);
    uint16_t hi = RD((uint8_t)(p + 1));
    return (uint16_t)(lo | hi << 8);
}

GV_HOT_INLINE uint16_t ad_indy(nes *m, int always)
{
    uint16_t base = ind_base(m), a = (uint16_t)(base + m->cpu.y);
    if (always || ((base ^ a) & 0xFF00))
        RD((base & 0xFF00) | (a & 0xFF));
    return a;
}

/* ---- operations ---------------------------------------------------------------------- */

GV_HOT_INLINE void op_adc(nes_cpu *c, uint8_t v)
{
    unsigned s = (unsigned)c->a + v + c->fc;
    c->fv = ((~(c->a ^ v) & (c->a ^ s)) & 0x80) != 0;
    c->fc = s > 0xFF;
    c->a = (uint8_t)s;
    nz(c, c->a);
}

GV_HOT_INLINE void op_sbc(nes_cpu *c, uint8_t v)
{
    op_adc(c, (uint8_t)~v);
}

GV_HOT_INLINE void op_cmp(nes_cpu *c, uint8_t r, uint8_t v)
{
    c->fc = r >= v;
    nz(c, (uint8_t)(r - v));
}

GV_HOT_INLINE void op_bit(nes_cpu *c, uint8_t v)
{
    c->fz = (c->a & v) == 0;
    c->fn = v >> 7;
    c->fv = (v >> 6) & 1;
}

GV_HOT_INLINE uint8_t op_asl(nes_cpu *c, uint8_t v)
{
    c->fc = v >> 7;
    v = (uint8_t)(v << 1);
    nz(c, v);
    return v;
}

GV_HOT_INLINE uint8_t op_lsr(nes_cpu *c, uint8_t v)
{
    c->fc = v & 1;
    v >>= 1;
    nz(c, v);
    return v;
}

GV_HOT_INLINE uint8_t op_rol(nes_cpu *c, uint8_t v)
{
    uint8_t r = (uint8_t)(v << 1 | c->fc);
    c->fc = v >> 7;
    nz(c, r);
    return r;
}

GV_HOT_INLINE uint8_t op_ror(nes_cpu *c, uint8_t v)
{
    uint8_t r = (uint8_t)(v >> 1 | c->fc << 7);
    c->fc = v & 1;
    nz(c, r);
    return r;
}

GV_HOT_INLINE uint8_t op_inc(nes_cpu *c, uint8_t v)
{
    v++;
    nz(c, v);
    return v;
}

GV_HOT_INLINE uint8_t op_dec(nes_cpu *c, uint8_t v)
{
    v--;
    nz(c, v);
    return v;
}

/* Unofficial read-modify-write combinations. */
GV_HOT_INLINE uint8_t op_slo(nes_cpu *c, uint8_t v)
{
    v = op_asl(c, v);
    c->a |= v;
    nz(c, c->a);
    return v;
}

GV_HOT_INLINE uint8_t op_rla(nes_cpu *c, uint8_t v)
{
    v = op_rol(c, v);
    c->a &= v;
    nz(c, c->a);
    return v;
}

GV_HOT_INLINE uint8_t op_sre(nes_cpu *c, uint8_t v)
{
    v = op_lsr(c, v);
    c->a ^= v;
    nz(c, c->a);
    return v;
}

GV_HOT_INLINE uint8_t op_rra(nes_cpu *c, uint8_t v)
{
    v = op_ror(c, v);
    op_adc(c, v);
    return v;
}

GV_HOT_INLINE uint8_t op_dcp(nes_cpu *c, uint8_t v)
{
    v--;
    op_cmp(c, c->a, v);
    return v;
}

GV_HOT_INLINE uint8_t op_isc(nes_cpu *c, uint8_t v)
{
    v++;
    op_sbc(c, v);
    return v;
}

/* Read-modify-write: read, write the old value back (a dummy write), write the result. */
GV_HOT_INLINE void rmw(nes *m, uint16_t a, uint8_t (*fn)(nes_cpu *, uint8_t))
{
    uint8_t v = RD(a);
    WR(a, v);
    WR(a, fn(&m->cpu, v));
}

/* SHX/SHY/SHA/TAS: store reg & (high byte of the base + 1); when the index crosses a page
 * the stored value also replaces the high byte of the address. A DMA that halts the read
 * cycle before the write (RDY low there) drops the AND term: reg itself is stored. */
GV_HOT_INLINE void op_sh(nes *m, uint16_t base, uint8_t idx, uint8_t reg)
{
    uint16_t a = (uint16_t)(base + idx);
    uint64_t c0 = m->cyc;
    RD((base & 0xFF00) | (a & 0xFF));
    uint8_t v = m->cyc - c0 > 1 ? reg : (uint8_t)(reg & ((base >> 8) + 1));
    if ((base ^ a) & 0xFF00)
        a = (uint16_t)((a & 0xFF) | (v << 8));
    WR(a, v);
}

/* Returns 1 for a taken branch that stays in its page: its last cycle does not poll the
 * interrupt lines, so the poll sees them as they were one cycle earlier. */
GV_HOT_INLINE int branch(nes *m, int cond)
{
    nes_cpu *c = &m->cpu;
    int8_t off = (int8_t)RD(c->pc++);
    if (!cond)
        return 0;
    RD(c->pc);
    uint16_t t = (uint16_t)(c->pc + off);
    int cross = ((t ^ c->pc) & 0xFF00) != 0;
    if (cross)
        RD((c->pc & 0xFF00) | (t & 0xFF));
    c->pc = t;
    return !cross;
}

/* BRK, IRQ and NMI: push PC and P, set I, jump through the vector. An NMI that arrives
 * before the vector is fetched takes over the sequence (NMI hijack). */
static void interrupt(nes *m, int kind)
{
    nes_cpu *c = &m->cpu;
    uint16_t vec = kind == NES_INT_NMI ? 0xFFFA : 0xFFFE;
    if (kind == 0) { /* BRK: the byte after the opcode is skipped */
        RD(c->pc++);
    } else {
        RD(c->pc);
        RD(c->pc);
    }
    if (kind == NES_INT_NMI)
        m->nmi_pending = 0;
    push(m, (uint8_t)(c->pc >> 8));
    push(m, (uint8_t)c->pc);
    push(m, get_p(c, kind == 0));
    c->fi = 1;
    if (vec == 0xFFFE && m->nmi_pending && m->nmi_at < m->cyc) {
        vec = 0xFFFA;
        m->nmi_pending = 0;
    }
    uint16_t lo = RD(vec);
    if (vec == 0xFFFA && m->bd->nmi_vector) /* the MMC5 sees the NMI vector fetched */
        m->bd->nmi_vector(m);
    uint16_t hi = RD(vec + 1);
    c->pc = (uint16_t)(lo | hi << 8);
}

void nes_cpu_power(nes *m)
{
    nes_cpu *c = &m->cpu;
    c->a = c->x = c->y = 0;
    c->s = 0;
    set_p(c, 0x24);
    c->jammed = 0;
    c->int_next = 0;
    nes_cpu_reset(m);
}

/* The reset sequence: three suppressed pushes (S drops by 3), I set, vector at $FFFC; seven
 * cycles. */
void nes_cpu_reset(nes *m)
{
    nes_cpu *c = &m->cpu;
    RD(c->pc);
    RD(c->pc);
    for (int i = 0; i < 3; i++) {
        RD(0x100 | c->s);
        c->s--;
    }
    c->fi = 1;
    c->jammed = 0;
    c->int_next = 0;
    uint16_t lo = RD(0xFFFC);
    uint16_t hi = RD(0xFFFD);
    c->pc = (uint16_t)(lo | hi << 8);
}

/* Cases for the eight addressing modes of the ALU group (ORA AND EOR ADC LDA CMP SBC). */
#define ALU_CASES(base, EXPR)                                        \
    case base + 0x01: { uint8_t v = RD(ad_indx(m)); EXPR; } break;   \
    case base + 0x05: { uint8_t v = RD(ad_zp(m)); EXPR; } break;     \
    case base + 0x09: { uint8_t v = RD(c->pc++); EXPR; } break;      \
    case base + 0x0D: { uint8_t v = RD(ad_abs(m)); EXPR; } break;    \
    case base + 0x11: { uint8_t v = RD(ad_indy(m, 0)); EXPR; } break; \
    case base + 0x15: { uint8_t v = RD(ad_zpi(m, c->x)); EXPR; } break; \
    case base + 0x19: { uint8_t v = RD(ad_absi(m, c->y, 0)); EXPR; } break; \
    case base + 0x1D: { uint8_t v = RD(ad_absi(m, c->x, 0)); EXPR; } break;

/* Shifts and INC/DEC on memory (zp, abs, zp,X, abs,X). */
#define RMW_CASES(base, FN)                                     \
    case base + 0x06: rmw(m, ad_zp(m), FN); break;              \
    case base + 0x0E: rmw(m, ad_abs(m), FN); break;             \
    case base + 0x16: rmw(m, ad_zpi(m, c->x), FN); break;       \
    case base + 0x1E: rmw(m, ad_absi(m, c->x, 1), FN); break;

/* The unofficial read-modify-write group (SLO RLA SRE RRA DCP ISC), seven modes. */
#define URMW_CASES(base, FN)                                    \
    case base + 0x03: rmw(m, ad_indx(m), FN); break;            \
    case base + 0x07: rmw(m, ad_zp(m), FN); break;              \
    case base + 0x0F: rmw(m, ad_abs(m), FN); break;             \
    case base + 0x13: rmw(m, ad_indy(m, 1), FN); break;         \
    case base + 0x17: rmw(m, ad_zpi(m, c->x), FN); break;       \
    case base + 0x1B: rmw(m, ad_absi(m, c->y, 1), FN); break;   \
    case base + 0x1F: rmw(m, ad_absi(m, c->x, 1), FN); break;

/* One instruction or interrupt sequence; inlined into the frame's loop below, so that a
 * frame of instructions is one call, not one per instruction. */
GV_HOT_INLINE void cpu_step(nes *m)
{
    nes_cpu *c = &m->cpu;
    if (c->int_next) {
        int k = c->int_next;
        c->int_next = 0;
        interrupt(m, k);
        return;
    }
    if (c->jammed) {
        nes_tick(m);
        return;
    }
    if (m->trace)
        nes_trace_emit(m);
    uint8_t op = RD(c->pc++);
    uint8_t i_poll = 2; /* 2: poll with I as it is after the instruction */
    uint64_t seen;      /* the interrupt poll sees the lines as they were in this cycle */
/* a taken branch that stays in its page polls one cycle earlier than other instructions */
#define BRANCH(cond)                                                                       \
    if (branch(m, cond)) {                                                                 \
        seen = m->cyc - 2;                                                                 \
        goto poll;                                                                         \
    }                                                                                      \
    break
    switch (op) {
    ALU_CASES(0x00, c->a |= v; nz(c, c->a))
    ALU_CASES(0x20, c->a &= v; nz(c, c->a))
    ALU_CASES(0x40, c->a ^= v; nz(c, c->a))
    ALU_CASES(0x60, op_adc(c, v))
    ALU_CASES(0xA0, c->a = v; nz(c, v))
    ALU_CASES(0xC0, op_cmp(c, c->a, v))
    ALU_CASES(0xE0, op_sbc(c, v))
    case 0xEB: op_sbc(c, RD(c->pc++)); break; /* unofficial SBC #imm */

    /* stores */
    case 0x81: WR(ad_indx(m), c->a); break;
    case 0x85: WR(ad_zp(m), c->a); break;
    case 0x8D: WR(ad_abs(m), c->a); break;
    case 0x91: WR(ad_indy(m, 1), c->a); break;
    case 0x95: WR(ad_zpi(m, c->x), c->a); break;
    case 0x99: WR(ad_absi(m, c->y, 1), c->a); break;
    case 0x9D: WR(ad_absi(m, c->x, 1), c->a); break;
    case 0x86: WR(ad_zp(m), c->x); break;
    case 0x8E: WR(ad_abs(m), c->x); break;
    case 0x96: WR(ad_zpi(m, c->y), c->x); break;
    case 0x84: WR(ad_zp(m), c->y); break;
    case 0x8C: WR(ad_abs(m), c->y); break;
    case 0x94: WR(ad_zpi(m, c->x), c->y); break;

    /* loads of X and Y */
    case 0xA2: c->x = RD(c->pc++); nz(c, c->x); break;
    case 0xA6: c->x = RD(ad_zp(m)); nz(c, c->x); break;
    case 0xAE: c->x = RD(ad_abs(m)); nz(c, c->x); break;
    case 0xB6: c->x = RD(ad_zpi(m, c->y)); nz(c, c->x); break;
    case 0xBE: c->x = RD(ad_absi(m, c->y, 0)); nz(c, c->x); break;
    case 0xA0: c->y = RD(c->pc++); nz(c, c->y); break;
    case 0xA4: c->y = RD(ad_zp(m)); nz(c, c->y); break;
    case 0xAC: c->y = RD(ad_abs(m)); nz(c, c->y); break;
    case 0xB4: c->y = RD(ad_zpi(m, c->x)); nz(c, c->y); break;
    case 0xBC: c->y = RD(ad_absi(m, c->x, 0)); nz(c, c->y); break;

    /* compares of X and Y, BIT */
    case 0xE0: op_cmp(c, c->x, RD(c->pc++)); break;
    case 0xE4: op_cmp(c, c->x, RD(ad_zp(m))); break;
    case 0xEC: op_cmp(c, c->x, RD(ad_abs(m))); break;
    case 0xC0: op_cmp(c, c->y, RD(c->pc++)); break;
    case 0xC4: op_cmp(c, c->y, RD(ad_zp(m))); break;
    case 0xCC: op_cmp(c, c->y, RD(ad_abs(m))); break;
    case 0x24: op_bit(c, RD(ad_zp(m))); break;
    case 0x2C: op_bit(c, RD(ad_abs(m))); break;

    /* shifts, INC, DEC */
    RMW_CASES(0x00, op_asl)
    RMW_CASES(0x20, op_rol)
    RMW_CASES(0x40, op_lsr)
    RMW_CASES(0x60, op_ror)
    RMW_CASES(0xC0, op_dec)
    RMW_CASES(0xE0, op_inc)
    case 0x0A: RD(c->pc); c->a = op_asl(c, c->a); break;
    case 0x2A: RD(c->pc); c->a = op_rol(c, c->a); break;
    case 0x4A: RD(c->pc); c->a = op_lsr(c, c->a); break;
    case 0x6A: RD(c->pc); c->a = op_ror(c, c->a); break;

    /* register transfers, increments, flags */
    case 0xAA: RD(c->pc); c->x = c->a; nz(c, c->x); break;
    case 0x8A: RD(c->pc); c->a = c->x; nz(c, c->a); break;
    case 0xA8: RD(c->pc); c->y = c->a; nz(c, c->y); break;
    case 0x98: RD(c->pc); c->a = c->y; nz(c, c->a); break;
    case 0xBA: RD(c->pc); c->x = c->s; nz(c, c->x); break;
    case 0x9A: RD(c->pc); c->s = c->x; break;
    case 0xE8: RD(c->pc); c->x++; nz(c, c->x); break;
    case 0xCA: RD(c->pc); c->x--; nz(c, c->x); break;
    case 0xC8: RD(c->pc); c->y++; nz(c, c->y); break;
    case 0x88: RD(c->pc); c->y--; nz(c, c->y); break;
    case 0x18: RD(c->pc); c->fc = 0; break;
    case 0x38: RD(c->pc); c->fc = 1; break;
    case 0x58: RD(c->pc); i_poll = c->fi; c->fi = 0; break;
    case 0x78: RD(c->pc); i_poll = c->fi; c->fi = 1; break;
    case 0xB8: RD(c->pc); c->fv = 0; break;
    case 0xD8: RD(c->pc); c->fd = 0; break;
    case 0xF8: RD(c->pc); c->fd = 1; break;
    case 0xEA: RD(c->pc); break;

    /* stack */
    case 0x48: RD(c->pc); push(m, c->a); break;
    case 0x08: RD(c->pc); push(m, get_p(c, 1)); break;
    case 0x68: RD(c->pc); RD(0x100 | c->s); c->a = pull(m); nz(c, c->a); break;
    case 0x28: RD(c->pc); RD(0x100 | c->s); i_poll = c->fi; set_p(c, pull(m)); break;

    /* jumps, calls, returns */
    case 0x4C: c->pc = ad_abs(m); break;
    case 0x6C: { /* the pointer's high byte comes from the same page (the 6502's bug) */
        uint16_t p = ad_abs(m);
        uint16_t lo = RD(p);
        uint16_t hi = RD((p & 0xFF00) | ((p + 1) & 0xFF));
        c->pc = (uint16_t)(lo | hi << 8);
        break;
    }
    case 0x20: {
        uint16_t lo = RD(c->pc++);
        RD(0x100 | c->s);
        push(m, (uint8_t)(c->pc >> 8));
        push(m, (uint8_t)c->pc);
        uint16_t hi = RD(c->pc);
        c->pc = (uint16_t)(lo | hi << 8);
        break;
    }
    case 0x60: {
        RD(c->pc);
        RD(0x100 | c->s);
        uint16_t lo = pull(m);
        uint16_t hi = pull(m);
        c->pc = (uint16_t)(lo | hi << 8);
        RD(c->pc++);
        break;
    }
    case 0x40: {
        RD(c->pc);
        RD(0x100 | c->s);
        set_p(c, pull(m));
        uint16_t lo = pull(m);
        uint16_t hi = pull(m);
        c->pc = (uint16_t)(lo | hi << 8);
        break;
    }
    case 0x00: /* BRK: like every interrupt sequence it does not poll at its end; an NMI too
                * late to hijack it waits for the handler's first instruction */
        interrupt(m, 0);
        return;

    /* branches */
    case 0x10: BRANCH(!c->fn);
    case 0x30: BRANCH(c->fn);
    case 0x50: BRANCH(!c->fv);
    case 0x70: BRANCH(c->fv);
    case 0x90: BRANCH(!c->fc);
    case 0xB0: BRANCH(c->fc);
    case 0xD0: BRANCH(!c->fz);
    case 0xF0: BRANCH(c->fz);

    /* ---- unofficial ---- */
    URMW_CASES(0x00, op_slo)
    URMW_CASES(0x20, op_rla)
    URMW_CASES(0x40, op_sre)
    URMW_CASES(0x60, op_rra)
    URMW_CASES(0xC0, op_dcp)
    URMW_CASES(0xE0, op_isc)
    /* LAX: load A and X */
    case 0xA3: c->a = c->x = RD(ad_indx(m)); nz(c, c->a); break;
    case 0xA7: c->a = c->x = RD(ad_zp(m)); nz(c, c->a); break;
    case 0xAF: c->a = c->x = RD(ad_abs(m)); nz(c, c->a); break;
    case 0xB3: c->a = c->x = RD(ad_indy(m, 0)); nz(c, c->a); break;
    case 0xB7: c->a = c->x = RD(ad_zpi(m, c->y)); nz(c, c->a); break;
    case 0xBF: c->a = c->x = RD(ad_absi(m, c->y, 0)); nz(c, c->a); break;
    /* LXA: A and X = (A | magic) & imm; the magic constant varies between chips, $FF is
     * the value the common CPU test ROMs expect (blargg's instr_test 03-immediate) */
    case 0xAB: c->a = c->x = RD(c->pc++); nz(c, c->a); break;
    /* SAX: store A & X */
    case 0x83: WR(ad_indx(m), c->a & c->x); break;
    case 0x87: WR(ad_zp(m), c->a & c->x); break;
    case 0x8F: WR(ad_abs(m), c->a & c->x); break;
    case 0x97: WR(ad_zpi(m, c->y), c->a & c->x); break;
    /* immediate combinations */
    case 0x0B:
    case 0x2B: c->a &= RD(c->pc++); nz(c, c->a); c->fc = c->fn; break; /* ANC */
    case 0x4B: c->a &= RD(c->pc++); c->a = op_lsr(c, c->a); break;    /* ALR */
    case 0x6B: {                                                      /* ARR */
        c->a &= RD(c->pc++);
        c->a = (uint8_t)(c->a >> 1 | c->fc << 7);
        nz(c, c->a);
        c->fc = (c->a >> 6) & 1;
        c->fv = ((c->a >> 6) ^ (c->a >> 5)) & 1;
        break;
    }
    case 0xCB: { /* AXS: X = (A & X) - imm, carry as in CMP */
        uint8_t v = RD(c->pc++), ax = c->a & c->x;
        c->fc = ax >= v;
        c->x = (uint8_t)(ax - v);
        nz(c, c->x);
        break;
    }
    case 0x8B: c->a = (uint8_t)((c->a | 0xEE) & c->x & RD(c->pc++)); nz(c, c->a); break; /* XAA */
    case 0xBB: { /* LAS */
        uint8_t v = RD(ad_absi(m, c->y, 0)) & c->s;
        c->a = c->x = c->s = v;
        nz(c, v);
        break;
    }
    case 0x9C: op_sh(m, ad_abs(m), c->x, c->y); break;           /* SHY abs,X */
    case 0x9E: op_sh(m, ad_abs(m), c->y, c->x); break;           /* SHX abs,Y */
    case 0x9F: op_sh(m, ad_abs(m), c->y, c->a & c->x); break;    /* SHA abs,Y */
    case 0x93: op_sh(m, ind_base(m), c->y, c->a & c->x); break;  /* SHA (zp),Y */
    case 0x9B: c->s = c->a & c->x; op_sh(m, ad_abs(m), c->y, c->s); break; /* TAS */
    /* NOPs with operands */
    case 0x80: case 0x82: case 0x89: case 0xC2: case 0xE2: RD(c->pc++); break;
    case 0x04: case 0x44: case 0x64: RD(ad_zp(m)); break;
    case 0x14: case 0x34: case 0x54: case 0x74: case 0xD4: case 0xF4: RD(ad_zpi(m, c->x)); break;
    case 0x0C: RD(ad_abs(m)); break;
    case 0x1C: case 0x3C: case 0x5C: case 0x7C: case 0xDC: case 0xFC: RD(ad_absi(m, c->x, 0)); break;
    case 0x1A: case 0x3A: case 0x5A: case 0x7A: case 0xDA: case 0xFA: RD(c->pc); break;
    default: /* KIL: the CPU stops until reset */
        c->jammed = 1;
        c->pc--;
        return;
    }
    /* Interrupt poll: the lines as they were during the penultimate cycle. */
    seen = m->cyc - 1;
poll:
    if (m->nmi_pending && m->nmi_at <= seen)
        c->int_next = NES_INT_NMI;
    else if (m->irq_src && !(i_poll == 2 ? c->fi : i_poll) && m->irq_at <= seen)
        c->int_next = NES_INT_IRQ;
#undef BRANCH
}

void nes_cpu_run_frame(nes *m)
{
    while (!m->frame_done)
        cpu_step(m);
}
