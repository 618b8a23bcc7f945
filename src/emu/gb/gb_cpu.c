/* gb_cpu.c: the SM83 CPU. One call runs one instruction (or one interrupt dispatch) with
 * its exact M-cycle timing: every memory access costs one M-cycle and happens at the
 * dot the real CPU makes it, internal cycles are added where the instruction has them
 * (16-bit arithmetic, taken branches, pushes, RET). Interrupt dispatch takes 5 M-cycles
 * and picks its vector after pushing PC's high byte (so a push that overwrites IE can
 * cancel it, jumping to $0000). EI enables interrupts after the following instruction.
 * HALT with IME clear and an interrupt pending does not halt and makes the next opcode
 * byte be read twice (the HALT bug). Illegal opcodes lock the CPU up. */
#include "emu/gb/gb_int.h"

enum { FZ = 0x80, FN = 0x40, FH = 0x20, FC = 0x10 };

#define TICK() (s->clk += g->md)

static inline uint8_t rd8(gb *g, uint16_t a)
{
    uint8_t v = gb_rd(g, a);
    g->s.clk += g->md;
    return v;
}

static inline void wr8(gb *g, uint16_t a, uint8_t v)
{
    gb_wr(g, a, v);
    g->s.clk += g->md;
}

static inline uint8_t imm8(gb *g)
{
    return rd8(g, g->s.pc++);
}

static inline uint16_t imm16(gb *g)
{
    uint8_t lo = imm8(g);
    return (uint16_t)(lo | (imm8(g) << 8));
}

#define HL ((uint16_t)((s->h << 8) | s->l))
#define BC ((uint16_t)((s->b << 8) | s->c))
#define DE ((uint16_t)((s->d << 8) | s->e))
#define SET_HL(v) (s->h = (uint8_t)((v) >> 8), s->l = (uint8_t)(v))

/* 8-bit register by its opcode index: B C D E H L (HL) A. */
static inline uint8_t get_r(gb *g, int r)
{
    gb_state *s = &g->s;
    switch (r) {
    case 0: return s->b;
    case 1: return s->c;
    case 2: return s->d;
    case 3: return s->e;
    case 4: return s->h;
    case 5: return s->l;
    case 6: return rd8(g, HL);
    default: return s->a;
    }
}

static inline void set_r(gb *g, int r, uint8_t v)
{
    gb_state *s = &g->s;
    switch (r) {
    case 0: s->b = v; break;
    case 1: s->c = v; break;
    case 2: s->d = v; break;
    case 3: s->e = v; break;
    case 4: s->h = v; break;
    case 5: s->l = v; break;
    case 6: wr8(g, HL, v); break;
    default: s->a = v; break;
    }
}

/* 16-bit register pair by index: BC DE HL SP. */
static inline uint16_t get_rr(const gb_state *s, int i)
{
    switch (i) {
    case 0: return BC;
    case 1: return DE;
    case 2: return HL;
    default: return s->sp;
    }
}

static inline void set_rr(gb_state *s, int i, uint16_t v)
{
    switch (i) {
    case 0: s->b = (uint8_t)(v >> 8), s->c = (uint8_t)v; break;
    case 1: s->d = (uint8_t)(v >> 8), s->e = (uint8_t)v; break;
    case 2: SET_HL(v); break;
    default: s->sp = v; break;
    }
}

/* ADD ADC SUB SBC AND XOR OR CP of A and v. */
static inline void alu(gb_state *s, int op, uint8_t v)
{
    unsigned a = s->a, c = (s->f >> 4) & 1, r;
    switch (op) {
    case 0: /* ADD */
        r = a + v;
        s->f = (uint8_t)((((r & 0xFF) == 0) ? FZ : 0) | (((a & 15) + (v & 15)) > 15 ? FH : 0) | (r > 255 ? FC : 0));
        s->a = (uint8_t)r;
        break;
    case 1: /* ADC */
        r = a + v + c;
        s->f = (uint8_t)((((r & 0xFF) == 0) ? FZ : 0) | (((a & 15) + (v & 15) + c) > 15 ? FH : 0) | (r > 255 ? FC : 0));
        s->a = (uint8_t)r;
        break;
    case 2: /* SUB */
    case 7: /* CP */
        r = a - v;
        s->f = (uint8_t)(FN | (((r & 0xFF) == 0) ? FZ : 0) | ((a & 15) < (v & 15) ? FH : 0) | (a < v ? FC : 0));
        if (op == 2)
            s->a = (uint8_t)r;
        break;
    case 3: /* SBC */
        r = a - v - c;
        s->f = (uint8_t)(FN | (((r & 0xFF) == 0) ? FZ : 0) | ((a & 15) < (v & 15) + c ? FH : 0) | (a < v + c ? FC : 0));
        s->a = (uint8_t)r;
        break;
    case 4: /* AND */
        s->a = (uint8_t)(a & v);
        s->f = (uint8_t)((s->a ? 0 : FZ) | FH);
        break;
    case 5: /* XOR */
        s->a = (uint8_t)(a ^ v);
        s->f = s->a ? 0 : FZ;
        break;
    default: /* OR */
        s->a = (uint8_t)(a | v);
        s->f = s->a ? 0 : FZ;
        break;
    }
}

/* CB-prefixed rotates and shifts: RLC RRC RL RR SLA SRA SWAP SRL. */
static inline uint8_t rot(gb_state *s, int op, uint8_t v)
{
    unsigned c = (s->f >> 4) & 1, co, r;
    switch (op) {
    case 0: co = v >> 7; r = (uint8_t)((v << 1) | co); break;
    case 1: co = v & 1; r = (uint8_t)((v >> 1) | (co << 7)); break;
    case 2: co = v >> 7; r = (uint8_t)((v << 1) | c); break;
    case 3: co = v & 1; r = (uint8_t)((v >> 1) | (c << 7)); break;
    case 4: co = v >> 7; r = (uint8_t)(v << 1); break;
    case 5: co = v & 1; r = (uint8_t)((v >> 1) | (v & 0x80)); break;
    case 6: co = 0; r = (uint8_t)((v >> 4) | (v << 4)); break;
    default: co = v & 1; r = v >> 1; break;
    }
    s->f = (uint8_t)((r ? 0 : FZ) | (co ? FC : 0));
    return (uint8_t)r;
}

static inline int cond(const gb_state *s, int cc)
{
    switch (cc) {
    case 0: return !(s->f & FZ);
    case 1: return (s->f & FZ) != 0;
    case 2: return !(s->f & FC);
    default: return (s->f & FC) != 0;
    }
}

static inline void push16(gb *g, uint16_t v)
{
    gb_state *s = &g->s;
    wr8(g, --s->sp, (uint8_t)(v >> 8));
    wr8(g, --s->sp, (uint8_t)v);
}

static inline uint16_t pop16(gb *g)
{
    gb_state *s = &g->s;
    uint8_t lo = rd8(g, s->sp++);
    return (uint16_t)(lo | (rd8(g, s->sp++) << 8));
}

/* SP + signed 8-bit: flags H and C from the low byte's unsigned addition. */
static inline uint16_t sp_plus(gb_state *s, uint8_t e)
{
    unsigned sp = s->sp;
    s->f = (uint8_t)((((sp & 15) + (e & 15)) > 15 ? FH : 0) | (((sp & 0xFF) + e) > 0xFF ? FC : 0));
    return (uint16_t)(sp + (int8_t)e);
}

static void irq_dispatch(gb *g)
{
    gb_state *s = &g->s;
    s->ime = 0;
    TICK();
    TICK();
    uint16_t pc = s->pc;
    wr8(g, --s->sp, (uint8_t)(pc >> 8));
    uint8_t pend = s->ie & s->iflag & 0x1F; /* looked at after the high byte is pushed */
    if (pend) {
        int bit = 0;
        while (!((pend >> bit) & 1))
            bit++;
        s->iflag &= (uint8_t)~(1 << bit);
        s->pc = (uint16_t)(0x40 + 8 * bit);
    } else {
        s->pc = 0;
    }
    wr8(g, --s->sp, (uint8_t)pc);
    TICK();
}

static void trace_line(gb *g)
{
    gb_state *s = &g->s;
    fprintf(g->trace,
            "A:%02X F:%02X B:%02X C:%02X D:%02X E:%02X H:%02X L:%02X SP:%04X PC:%04X PCMEM:%02X,%02X,%02X,%02X\n",
            s->a, s->f, s->b, s->c, s->d, s->e, s->h, s->l, s->sp, s->pc, gb_rd(g, s->pc),
            gb_rd(g, (uint16_t)(s->pc + 1)), gb_rd(g, (uint16_t)(s->pc + 2)), gb_rd(g, (uint16_t)(s->pc + 3)));
}

static void exec_cb(gb *g)
{
    gb_state *s = &g->s;
    uint8_t op = imm8(g);
    int r = op & 7, b = (op >> 3) & 7;
    uint8_t v = get_r(g, r);
    switch (op >> 6) {
    case 0: set_r(g, r, rot(s, b, v)); break;
    case 1: s->f = (uint8_t)((s->f & FC) | FH | ((v >> b) & 1 ? 0 : FZ)); break;
    case 2: set_r(g, r, (uint8_t)(v & ~(1 << b))); break;
    default: set_r(g, r, (uint8_t)(v | (1 << b))); break;
    }
}

void gb_cpu_step(gb *g)
{
    gb_state *s = &g->s;
    if (s->ime_delay && --s->ime_delay == 0)
        s->ime = 1;
    if (s->ime && (s->ie & s->iflag & 0x1F)) {
        irq_dispatch(g);
        return;
    }
    if (g->trace)
        trace_line(g);
    uint8_t op;
    if (s->halt_bug) {
        op = rd8(g, s->pc); /* PC fails to advance once */
        s->halt_bug = 0;
    } else {
        op = imm8(g);
    }
    switch (op) {
    case 0x00: break;
    case 0x01: case 0x11: case 0x21: case 0x31: set_rr(s, op >> 4, imm16(g)); break;
    case 0x02: wr8(g, BC, s->a); break;
    case 0x12: wr8(g, DE, s->a); break;
    case 0x22: wr8(g, HL, s->a); SET_HL(HL + 1); break;
    case 0x32: wr8(g, HL, s->a); SET_HL(HL - 1); break;
    case 0x0A: s->a = rd8(g, BC); break;
    case 0x1A: s->a = rd8(g, DE); break;
    case 0x2A: s->a = rd8(g, HL); SET_HL(HL + 1); break;
    case 0x3A: s->a = rd8(g, HL); SET_HL(HL - 1); break;
    case 0x03: case 0x13: case 0x23: case 0x33:
        set_rr(s, op >> 4, (uint16_t)(get_rr(s, op >> 4) + 1));
        TICK();
        break;
    case 0x0B: case 0x1B: case 0x2B: case 0x3B:
        set_rr(s, op >> 4, (uint16_t)(get_rr(s, op >> 4) - 1));
        TICK();
        break;
    case 0x09: case 0x19: case 0x29: case 0x39: {
        unsigned hl = HL, v = get_rr(s, op >> 4), r = hl + v;
        s->f = (uint8_t)((s->f & FZ) | (((hl & 0xFFF) + (v & 0xFFF)) > 0xFFF ? FH : 0) | (r > 0xFFFF ? FC : 0));
        SET_HL(r);
        TICK();
        break;
    }
    case 0x04: case 0x0C: case 0x14: case 0x1C: case 0x24: case 0x2C: case 0x34: case 0x3C: {
        int r = op >> 3;
        uint8_t v = (uint8_t)(get_r(g, r) + 1);
        s->f = (uint8_t)((s->f & FC) | (v ? 0 : FZ) | ((v & 15) == 0 ? FH : 0));
        set_r(g, r, v);
        break;
    }
    case 0x05: case 0x0D: case 0x15: case 0x1D: case 0x25: case 0x2D: case 0x35: case 0x3D: {
        int r = op >> 3;
        uint8_t v = (uint8_t)(get_r(g, r) - 1);
        s->f = (uint8_t)((s->f & FC) | FN | (v ? 0 : FZ) | ((v & 15) == 15 ? FH : 0));
        set_r(g, r, v);
        break;
    }
    case 0x06: case 0x0E: case 0x16: case 0x1E: case 0x26: case 0x2E: case 0x36: case 0x3E:
        set_r(g, op >> 3, imm8(g));
        break;
    case 0x07: s->a = rot(s, 0, s->a); s->f &= FC; break; /* RLCA: Z always clear */
    case 0x0F: s->a = rot(s, 1, s->a); s->f &= FC; break;
    case 0x17: s->a = rot(s, 2, s->a); s->f &= FC; break;
    case 0x1F: s->a = rot(s, 3, s->a); s->f &= FC; break;
    case 0x08: {
        uint16_t a = imm16(g);
        wr8(g, a, (uint8_t)s->sp);
        wr8(g, (uint16_t)(a + 1), (uint8_t)(s->sp >> 8));
        break;
    }
    case 0x10: /* STOP */
        imm8(g);
        gb_sync(g);
        if (s->cgb && (s->key1 & 1)) {
            gb_speed_switch(g);
        } else {
            gb_timer_write(g, 0xFF04, 0);
            s->stopped = 1;
        }
        break;
    case 0x18: {
        int8_t e = (int8_t)imm8(g);
        s->pc = (uint16_t)(s->pc + e);
        TICK();
        break;
    }
    case 0x20: case 0x28: case 0x30: case 0x38: {
        int8_t e = (int8_t)imm8(g);
        if (cond(s, (op >> 3) & 3)) {
            s->pc = (uint16_t)(s->pc + e);
            TICK();
        }
        break;
    }
    case 0x27: { /* DAA */
        unsigned a = s->a;
        int c = s->f & FC;
        if (!(s->f & FN)) {
            if (c || a > 0x99) {
                a += 0x60;
                c = FC;
            }
            if ((s->f & FH) || (a & 15) > 9)
                a += 6;
        } else {
            if (c)
                a -= 0x60;
            if (s->f & FH)
                a -= 6;
        }
        s->a = (uint8_t)a;
        s->f = (uint8_t)((s->f & FN) | (s->a ? 0 : FZ) | c);
        break;
    }
    case 0x2F: s->a = (uint8_t)~s->a; s->f |= FN | FH; break;
    case 0x37: s->f = (uint8_t)((s->f & FZ) | FC); break;
    case 0x3F: s->f = (uint8_t)((s->f & FZ) | ((s->f & FC) ^ FC)); break;
    case 0x76: /* HALT */
        if (!s->ime && !s->ime_delay && (s->ie & s->iflag & 0x1F))
            s->halt_bug = 1;
        else
            s->halted = 1;
        break;
    case 0x40: case 0x41: case 0x42: case 0x43: case 0x44: case 0x45: case 0x46: case 0x47:
    case 0x48: case 0x49: case 0x4A: case 0x4B: case 0x4C: case 0x4D: case 0x4E: case 0x4F:
    case 0x50: case 0x51: case 0x52: case 0x53: case 0x54: case 0x55: case 0x56: case 0x57:
    case 0x58: case 0x59: case 0x5A: case 0x5B: case 0x5C: case 0x5D: case 0x5E: case 0x5F:
    case 0x60: case 0x61: case 0x62: case 0x63: case 0x64: case 0x65: case 0x66: case 0x67:
    case 0x68: case 0x69: case 0x6A: case 0x6B: case 0x6C: case 0x6D: case 0x6E: case 0x6F:
    case 0x70: case 0x71: case 0x72: case 0x73: case 0x74: case 0x75: case 0x77:
    case 0x78: case 0x79: case 0x7A: case 0x7B: case 0x7C: case 0x7D: case 0x7E: case 0x7F:
        set_r(g, (op >> 3) & 7, get_r(g, op & 7));
        if (op == 0x40 && g->trap_on)
            g->trap_hit = 1; /* LD B,B: the test-ROM breakpoint */
        break;
    case 0x80: case 0x81: case 0x82: case 0x83: case 0x84: case 0x85: case 0x86: case 0x87:
    case 0x88: case 0x89: case 0x8A: case 0x8B: case 0x8C: case 0x8D: case 0x8E: case 0x8F:
    case 0x90: case 0x91: case 0x92: case 0x93: case 0x94: case 0x95: case 0x96: case 0x97:
    case 0x98: case 0x99: case 0x9A: case 0x9B: case 0x9C: case 0x9D: case 0x9E: case 0x9F:
    case 0xA0: case 0xA1: case 0xA2: case 0xA3: case 0xA4: case 0xA5: case 0xA6: case 0xA7:
    case 0xA8: case 0xA9: case 0xAA: case 0xAB: case 0xAC: case 0xAD: case 0xAE: case 0xAF:
    case 0xB0: case 0xB1: case 0xB2: case 0xB3: case 0xB4: case 0xB5: case 0xB6: case 0xB7:
    case 0xB8: case 0xB9: case 0xBA: case 0xBB: case 0xBC: case 0xBD: case 0xBE: case 0xBF:
        alu(s, (op >> 3) & 7, get_r(g, op & 7));
        break;
    case 0xC6: case 0xCE: case 0xD6: case 0xDE: case 0xE6: case 0xEE: case 0xF6: case 0xFE:
        alu(s, (op >> 3) & 7, imm8(g));
        break;
    case 0xC0: case 0xC8: case 0xD0: case 0xD8: /* RET cc */
        TICK();
        if (cond(s, (op >> 3) & 3)) {
            s->pc = pop16(g);
            TICK();
        }
        break;
    case 0xC9: s->pc = pop16(g); TICK(); break;
    case 0xD9: s->pc = pop16(g); TICK(); s->ime = 1; s->ime_delay = 0; break;
    case 0xC1: case 0xD1: case 0xE1: set_rr(s, (op >> 4) & 3, pop16(g)); break;
    case 0xF1: {
        uint16_t v = pop16(g);
        s->a = (uint8_t)(v >> 8);
        s->f = (uint8_t)(v & 0xF0);
        break;
    }
    case 0xC5: case 0xD5: case 0xE5: TICK(); push16(g, get_rr(s, (op >> 4) & 3)); break;
    case 0xF5: TICK(); push16(g, (uint16_t)((s->a << 8) | s->f)); break;
    case 0xC2: case 0xCA: case 0xD2: case 0xDA: {
        uint16_t a = imm16(g);
        if (cond(s, (op >> 3) & 3)) {
            s->pc = a;
            TICK();
        }
        break;
    }
    case 0xC3: s->pc = imm16(g); TICK(); break;
    case 0xE9: s->pc = HL; break;
    case 0xC4: case 0xCC: case 0xD4: case 0xDC: {
        uint16_t a = imm16(g);
        if (cond(s, (op >> 3) & 3)) {
            TICK();
            push16(g, s->pc);
            s->pc = a;
        }
        break;
    }
    case 0xCD: {
        uint16_t a = imm16(g);
        TICK();
        push16(g, s->pc);
        s->pc = a;
        break;
    }
    case 0xC7: case 0xCF: case 0xD7: case 0xDF: case 0xE7: case 0xEF: case 0xF7: case 0xFF:
        TICK();
        push16(g, s->pc);
        s->pc = op & 0x38;
        break;
    case 0xCB: exec_cb(g); break;
    case 0xE0: wr8(g, (uint16_t)(0xFF00 | imm8(g)), s->a); break;
    case 0xF0: s->a = rd8(g, (uint16_t)(0xFF00 | imm8(g))); break;
    case 0xE2: wr8(g, (uint16_t)(0xFF00 | s->c), s->a); break;
    case 0xF2: s->a = rd8(g, (uint16_t)(0xFF00 | s->c)); break;
    case 0xEA: wr8(g, imm16(g), s->a); break;
    case 0xFA: s->a = rd8(g, imm16(g)); break;
    case 0xE8: s->sp = sp_plus(s, imm8(g)); TICK(); TICK(); break;
    case 0xF8: {
        uint16_t v = sp_plus(s, imm8(g));
        SET_HL(v);
        TICK();
        break;
    }
    case 0xF9: s->sp = HL; TICK(); break;
    case 0xF3: s->ime = 0; s->ime_delay = 0; break;
    case 0xFB: if (!s->ime && !s->ime_delay) s->ime_delay = 2; break;
    default: /* $D3 $DB $DD $E3 $E4 $EB $EC $ED $F4 $FC $FD: the CPU locks up */
        s->locked = 1;
        break;
    }
}
