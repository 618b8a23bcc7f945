/* snes_cpu.c: the 65C816 core. One instruction set, written once (exec below) and compiled
 * twice: run_fast, over the page table of the fast bus (internal cycles cost 6 master
 * clocks and no call), and run_ref, where every cycle goes through the reference bus
 * callback with its address and signals. exec takes the bus kind as a constant argument
 * R, so each copy keeps only its own bus code.
 *
 * Sources: the WDC W65C816S datasheet (table 5-7: the bus cycles of every addressing mode
 * and their notes; 2.25: reset), Bruce Clark's "65C816 Opcodes" (effective addresses,
 * wrapping rules, cycle formulas), Eyes & Lichty "Programming the 65816" (mode
 * switching), and for what those leave open, the measured behaviour recorded in
 * docs/SNES_65816.md (decimal mode on invalid digits, emulation-mode wraps).
 *
 * Conventions used throughout:
 *   - addresses are 24-bit uint32_t; bank-0 quantities (direct page, stack) are computed
 *     in 16 bits and so wrap at the end of bank 0;
 *   - "old" instructions (those of the 6502/65C02) wrap the stack in page 1 and the direct
 *     page in its page (when DL = 0) in emulation mode; "new" ones compute in 16 bits and
 *     only force SH = $01 once they are done (Clark 5.1.1; Eyes & Lichty ch. 4);
 *   - in emulation mode p always has m and x set, so the width tests need not look at e. */
#include "emu/snes/snes_cpu.h"

#include "core/gv.h"
#include "core/hd.h"

#include <string.h>

/* Forced inlining makes the two instances of exec() one large function each: fast, but a
 * sanitizer build then instruments tens of thousands of inlined lines (many minutes of
 * compilation); there the compiler chooses (GV_HOT_INLINE). */
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

enum { NOPAGE = 0xFFFFFFFFu };

/* Bus signals of each kind of cycle (table 5-7's VDA/VPA/VPB columns). */
enum {
    K_OP = SNES_CYC_VDA | SNES_CYC_VPA, /* opcode fetch */
    K_PRG = SNES_CYC_VPA,               /* operand byte */
    K_DATA = SNES_CYC_VDA,              /* data, pointer, stack */
    K_VEC = SNES_CYC_VDA | SNES_CYC_VPB, /* vector pull */
    K_LOCK = SNES_CYC_VDA | SNES_CYC_MLB, /* data cycle of a read-modify-write */
    K_IO = 0,
    K_IOLOCK = SNES_CYC_MLB,
};

/* Interrupt vectors (bank 0): native, emulation. */
enum {
    V_COP_N = 0xFFE4, V_BRK_N = 0xFFE6, V_NMI_N = 0xFFEA, V_IRQ_N = 0xFFEE,
    V_COP_E = 0xFFF4, V_NMI_E = 0xFFFA, V_RESET = 0xFFFC, V_IRQ_E = 0xFFFE,
};

/* The running CPU. exec keeps this on its own stack so that the compiler can hold the
 * registers and the clock in machine registers; it is written back to snes_cpu_state when
 * exec returns. Nothing outside this file sees it. */
typedef struct {
    snes_cpu *cpu;
    const snes_cpu_bus *bus;
    uint64_t clk;
    uint64_t next;   /* the fast loop runs while clk < next; 0 forces a boundary check */
    uint64_t ncyc;   /* cycles executed */
    const uint8_t *cbase; /* fast bus: byte 0 of the page PC is on */
    uint32_t cpage;       /* that page (addr >> 12), or NOPAGE */
    uint32_t clen;        /* its access length */
    uint32_t last_len;    /* master clocks of the last cycle */
    uint16_t a, x, y, s, d, pc;
    uint8_t dbr, pbr, p, e, mdr;
} cx;

typedef struct {
    uint32_t a, a1; /* the effective address and where its high byte lives */
} ea_t;

/* ---- the bus ---------------------------------------------------------------------- */

/* One cycle on the reference bus. */
GV_HOT_INLINE uint8_t ref_cycle(cx *c, uint32_t a, uint8_t v, unsigned fl)
{
    fl |= (c->e ? SNES_CYC_E : 0) | (c->p & SNES_P_M ? SNES_CYC_M : 0) | (c->p & SNES_P_X ? SNES_CYC_X : 0);
    c->cpu->cyc_now = c->cpu->s.cycles + c->ncyc + 1; /* counting this cycle, as rd/wr do */
    unsigned n = c->bus->cycle(c->bus->ctx, a, &v, fl, c->clk);
    c->clk += n;
    c->last_len = n;
    c->ncyc++;
    if (fl & (SNES_CYC_VDA | SNES_CYC_VPA | SNES_CYC_VPB))
        c->mdr = v;
    return v;
}

GV_HOT_INLINE uint8_t rd(cx *c, const int R, uint32_t a, unsigned fl)
{
    if (R)
        return ref_cycle(c, a, 0, fl);
    c->ncyc++;
    const snes_cpu_page *pg = &c->bus->page[a >> SNES_CPU_PAGE_SHIFT];
    if (LIKELY(pg->r != NULL)) {
        uint32_t n = pg->len;
        c->clk += n;
        c->last_len = n;
        return c->mdr = pg->r[a & 0xFFF];
    }
    uint64_t t = c->clk;
    c->cpu->cyc_now = c->cpu->s.cycles + c->ncyc;
    c->cpu->s.mdr = c->mdr; /* open bus as the callback sees it: the last byte on the bus */
    uint8_t v = c->bus->read(c->bus->ctx, a, &t);
    c->last_len = (uint32_t)(t - c->clk);
    c->clk = t;
    c->next = 0; /* the callback may have remapped pages or raised an interrupt */
    c->cpage = NOPAGE;
    return c->mdr = v;
}

GV_HOT_INLINE void wr(cx *c, const int R, uint32_t a, uint8_t v, unsigned fl)
{
    if (R) {
        ref_cycle(c, a, v, fl | SNES_CYC_WRITE);
        return;
    }
    c->ncyc++;
    c->mdr = v;
    const snes_cpu_page *pg = &c->bus->page[a >> SNES_CPU_PAGE_SHIFT];
    if (LIKELY(pg->w != NULL)) {
        uint32_t n = pg->len;
        c->clk += n;
        c->last_len = n;
        pg->w[a & 0xFFF] = v;
        return;
    }
    uint64_t t = c->clk;
    c->cpu->cyc_now = c->cpu->s.cycles + c->ncyc;
    c->cpu->s.mdr = v;
    c->cpu->s.r.pc = c->pc, c->cpu->s.r.pbr = c->pbr; /* the next opcode's address ($420B: DMA) */
    c->bus->write(c->bus->ctx, a, v, &t);
    c->last_len = (uint32_t)(t - c->clk);
    c->clk = t;
    c->next = 0;
    c->cpage = NOPAGE;
}

/* An internal cycle: the address is on the bus, nothing is read or written. */
GV_HOT_INLINE void io(cx *c, const int R, uint32_t a, unsigned fl)
{
    if (R) {
        ref_cycle(c, a, 0, fl);
        return;
    }
    c->ncyc++;
    c->clk += SNES_CPU_IO_CLOCKS;
    c->last_len = SNES_CPU_IO_CLOCKS;
}

/* Opcode or operand byte at PBR:PC; PC wraps within the bank. The fast bus keeps the page
 * PC is on, so most fetches skip the page table. */
GV_HOT_INLINE uint8_t fetch(cx *c, const int R, unsigned fl)
{
    uint32_t a = ((uint32_t)c->pbr << 16) | c->pc;
    c->pc++;
    if (R)
        return rd(c, R, a, fl);
    if (UNLIKELY((a >> SNES_CPU_PAGE_SHIFT) != c->cpage)) {
        const snes_cpu_page *pg = &c->bus->page[a >> SNES_CPU_PAGE_SHIFT];
        if (pg->r == NULL)
            return rd(c, R, a, fl);
        c->cpage = a >> SNES_CPU_PAGE_SHIFT;
        c->cbase = pg->r;
        c->clen = pg->len;
    }
    c->ncyc++;
    c->clk += c->clen;
    c->last_len = c->clen;
    return c->mdr = c->cbase[a & 0xFFF];
}

#define RD(a, fl) rd(c, R, (a), (fl))
#define WR(a, v, fl) wr(c, R, (a), (uint8_t)(v), (fl))
#define IO(a) io(c, R, (a), K_IO)
#define FETCH() fetch(c, R, K_PRG)
#define PB ((uint32_t)c->pbr << 16)
#define DB ((uint32_t)c->dbr << 16)
#define PCNOW (PB | c->pc)                  /* the byte after the last one fetched */
#define PCPREV (PB | (uint16_t)(c->pc - 1)) /* the last byte fetched */
#define M8 (c->p & SNES_P_M)
#define X8 (c->p & SNES_P_X)

GV_HOT_INLINE uint16_t fetch16(cx *c, const int R)
{
    uint8_t lo = FETCH();
    return (uint16_t)(lo | FETCH() << 8);
}

/* ---- flags ------------------------------------------------------------------------ */

GV_HOT_INLINE void nz8(cx *c, unsigned v)
{
    c->p = (uint8_t)((c->p & ~(SNES_P_N | SNES_P_Z)) | (v & 0x80) | ((v & 0xFF) ? 0 : SNES_P_Z));
}

GV_HOT_INLINE void nz16(cx *c, unsigned v)
{
    c->p = (uint8_t)((c->p & ~(SNES_P_N | SNES_P_Z)) | ((v >> 8) & 0x80) | ((v & 0xFFFF) ? 0 : SNES_P_Z));
}

GV_HOT_INLINE void nzw(cx *c, unsigned v, int w8)
{
    if (w8)
        nz8(c, v);
    else
        nz16(c, v);
}

/* A new p (PLP, RTI, REP, SEP, XCE): in emulation mode m and x stay 1; x = 1 clears the
 * index registers' high bytes. */
GV_HOT_INLINE void set_p(cx *c, uint8_t v)
{
    if (c->e)
        v |= SNES_P_M | SNES_P_X;
    c->p = v;
    if (v & SNES_P_X) {
        c->x &= 0xFF;
        c->y &= 0xFF;
    }
    c->next = 0; /* i may have been cleared with an IRQ waiting */
}

/* ---- stack ------------------------------------------------------------------------ */

/* Old instructions: the stack wraps in page 1 in emulation mode. */
GV_HOT_INLINE void push_old(cx *c, const int R, uint8_t v)
{
    WR(c->s, v, K_DATA);
    c->s = c->e ? (uint16_t)(0x100 | ((c->s - 1) & 0xFF)) : (uint16_t)(c->s - 1);
}

GV_HOT_INLINE uint8_t pull_old(cx *c, const int R)
{
    c->s = c->e ? (uint16_t)(0x100 | ((c->s + 1) & 0xFF)) : (uint16_t)(c->s + 1);
    return RD(c->s, K_DATA);
}

/* New instructions: 16-bit stack arithmetic; end_new puts S back in page 1 afterwards. */
GV_HOT_INLINE void push_new(cx *c, const int R, uint8_t v)
{
    WR(c->s, v, K_DATA);
    c->s--;
}

GV_HOT_INLINE uint8_t pull_new(cx *c, const int R)
{
    c->s++;
    return RD(c->s, K_DATA);
}

GV_HOT_INLINE void end_new(cx *c)
{
    if (c->e)
        c->s = (uint16_t)(0x100 | (c->s & 0xFF));
}

/* ---- addressing modes (table 5-7) --------------------------------------------------- */

/* Direct-page operand byte, then the internal cycle of note 2 when DL != 0 (at the
 * operand's address). */
GV_HOT_INLINE uint8_t dp_off(cx *c, const int R)
{
    uint8_t o = FETCH();
    if (c->d & 0xFF)
        IO(PCPREV);
    return o;
}

/* Direct page plus an index, for the old modes: in emulation mode with DL = 0 the sum
 * wraps within the page (keeping DH), otherwise it is 16-bit in bank 0. */
GV_HOT_INLINE uint16_t dp_index(cx *c, uint8_t o, uint16_t idx)
{
    if (c->e && !(c->d & 0xFF))
        return (uint16_t)(c->d | ((o + idx) & 0xFF));
    return (uint16_t)(c->d + o + idx);
}

/* The 16-bit pointer of an old direct-page indirect mode at pa (bank 0). Its high byte
 * wraps within the page in emulation mode when DL = 0, whatever DH, as the direct page's
 * word reads do (docs/SNES_65816.md; tests/roms/snes/cpu_dpwrap.s). */
GV_HOT_INLINE uint16_t dp_ptr(cx *c, const int R, uint16_t pa)
{
    uint8_t lo = RD(pa, K_DATA);
    uint16_t pa1 = (c->e && !(c->d & 0xFF)) ? (uint16_t)((pa & 0xFF00) | ((pa + 1) & 0xFF)) : (uint16_t)(pa + 1);
    return (uint16_t)(lo | RD(pa1, K_DATA) << 8);
}

GV_HOT_INLINE ea_t ea24(uint32_t a)
{
    a &= 0xFFFFFF;
    return (ea_t){a, (a + 1) & 0xFFFFFF};
}

GV_HOT_INLINE ea_t ea16(uint16_t a) /* bank 0 */
{
    return (ea_t){a, (uint16_t)(a + 1)};
}

/* d */
GV_HOT_INLINE ea_t am_dp(cx *c, const int R)
{
    uint8_t o = dp_off(c, R);
    return ea16((uint16_t)(c->d + o));
}

/* d,X and d,Y: one internal cycle for the index add, always (rows 16, 17). */
GV_HOT_INLINE ea_t am_dpi(cx *c, const int R, uint16_t idx)
{
    uint8_t o = dp_off(c, R);
    IO(PCPREV);
    return ea16(dp_index(c, o, idx));
}

/* a */
GV_HOT_INLINE ea_t am_abs(cx *c, const int R)
{
    return ea24(DB | fetch16(c, R));
}

/* a,X and a,Y: the internal cycle (at the address with the low byte indexed but not the
 * high byte) when the index crosses a page, for writes and read-modify-writes, and
 * whenever the index registers are 16-bit (note 4). */
GV_HOT_INLINE ea_t am_absi(cx *c, const int R, uint16_t idx, int wr)
{
    uint16_t aa = fetch16(c, R);
    if (wr || !X8 || (aa & 0xFF) + (idx & 0xFF) > 0xFF)
        IO(DB | (aa & 0xFF00) | ((aa + idx) & 0xFF));
    return ea24((DB | aa) + idx);
}

/* al */
GV_HOT_INLINE ea_t am_long(cx *c, const int R)
{
    uint16_t aa = fetch16(c, R);
    return ea24((uint32_t)FETCH() << 16 | aa);
}

/* al,X: a 24-bit add, no extra cycle */
GV_HOT_INLINE ea_t am_longx(cx *c, const int R)
{
    uint16_t aa = fetch16(c, R);
    return ea24(((uint32_t)FETCH() << 16 | aa) + c->x);
}

/* (d,X) */
GV_HOT_INLINE ea_t am_dpxind(cx *c, const int R)
{
    uint8_t o = dp_off(c, R);
    IO(PCPREV);
    return ea24(DB | dp_ptr(c, R, dp_index(c, o, c->x)));
}

/* (d) */
GV_HOT_INLINE ea_t am_dpind(cx *c, const int R)
{
    uint8_t o = dp_off(c, R);
    return ea24(DB | dp_ptr(c, R, (uint16_t)(c->d + o)));
}

/* (d),Y: the note-4 internal cycle as for a,Y */
GV_HOT_INLINE ea_t am_dpindy(cx *c, const int R, int wr)
{
    uint8_t o = dp_off(c, R);
    uint16_t aa = dp_ptr(c, R, (uint16_t)(c->d + o));
    if (wr || !X8 || (aa & 0xFF) + (c->y & 0xFF) > 0xFF)
        IO(DB | (aa & 0xFF00) | ((aa + c->y) & 0xFF));
    return ea24((DB | aa) + c->y);
}

/* [d] and [d],Y: a new mode, the 3-byte pointer is read in 16-bit bank-0 arithmetic. */
GV_HOT_INLINE uint32_t dp_long_ptr(cx *c, const int R)
{
    uint8_t o = dp_off(c, R);
    uint16_t pa = (uint16_t)(c->d + o);
    uint32_t lo = RD(pa, K_DATA);
    uint32_t hi = RD((uint16_t)(pa + 1), K_DATA);
    return lo | hi << 8 | (uint32_t)RD((uint16_t)(pa + 2), K_DATA) << 16;
}

/* d,S: one internal cycle, no direct-page penalty (row 23) */
GV_HOT_INLINE ea_t am_sr(cx *c, const int R)
{
    uint8_t o = FETCH();
    IO(PCPREV);
    return ea16((uint16_t)(c->s + o));
}

/* (d,S),Y: two internal cycles (row 24) */
GV_HOT_INLINE ea_t am_sriy(cx *c, const int R)
{
    uint8_t o = FETCH();
    IO(PCPREV);
    uint16_t pa = (uint16_t)(c->s + o);
    uint8_t lo = RD(pa, K_DATA);
    uint8_t hi = RD((uint16_t)(pa + 1), K_DATA);
    IO((uint16_t)(pa + 1));
    return ea24((DB | (uint16_t)(lo | hi << 8)) + c->y);
}

/* The fifteen memory modes of the ALU group, by the opcode's low five bits. */
GV_HOT_INLINE ea_t am_group(cx *c, const int R, int lo5, int wr)
{
    switch (lo5) {
    case 0x01: return am_dpxind(c, R);
    case 0x03: return am_sr(c, R);
    case 0x05: return am_dp(c, R);
    case 0x07: return ea24(dp_long_ptr(c, R));
    case 0x0D: return am_abs(c, R);
    case 0x0F: return am_long(c, R);
    case 0x11: return am_dpindy(c, R, wr);
    case 0x12: return am_dpind(c, R);
    case 0x13: return am_sriy(c, R);
    case 0x15: return am_dpi(c, R, c->x);
    case 0x17: return ea24(dp_long_ptr(c, R) + c->y);
    case 0x19: return am_absi(c, R, c->y, wr);
    case 0x1D: return am_absi(c, R, c->x, wr);
    default: return am_longx(c, R); /* 0x1F */
    }
}

/* Data of width w8 (1: one byte) at e: low byte first. */
GV_HOT_INLINE uint16_t rdw(cx *c, const int R, ea_t e, int w8)
{
    uint8_t lo = RD(e.a, K_DATA);
    if (w8)
        return lo;
    return (uint16_t)(lo | RD(e.a1, K_DATA) << 8);
}

GV_HOT_INLINE void wrw(cx *c, const int R, ea_t e, uint16_t v, int w8)
{
    WR(e.a, v, K_DATA);
    if (!w8)
        WR(e.a1, v >> 8, K_DATA);
}

GV_HOT_INLINE uint16_t imm(cx *c, const int R, int w8)
{
    uint8_t lo = FETCH();
    if (w8)
        return lo;
    return (uint16_t)(lo | FETCH() << 8);
}

/* ---- arithmetic ------------------------------------------------------------------- */

/* ADC and SBC. Decimal mode corrects digit by digit (two digits at m = 1, four at m = 0),
 * each digit's carry or borrow going into the next; invalid digits ($A-$F) need no case
 * of their own. ADC: v from the sum before the top digit's correction; n, z, c from the
 * corrected sum. SBC: c and v from the binary difference; n, z from the corrected one. */
GV_HOT_INLINE void adc(cx *c, unsigned v, int w8)
{
    unsigned bits = w8 ? 8 : 16, mask = w8 ? 0xFF : 0xFFFF, sign = w8 ? 0x80 : 0x8000;
    unsigned a = c->a & mask, cin = c->p & SNES_P_C, r, cout, vf;
    if (!(c->p & SNES_P_D)) {
        r = a + v + cin;
        cout = r > mask;
        vf = ~(a ^ v) & (a ^ r) & sign;
    } else {
        unsigned carry = cin, partial = 0;
        r = 0;
        for (unsigned i = 0; i < bits; i += 4) {
            unsigned dg = ((a >> i) & 15) + ((v >> i) & 15) + carry;
            if (i == bits - 4)
                partial = r | dg << i;
            if (dg > 9)
                dg += 6;
            carry = dg > 15;
            r |= (dg & 15) << i;
        }
        cout = carry;
        vf = ~(a ^ v) & (a ^ partial) & sign;
    }
    c->p = (uint8_t)((c->p & ~(SNES_P_C | SNES_P_V)) | (cout ? SNES_P_C : 0) | (vf ? SNES_P_V : 0));
    if (w8) {
        c->a = (uint16_t)((c->a & 0xFF00) | (r & 0xFF));
        nz8(c, r);
    } else {
        c->a = (uint16_t)r;
        nz16(c, r);
    }
}

GV_HOT_INLINE void sbc(cx *c, unsigned v, int w8)
{
    unsigned bits = w8 ? 8 : 16, mask = w8 ? 0xFF : 0xFFFF, sign = w8 ? 0x80 : 0x8000;
    unsigned a = c->a & mask, cin = c->p & SNES_P_C, r;
    unsigned bin = a + (v ^ mask) + cin; /* a - v - !c */
    unsigned cout = bin > mask;
    unsigned vf = (a ^ v) & (a ^ bin) & sign;
    if (!(c->p & SNES_P_D)) {
        r = bin & mask;
    } else {
        unsigned borrow = !cin;
        r = 0;
        for (unsigned i = 0; i < bits; i += 4) {
            int dg = (int)((a >> i) & 15) - (int)((v >> i) & 15) - (int)borrow;
            borrow = dg < 0;
            if (borrow)
                dg -= 6;
            r |= (unsigned)(dg & 15) << i;
        }
    }
    c->p = (uint8_t)((c->p & ~(SNES_P_C | SNES_P_V)) | (cout ? SNES_P_C : 0) | (vf ? SNES_P_V : 0));
    if (w8) {
        c->a = (uint16_t)((c->a & 0xFF00) | (r & 0xFF));
        nz8(c, r);
    } else {
        c->a = (uint16_t)r;
        nz16(c, r);
    }
}

/* CMP, CPX, CPY: binary reg - v, v untouched. */
GV_HOT_INLINE void cmp(cx *c, unsigned reg, unsigned v, int w8)
{
    unsigned mask = w8 ? 0xFF : 0xFFFF;
    reg &= mask;
    c->p = (uint8_t)((c->p & ~SNES_P_C) | (reg >= v ? SNES_P_C : 0));
    nzw(c, reg - v, w8);
}

/* The ALU group by the opcode's top three bits: ORA AND EOR ADC (STA) LDA CMP SBC. */
GV_HOT_INLINE void alu(cx *c, int op, unsigned v)
{
    int w8 = M8;
    switch (op) {
    case 0: c->a |= (uint16_t)v; nzw(c, c->a, w8); break;
    case 1: c->a &= (uint16_t)(w8 ? (v | 0xFF00) : v); nzw(c, c->a, w8); break;
    case 2: c->a ^= (uint16_t)v; nzw(c, c->a, w8); break;
    case 3: adc(c, v, w8); break;
    case 5:
        c->a = (uint16_t)(w8 ? ((c->a & 0xFF00) | v) : v);
        nzw(c, v, w8);
        break;
    case 6: cmp(c, c->a, v, w8); break;
    default: sbc(c, v, w8); break;
    }
}

/* BIT: z from A & v; n and v from the operand's top two bits, except immediate (z only). */
GV_HOT_INLINE void bit(cx *c, unsigned v, int immediate)
{
    int w8 = M8;
    unsigned mask = w8 ? 0xFF : 0xFFFF, top = w8 ? 0x80 : 0x8000;
    c->p = (uint8_t)((c->p & ~SNES_P_Z) | ((c->a & v & mask) ? 0 : SNES_P_Z));
    if (!immediate)
        c->p = (uint8_t)((c->p & ~(SNES_P_N | SNES_P_V)) | ((v & top) ? SNES_P_N : 0) |
                         ((v & (top >> 1)) ? SNES_P_V : 0));
}

/* The read-modify-write operations: ASL ROL LSR ROR DEC INC TSB TRB on v of width w8. */
enum { RMW_ASL, RMW_ROL, RMW_LSR, RMW_ROR, RMW_DEC, RMW_INC, RMW_TSB, RMW_TRB };

GV_HOT_INLINE unsigned rmw_op(cx *c, int op, unsigned v, int w8)
{
    unsigned mask = w8 ? 0xFF : 0xFFFF, top = w8 ? 0x80 : 0x8000, r;
    unsigned cin = c->p & SNES_P_C;
    switch (op) {
    case RMW_ASL: r = (v << 1) & mask; c->p = (uint8_t)((c->p & ~SNES_P_C) | ((v & top) ? SNES_P_C : 0)); break;
    case RMW_ROL: r = ((v << 1) | cin) & mask; c->p = (uint8_t)((c->p & ~SNES_P_C) | ((v & top) ? SNES_P_C : 0)); break;
    case RMW_LSR: r = v >> 1; c->p = (uint8_t)((c->p & ~SNES_P_C) | (v & 1)); break;
    case RMW_ROR: r = (v >> 1) | (cin ? top : 0); c->p = (uint8_t)((c->p & ~SNES_P_C) | (v & 1)); break;
    case RMW_DEC: r = (v - 1) & mask; break;
    case RMW_INC: r = (v + 1) & mask; break;
    case RMW_TSB:
    case RMW_TRB:
        c->p = (uint8_t)((c->p & ~SNES_P_Z) | ((c->a & v & mask) ? 0 : SNES_P_Z));
        return op == RMW_TSB ? (v | c->a) & mask : v & ~c->a & mask;
    }
    nzw(c, r, w8);
    return r;
}

/* Read-modify-write on memory: read (low, high), an internal cycle at the last address
 * read (in emulation mode a write of the unmodified byte instead: note 17), write (high,
 * low). MLB is active throughout. */
GV_HOT_INLINE void rmw_mem(cx *c, const int R, ea_t e, int op)
{
    if (M8) {
        uint8_t v = RD(e.a, K_LOCK);
        if (c->e)
            WR(e.a, v, K_LOCK);
        else
            io(c, R, e.a, K_IOLOCK);
        WR(e.a, rmw_op(c, op, v, 1), K_LOCK);
    } else {
        uint8_t lo = RD(e.a, K_LOCK);
        uint8_t hi = RD(e.a1, K_LOCK);
        io(c, R, e.a1, K_IOLOCK);
        unsigned r = rmw_op(c, op, (unsigned)(lo | hi << 8), 0);
        WR(e.a1, r >> 8, K_LOCK);
        WR(e.a, r, K_LOCK);
    }
}

/* The accumulator forms (ASL A ...): op, one internal cycle. */
GV_HOT_INLINE void rmw_acc(cx *c, const int R, int op)
{
    IO(PCNOW);
    if (M8)
        c->a = (uint16_t)((c->a & 0xFF00) | rmw_op(c, op, c->a & 0xFF, 1));
    else
        c->a = (uint16_t)rmw_op(c, op, c->a, 0);
}

/* ---- control flow ----------------------------------------------------------------- */

/* Bcc: one internal cycle when taken, one more in emulation mode when the target is on
 * another page (notes 5, 6); both at the offset's address. PC wraps within the bank. */
GV_HOT_INLINE void branch(cx *c, const int R, int taken)
{
    int8_t off = (int8_t)FETCH();
    if (!taken)
        return;
    uint16_t npc = (uint16_t)(c->pc + off);
    IO(PCPREV);
    if (c->e && ((npc ^ c->pc) & 0xFF00))
        IO(PCPREV);
    c->pc = npc;
}

/* Interrupt entry after the first cycles: push PBR (native), PC and p, set i, clear d,
 * PBR = 0, then the vector (VPB active). pushed_p is what goes on the stack. */
GV_HOT_INLINE void int_push_vector(cx *c, const int R, uint8_t pushed_p, uint16_t vec)
{
    if (!c->e)
        push_old(c, R, c->pbr);
    push_old(c, R, (uint8_t)(c->pc >> 8));
    push_old(c, R, (uint8_t)c->pc);
    push_old(c, R, pushed_p);
    c->p = (uint8_t)((c->p | SNES_P_I) & ~SNES_P_D);
    c->pbr = 0;
    uint8_t lo = RD(vec, K_VEC);
    c->pc = (uint16_t)(lo | RD((uint16_t)(vec + 1), K_VEC) << 8);
}

/* NMI / IRQ: two internal cycles at PBR:PC (the opcode there is not taken), then the
 * pushes; in emulation mode p goes on the stack with bit 4 (the break flag) clear. */
GV_HOT_INLINE void hw_interrupt(cx *c, const int R, uint16_t vec)
{
    IO(PCNOW);
    IO(PCNOW);
    int_push_vector(c, R, c->e ? (uint8_t)(c->p & ~SNES_P_X) : c->p, vec);
}

/* BRK and COP: the signature byte is read and skipped; p is pushed as it is (bit 4 set in
 * emulation mode: the break flag). */
GV_HOT_INLINE void sw_interrupt(cx *c, const int R, uint16_t vec)
{
    (void)FETCH();
    int_push_vector(c, R, c->p, vec);
}

/* ---- the instruction loop ---------------------------------------------------------- */

/* Loads the registers into the loop's copy. */
GV_HOT_INLINE void cx_load(cx *c, snes_cpu *cpu)
{
    const snes_cpu_state *s = &cpu->s;
    c->cpu = cpu;
    c->bus = cpu->bus;
    c->clk = s->clock;
    c->next = 0;
    c->ncyc = 0;
    c->cbase = NULL;
    c->cpage = NOPAGE;
    c->clen = 0;
    c->last_len = s->last_len;
    c->a = s->r.a, c->x = s->r.x, c->y = s->r.y, c->s = s->r.s, c->d = s->r.d, c->pc = s->r.pc;
    c->dbr = s->r.dbr, c->pbr = s->r.pbr, c->p = s->r.p, c->e = s->r.e, c->mdr = s->mdr;
}

GV_HOT_INLINE void cx_store(cx *c)
{
    snes_cpu_state *s = &c->cpu->s;
    s->clock = c->clk;
    s->last_len = c->last_len;
    s->cycles += c->ncyc;
    c->ncyc = 0;
    s->r.a = c->a, s->r.x = c->x, s->r.y = c->y, s->r.s = c->s, s->r.d = c->d, s->r.pc = c->pc;
    s->r.dbr = c->dbr, s->r.pbr = c->pbr, s->r.p = c->p, s->r.e = c->e, s->mdr = c->mdr;
}

/* Idles (WAI, STP) until the clock reaches until, in internal cycles of 6 master clocks. */
GV_HOT_INLINE void idle_to(cx *c, uint64_t until)
{
    if (c->clk < until) {
        uint64_t n = (until - c->clk + SNES_CPU_IO_CLOCKS - 1) / SNES_CPU_IO_CLOCKS;
        c->clk += n * SNES_CPU_IO_CLOCKS;
        c->last_len = SNES_CPU_IO_CLOCKS;
    }
}

/* The boundary between two instructions, where the loop looks at interrupts, WAI and STP
 * and the limits. Returns 0 to execute the next instruction, 1 when an interrupt entry
 * was made (the caller goes round again), -1 to leave the loop. */
GV_HOT_INLINE int boundary(cx *c, const int R, uint64_t until, int single)
{
    snes_cpu_state *s = &c->cpu->s;
    if (s->stopped) {
        if (!single)
            idle_to(c, until);
        return -1;
    }
    /* An input counts if it changed no later than the start of the last cycle. */
    uint64_t last = c->clk - c->last_len;
    int nmi = s->nmi_pending && s->nmi_at <= last;
    int irq = s->irq_line && s->irq_at <= last;
    if (s->waiting) {
        if (!nmi && !irq) {
            if (single)
                return -1;
            if (s->nmi_pending || s->irq_line) { /* seen at the next cycle */
                c->clk += SNES_CPU_IO_CLOCKS;
                c->last_len = SNES_CPU_IO_CLOCKS;
                return c->clk >= until ? -1 : 1;
            }
            idle_to(c, until);
            return -1;
        }
        s->waiting = 0; /* with i set and only an IRQ: go on without servicing it */
    }
    if (nmi) {
        s->nmi_pending = 0;
        hw_interrupt(c, R, c->e ? V_NMI_E : V_NMI_N);
        return 1;
    }
    if (irq && !(c->p & SNES_P_I)) {
        hw_interrupt(c, R, c->e ? V_IRQ_E : V_IRQ_N);
        return 1;
    }
    /* Check again after the next instruction while something may become due. */
    c->next = (s->nmi_pending || (s->irq_line && !(c->p & SNES_P_I))) ? 0 : until;
    return 0;
}

/* Opcode lists for the groups. */
#define ALU_MODES(M, b)                                                                      \
    M((b) + 0x01) M((b) + 0x03) M((b) + 0x05) M((b) + 0x07) M((b) + 0x0D) M((b) + 0x0F)     \
    M((b) + 0x11) M((b) + 0x12) M((b) + 0x13) M((b) + 0x15) M((b) + 0x17) M((b) + 0x19)     \
    M((b) + 0x1D) M((b) + 0x1F)

/* Runs instructions until until (or one instruction when single). R selects the bus. */
GV_HOT_INLINE void exec(snes_cpu *cpu, uint64_t until, int single, const int R)
{
    cx cs, *const c = &cs;
    cx_load(c, cpu);
    for (;;) {
        if (R || single || UNLIKELY(c->clk >= c->next)) {
            if ((c->clk >= until || cpu->yield) && !single)
                break;
            int b = boundary(c, R, until, single);
            if (b < 0)
                break;
            if (b > 0) {
                if (single)
                    break;
                continue;
            }
        }
        uint8_t op = fetch(c, R, K_OP);
        switch (op) {
        /* ---- ALU group: ORA AND EOR ADC LDA CMP SBC, memory modes ---- */
#define ALU_CASE(o)                                            \
    case o: {                                                  \
        ea_t e_ = am_group(c, R, (o) & 0x1F, 0);               \
        alu(c, (o) >> 5, rdw(c, R, e_, M8));                   \
        break;                                                 \
    }
            ALU_MODES(ALU_CASE, 0x00)
            ALU_MODES(ALU_CASE, 0x20)
            ALU_MODES(ALU_CASE, 0x40)
            ALU_MODES(ALU_CASE, 0x60)
            ALU_MODES(ALU_CASE, 0xA0)
            ALU_MODES(ALU_CASE, 0xC0)
            ALU_MODES(ALU_CASE, 0xE0)
#undef ALU_CASE
#define STA_CASE(o)                                            \
    case o: {                                                  \
        ea_t e_ = am_group(c, R, (o) & 0x1F, 1);               \
        wrw(c, R, e_, c->a, M8);                               \
        break;                                                 \
    }
            ALU_MODES(STA_CASE, 0x80)
#undef STA_CASE
        case 0x09: case 0x29: case 0x49: case 0x69: case 0xA9: case 0xC9: case 0xE9:
            alu(c, op >> 5, imm(c, R, M8));
            break;
        case 0x89: bit(c, imm(c, R, M8), 1); break;

        /* ---- BIT ---- */
        case 0x24: bit(c, rdw(c, R, am_dp(c, R), M8), 0); break;
        case 0x34: bit(c, rdw(c, R, am_dpi(c, R, c->x), M8), 0); break;
        case 0x2C: bit(c, rdw(c, R, am_abs(c, R), M8), 0); break;
        case 0x3C: bit(c, rdw(c, R, am_absi(c, R, c->x, 0), M8), 0); break;

        /* ---- LDX LDY STX STY STZ CPX CPY ---- */
#define LDX(v) do { unsigned v_ = (v); c->x = (uint16_t)v_; nzw(c, v_, X8); } while (0)
#define LDY(v) do { unsigned v_ = (v); c->y = (uint16_t)v_; nzw(c, v_, X8); } while (0)
        case 0xA2: LDX(imm(c, R, X8)); break;
        case 0xA6: LDX(rdw(c, R, am_dp(c, R), X8)); break;
        case 0xB6: LDX(rdw(c, R, am_dpi(c, R, c->y), X8)); break;
        case 0xAE: LDX(rdw(c, R, am_abs(c, R), X8)); break;
        case 0xBE: LDX(rdw(c, R, am_absi(c, R, c->y, 0), X8)); break;
        case 0xA0: LDY(imm(c, R, X8)); break;
        case 0xA4: LDY(rdw(c, R, am_dp(c, R), X8)); break;
        case 0xB4: LDY(rdw(c, R, am_dpi(c, R, c->x), X8)); break;
        case 0xAC: LDY(rdw(c, R, am_abs(c, R), X8)); break;
        case 0xBC: LDY(rdw(c, R, am_absi(c, R, c->x, 0), X8)); break;
#undef LDX
#undef LDY
        case 0x86: wrw(c, R, am_dp(c, R), c->x, X8); break;
        case 0x96: wrw(c, R, am_dpi(c, R, c->y), c->x, X8); break;
        case 0x8E: wrw(c, R, am_abs(c, R), c->x, X8); break;
        case 0x84: wrw(c, R, am_dp(c, R), c->y, X8); break;
        case 0x94: wrw(c, R, am_dpi(c, R, c->x), c->y, X8); break;
        case 0x8C: wrw(c, R, am_abs(c, R), c->y, X8); break;
        case 0x64: wrw(c, R, am_dp(c, R), 0, M8); break;
        case 0x74: wrw(c, R, am_dpi(c, R, c->x), 0, M8); break;
        case 0x9C: wrw(c, R, am_abs(c, R), 0, M8); break;
        case 0x9E: wrw(c, R, am_absi(c, R, c->x, 1), 0, M8); break;
        case 0xE0: cmp(c, c->x, imm(c, R, X8), X8); break;
        case 0xE4: cmp(c, c->x, rdw(c, R, am_dp(c, R), X8), X8); break;
        case 0xEC: cmp(c, c->x, rdw(c, R, am_abs(c, R), X8), X8); break;
        case 0xC0: cmp(c, c->y, imm(c, R, X8), X8); break;
        case 0xC4: cmp(c, c->y, rdw(c, R, am_dp(c, R), X8), X8); break;
        case 0xCC: cmp(c, c->y, rdw(c, R, am_abs(c, R), X8), X8); break;

        /* ---- read-modify-write ---- */
#define RMW_CASES(b, k)                                                          \
    case (b) + 0x06: rmw_mem(c, R, am_dp(c, R), k); break;                       \
    case (b) + 0x0E: rmw_mem(c, R, am_abs(c, R), k); break;                      \
    case (b) + 0x16: rmw_mem(c, R, am_dpi(c, R, c->x), k); break;                \
    case (b) + 0x1E: rmw_mem(c, R, am_absi(c, R, c->x, 1), k); break;
            RMW_CASES(0x00, RMW_ASL)
            RMW_CASES(0x20, RMW_ROL)
            RMW_CASES(0x40, RMW_LSR)
            RMW_CASES(0x60, RMW_ROR)
            RMW_CASES(0xC0, RMW_DEC)
            RMW_CASES(0xE0, RMW_INC)
#undef RMW_CASES
        case 0x04: rmw_mem(c, R, am_dp(c, R), RMW_TSB); break;
        case 0x0C: rmw_mem(c, R, am_abs(c, R), RMW_TSB); break;
        case 0x14: rmw_mem(c, R, am_dp(c, R), RMW_TRB); break;
        case 0x1C: rmw_mem(c, R, am_abs(c, R), RMW_TRB); break;
        case 0x0A: rmw_acc(c, R, RMW_ASL); break;
        case 0x2A: rmw_acc(c, R, RMW_ROL); break;
        case 0x4A: rmw_acc(c, R, RMW_LSR); break;
        case 0x6A: rmw_acc(c, R, RMW_ROR); break;
        case 0x3A: rmw_acc(c, R, RMW_DEC); break;
        case 0x1A: rmw_acc(c, R, RMW_INC); break;

        /* ---- index increments, transfers, flags: op + one internal cycle ---- */
        case 0xE8: IO(PCNOW); c->x = (uint16_t)(X8 ? (c->x + 1) & 0xFF : c->x + 1); nzw(c, c->x, X8); break;
        case 0xC8: IO(PCNOW); c->y = (uint16_t)(X8 ? (c->y + 1) & 0xFF : c->y + 1); nzw(c, c->y, X8); break;
        case 0xCA: IO(PCNOW); c->x = (uint16_t)(X8 ? (c->x - 1) & 0xFF : c->x - 1); nzw(c, c->x, X8); break;
        case 0x88: IO(PCNOW); c->y = (uint16_t)(X8 ? (c->y - 1) & 0xFF : c->y - 1); nzw(c, c->y, X8); break;
        case 0xAA: IO(PCNOW); c->x = (uint16_t)(X8 ? c->a & 0xFF : c->a); nzw(c, c->x, X8); break;
        case 0xA8: IO(PCNOW); c->y = (uint16_t)(X8 ? c->a & 0xFF : c->a); nzw(c, c->y, X8); break;
        case 0x8A: IO(PCNOW); c->a = (uint16_t)(M8 ? (c->a & 0xFF00) | (c->x & 0xFF) : c->x); nzw(c, c->a, M8); break;
        case 0x98: IO(PCNOW); c->a = (uint16_t)(M8 ? (c->a & 0xFF00) | (c->y & 0xFF) : c->y); nzw(c, c->a, M8); break;
        case 0x9B: IO(PCNOW); c->y = c->x; nzw(c, c->y, X8); break; /* TXY: XH is 0 when x = 1 */
        case 0xBB: IO(PCNOW); c->x = c->y; nzw(c, c->x, X8); break;
        case 0xBA: IO(PCNOW); c->x = (uint16_t)(X8 ? c->s & 0xFF : c->s); nzw(c, c->x, X8); break;
        case 0x9A: /* TXS: in emulation mode SH stays $01 */
            IO(PCNOW);
            c->s = c->e ? (uint16_t)(0x100 | (c->x & 0xFF)) : c->x;
            break;
        case 0x1B: /* TCS */
            IO(PCNOW);
            c->s = c->e ? (uint16_t)(0x100 | (c->a & 0xFF)) : c->a;
            break;
        case 0x3B: IO(PCNOW); c->a = c->s; nz16(c, c->a); break;  /* TSC: 16 bits always */
        case 0x5B: IO(PCNOW); c->d = c->a; nz16(c, c->d); break;  /* TCD */
        case 0x7B: IO(PCNOW); c->a = c->d; nz16(c, c->a); break;  /* TDC */
        case 0xEB: /* XBA: n, z from the new low byte */
            IO(PCNOW);
            IO(PCNOW);
            c->a = (uint16_t)(c->a >> 8 | c->a << 8);
            nz8(c, c->a);
            break;
        case 0x18: IO(PCNOW); c->p &= (uint8_t)~SNES_P_C; break;
        case 0x38: IO(PCNOW); c->p |= SNES_P_C; break;
        case 0x58: IO(PCNOW); c->p &= (uint8_t)~SNES_P_I; c->next = 0; break;
        case 0x78: IO(PCNOW); c->p |= SNES_P_I; break;
        case 0xB8: IO(PCNOW); c->p &= (uint8_t)~SNES_P_V; break;
        case 0xD8: IO(PCNOW); c->p &= (uint8_t)~SNES_P_D; break;
        case 0xF8: IO(PCNOW); c->p |= SNES_P_D; break;
        case 0xEA: IO(PCNOW); break; /* NOP */
        case 0x42: IO(PCNOW); c->pc++; break; /* WDM: 2 bytes, the second not read */
        case 0xFB: { /* XCE */
            IO(PCNOW);
            uint8_t oc = c->p & SNES_P_C;
            c->p = (uint8_t)((c->p & ~SNES_P_C) | c->e);
            c->e = oc;
            if (c->e)
                c->s = (uint16_t)(0x100 | (c->s & 0xFF));
            set_p(c, c->p);
            break;
        }
        case 0xC2: /* REP, SEP: 3 cycles, the third internal at the operand's address */
        case 0xE2: {
            uint8_t v = FETCH();
            IO(PCPREV);
            set_p(c, op == 0xC2 ? (uint8_t)(c->p & ~v) : (uint8_t)(c->p | v));
            break;
        }

        /* ---- stack ---- */
        case 0x48: /* PHA */
            IO(PCNOW);
            if (!M8)
                push_old(c, R, (uint8_t)(c->a >> 8));
            push_old(c, R, (uint8_t)c->a);
            break;
        case 0xDA: /* PHX */
            IO(PCNOW);
            if (!X8)
                push_old(c, R, (uint8_t)(c->x >> 8));
            push_old(c, R, (uint8_t)c->x);
            break;
        case 0x5A: /* PHY */
            IO(PCNOW);
            if (!X8)
                push_old(c, R, (uint8_t)(c->y >> 8));
            push_old(c, R, (uint8_t)c->y);
            break;
        case 0x08: IO(PCNOW); push_old(c, R, c->p); break; /* PHP */
        case 0x8B: IO(PCNOW); push_new(c, R, c->dbr); end_new(c); break; /* PHB */
        case 0x4B: IO(PCNOW); push_new(c, R, c->pbr); end_new(c); break; /* PHK */
        case 0x0B: /* PHD */
            IO(PCNOW);
            push_new(c, R, (uint8_t)(c->d >> 8));
            push_new(c, R, (uint8_t)c->d);
            end_new(c);
            break;
        case 0x68: { /* PLA */
            IO(PCNOW);
            IO(PCNOW);
            unsigned v = pull_old(c, R);
            if (M8) {
                c->a = (uint16_t)((c->a & 0xFF00) | v);
            } else {
                v |= (unsigned)pull_old(c, R) << 8;
                c->a = (uint16_t)v;
            }
            nzw(c, v, M8);
            break;
        }
        case 0xFA: /* PLX */
        case 0x7A: { /* PLY */
            IO(PCNOW);
            IO(PCNOW);
            unsigned v = pull_old(c, R);
            if (!X8)
                v |= (unsigned)pull_old(c, R) << 8;
            if (op == 0xFA)
                c->x = (uint16_t)v;
            else
                c->y = (uint16_t)v;
            nzw(c, v, X8);
            break;
        }
        case 0x28: /* PLP */
            IO(PCNOW);
            IO(PCNOW);
            set_p(c, pull_old(c, R));
            break;
        case 0xAB: /* PLB */
            IO(PCNOW);
            IO(PCNOW);
            c->dbr = pull_new(c, R);
            nz8(c, c->dbr);
            end_new(c);
            break;
        case 0x2B: { /* PLD */
            IO(PCNOW);
            IO(PCNOW);
            uint8_t lo = pull_new(c, R);
            c->d = (uint16_t)(lo | pull_new(c, R) << 8);
            nz16(c, c->d);
            end_new(c);
            break;
        }
        case 0xF4: { /* PEA */
            uint16_t v = fetch16(c, R);
            push_new(c, R, (uint8_t)(v >> 8));
            push_new(c, R, (uint8_t)v);
            end_new(c);
            break;
        }
        case 0xD4: { /* PEI: a new instruction, the pointer does not wrap in the page */
            uint8_t o = dp_off(c, R);
            uint16_t pa = (uint16_t)(c->d + o);
            uint8_t lo = RD(pa, K_DATA);
            uint8_t hi = RD((uint16_t)(pa + 1), K_DATA);
            push_new(c, R, hi);
            push_new(c, R, lo);
            end_new(c);
            break;
        }
        case 0x62: { /* PER */
            uint16_t rel = fetch16(c, R);
            IO(PCPREV);
            uint16_t v = (uint16_t)(c->pc + rel);
            push_new(c, R, (uint8_t)(v >> 8));
            push_new(c, R, (uint8_t)v);
            end_new(c);
            break;
        }

        /* ---- branches and jumps ---- */
        case 0x10: branch(c, R, !(c->p & SNES_P_N)); break;
        case 0x30: branch(c, R, c->p & SNES_P_N); break;
        case 0x50: branch(c, R, !(c->p & SNES_P_V)); break;
        case 0x70: branch(c, R, c->p & SNES_P_V); break;
        case 0x90: branch(c, R, !(c->p & SNES_P_C)); break;
        case 0xB0: branch(c, R, c->p & SNES_P_C); break;
        case 0xD0: branch(c, R, !(c->p & SNES_P_Z)); break;
        case 0xF0: branch(c, R, c->p & SNES_P_Z); break;
        case 0x80: branch(c, R, 1); break;
        case 0x82: { /* BRL */
            uint16_t rel = fetch16(c, R);
            IO(PCPREV);
            c->pc = (uint16_t)(c->pc + rel);
            break;
        }
        case 0x4C: c->pc = fetch16(c, R); break; /* JMP a */
        case 0x5C: { /* JML al */
            uint16_t aa = fetch16(c, R);
            c->pbr = FETCH();
            c->pc = aa;
            break;
        }
        case 0x6C: { /* JMP (a): the pointer is in bank 0 */
            uint16_t aa = fetch16(c, R);
            uint8_t lo = RD(aa, K_DATA);
            c->pc = (uint16_t)(lo | RD((uint16_t)(aa + 1), K_DATA) << 8);
            break;
        }
        case 0xDC: { /* JML [a]: a 3-byte pointer in bank 0 */
            uint16_t aa = fetch16(c, R);
            uint8_t lo = RD(aa, K_DATA);
            uint8_t hi = RD((uint16_t)(aa + 1), K_DATA);
            c->pbr = RD((uint16_t)(aa + 2), K_DATA);
            c->pc = (uint16_t)(lo | hi << 8);
            break;
        }
        case 0x7C: { /* JMP (a,X): the pointer is in bank K */
            uint16_t aa = fetch16(c, R);
            IO(PCPREV);
            uint16_t pa = (uint16_t)(aa + c->x);
            uint8_t lo = RD(PB | pa, K_DATA);
            c->pc = (uint16_t)(lo | RD(PB | (uint16_t)(pa + 1), K_DATA) << 8);
            break;
        }
        case 0x20: { /* JSR a: pushes the address of its last byte */
            uint16_t aa = fetch16(c, R);
            IO(PCPREV);
            uint16_t ret = (uint16_t)(c->pc - 1);
            push_old(c, R, (uint8_t)(ret >> 8));
            push_old(c, R, (uint8_t)ret);
            c->pc = aa;
            break;
        }
        case 0xFC: { /* JSR (a,X): a new instruction; pushes between the two address bytes */
            uint8_t lo = FETCH();
            push_new(c, R, (uint8_t)(c->pc >> 8));
            push_new(c, R, (uint8_t)c->pc);
            uint16_t aa = (uint16_t)(lo | FETCH() << 8);
            IO(PCPREV);
            uint16_t pa = (uint16_t)(aa + c->x);
            uint8_t nlo = RD(PB | pa, K_DATA);
            c->pc = (uint16_t)(nlo | RD(PB | (uint16_t)(pa + 1), K_DATA) << 8);
            end_new(c);
            break;
        }
        case 0x22: { /* JSL al */
            uint16_t aa = fetch16(c, R);
            uint16_t s0 = c->s;
            push_new(c, R, c->pbr);
            IO(s0);
            uint8_t bank = FETCH();
            uint16_t ret = (uint16_t)(c->pc - 1);
            push_new(c, R, (uint8_t)(ret >> 8));
            push_new(c, R, (uint8_t)ret);
            c->pbr = bank;
            c->pc = aa;
            end_new(c);
            break;
        }
        case 0x60: { /* RTS */
            IO(PCNOW);
            IO(PCNOW);
            uint8_t lo = pull_old(c, R);
            uint8_t hi = pull_old(c, R);
            IO(c->s);
            c->pc = (uint16_t)((lo | hi << 8) + 1);
            break;
        }
        case 0x6B: { /* RTL */
            IO(PCNOW);
            IO(PCNOW);
            uint8_t lo = pull_new(c, R);
            uint8_t hi = pull_new(c, R);
            c->pbr = pull_new(c, R);
            c->pc = (uint16_t)((lo | hi << 8) + 1);
            end_new(c);
            break;
        }
        case 0x40: { /* RTI */
            IO(PCNOW);
            IO(PCNOW);
            set_p(c, pull_old(c, R));
            uint8_t lo = pull_old(c, R);
            uint8_t hi = pull_old(c, R);
            c->pc = (uint16_t)(lo | hi << 8);
            if (!c->e)
                c->pbr = pull_old(c, R);
            break;
        }
        case 0x00: sw_interrupt(c, R, c->e ? V_IRQ_E : V_BRK_N); break; /* BRK */
        case 0x02: sw_interrupt(c, R, c->e ? V_COP_E : V_COP_N); break; /* COP */

        /* ---- block moves: one byte per execution, 7 cycles; the opcode repeats (PC
         * back to it) until A, always 16-bit, goes from $0000 to $FFFF ---- */
        case 0x54: /* MVN */
        case 0x44: { /* MVP */
            uint8_t dst = FETCH();
            uint8_t src = FETCH();
            c->dbr = dst;
            uint8_t v = RD((uint32_t)src << 16 | c->x, K_DATA);
            uint32_t da = (uint32_t)dst << 16 | c->y;
            WR(da, v, K_DATA);
            IO(da);
            IO(da);
            int step = op == 0x54 ? 1 : -1;
            if (X8) {
                c->x = (uint8_t)(c->x + step);
                c->y = (uint8_t)(c->y + step);
            } else {
                c->x = (uint16_t)(c->x + step);
                c->y = (uint16_t)(c->y + step);
            }
            if (c->a-- != 0)
                c->pc = (uint16_t)(c->pc - 3);
            break;
        }

        /* ---- WAI, STP: 3 cycles, then the CPU waits ---- */
        case 0xCB:
            IO(PCNOW);
            IO(PCNOW);
            cpu->s.waiting = 1;
            c->next = 0;
            break;
        case 0xDB:
            IO(PCNOW);
            IO(PCNOW);
            cpu->s.stopped = 1;
            c->next = 0;
            break;
        }
        if (single)
            break;
    }
    cx_store(c);
}

static void run_fast(snes_cpu *cpu, uint64_t until, int single)
{
    exec(cpu, until, single, 0);
}

static void run_ref(snes_cpu *cpu, uint64_t until, int single)
{
    exec(cpu, until, single, 1);
}

/* ---- the interface ------------------------------------------------------------------ */

void snes_cpu_init(snes_cpu *c, const snes_cpu_bus *bus)
{
    memset(&c->s, 0, sizeof c->s);
    c->bus = bus;
    c->s.r.e = 1;
    c->s.r.p = SNES_P_M | SNES_P_X | SNES_P_I;
    c->s.r.s = 0x1FF;
    c->s.last_len = SNES_CPU_IO_CLOCKS;
}

void snes_cpu_run(snes_cpu *c, uint64_t until)
{
    if (c->bus->cycle)
        run_ref(c, until, 0);
    else
        run_fast(c, until, 0);
}

int snes_cpu_step(snes_cpu *c)
{
    uint64_t n0 = c->s.cycles;
    if (c->bus->cycle)
        run_ref(c, UINT64_MAX, 1);
    else
        run_fast(c, UINT64_MAX, 1);
    return (int)(c->s.cycles - n0);
}

/* Reset: the cycles go through the same bus as instructions (run in a tiny loop of their
 * own rather than through exec). */
GV_HOT_INLINE void reset_seq(snes_cpu *cpu, const int R)
{
    cx cs, *const c = &cs;
    cx_load(c, cpu);
    c->e = 1;
    c->d = 0;
    c->dbr = 0;
    c->pbr = 0;
    c->s = (uint16_t)(0x100 | (c->s & 0xFF));
    c->p = (uint8_t)((c->p | SNES_P_M | SNES_P_X | SNES_P_I) & ~SNES_P_D);
    c->x &= 0xFF;
    c->y &= 0xFF;
    IO(PCNOW);
    IO(PCNOW);
    for (int i = 0; i < 3; i++)
        IO((uint16_t)(0x100 | ((c->s - i) & 0xFF)));
    uint8_t lo = RD(V_RESET, K_VEC);
    c->pc = (uint16_t)(lo | RD(V_RESET + 1, K_VEC) << 8);
    cx_store(c);
}

void snes_cpu_reset(snes_cpu *c)
{
    c->s.waiting = 0;
    c->s.stopped = 0;
    c->s.nmi_pending = 0;
    if (c->bus->cycle)
        reset_seq(c, 1);
    else
        reset_seq(c, 0);
}

void snes_cpu_set_nmi(snes_cpu *c, uint64_t at)
{
    if (!c->s.nmi_pending) {
        c->s.nmi_pending = 1;
        c->s.nmi_at = at;
    }
}

void snes_cpu_set_irq(snes_cpu *c, int level, uint64_t at)
{
    if (level && !c->s.irq_line)
        c->s.irq_at = at;
    c->s.irq_line = level ? 1 : 0;
}

void snes_cpu_get_regs(const snes_cpu *c, snes_cpu_regs *r)
{
    *r = c->s.r;
}

void snes_cpu_set_regs(snes_cpu *c, const snes_cpu_regs *r)
{
    c->s.r = *r;
    snes_cpu_regs *q = &c->s.r;
    q->e = q->e ? 1 : 0;
    if (q->e) {
        q->p |= SNES_P_M | SNES_P_X;
        q->s = (uint16_t)(0x100 | (q->s & 0xFF));
    }
    if (q->p & SNES_P_X) {
        q->x &= 0xFF;
        q->y &= 0xFF;
    }
}

uint8_t snes_cpu_open_bus(const snes_cpu *c)
{
    return c->s.mdr;
}
