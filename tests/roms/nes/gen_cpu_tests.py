#!/usr/bin/env python3
"""gen_cpu_tests.py: writes cpu_tests.inc, the test tables of cpu_test.s (committed; run
this again only when the tables change).

The expectations come from the 6502's documented behaviour, written down here
independently of the emulator:
  * functional vectors: for every official opcode and the stable unofficial ones, the
    registers, flags and memory operand before and after, from a small model of each
    instruction's semantics (the 2A03 has no decimal mode);
  * timing tests: the documented cycle count of each opcode and addressing mode (with the
    extra cycle for a crossed page on indexed reads and for taken/crossing branches),
    measured on the console without a timer: an unrolled loop of the instruction counts
    its iterations between two NMIs (one video frame, 341 * 262 / 3 CPU cycles with
    rendering off), and the count must fall in the window those cycles predict.
"""
import math

# ---- addressing modes and the operands the harness prepares --------------------------
# X = 5 and Y = 3 for indexed functional vectors; memory operand at $80 (zero page) or
# $0400 (absolute). Pointers: $75/$76 -> $0400; $72/$73 -> $03FD.
IMP, ACC, IMM, ZP, ZPX, ZPY, ABS, ABX, ABY, IZX, IZY = range(11)
LEN = {IMP: 1, ACC: 1, IMM: 2, ZP: 2, ZPX: 2, ZPY: 2, ABS: 3, ABX: 3, ABY: 3, IZX: 2, IZY: 2}
FUNC_OPERAND = {ZP: [0x80], ZPX: [0x7B], ZPY: [0x7D], ABS: [0x00, 0x04], ABX: [0xFB, 0x03],
                ABY: [0xFD, 0x03], IZX: [0x70], IZY: [0x72]}
TGT_ZP, TGT_ABS = 1, 2
TARGET = {ZP: TGT_ZP, ZPX: TGT_ZP, ZPY: TGT_ZP, ABS: TGT_ABS, ABX: TGT_ABS, ABY: TGT_ABS,
          IZX: TGT_ABS, IZY: TGT_ABS}

# ---- instruction semantics -------------------------------------------------------------
N, V, U, B, D, I, Z, C = 0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01


def nz(p, v):
    p &= ~(N | Z)
    if v & 0x80:
        p |= N
    if v == 0:
        p |= Z
    return p


def adc(s, v):
    a, p = s['a'], s['p']
    r = a + v + (p & C)
    p &= ~(C | V)
    if r > 0xFF:
        p |= C
    if (~(a ^ v) & (a ^ r)) & 0x80:
        p |= V
    s['a'] = r & 0xFF
    s['p'] = nz(p, s['a'])


def sbc(s, v):
    adc(s, v ^ 0xFF)


def cmp_(s, reg, v):
    r = (s[reg] - v) & 0xFF
    p = s['p'] & ~C
    if s[reg] >= v:
        p |= C
    s['p'] = nz(p, r)


def asl(s, v):
    s['p'] = (s['p'] & ~C) | (v >> 7)
    v = (v << 1) & 0xFF
    s['p'] = nz(s['p'], v)
    return v


def lsr(s, v):
    s['p'] = (s['p'] & ~C) | (v & 1)
    v >>= 1
    s['p'] = nz(s['p'], v)
    return v


def rol(s, v):
    c = s['p'] & C
    s['p'] = (s['p'] & ~C) | (v >> 7)
    v = ((v << 1) | c) & 0xFF
    s['p'] = nz(s['p'], v)
    return v


def ror(s, v):
    c = s['p'] & C
    s['p'] = (s['p'] & ~C) | (v & 1)
    v = (v >> 1) | (c << 7)
    s['p'] = nz(s['p'], v)
    return v


def load(reg):
    def f(s, v):
        s[reg] = v
        s['p'] = nz(s['p'], v)
    return f


def logic(fn):
    def f(s, v):
        s['a'] = fn(s['a'], v)
        s['p'] = nz(s['p'], s['a'])
    return f


def bit(s, v):
    p = s['p'] & ~(N | V | Z)
    p |= v & (N | V)
    if s['a'] & v == 0:
        p |= Z
    s['p'] = p


def rmw(fn):
    """Read-modify-write on the memory operand."""
    def f(s, v):
        s['m'] = fn(s, v)
    return f


def inc(s, v):
    v = (v + 1) & 0xFF
    s['p'] = nz(s['p'], v)
    return v


def dec(s, v):
    v = (v - 1) & 0xFF
    s['p'] = nz(s['p'], v)
    return v


def combo(first, then):
    """Unofficial RMW: modify memory, then an ALU op with the result."""
    def f(s, v):
        r = first(s, v)
        s['m'] = r
        then(s, r)
    return f


def store(expr):
    def f(s, v):
        s['m'] = expr(s)
    return f


def regop(fn):
    def f(s, v):
        fn(s)
    return f


def setreg(dst, src):
    def f(s):
        s[dst] = s[src]
        s['p'] = nz(s['p'], s[dst])
    return f


def increg(reg, d):
    def f(s):
        s[reg] = (s[reg] + d) & 0xFF
        s['p'] = nz(s['p'], s[reg])
    return f


def flag(mask, on):
    def f(s):
        s['p'] = (s['p'] | mask) if on else (s['p'] & ~mask)
    return f


def anc(s, v):
    s['a'] &= v
    s['p'] = nz(s['p'], s['a'])
    s['p'] = (s['p'] & ~C) | (C if s['a'] & 0x80 else 0)


def alr(s, v):
    s['a'] &= v
    s['a'] = lsr(s, s['a'])


def arr(s, v):
    a = s['a'] & v
    a = (a >> 1) | ((s['p'] & C) << 7)
    p = nz(s['p'], a) & ~(C | V)
    if a & 0x40:
        p |= C
    if ((a >> 6) ^ (a >> 5)) & 1:
        p |= V
    s['a'], s['p'] = a, p


def axs(s, v):
    ax = s['a'] & s['x']
    p = s['p'] & ~C
    if ax >= v:
        p |= C
    s['x'] = (ax - v) & 0xFF
    s['p'] = nz(p, s['x'])


def lax(s, v):
    s['a'] = s['x'] = v
    s['p'] = nz(s['p'], v)


def nop(s, v):
    pass


# (mnemonic, semantics, {mode: opcode}, official)
ALU8 = [IZX, ZP, IMM, ABS, IZY, ZPX, ABY, ABX]
OPS = [
    ('ORA', logic(lambda a, v: a | v), dict(zip(ALU8, [0x01, 0x05, 0x09, 0x0D, 0x11, 0x15, 0x19, 0x1D]))),
    ('AND', logic(lambda a, v: a & v), dict(zip(ALU8, [0x21, 0x25, 0x29, 0x2D, 0x31, 0x35, 0x39, 0x3D]))),
    ('EOR', logic(lambda a, v: a ^ v), dict(zip(ALU8, [0x41, 0x45, 0x49, 0x4D, 0x51, 0x55, 0x59, 0x5D]))),
    ('ADC', adc, dict(zip(ALU8, [0x61, 0x65, 0x69, 0x6D, 0x71, 0x75, 0x79, 0x7D]))),
    ('LDA', load('a'), dict(zip(ALU8, [0xA1, 0xA5, 0xA9, 0xAD, 0xB1, 0xB5, 0xB9, 0xBD]))),
    ('CMP', lambda s, v: cmp_(s, 'a', v), dict(zip(ALU8, [0xC1, 0xC5, 0xC9, 0xCD, 0xD1, 0xD5, 0xD9, 0xDD]))),
    ('SBC', sbc, dict(zip(ALU8, [0xE1, 0xE5, 0xE9, 0xED, 0xF1, 0xF5, 0xF9, 0xFD]))),
    ('STA', store(lambda s: s['a']), {IZX: 0x81, ZP: 0x85, ABS: 0x8D, IZY: 0x91, ZPX: 0x95, ABY: 0x99, ABX: 0x9D}),
    ('STX', store(lambda s: s['x']), {ZP: 0x86, ABS: 0x8E, ZPY: 0x96}),
    ('STY', store(lambda s: s['y']), {ZP: 0x84, ABS: 0x8C, ZPX: 0x94}),
    ('LDX', load('x'), {IMM: 0xA2, ZP: 0xA6, ABS: 0xAE, ZPY: 0xB6, ABY: 0xBE}),
    ('LDY', load('y'), {IMM: 0xA0, ZP: 0xA4, ABS: 0xAC, ZPX: 0xB4, ABX: 0xBC}),
    ('CPX', lambda s, v: cmp_(s, 'x', v), {IMM: 0xE0, ZP: 0xE4, ABS: 0xEC}),
    ('CPY', lambda s, v: cmp_(s, 'y', v), {IMM: 0xC0, ZP: 0xC4, ABS: 0xCC}),
    ('BIT', bit, {ZP: 0x24, ABS: 0x2C}),
    ('ASL', rmw(asl), {ZP: 0x06, ABS: 0x0E, ZPX: 0x16, ABX: 0x1E}),
    ('ROL', rmw(rol), {ZP: 0x26, ABS: 0x2E, ZPX: 0x36, ABX: 0x3E}),
    ('LSR', rmw(lsr), {ZP: 0x46, ABS: 0x4E, ZPX: 0x56, ABX: 0x5E}),
    ('ROR', rmw(ror), {ZP: 0x66, ABS: 0x6E, ZPX: 0x76, ABX: 0x7E}),
    ('DEC', rmw(dec), {ZP: 0xC6, ABS: 0xCE, ZPX: 0xD6, ABX: 0xDE}),
    ('INC', rmw(inc), {ZP: 0xE6, ABS: 0xEE, ZPX: 0xF6, ABX: 0xFE}),
    ('ASL A', regop(lambda s: s.update(a=asl(s, s['a']))), {ACC: 0x0A}),
    ('ROL A', regop(lambda s: s.update(a=rol(s, s['a']))), {ACC: 0x2A}),
    ('LSR A', regop(lambda s: s.update(a=lsr(s, s['a']))), {ACC: 0x4A}),
    ('ROR A', regop(lambda s: s.update(a=ror(s, s['a']))), {ACC: 0x6A}),
    ('TAX', regop(setreg('x', 'a')), {IMP: 0xAA}),
    ('TXA', regop(setreg('a', 'x')), {IMP: 0x8A}),
    ('TAY', regop(setreg('y', 'a')), {IMP: 0xA8}),
    ('TYA', regop(setreg('a', 'y')), {IMP: 0x98}),
    ('INX', regop(increg('x', 1)), {IMP: 0xE8}),
    ('DEX', regop(increg('x', -1)), {IMP: 0xCA}),
    ('INY', regop(increg('y', 1)), {IMP: 0xC8}),
    ('DEY', regop(increg('y', -1)), {IMP: 0x88}),
    ('CLC', regop(flag(C, 0)), {IMP: 0x18}),
    ('SEC', regop(flag(C, 1)), {IMP: 0x38}),
    ('CLI', regop(flag(I, 0)), {IMP: 0x58}),
    ('SEI', regop(flag(I, 1)), {IMP: 0x78}),
    ('CLV', regop(flag(V, 0)), {IMP: 0xB8}),
    ('CLD', regop(flag(D, 0)), {IMP: 0xD8}),
    ('SED', regop(flag(D, 1)), {IMP: 0xF8}),
    ('NOP', nop, {IMP: 0xEA}),
]
UNOFFICIAL = [
    ('SLO', combo(asl, logic(lambda a, v: a | v)), [0x03, 0x07, 0x0F, 0x13, 0x17, 0x1B, 0x1F]),
    ('RLA', combo(rol, logic(lambda a, v: a & v)), [0x23, 0x27, 0x2F, 0x33, 0x37, 0x3B, 0x3F]),
    ('SRE', combo(lsr, logic(lambda a, v: a ^ v)), [0x43, 0x47, 0x4F, 0x53, 0x57, 0x5B, 0x5F]),
    ('RRA', combo(ror, adc), [0x63, 0x67, 0x6F, 0x73, 0x77, 0x7B, 0x7F]),
    ('DCP', combo(dec, lambda s, v: cmp_(s, 'a', v)), [0xC3, 0xC7, 0xCF, 0xD3, 0xD7, 0xDB, 0xDF]),
    ('ISC', combo(inc, sbc), [0xE3, 0xE7, 0xEF, 0xF3, 0xF7, 0xFB, 0xFF]),
]
URMW_MODES = [IZX, ZP, ABS, IZY, ZPX, ABY, ABX]
for name, fn, codes in UNOFFICIAL:
    # the RMW helpers need flags set as in asl/rol/... then the ALU op; combo() sets memory
    OPS.append((name, fn, dict(zip(URMW_MODES, codes)), False))
OPS += [
    ('LAX', lax, {IZX: 0xA3, ZP: 0xA7, ABS: 0xAF, IZY: 0xB3, ZPY: 0xB7, ABY: 0xBF}, False),
    ('SAX', store(lambda s: s['a'] & s['x']), {IZX: 0x83, ZP: 0x87, ABS: 0x8F, ZPY: 0x97}, False),
    ('SBC', sbc, {IMM: 0xEB}, False),
    ('ANC', anc, {IMM: 0x0B}, False),
    ('ANC', anc, {IMM: 0x2B}, False),
    ('ALR', alr, {IMM: 0x4B}, False),
    ('ARR', arr, {IMM: 0x6B}, False),
    ('AXS', axs, {IMM: 0xCB}, False),
    ('NOP', nop, {IMP: 0x1A}, False), ('NOP', nop, {IMP: 0x3A}, False), ('NOP', nop, {IMP: 0x5A}, False),
    ('NOP', nop, {IMP: 0x7A}, False), ('NOP', nop, {IMP: 0xDA}, False), ('NOP', nop, {IMP: 0xFA}, False),
    ('NOP', nop, {IMM: 0x80}, False), ('NOP', nop, {IMM: 0x82}, False), ('NOP', nop, {IMM: 0x89}, False),
    ('NOP', nop, {IMM: 0xC2}, False), ('NOP', nop, {IMM: 0xE2}, False),
    ('NOP', nop, {ZP: 0x04}, False), ('NOP', nop, {ZP: 0x44}, False), ('NOP', nop, {ZP: 0x64}, False),
    ('NOP', nop, {ABS: 0x0C}, False),
    ('NOP', nop, {ZPX: 0x14}, False), ('NOP', nop, {ZPX: 0x34}, False), ('NOP', nop, {ZPX: 0x54}, False),
    ('NOP', nop, {ZPX: 0x74}, False), ('NOP', nop, {ZPX: 0xD4}, False), ('NOP', nop, {ZPX: 0xF4}, False),
    ('NOP', nop, {ABX: 0x1C}, False), ('NOP', nop, {ABX: 0x3C}, False), ('NOP', nop, {ABX: 0x5C}, False),
    ('NOP', nop, {ABX: 0x7C}, False), ('NOP', nop, {ABX: 0xDC}, False), ('NOP', nop, {ABX: 0xFC}, False),
]
OPS = [o if len(o) == 4 else o + (True,) for o in OPS]

# Inputs (A, X, Y, P, M): zero, sign boundaries, carries in and out, overflow both ways.
INPUTS = [
    (0x00, 0x00, 0x00, 0x00, 0x00),
    (0x7F, 0x01, 0x80, 0x01, 0x01),
    (0x80, 0xFF, 0x7F, 0xC3, 0xFF),
    (0x50, 0x10, 0x20, 0x00, 0x50),
    (0xFF, 0x80, 0x01, 0x01, 0x80),
    (0x33, 0xCC, 0x0F, 0x08, 0x5A),
    (0xD0, 0x01, 0xFE, 0x41, 0x70),
    (0x01, 0x7F, 0x00, 0x00, 0xFF),
]


def functional_vectors():
    out = []
    for name, fn, modes, official in OPS:
        for mode, op in sorted(modes.items()):
            ins = INPUTS if mode in (IMM, ZP, IMP, ACC) else INPUTS[:3]
            for a, x, y, p, mem in ins:
                if mode in (ZPX, ABX, IZX):
                    x = 5
                if mode in (ZPY, ABY, IZY):
                    y = 3
                s = {'a': a, 'x': x, 'y': y, 'p': p | U, 'm': mem}
                operand = [mem] if mode == IMM else FUNC_OPERAND.get(mode, [])
                fn(s, mem)
                tgt = TARGET.get(mode, 0)
                b = [op] + operand + [0] * (2 - len(operand))
                out.append((name, b, LEN[mode], (a, x, y, p | U, mem),
                            (s['a'], s['x'], s['y'], s['p'] | U | B, s['m']), tgt))
    return out


# ---- cycle counts (documented) ------------------------------------------------------------
# base cycles per addressing mode for reads; writes and RMW take the fixed indexed cycle
READ = {IMM: 2, ZP: 3, ZPX: 4, ZPY: 4, ABS: 4, ABX: 4, ABY: 4, IZX: 6, IZY: 5}
WRITE = {ZP: 3, ZPX: 4, ZPY: 4, ABS: 4, ABX: 5, ABY: 5, IZX: 6, IZY: 6}
RMWC = {ZP: 5, ZPX: 6, ABS: 6, ABX: 7, ABY: 7, IZX: 8, IZY: 8}
STORES = {'STA', 'STX', 'STY', 'SAX'}
RMWS = {'ASL', 'ROL', 'LSR', 'ROR', 'DEC', 'INC', 'SLO', 'RLA', 'SRE', 'RRA', 'DCP', 'ISC'}

# Timing operands: X = 5 / Y = 3 without a page cross; X = 1 / Y = 1 with one.
# Zero page pointers: $75/$76 -> $0400 (X = 5), $60/$61 -> $0400, $62/$63 -> $03FF.
TIME_OPERAND = {ZP: [0x80], ZPX: [0x7B], ZPY: [0x7D], ABS: [0x00, 0x04], ABX: [0x00, 0x04],
                ABY: [0x00, 0x04], IZX: [0x70], IZY: [0x60]}
CROSS_OPERAND = {ABX: [0xFF, 0x03], ABY: [0xFF, 0x03], IZY: [0x62]}

STUB = 0x0500
FRAME = 341 * 262 / 3      # CPU cycles per frame with rendering off (no skipped dot)
NMI_COST = 7 + 5 + 5 + 6   # NMI sequence, JMP (nmi_vec), INC zp, RTI
SETUP_MAX = 80             # cycles between the NMI and the loop's start, at most


def cycles(name, mode, cross):
    if mode in (IMP, ACC):
        return 2
    if name in STORES:
        return WRITE[mode]
    if name in RMWS:
        return RMWC[mode]
    return READ[mode] + (1 if cross else 0)


class Image:
    """RAM image of a timing stub, assembled at known addresses."""

    def __init__(self):
        self.mem = {}

    def put(self, addr, *bs):
        for i, b in enumerate(bs):
            self.mem[addr + i] = b

    def tail(self, at, entry):
        """Loop tail at `at`; returns (next address, cycles of one pass)."""
        cyc = 0
        self.put(at, 0xE6, 0xF0)            # INC cnt
        cyc += 5
        self.put(at + 2, 0xD0, 0x02)        # BNE +2 (taken except every 256th pass)
        cyc += 3 + (1 if (at + 4) >> 8 != (at + 6) >> 8 else 0)
        self.put(at + 4, 0xE6, 0xF1)        # INC cnt+1
        self.put(at + 6, 0xA5, 0xF2)        # LDA nmi_count
        self.put(at + 8, 0xC5, 0xF3)        # CMP nmi_start
        cyc += 6
        off = entry - (at + 12)
        assert -128 <= off < 0, "stub too long for the BEQ back"
        self.put(at + 10, 0xF0, off & 0xFF)  # BEQ entry
        cyc += 3 + (1 if (at + 12) >> 8 != entry >> 8 else 0)
        self.put(at + 12, 0x4C, 'done_lo', 'done_hi')  # JMP timing_done
        return at + 15, cyc

    def blocks(self):
        addrs = sorted(self.mem)
        lo, hi = addrs[0], addrs[-1]
        return lo, [self.mem.get(a, 0xEA) for a in range(lo, hi + 1)]


def window(per_pass, extra=0.0):
    """Accepted range of the pass count for a loop of per_pass cycles (extra: the largest
    additional cycles a pass may take, e.g. a DMA that can take one more)."""
    avail = FRAME - NMI_COST
    lo = math.floor((avail - SETUP_MAX - 8 * 4) / (per_pass + extra)) - 1
    hi = math.ceil(avail / per_pass) + 1
    return lo, hi


def timing_tests():
    tests = []

    def unrolled(label, code, per_op_cycles, count=8, regs=(0, 0, 0, 0x07), extra=0.0):
        """The harness builds these loops itself: `count` copies of code at STUB, then the
        tail; recorded as (code, count) instead of an image."""
        img = Image()
        at = STUB
        for _ in range(count):
            img.put(at, *code)
            at += len(code)
        _, tail = img.tail(at, STUB)
        lo, hi = window(count * per_op_cycles + tail, extra)
        tests.append((label, STUB, None, (code, count), regs, lo, hi, count * per_op_cycles + tail))

    for name, fn, modes, official in OPS:
        for mode, op in sorted(modes.items()):
            regs_x = 5 if mode in (ZPX, ABX, IZX) else 0
            regs_y = 3 if mode in (ZPY, ABY) else (3 if mode == IZY else 0)
            operand = [0x00] if mode == IMM else TIME_OPERAND.get(mode, [])
            unrolled('%02X' % op, [op] + operand, cycles(name, mode, False), regs=(0x00, regs_x, regs_y, 0x07))
            if mode in CROSS_OPERAND:
                rx = 1 if mode == ABX else regs_x
                ry = 1 if mode in (ABY, IZY) else regs_y
                unrolled('%02X+' % op, [op] + CROSS_OPERAND[mode], cycles(name, mode, True),
                         regs=(0x00, rx, ry, 0x07))
    # stack pairs and transfers involving S
    unrolled('48/68', [0x48, 0x68], 3 + 4, count=4)
    unrolled('08/28', [0x08, 0x28], 3 + 4, count=4)
    unrolled('BA/9A', [0xBA, 0x9A], 2 + 2, count=4)
    def chain(label, code_at, per_op, extra=None):
        """Eight instructions built by code_at(k, at) -> bytes, each `per_op` cycles, then
        the tail; extra(img, addrs) adds data or a subroutine after the code."""
        img = Image()
        at, addrs = STUB, []
        for k in range(8):
            code = code_at(k, at)
            img.put(at, *code)
            addrs.append(at)
            at += len(code)
        _, tail = img.tail(at, STUB)
        if extra:
            extra(img, addrs)
        start, data = img.blocks()
        tests.append((label, STUB, start, data, (0, 0, 0, 0x07)) + window(8 * per_op + tail) + (8 * per_op + tail,))

    def pointers(img, addrs):
        for k, a in enumerate(addrs):
            img.put(PTRS + 2 * k, (a + 3) & 0xFF, (a + 3) >> 8)

    PTRS = SUB = STUB + 0x60
    # JMP abs to the next instruction; JMP (ind) through pointers after the code; JSR/RTS
    chain('4C', lambda k, at: [0x4C, (at + 3) & 0xFF, (at + 3) >> 8], 3)
    chain('6C', lambda k, at: [0x6C, (PTRS + 2 * k) & 0xFF, (PTRS + 2 * k) >> 8], 5, pointers)
    chain('20/60', lambda k, at: [0x20, SUB & 0xFF, SUB >> 8], 12, lambda img, addrs: img.put(SUB, 0x60))
    # BRK through the harness's IRQ vector (JMP (irq_vec) to an RTI): 7 + 5 + 6
    img = Image()
    at = STUB
    for k in range(8):
        img.put(at, 0x00, 0xEA)
        at += 2
    _, tail = img.tail(at, STUB)
    start, data = img.blocks()
    tests.append(('00/40', STUB, start, data, (0, 0, 0, 0x07)) + window(8 * 18 + tail) + (8 * 18 + tail,))
    # Branches after the tail's CMP (Z = 1, C = 1, N = 0); V from the setup (clear).
    taken = {0xF0: True, 0xD0: False, 0xB0: True, 0x90: False, 0x10: True, 0x30: False,
             0x50: True, 0x70: False}
    for op, t in sorted(taken.items()):
        unrolled('%02X%s' % (op, 't' if t else 'n'), [op, 0x00], 3 if t else 2, regs=(0, 0, 0, 0x07))
    # Taken branches that cross a page (P = $07 before the first pass, so that pass takes them too): hop across $0600 and back.
    for op in (0xF0, 0xB0, 0x10, 0x50):
        img = Image()
        addrs = [0x05C0 + 4 * (k // 2) if k % 2 == 0 else 0x0640 + 4 * (k // 2) for k in range(9)]
        for k in range(8):
            off = addrs[k + 1] - (addrs[k] + 2)
            assert -128 <= off <= 127 and (addrs[k] + 2) >> 8 != addrs[k + 1] >> 8
            img.put(addrs[k], op, off & 0xFF)
        _, tail = img.tail(addrs[8], addrs[0])
        start, data = img.blocks()
        tests.append(('%02Xx' % op, addrs[0], start, data, (0, 0, 0, 0x07)) + window(8 * 4 + tail) + (8 * 4 + tail,))
    # OAM DMA: STA $4014 takes 4 cycles plus 513 (514 when it starts on an odd cycle).
    unrolled('4014', [0x8D, 0x14, 0x40], 4 + 513, count=1, regs=(0x02, 0, 0, 0x07), extra=1.0)
    return tests


def check_discriminating(tests):
    """Each window must exclude the counts of one cycle more or less per instruction."""
    for label, entry, start, data, regs, lo, hi, per in tests:
        assert start is not None or len(data[0]) * data[1] + 15 <= 120, label
        assert start is None or len(data) <= 255, label
        if label == '4014':
            continue  # one DMA per pass: a coarse check only
        for d in (-8, 8):
            l2, h2 = window(per + d)
            assert h2 < lo or l2 > hi, "window of %s does not separate %+d cycles" % (label, d)


def emit(vectors, tests):
    lines = ['; cpu_tests.inc: generated by gen_cpu_tests.py; do not edit.', '']
    lines.append('; functional vectors: op, operand 1, operand 2, length, A X Y P M before,')
    lines.append('; A X Y P M after (P as PHP pushes it), target (0 none, 1 $80, 2 $0400)')
    lines.append('func_vectors:')
    for name, b, ln, before, after, tgt in vectors:
        lines.append('    .byte $%02X,$%02X,$%02X,%d, $%02X,$%02X,$%02X,$%02X,$%02X, $%02X,$%02X,$%02X,$%02X,$%02X, %d ; %s'
                     % tuple(b + [ln] + list(before) + list(after) + [tgt, name]))
    lines.append('    .byte 0,0,0,0  ; end')
    lines.append('FUNC_COUNT = %d' % len(vectors))
    lines.append('')
    lines.append('; timing tests: kind (0: unrolled, 1: image), A X Y P, low, high, label (5 chars),')
    lines.append('; then for kind 0: instruction length, count, instruction bytes (3);')
    lines.append('; for kind 1: entry, image start, image length, image bytes')
    for i, (label, entry, start, data, regs, lo, hi, per) in enumerate(tests):
        lines.append('time_%d: ; %s: %d cycles per pass, %d..%d passes' % (i, label, per, lo, hi))
        lines.append('    .byte %d, $%02X,$%02X,$%02X,$%02X' % ((0 if start is None else 1,) + regs))
        lines.append('    .word %d, %d' % (lo, hi))
        lines.append('    .byte "%-5s"' % label)
        if start is None:
            code, count = data
            lines.append('    .byte %d, %d, ' % (len(code), count) + ','.join('$%02X' % b for b in code + [0] * (3 - len(code))))
            continue
        lines.append('    .word $%04X, $%04X, %d' % (entry, start, len(data)))
        for k in range(0, len(data), 16):
            chunk = data[k:k + 16]
            lines.append('    .byte ' + ','.join('<timing_done' if v == 'done_lo' else '>timing_done' if v == 'done_hi'
                                                  else '$%02X' % v for v in chunk))
    lines.append('time_table:')
    for i in range(len(tests)):
        lines.append('    .word time_%d' % i)
    lines.append('    .word 0')
    lines.append('TIME_COUNT = %d' % len(tests))
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    import os
    v = functional_vectors()
    t = timing_tests()
    check_discriminating(t)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'cpu_tests.inc'), 'w') as f:
        f.write(emit(v, t))
    print('%d functional vectors, %d timing tests' % (len(v), len(t)))
