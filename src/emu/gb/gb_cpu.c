/* gb_cpu.c: the SM83 CPU. gb_cpu_run runs instructions, and the events due between them,
 * until the frame period ends or the CPU stops; each instruction (or interrupt dispatch)
 * has its exact M-cycle timing: every memory access costs one M-cycle and happens at the
 * dot the real CPU makes it, internal cycles are added where the instruction has them
 * (16-bit arithmetic, taken branches, pushes, RET). Interrupt dispatch takes 5 M-cycles
 * and picks its vector after pushing PC's high byte (so a push that overwrites IE can
 * cancel it, jumping to $0000). EI enables interrupts after the following instruction.
 * HALT with IME clear and an interrupt pending does not halt and makes the next opcode
 * byte be read twice (the HALT bug); right after EI the interrupt is taken instead and
 * returns to the HALT (Pan Docs, "halt"). STOP follows Pan Docs' chart: one byte when an
 * interrupt is pending, two otherwise; a held button makes it a HALT (or nothing), a
 * requested speed switch switches and halts, else STOP mode until a button is pressed.
 * Illegal opcodes lock the CPU up. */
#include "core/hd.h"
#include "emu/gb/gb_int.h"

enum { FZ = 0x80, FN = 0x40, FH = 0x20, FC = 0x10 };

/* The instruction loop holds the clock and PC in this struct, which the compiler keeps in
 * registers: going through gb_state would put a store and a reload of s->clk on every
 * M-cycle's dependency chain. They are written back to gb_state before anything outside
 * this file runs (a slow memory access, STOP) and when the loop ends. */
typedef struct {
    gb *g;
    gb_state *s;
    uint64_t clk;
    uint64_t next;  /* run while clk < next: g->next_event, or 0 to stop after this instruction */
    uintptr_t cbase;   /* address of byte 0 of PC's 4 KiB page: PC's byte is at cbase + PC */
    uint32_t cpage;    /* that page (PC >> 12), or NO_PAGE: look it up in g->rmap */
    uint32_t pc;       /* 0-$10000: $10000 (after an opcode at $FFFF) is read as $0000 */
    uint64_t md;       /* g->md: dots per M-cycle (changes only at STOP) */
    uint8_t chk;       /* next is 0 because something may have changed: see gb_cpu_run */
} cpu;

#define NO_PAGE 0xFFu

/* Every function given the loop's cpu is inlined into the loop (GV_ALWAYS_INLINE), so its
 * address never escapes and its fields can live in registers (step_begin and what it calls
 * work on their own copy). */
#define TICK() (c->clk += c->md)

/* After anything outside this file ran (it may have scheduled an event, ended the frame
 * period, raised an interrupt or switched a bank) or IME changed: the loop looks at all
 * of that before the next instruction. */
GV_ALWAYS_INLINE void refresh(cpu *c)
{
    c->next = 0;
    c->chk = 1;
    c->cpage = NO_PAGE;
}

/* HALT, STOP, a lock-up or the test-ROM breakpoint: the loop ends after this instruction. */
GV_ALWAYS_INLINE void stop(cpu *c)
{
    c->g->cpu_brk = 1;
    c->next = 0;
}

/* Opcode lists for the CB-prefixed switch: each case gets its own constant opcode, so the
 * register and operation selectors below fold away at compile time (the main opcodes
 * are listed one by one in gb_cpu_run, whose labels need the literal opcode). */
#define X8(M, b) M((b) + 0) M((b) + 1) M((b) + 2) M((b) + 3) M((b) + 4) M((b) + 5) M((b) + 6) M((b) + 7)
#define X64(M, b) X8(M, (b)) X8(M, (b) + 8) X8(M, (b) + 16) X8(M, (b) + 24) X8(M, (b) + 32) X8(M, (b) + 40) \
    X8(M, (b) + 48) X8(M, (b) + 56)

GV_ALWAYS_INLINE uint8_t rd8(cpu *c, uint32_t a) /* a: 0-$FFFF */
{
    const uint8_t *p = c->g->rmap[a >> 12];
    uint8_t v;
    if (__builtin_expect(p != NULL, 1)) {
        v = p[a & 0xFFF];
    } else {
        c->s->clk = c->clk;
        v = gb_read_slow(c->g, (uint16_t)a);
        c->clk = c->s->clk;
        refresh(c);
    }
    TICK();
    return v;
}

GV_ALWAYS_INLINE void wr8(cpu *c, uint32_t a, uint8_t v) /* a: 0-$FFFF */
{
    uint8_t *p = c->g->wmap[a >> 12];
    if (__builtin_expect(p != NULL, 1)) {
        p[a & 0xFFF] = v;
    } else {
        c->s->clk = c->clk;
        gb_write_slow(c->g, (uint16_t)a, v);
        c->clk = c->s->clk;
        refresh(c);
    }
    TICK();
}

/* The DMG's OAM bug (gb_oam_bug): a 16-bit increment or decrement of a register that
 * holds $FE00-$FEFF, in the M-cycle starting at dot t (<= s.clk), acts like a write to
 * OAM; a read that comes with such an increment is a read and a write at once. Rare, so
 * out of line, and like every call out of the loop these take the machine, never the
 * loop's cpu (whose fields must stay in registers); the hot path only compares the
 * register's high byte. */
static __attribute__((noinline)) void oam_idu_slow(gb *g, uint64_t t)
{
    uint64_t now = g->s.clk;
    g->s.clk = t;
    gb_sync(g);
    if (!gb_dma_oam_busy(g, t)) /* an OAM DMA's copying keeps the CPU off OAM's bus */
        gb_oam_bug(g, GB_OAM_WRITE);
    g->s.clk = now;
}

static __attribute__((noinline)) uint8_t read_idu_slow(gb *g, uint16_t a)
{
    g->oam_idu = 1;
    uint8_t v = gb_read_slow(g, a);
    g->oam_idu = 0;
    return v;
}

#define IN_OAM(v) __builtin_expect(((v) >> 8) == 0xFE, 0)
#define IDU(v, t)                       \
    do {                                \
        if (IN_OAM(v)) {                \
            oam_idu_slow(c->g, (t));    \
            refresh(c);                 \
        }                               \
    } while (0)

/* A read with the address register incremented in the same M-cycle (LD A,(HL+/-), POP). */
GV_ALWAYS_INLINE uint8_t rd8_inc(cpu *c, uint32_t a)
{
    if (IN_OAM(a)) {
        c->s->clk = c->clk;
        uint8_t v = read_idu_slow(c->g, (uint16_t)a);
        c->clk = c->s->clk;
        refresh(c);
        TICK();
        return v;
    }
    return rd8(c, a);
}

/* Opcode and operand bytes: straight from the page PC is on, which stays mapped until
 * something outside this file runs (refresh). */
GV_ALWAYS_INLINE uint8_t imm8_page(cpu *c)
{
    uint32_t a = c->pc & 0xFFFF;
    const uint8_t *p = c->g->rmap[a >> 12];
    c->pc = a + 1;
    if (!p)
        return rd8(c, a); /* an unmapped page: every byte the slow way */
    c->cpage = a >> 12;
    c->cbase = (uintptr_t)p - (a & 0xF000);
    TICK();
    return p[a & 0xFFF];
}

GV_ALWAYS_INLINE uint8_t imm8(cpu *c)
{
    uint32_t a = c->pc;
    if (__builtin_expect(a >> 12 != c->cpage, 0))
        return imm8_page(c);
    c->pc = a + 1;
    TICK();
    return *(const uint8_t *)(c->cbase + a);
}

GV_ALWAYS_INLINE uint16_t imm16(cpu *c)
{
    uint8_t lo = imm8(c);
    return (uint16_t)(lo | (imm8(c) << 8));
}

#define HL ((uint16_t)((s->h << 8) | s->l))
#define BC ((uint16_t)((s->b << 8) | s->c))
#define DE ((uint16_t)((s->d << 8) | s->e))
#define SET_HL(v) (s->h = (uint8_t)((v) >> 8), s->l = (uint8_t)(v))

/* 8-bit register by its opcode index: B C D E H L (HL) A. */
GV_ALWAYS_INLINE uint8_t get_r(cpu *c, int r)
{
    gb_state *s = c->s;
    switch (r) {
    case 0: return s->b;
    case 1: return s->c;
    case 2: return s->d;
    case 3: return s->e;
    case 4: return s->h;
    case 5: return s->l;
    case 6: return rd8(c, HL);
    default: return s->a;
    }
}

GV_ALWAYS_INLINE void set_r(cpu *c, int r, uint8_t v)
{
    gb_state *s = c->s;
    switch (r) {
    case 0: s->b = v; break;
    case 1: s->c = v; break;
    case 2: s->d = v; break;
    case 3: s->e = v; break;
    case 4: s->h = v; break;
    case 5: s->l = v; break;
    case 6: wr8(c, HL, v); break;
    default: s->a = v; break;
    }
}

/* 16-bit register pair by index: BC DE HL SP. */
GV_ALWAYS_INLINE uint16_t get_rr(const gb_state *s, int i)
{
    switch (i) {
    case 0: return BC;
    case 1: return DE;
    case 2: return HL;
    default: return s->sp;
    }
}

GV_ALWAYS_INLINE void set_rr(gb_state *s, int i, uint16_t v)
{
    switch (i) {
    case 0: s->b = (uint8_t)(v >> 8), s->c = (uint8_t)v; break;
    case 1: s->d = (uint8_t)(v >> 8), s->e = (uint8_t)v; break;
    case 2: SET_HL(v); break;
    default: s->sp = v; break;
    }
}

/* ADD ADC SUB SBC AND XOR OR CP of A and v. The carry into bit k of a sum or difference
 * is bit k of a ^ v ^ result: H from bit 4, C from bit 8 (all ones above on a borrow). */
#define ZF(r) (((r) & 0xFF) ? 0 : FZ)
#define HF(a, v, r) ((((a) ^ (v) ^ (r)) & 0x10) << 1)
#define CF(r) (((r) >> 4) & FC)
GV_ALWAYS_INLINE void alu(gb_state *s, int op, uint8_t v)
{
    unsigned a = s->a, c = (s->f >> 4) & 1, r;
    switch (op) {
    case 0: /* ADD */
    case 1: /* ADC */
        r = a + v + (op == 1 ? c : 0);
        s->f = (uint8_t)(ZF(r) | HF(a, v, r) | CF(r));
        s->a = (uint8_t)r;
        break;
    case 2: /* SUB */
    case 3: /* SBC */
    case 7: /* CP */
        r = a - v - (op == 3 ? c : 0);
        s->f = (uint8_t)(FN | ZF(r) | HF(a, v, r) | CF(r));
        if (op != 7)
            s->a = (uint8_t)r;
        break;
    case 4: /* AND */
        s->a = (uint8_t)(a & v);
        s->f = (uint8_t)(ZF(s->a) | FH);
        break;
    case 5: /* XOR */
        s->a = (uint8_t)(a ^ v);
        s->f = ZF(s->a);
        break;
    default: /* OR */
        s->a = (uint8_t)(a | v);
        s->f = ZF(s->a);
        break;
    }
}

/* CB-prefixed rotates and shifts: RLC RRC RL RR SLA SRA SWAP SRL. */
GV_ALWAYS_INLINE uint8_t rot(gb_state *s, int op, uint8_t v)
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

GV_ALWAYS_INLINE int cond(const gb_state *s, int cc)
{
    switch (cc) {
    case 0: return !(s->f & FZ);
    case 1: return (s->f & FZ) != 0;
    case 2: return !(s->f & FC);
    default: return (s->f & FC) != 0;
    }
}

/* After the internal M-cycle that decrements SP (it ended at c->clk). */
GV_ALWAYS_INLINE void push16(cpu *c, uint16_t v)
{
    gb_state *s = c->s;
    IDU(s->sp, c->clk - c->md);
    wr8(c, --s->sp, (uint8_t)(v >> 8));
    wr8(c, --s->sp, (uint8_t)v);
}

GV_ALWAYS_INLINE uint16_t pop16(cpu *c)
{
    gb_state *s = c->s;
    uint8_t lo = rd8_inc(c, s->sp++);
    return (uint16_t)(lo | (rd8(c, s->sp++) << 8));
}

/* SP + signed 8-bit: flags H and C from the low byte's unsigned addition. */
GV_ALWAYS_INLINE uint16_t sp_plus(gb_state *s, uint8_t e)
{
    unsigned sp = s->sp, v = (unsigned)(int8_t)e, r = sp + v, x = sp ^ v ^ r;
    s->f = (uint8_t)(((x & 0x10) << 1) | ((x >> 4) & FC)); /* carries into bits 4 and 8 */
    return (uint16_t)r;
}

static void irq_dispatch(cpu *c)
{
    gb_state *s = c->s;
    s->ime = 0;
    TICK();
    TICK();
    uint16_t pc = (uint16_t)c->pc;
    IDU(s->sp, c->clk - c->md);
    wr8(c, --s->sp, (uint8_t)(pc >> 8));
    uint8_t pend = s->ie & s->iflag & 0x1F; /* looked at after the high byte is pushed */
    if (pend) {
        int bit = 0;
        while (!((pend >> bit) & 1))
            bit++;
        s->iflag &= (uint8_t)~(1 << bit);
        c->pc = (uint16_t)(0x40 + 8 * bit);
    } else {
        c->pc = 0;
    }
    wr8(c, --s->sp, (uint8_t)pc);
    TICK();
}

static void trace_line(cpu *c)
{
    gb_state *s = c->s;
    gb *g = c->g;
    char line[96];
    int n = snprintf(line, sizeof line,
                     "A:%02X F:%02X B:%02X C:%02X D:%02X E:%02X H:%02X L:%02X SP:%04X PC:%04X PCMEM:%02X,%02X,%02X,%02X",
                     s->a, s->f, s->b, s->c, s->d, s->e, s->h, s->l, s->sp, c->pc, gb_rd(g, c->pc),
                     gb_rd(g, (uint16_t)(c->pc + 1)), gb_rd(g, (uint16_t)(c->pc + 2)), gb_rd(g, (uint16_t)(c->pc + 3)));
    g->trace(g->trace_ctx, line, (size_t)n);
}

/* One CB-prefixed instruction: rotate/shift, BIT, RES, SET on register r = op & 7. */
GV_ALWAYS_INLINE void cb_op(cpu *c, int op)
{
    gb_state *s = c->s;
    int r = op & 7, b = (op >> 3) & 7;
    uint8_t v = get_r(c, r);
    switch (op >> 6) {
    case 0: set_r(c, r, rot(s, b, v)); break;
    case 1: s->f = (uint8_t)((s->f & FC) | FH | ((v >> b) & 1 ? 0 : FZ)); break;
    case 2: set_r(c, r, (uint8_t)(v & ~(1 << b))); break;
    default: set_r(c, r, (uint8_t)(v | (1 << b))); break;
    }
}

GV_ALWAYS_INLINE void exec_cb(cpu *c)
{
    switch (imm8(c)) {
#define CB(o) case o: cb_op(c, o); break;
        X64(CB, 0x00) X64(CB, 0x40) X64(CB, 0x80) X64(CB, 0xC0)
#undef CB
    }
}

/* Whether the next instruction needs step_begin: EI's delay running, an interrupt to
 * dispatch, the HALT bug, the trace. */
GV_ALWAYS_INLINE int unusual(const gb *g)
{
    const gb_state *s = &g->s;
    return s->ime_delay | s->halt_bug | (g->trace != NULL) | (s->ime & ((s->ie & s->iflag & 0x1F) != 0));
}

/* The loop's registers from gb_state, and back. */
GV_ALWAYS_INLINE cpu cpu_load(gb *g)
{
    const gb_state *s = &g->s;
    cpu c;
    c.g = g;
    c.s = &g->s;
    c.clk = s->clk;
    c.chk = (uint8_t)(g->cpu_brk | unusual(g));
    c.next = c.chk ? 0 : g->next_event;
    c.cbase = 0;
    c.cpage = NO_PAGE;
    c.pc = s->pc;
    c.md = g->md;
    return c;
}

GV_ALWAYS_INLINE void cpu_store(const cpu *c)
{
    c->s->clk = c->clk;
    c->s->pc = (uint16_t)c->pc;
}

/* The start of an instruction when something is unusual. Works on gb_state (the caller
 * stores its registers first and reloads them after), so that the caller's cpu never
 * escapes the loop and stays in registers. Returns the opcode, or -1 when an interrupt was
 * dispatched. */
static __attribute__((noinline)) int step_begin(gb *g)
{
    cpu t = cpu_load(g), *c = &t;
    gb_state *s = c->s;
    int op;
    if (s->ime_delay && --s->ime_delay == 0)
        s->ime = 1;
    /* a request is seen at the first boundary at or after its dot (docs/GB.md, "Interrupts") */
    if (s->ime && (s->ie & s->iflag & 0x1F)) {
        if (s->halt_bug) { /* EI; HALT with an interrupt pending: it returns to the HALT */
            s->halt_bug = 0;
            c->pc = (c->pc - 1) & 0xFFFF;
        }
        irq_dispatch(c);
        cpu_store(c);
        return -1;
    }
    if (g->trace) {
        s->clk = c->clk; /* the trace reads memory as the CPU sees it now */
        trace_line(c);
    }
    if (s->halt_bug) {
        s->halt_bug = 0;
        op = rd8(c, c->pc & 0xFFFF); /* PC fails to advance once */
    } else {
        op = imm8(c);
    }
    cpu_store(c);
    return op;
}

/* Runs instructions, and the events that fall due between them, until something sets
 * g->cpu_brk (HALT, STOP, a lock-up, the test-ROM breakpoint, the end of the frame period).
 * The hot path compares the clock with c->next only: an event that is due, and whatever
 * needs a closer look (refresh sets c->next to 0 and c->chk), are dealt with at the top of
 * the loop. Dispatch is threaded where the compiler has labels as values (GCC, Clang):
 * every handler ends by fetching the next opcode and jumping through the table, which
 * saves a jump per instruction and gives each handler its own indirect branch for the
 * predictor; elsewhere (and in sanitizer builds) the same handlers are a switch. */
#ifndef GB_THREADED
/* Sanitizer builds use the switch: Clang takes many minutes over the threaded function
 * with ASan and UBSan instrumentation. */
#if defined(__GNUC__) && !GV_SANITIZED
#define GB_THREADED 1
#else
#define GB_THREADED 0
#endif
#endif

#if GB_THREADED
#define OP(o) L_##o:
#define OP_ILLEGAL L_illegal:
#define NEXT                                        \
    do {                                            \
        if (__builtin_expect(c->clk >= c->next, 0)) \
            goto top;                               \
        goto *jt[imm8(c)];                          \
    } while (0)
#else
#define OP(o) case o:
#define OP_ILLEGAL default:
#define NEXT break
#endif

void gb_cpu_run(gb *g)
{
#if GB_THREADED
    static const void *const jt[256] = {
        &&L_0x00, &&L_0x01, &&L_0x02, &&L_0x03, &&L_0x04, &&L_0x05,
        &&L_0x06, &&L_0x07, &&L_0x08, &&L_0x09, &&L_0x0A, &&L_0x0B,
        &&L_0x0C, &&L_0x0D, &&L_0x0E, &&L_0x0F, &&L_0x10, &&L_0x11,
        &&L_0x12, &&L_0x13, &&L_0x14, &&L_0x15, &&L_0x16, &&L_0x17,
        &&L_0x18, &&L_0x19, &&L_0x1A, &&L_0x1B, &&L_0x1C, &&L_0x1D,
        &&L_0x1E, &&L_0x1F, &&L_0x20, &&L_0x21, &&L_0x22, &&L_0x23,
        &&L_0x24, &&L_0x25, &&L_0x26, &&L_0x27, &&L_0x28, &&L_0x29,
        &&L_0x2A, &&L_0x2B, &&L_0x2C, &&L_0x2D, &&L_0x2E, &&L_0x2F,
        &&L_0x30, &&L_0x31, &&L_0x32, &&L_0x33, &&L_0x34, &&L_0x35,
        &&L_0x36, &&L_0x37, &&L_0x38, &&L_0x39, &&L_0x3A, &&L_0x3B,
        &&L_0x3C, &&L_0x3D, &&L_0x3E, &&L_0x3F, &&L_0x40, &&L_0x41,
        &&L_0x42, &&L_0x43, &&L_0x44, &&L_0x45, &&L_0x46, &&L_0x47,
        &&L_0x48, &&L_0x49, &&L_0x4A, &&L_0x4B, &&L_0x4C, &&L_0x4D,
        &&L_0x4E, &&L_0x4F, &&L_0x50, &&L_0x51, &&L_0x52, &&L_0x53,
        &&L_0x54, &&L_0x55, &&L_0x56, &&L_0x57, &&L_0x58, &&L_0x59,
        &&L_0x5A, &&L_0x5B, &&L_0x5C, &&L_0x5D, &&L_0x5E, &&L_0x5F,
        &&L_0x60, &&L_0x61, &&L_0x62, &&L_0x63, &&L_0x64, &&L_0x65,
        &&L_0x66, &&L_0x67, &&L_0x68, &&L_0x69, &&L_0x6A, &&L_0x6B,
        &&L_0x6C, &&L_0x6D, &&L_0x6E, &&L_0x6F, &&L_0x70, &&L_0x71,
        &&L_0x72, &&L_0x73, &&L_0x74, &&L_0x75, &&L_0x76, &&L_0x77,
        &&L_0x78, &&L_0x79, &&L_0x7A, &&L_0x7B, &&L_0x7C, &&L_0x7D,
        &&L_0x7E, &&L_0x7F, &&L_0x80, &&L_0x81, &&L_0x82, &&L_0x83,
        &&L_0x84, &&L_0x85, &&L_0x86, &&L_0x87, &&L_0x88, &&L_0x89,
        &&L_0x8A, &&L_0x8B, &&L_0x8C, &&L_0x8D, &&L_0x8E, &&L_0x8F,
        &&L_0x90, &&L_0x91, &&L_0x92, &&L_0x93, &&L_0x94, &&L_0x95,
        &&L_0x96, &&L_0x97, &&L_0x98, &&L_0x99, &&L_0x9A, &&L_0x9B,
        &&L_0x9C, &&L_0x9D, &&L_0x9E, &&L_0x9F, &&L_0xA0, &&L_0xA1,
        &&L_0xA2, &&L_0xA3, &&L_0xA4, &&L_0xA5, &&L_0xA6, &&L_0xA7,
        &&L_0xA8, &&L_0xA9, &&L_0xAA, &&L_0xAB, &&L_0xAC, &&L_0xAD,
        &&L_0xAE, &&L_0xAF, &&L_0xB0, &&L_0xB1, &&L_0xB2, &&L_0xB3,
        &&L_0xB4, &&L_0xB5, &&L_0xB6, &&L_0xB7, &&L_0xB8, &&L_0xB9,
        &&L_0xBA, &&L_0xBB, &&L_0xBC, &&L_0xBD, &&L_0xBE, &&L_0xBF,
        &&L_0xC0, &&L_0xC1, &&L_0xC2, &&L_0xC3, &&L_0xC4, &&L_0xC5,
        &&L_0xC6, &&L_0xC7, &&L_0xC8, &&L_0xC9, &&L_0xCA, &&L_0xCB,
        &&L_0xCC, &&L_0xCD, &&L_0xCE, &&L_0xCF, &&L_0xD0, &&L_0xD1,
        &&L_0xD2, &&L_illegal, &&L_0xD4, &&L_0xD5, &&L_0xD6, &&L_0xD7,
        &&L_0xD8, &&L_0xD9, &&L_0xDA, &&L_illegal, &&L_0xDC, &&L_illegal,
        &&L_0xDE, &&L_0xDF, &&L_0xE0, &&L_0xE1, &&L_0xE2, &&L_illegal,
        &&L_illegal, &&L_0xE5, &&L_0xE6, &&L_0xE7, &&L_0xE8, &&L_0xE9,
        &&L_0xEA, &&L_illegal, &&L_illegal, &&L_illegal, &&L_0xEE, &&L_0xEF,
        &&L_0xF0, &&L_0xF1, &&L_0xF2, &&L_0xF3, &&L_illegal, &&L_0xF5,
        &&L_0xF6, &&L_0xF7, &&L_0xF8, &&L_0xF9, &&L_0xFA, &&L_0xFB,
        &&L_illegal, &&L_illegal, &&L_0xFE, &&L_0xFF,
    };
#endif
    gb_state *s = &g->s;
    g->cpu_brk = 0;
    cpu cs = cpu_load(g), *const c = &cs;
    int op;
    for (;;) {
#if GB_THREADED
    top:
#endif
        if (__builtin_expect(c->clk >= c->next, 0)) {
            if (!c->chk) { /* an event is due */
                cpu_store(c);
                gb_sync(g);
                c->clk = s->clk;
                c->cpage = NO_PAGE; /* an event may have locked VRAM */
            }
            c->chk = 0;
            c->next = g->cpu_brk ? 0 : g->next_event;
            if (c->clk >= c->next)
                break;
            if (unusual(g)) {
                cpu_store(c);
                op = step_begin(g);
                *c = cpu_load(g); /* c->chk again while EI's delay runs or the trace is on */
                if (op < 0)
                    continue; /* an interrupt was dispatched */
            } else {
                op = imm8(c);
            }
        } else {
            op = imm8(c);
        }
#if GB_THREADED
        goto *jt[op];
#else
        switch ((uint8_t)op) {
#endif

    OP(0x00) NEXT;
#define LDRR(o) OP(o) set_rr(s, (o) >> 4, imm16(c)); NEXT;
        LDRR(0x01) LDRR(0x11) LDRR(0x21) LDRR(0x31)
#undef LDRR
    OP(0x02) wr8(c, BC, s->a); NEXT;
    OP(0x12) wr8(c, DE, s->a); NEXT;
    OP(0x22) wr8(c, HL, s->a); SET_HL(HL + 1); NEXT;
    OP(0x32) wr8(c, HL, s->a); SET_HL(HL - 1); NEXT;
    OP(0x0A) s->a = rd8(c, BC); NEXT;
    OP(0x1A) s->a = rd8(c, DE); NEXT;
    OP(0x2A) s->a = rd8_inc(c, HL); SET_HL(HL + 1); NEXT;
    OP(0x3A) s->a = rd8_inc(c, HL); SET_HL(HL - 1); NEXT;
#define INCRR(o) OP(o) IDU(get_rr(s, (o) >> 4), c->clk); set_rr(s, (o) >> 4, (uint16_t)(get_rr(s, (o) >> 4) + 1)); TICK(); NEXT;
#define DECRR(o) OP(o) IDU(get_rr(s, (o) >> 4), c->clk); set_rr(s, (o) >> 4, (uint16_t)(get_rr(s, (o) >> 4) - 1)); TICK(); NEXT;
#define ADDHL(o)                                                                       \
    OP(o) {                                                                            \
        unsigned hl = HL, v = get_rr(s, (o) >> 4), r = hl + v;                         \
        s->f = (uint8_t)((s->f & FZ) | (((hl ^ v ^ r) >> 7) & FH) | ((r >> 12) & FC)); \
        SET_HL(r);                                                                     \
        TICK();                                                                        \
        NEXT;                                                                          \
    }
        INCRR(0x03) INCRR(0x13) INCRR(0x23) INCRR(0x33)
        DECRR(0x0B) DECRR(0x1B) DECRR(0x2B) DECRR(0x3B)
        ADDHL(0x09) ADDHL(0x19) ADDHL(0x29) ADDHL(0x39)
#undef INCRR
#undef DECRR
#undef ADDHL
#define INC(o)                                                                   \
    OP(o) {                                                                      \
        uint8_t v = (uint8_t)(get_r(c, (o) >> 3) + 1);                           \
        s->f = (uint8_t)((s->f & FC) | (v ? 0 : FZ) | ((v & 15) == 0 ? FH : 0)); \
        set_r(c, (o) >> 3, v);                                                   \
        NEXT;                                                                    \
    }
#define DEC(o)                                                                         \
    OP(o) {                                                                            \
        uint8_t v = (uint8_t)(get_r(c, (o) >> 3) - 1);                                 \
        s->f = (uint8_t)((s->f & FC) | FN | (v ? 0 : FZ) | ((v & 15) == 15 ? FH : 0)); \
        set_r(c, (o) >> 3, v);                                                         \
        NEXT;                                                                          \
    }
#define LDN(o) OP(o) set_r(c, (o) >> 3, imm8(c)); NEXT;
        INC(0x04) INC(0x0C) INC(0x14) INC(0x1C) INC(0x24) INC(0x2C) INC(0x34) INC(0x3C) DEC(0x05) DEC(0x0D)
        DEC(0x15) DEC(0x1D) DEC(0x25) DEC(0x2D) DEC(0x35) DEC(0x3D) LDN(0x06) LDN(0x0E) LDN(0x16) LDN(0x1E)
        LDN(0x26) LDN(0x2E) LDN(0x36) LDN(0x3E)
#undef INC
#undef DEC
#undef LDN
    OP(0x07) s->a = rot(s, 0, s->a); s->f &= FC; NEXT; /* RLCA: Z always clear */
    OP(0x0F) s->a = rot(s, 1, s->a); s->f &= FC; NEXT;
    OP(0x17) s->a = rot(s, 2, s->a); s->f &= FC; NEXT;
    OP(0x1F) s->a = rot(s, 3, s->a); s->f &= FC; NEXT;
    OP(0x08) {
        uint16_t a = imm16(c);
        wr8(c, a, (uint8_t)s->sp);
        wr8(c, (uint16_t)(a + 1), (uint8_t)(s->sp >> 8));
        NEXT;
    }
    OP(0x10) { /* STOP, as Pan Docs' STOP chart has it */
        s->clk = c->clk;
        gb_sync(g);
        int pend = (s->ie & s->iflag & 0x1F) != 0;
        if (!pend)
            imm8(c); /* 2 bytes unless an interrupt is pending; 1 byte then */
        s->clk = c->clk;
        uint64_t t0 = s->clk;
        if ((gb_joyp(g) & 0x0F) != 0x0F) {
            /* a selected button is held: no mode change (pending interrupt), else HALT;
             * DIV is not reset */
            if (!pend)
                s->halted = 1;
        } else if (s->cgb && (s->key1 & 1)) {
            /* the speed switch (DIV reset, 8200 dots); with no interrupt pending the CPU
             * then halts, for about $20000 dots unless an interrupt ends it sooner (with
             * one pending and IME set the hardware glitches: treated as IME clear) */
            gb_speed_switch(g);
            if (!pend) {
                s->halted = 1;
                s->wake_clk = t0 + 0x20000;
            }
        } else {
            gb_timer_write(g, 0xFF04, 0); /* STOP mode, DIV reset: until a button is pressed */
            s->stopped = 1;
        }
        c->clk = s->clk;
        c->md = g->md;
        stop(c);
        NEXT;
    }
    OP(0x18) {
        int8_t e = (int8_t)imm8(c);
        c->pc = (uint16_t)(c->pc + e);
        TICK();
        NEXT;
    }
#define JRCC(o)                            \
    OP(o) {                                \
        int8_t e = (int8_t)imm8(c);        \
        if (cond(s, ((o) >> 3) & 3)) {     \
            c->pc = (uint16_t)(c->pc + e); \
            TICK();                        \
        }                                  \
        NEXT;                              \
    }
        JRCC(0x20) JRCC(0x28) JRCC(0x30) JRCC(0x38)
#undef JRCC
    OP(0x27) { /* DAA */
        unsigned a = s->a;
        int cy = s->f & FC;
        if (!(s->f & FN)) {
            if (cy || a > 0x99) {
                a += 0x60;
                cy = FC;
            }
            if ((s->f & FH) || (a & 15) > 9)
                a += 6;
        } else {
            if (cy)
                a -= 0x60;
            if (s->f & FH)
                a -= 6;
        }
        s->a = (uint8_t)a;
        s->f = (uint8_t)((s->f & FN) | (s->a ? 0 : FZ) | cy);
        NEXT;
    }
    OP(0x2F) s->a = (uint8_t)~s->a; s->f |= FN | FH; NEXT;
    OP(0x37) s->f = (uint8_t)((s->f & FZ) | FC); NEXT;
    OP(0x3F) s->f = (uint8_t)((s->f & FZ) | ((s->f & FC) ^ FC)); NEXT;
    OP(0x76) /* HALT: with IME clear and an interrupt pending, the HALT bug (also right after EI) */
        if (!s->ime && (s->ie & s->iflag & 0x1F))
            s->halt_bug = 1, refresh(c);
        else
            s->halted = 1, stop(c);
        NEXT;
    OP(0x40) /* LD B,B: also the test-ROM breakpoint */
        if (g->trap_on)
            g->trap_hit = 1, stop(c);
        NEXT;
#define LDRR(o) OP(o) set_r(c, ((o) >> 3) & 7, get_r(c, (o) & 7)); NEXT;
#define ALU(o) OP(o) alu(s, ((o) >> 3) & 7, get_r(c, (o) & 7)); NEXT;
        /* $41-$7F except $76 (HALT) */
        LDRR(0x41) LDRR(0x42) LDRR(0x43) LDRR(0x44) LDRR(0x45) LDRR(0x46) LDRR(0x47) LDRR(0x48) LDRR(0x49)
        LDRR(0x4A) LDRR(0x4B) LDRR(0x4C) LDRR(0x4D) LDRR(0x4E) LDRR(0x4F) LDRR(0x50) LDRR(0x51) LDRR(0x52)
        LDRR(0x53) LDRR(0x54) LDRR(0x55) LDRR(0x56) LDRR(0x57) LDRR(0x58) LDRR(0x59) LDRR(0x5A) LDRR(0x5B)
        LDRR(0x5C) LDRR(0x5D) LDRR(0x5E) LDRR(0x5F) LDRR(0x60) LDRR(0x61) LDRR(0x62) LDRR(0x63) LDRR(0x64)
        LDRR(0x65) LDRR(0x66) LDRR(0x67) LDRR(0x68) LDRR(0x69) LDRR(0x6A) LDRR(0x6B) LDRR(0x6C) LDRR(0x6D)
        LDRR(0x6E) LDRR(0x6F) LDRR(0x70)
        LDRR(0x71) LDRR(0x72) LDRR(0x73) LDRR(0x74) LDRR(0x75) LDRR(0x77) LDRR(0x78) LDRR(0x79) LDRR(0x7A)
        LDRR(0x7B) LDRR(0x7C) LDRR(0x7D) LDRR(0x7E) LDRR(0x7F)
        ALU(0x80) ALU(0x81) ALU(0x82) ALU(0x83) ALU(0x84) ALU(0x85) ALU(0x86) ALU(0x87) ALU(0x88) ALU(0x89)
        ALU(0x8A) ALU(0x8B) ALU(0x8C) ALU(0x8D) ALU(0x8E) ALU(0x8F) ALU(0x90) ALU(0x91) ALU(0x92) ALU(0x93)
        ALU(0x94) ALU(0x95) ALU(0x96) ALU(0x97) ALU(0x98) ALU(0x99) ALU(0x9A) ALU(0x9B) ALU(0x9C) ALU(0x9D)
        ALU(0x9E) ALU(0x9F) ALU(0xA0) ALU(0xA1) ALU(0xA2) ALU(0xA3) ALU(0xA4) ALU(0xA5) ALU(0xA6) ALU(0xA7)
        ALU(0xA8) ALU(0xA9) ALU(0xAA) ALU(0xAB) ALU(0xAC) ALU(0xAD) ALU(0xAE) ALU(0xAF) ALU(0xB0) ALU(0xB1)
        ALU(0xB2) ALU(0xB3) ALU(0xB4) ALU(0xB5) ALU(0xB6) ALU(0xB7) ALU(0xB8) ALU(0xB9) ALU(0xBA) ALU(0xBB)
        ALU(0xBC) ALU(0xBD) ALU(0xBE) ALU(0xBF)
#undef LDRR
#undef ALU
#define ALUN(o) OP(o) alu(s, ((o) >> 3) & 7, imm8(c)); NEXT;
        ALUN(0xC6) ALUN(0xCE) ALUN(0xD6) ALUN(0xDE) ALUN(0xE6) ALUN(0xEE) ALUN(0xF6) ALUN(0xFE)
#undef ALUN
#define RETCC(o)                       \
    OP(o)                              \
        TICK();                        \
        if (cond(s, ((o) >> 3) & 3)) { \
            c->pc = pop16(c);          \
            TICK();                    \
        }                              \
        NEXT;
        RETCC(0xC0) RETCC(0xC8) RETCC(0xD0) RETCC(0xD8)
#undef RETCC
    OP(0xC9) c->pc = pop16(c); TICK(); NEXT;
    OP(0xD9) c->pc = pop16(c); TICK(); s->ime = 1; s->ime_delay = 0; refresh(c); NEXT;
#define POP(o) OP(o) set_rr(s, ((o) >> 4) & 3, pop16(c)); NEXT;
        POP(0xC1) POP(0xD1) POP(0xE1)
#undef POP
    OP(0xF1) {
        uint16_t v = pop16(c);
        s->a = (uint8_t)(v >> 8);
        s->f = (uint8_t)(v & 0xF0);
        NEXT;
    }
#define PUSH(o) OP(o) TICK(); push16(c, get_rr(s, ((o) >> 4) & 3)); NEXT;
        PUSH(0xC5) PUSH(0xD5) PUSH(0xE5)
#undef PUSH
    OP(0xF5) TICK(); push16(c, (uint16_t)((s->a << 8) | s->f)); NEXT;
#define JPCC(o)                        \
    OP(o) {                            \
        uint16_t a = imm16(c);         \
        if (cond(s, ((o) >> 3) & 3)) { \
            c->pc = a;                 \
            TICK();                    \
        }                              \
        NEXT;                          \
    }
        JPCC(0xC2) JPCC(0xCA) JPCC(0xD2) JPCC(0xDA)
#undef JPCC
    OP(0xC3) c->pc = imm16(c); TICK(); NEXT;
    OP(0xE9) c->pc = HL; NEXT;
#define CALLCC(o)                       \
    OP(o) {                             \
        uint16_t a = imm16(c);          \
        if (cond(s, ((o) >> 3) & 3)) {  \
            TICK();                     \
            push16(c, (uint16_t)c->pc); \
            c->pc = a;                  \
        }                               \
        NEXT;                           \
    }
        CALLCC(0xC4) CALLCC(0xCC) CALLCC(0xD4) CALLCC(0xDC)
#undef CALLCC
    OP(0xCD) {
        uint16_t a = imm16(c);
        TICK();
        push16(c, (uint16_t)c->pc);
        c->pc = a;
        NEXT;
    }
#define RST(o) OP(o) TICK(); push16(c, (uint16_t)c->pc); c->pc = (o) & 0x38; NEXT;
        RST(0xC7) RST(0xCF) RST(0xD7) RST(0xDF) RST(0xE7) RST(0xEF) RST(0xF7) RST(0xFF)
#undef RST
    OP(0xCB) exec_cb(c); NEXT;
    OP(0xE0) wr8(c, (uint16_t)(0xFF00 | imm8(c)), s->a); NEXT;
    OP(0xF0) s->a = rd8(c, (uint16_t)(0xFF00 | imm8(c))); NEXT;
    OP(0xE2) wr8(c, (uint16_t)(0xFF00 | s->c), s->a); NEXT;
    OP(0xF2) s->a = rd8(c, (uint16_t)(0xFF00 | s->c)); NEXT;
    OP(0xEA) wr8(c, imm16(c), s->a); NEXT;
    OP(0xFA) s->a = rd8(c, imm16(c)); NEXT;
    OP(0xE8) s->sp = sp_plus(s, imm8(c)); TICK(); TICK(); NEXT;
    OP(0xF8) {
        uint16_t v = sp_plus(s, imm8(c));
        SET_HL(v);
        TICK();
        NEXT;
    }
    OP(0xF9) s->sp = HL; TICK(); NEXT;
    OP(0xF3) s->ime = 0; s->ime_delay = 0; NEXT;
    OP(0xFB)
        if (!s->ime && !s->ime_delay)
            s->ime_delay = 2, refresh(c);
        NEXT;
    OP_ILLEGAL /* $D3 $DB $DD $E3 $E4 $EB $EC $ED $F4 $FC $FD: the CPU locks up */
        s->locked = 1;
        stop(c);
        NEXT;
#if !GB_THREADED
        }
#endif
    }
    cpu_store(c);
}

#undef OP
#undef OP_ILLEGAL
#undef NEXT
