#!/usr/bin/env python3
"""gen_cpu.py: generates the instruction tests of cpu_test.c.

The expected results come from the reference model below, written from the published
SM83 instruction descriptions (Pan Docs, "CPU Instruction Set"; the flag rules of each
instruction), not from gpuvet's emulator. The expected M-cycle counts are the table of
the same documentation. Writes OUT/cpu_gen.s (one small routine per tested instruction),
OUT/cpu_gen.c (inputs, expected outputs, names) and OUT/cpu_gen.h.

usage: gen_cpu.py OUTDIR
"""
import os
import sys

Z, N, H, C = 0x80, 0x40, 0x20, 0x10

BIN_VALUES = [0x00, 0x01, 0x0F, 0x10, 0x1F, 0x7F, 0x80, 0x81, 0x99, 0x9A, 0xF0, 0xFE, 0xFF, 0x3C, 0x45, 0xC3]
UN_VALUES = [0x00, 0x01, 0x02, 0x0F, 0x10, 0x3E, 0x40, 0x55, 0x7F, 0x80, 0x81, 0x99, 0xAA, 0xC1, 0xFE, 0xFF,
             0x09, 0x0A, 0x19, 0x1A, 0x5A, 0x66, 0x8F, 0x90, 0x9F, 0xA0, 0xB7, 0xD2, 0xE9, 0xF1, 0x23, 0x6C]
F_IN = [0x00, 0xF0]
W16_VALUES = [0x0000, 0x0001, 0x00FF, 0x0FFF, 0x1000, 0x7FFF, 0x8000, 0xFFFF,
              0x0F0F, 0x1234, 0xABCD, 0x00F1, 0x0FF8, 0xF000, 0x8FFF, 0xC001]
SP_VALUES = [0x0000, 0x00FF, 0x0FF8, 0xC0F0, 0xDFF0, 0xFFF8, 0x1234, 0x8888]
E_VALUES = [0x00, 0x01, 0x08, 0x0F, 0x10, 0x7F, 0x80, 0x81, 0xF0, 0xF8, 0xFF, 0x22, 0x5E, 0xA5, 0xC8, 0x3B]


def zf(v):
    return Z if (v & 0xFF) == 0 else 0


# ---- the reference model: one function per instruction, (a, operand, f) -> (a, f) -----

def ref_add(a, b, f):
    r = a + b
    return r & 0xFF, zf(r) | (H if (a & 15) + (b & 15) >= 16 else 0) | (C if r >= 256 else 0)


def ref_adc(a, b, f):
    cy = 1 if f & C else 0
    r = a + b + cy
    return r & 0xFF, zf(r) | (H if (a & 15) + (b & 15) + cy >= 16 else 0) | (C if r >= 256 else 0)


def ref_sub(a, b, f):
    r = a - b
    return r & 0xFF, zf(r) | N | (H if (a & 15) - (b & 15) < 0 else 0) | (C if r < 0 else 0)


def ref_sbc(a, b, f):
    cy = 1 if f & C else 0
    r = a - b - cy
    return r & 0xFF, zf(r) | N | (H if (a & 15) - (b & 15) - cy < 0 else 0) | (C if r < 0 else 0)


def ref_and(a, b, f):
    return a & b, zf(a & b) | H


def ref_xor(a, b, f):
    return a ^ b, zf(a ^ b)


def ref_or(a, b, f):
    return a | b, zf(a | b)


def ref_cp(a, b, f):
    return a, ref_sub(a, b, f)[1]


def ref_inc(a, f):
    r = (a + 1) & 0xFF
    return r, zf(r) | (H if (a & 15) == 15 else 0) | (f & C)


def ref_dec(a, f):
    r = (a - 1) & 0xFF
    return r, zf(r) | N | (H if (a & 15) == 0 else 0) | (f & C)


def ref_cpl(a, f):
    return a ^ 0xFF, (f & (Z | C)) | N | H


def ref_scf(a, f):
    return a, (f & Z) | C


def ref_ccf(a, f):
    return a, (f & Z) | (0 if f & C else C)


def bits_rot(kind, a, f):
    """CB-prefixed rotate/shift: result and carry out."""
    cy = 1 if f & C else 0
    if kind == "rlc":
        return ((a << 1) | (a >> 7)) & 0xFF, a >> 7
    if kind == "rrc":
        return ((a >> 1) | (a << 7)) & 0xFF, a & 1
    if kind == "rl":
        return ((a << 1) | cy) & 0xFF, a >> 7
    if kind == "rr":
        return (a >> 1) | (cy << 7), a & 1
    if kind == "sla":
        return (a << 1) & 0xFF, a >> 7
    if kind == "sra":
        return (a >> 1) | (a & 0x80), a & 1
    if kind == "srl":
        return a >> 1, a & 1
    if kind == "swap":
        return ((a << 4) | (a >> 4)) & 0xFF, 0
    raise ValueError(kind)


def ref_cb(kind):
    def f_(a, f):
        r, co = bits_rot(kind, a, f)
        return r, zf(r) | (C if co else 0)
    return f_


def ref_rot_a(kind):
    """RLCA RRCA RLA RRA: as the CB forms, but Z is always cleared."""
    def f_(a, f):
        r, co = bits_rot(kind, a, f)
        return r, C if co else 0
    return f_


def ref_daa(a, f):
    """Decimal adjust: after an addition (N clear) add 6 to a low digit over 9 or with
    a half carry, and $60 when A was over $99 or with a carry (which is then kept set);
    after a subtraction subtract those adjustments the flags call for."""
    n, h, cy = f & N, f & H, f & C
    corr = 0
    out_c = 0
    if n:
        if h:
            corr |= 0x06
        if cy:
            corr |= 0x60
            out_c = C
        r = (a - corr) & 0xFF
    else:
        if h or (a & 0x0F) > 9:
            corr |= 0x06
        if cy or a > 0x99:
            corr |= 0x60
            out_c = C
        r = (a + corr) & 0xFF
    return r, zf(r) | n | out_c


def ref_bit(b):
    def f_(a, f):
        return a, (0 if (a >> b) & 1 else Z) | H | (f & C)
    return f_


def ref_add_hl(hl, de, f):
    r = hl + de
    return r & 0xFFFF, (f & Z) | (H if (hl & 0xFFF) + (de & 0xFFF) > 0xFFF else 0) | (C if r > 0xFFFF else 0)


def ref_sp_e(sp, e, f):
    """ADD SP,e and LD HL,SP+e: e is signed; H and C come from the unsigned addition of
    the low byte of SP and e as an unsigned byte; Z and N are cleared."""
    se = e - 256 if e & 0x80 else e
    r = (sp + se) & 0xFFFF
    fl = (H if (sp & 0xF) + (e & 0xF) > 0xF else 0) | (C if (sp & 0xFF) + e > 0xFF else 0)
    return r, fl


BINARY = [("add", ref_add), ("adc", ref_adc), ("sub", ref_sub), ("sbc", ref_sbc),
          ("and", ref_and), ("xor", ref_xor), ("or", ref_or), ("cp", ref_cp)]
# name, asm on A, reference, and whether the CB form is also tested on (HL)
UNARY = [("inc a", "inc a", ref_inc, None), ("dec a", "dec a", ref_dec, None),
         ("inc (hl)", None, ref_inc, "inc (hl)"), ("dec (hl)", None, ref_dec, "dec (hl)"),
         ("cpl", "cpl", ref_cpl, None), ("scf", "scf", ref_scf, None), ("ccf", "ccf", ref_ccf, None),
         ("rlca", "rlca", ref_rot_a("rlc"), None), ("rrca", "rrca", ref_rot_a("rrc"), None),
         ("rla", "rla", ref_rot_a("rl"), None), ("rra", "rra", ref_rot_a("rr"), None)]
for k in ["rlc", "rrc", "rl", "rr", "sla", "sra", "swap", "srl"]:
    UNARY.append((k + " a", k + " a", ref_cb(k), None))
    UNARY.append((k + " (hl)", None, ref_cb(k), k + " (hl)"))
for b in range(8):
    UNARY.append(("bit %d,a" % b, "bit %d,a" % b, ref_bit(b), None))

# Instruction timing: (name, setup, body repeated 32 times, tail code after the routine,
# M-cycles per body). setup runs before the first timer read.
TIMING = [
    ("nop", "", "nop", "", 1),
    ("ld b,c", "", "ld b,c", "", 1),
    ("ld b,n", "", "ld b,#0x12", "", 2),
    ("ld b,(hl)", "ld hl,#_scratch", "ld b,(hl)", "", 2),
    ("ld (hl),b", "ld hl,#_scratch", "ld (hl),b", "", 2),
    ("ld (hl),n", "ld hl,#_scratch", "ld (hl),#0x34", "", 3),
    ("inc b", "", "inc b", "", 1),
    ("inc (hl)", "ld hl,#_scratch", "inc (hl)", "", 3),
    ("inc bc", "", "inc bc", "", 2),
    ("dec de", "", "dec de", "", 2),
    ("add hl,bc", "", "add hl,bc", "", 2),
    ("ld a,(bc)", "ld bc,#_scratch", "ld a,(bc)", "", 2),
    ("ld (de),a", "ld de,#_scratch", "ld (de),a", "", 2),
    ("ld a,(hl+)", "ld hl,#_scratch", "ld a,(hl+)", "", 2),
    ("ld (hl-),a", "ld hl,#_scratch+40", "ld (hl-),a", "", 2),
    ("ldh a,(n)", "", "ldh a,(0x80)", "", 3),
    ("ldh (n),a", "", "ldh (0x80),a", "", 3),
    ("ld a,(c)", "ld c,#0x80", "ldh a,(c)", "", 2),
    ("ld (c),a", "ld c,#0x80", "ldh (c),a", "", 2),
    ("ld a,(nn)", "", "ld a,(_scratch)", "", 4),
    ("ld (nn),a", "", "ld (_scratch),a", "", 4),
    ("ld (nn),sp", "", "ld (_scratch),sp", "", 5),
    ("push+pop", "", "push bc\n\tpop bc", "", 7),
    ("jr taken", "", "jr .+2", "", 3),
    ("jr nz untaken", "xor a", "jr nz,.+2", "", 2),
    ("jp nn", "", "jp {next}", "", 4),
    ("jp z taken", "xor a", "jp z,{next}", "", 4),
    ("jp nz untaken", "xor a", "jp nz,{next}", "", 3),
    ("jp (hl)+ld hl", "", "ld hl,#{next}\n\tjp (hl)", "", 4),
    ("call+ret", "", "call {sub}", "{sub}:\n\tret", 10),
    ("call nz untaken", "xor a", "call nz,{sub}", "{sub}:\n\tret", 3),
    ("call+ret z taken", "xor a", "call {sub}", "{sub}:\n\tret z", 11),
    ("ret nz untaken", "xor a", "ret nz", "", 2),
    ("call+reti", "", "call {sub}", "{sub}:\n\treti", 10),
    ("rst+ret", "", "rst 0x08", "", 8),
    ("bit 0,b", "", "bit 0,b", "", 2),
    ("bit 0,(hl)", "ld hl,#_scratch", "bit 0,(hl)", "", 3),
    ("set 0,(hl)", "ld hl,#_scratch", "set 0,(hl)", "", 4),
    ("res 7,c", "", "res 7,c", "", 2),
    ("rlc d", "", "rlc d", "", 2),
    ("swap (hl)", "ld hl,#_scratch", "swap (hl)", "", 4),
    ("add sp,e", "", "add sp,#1\n\tadd sp,#-1", "", 8),
    ("ld hl,sp+e", "", "ldhl sp,#1", "", 3),
    ("ld sp,hl", "ld hl,#0\n\tadd hl,sp", "ld sp,hl", "", 2),
    ("daa", "", "daa", "", 1),
    ("cpl", "", "cpl", "", 1),
    ("rlca", "", "rlca", "", 1),
    ("add a,(hl)", "ld hl,#_scratch", "add a,(hl)", "", 2),
    ("xor a,n", "", "xor a,#0x5A", "", 2),
    ("ei+di", "", "ei\n\tdi", "", 2),
    ("ld a,a", "", "ld a,a", "", 1),
]
REPS = 32
# After the bodies: second TIMA read, minus the first (kept at $FF81).
END_TIMING = ["\tldh a,(0x05)", "\tld b,a", "\tldh a,(0x81)", "\tld c,a", "\tld a,b", "\tsub a,c",
              "\tld (_t_result),a"]


def gen_asm(out):
    lines = [";; cpu_gen.s: generated by gen_cpu.py; one routine per tested instruction.",
             "\t.module cpu_gen",
             "\t.globl _in_a, _in_b, _in_f, _in_h, _in_l, _out_a, _out_f, _out_h, _out_l, _scratch, _t_result",
             "\t.area _CODE", ""]

    def load_af():
        # A = in_a, F = in_f (through the stack: POP AF is the only way to set F)
        return ["\tld a,(_in_f)", "\tld c,a", "\tld a,(_in_a)", "\tld b,a", "\tpush bc", "\tpop af"]

    def store_af():
        return ["\tpush af", "\tpop bc", "\tld a,b", "\tld (_out_a),a", "\tld a,c", "\tld (_out_f),a", "\tret"]

    for i, (name, _) in enumerate(BINARY):
        lines += ["_t_bin_%d::" % i, "\tld a,(_in_b)", "\tld e,a"] + load_af() + ["\t%s a,e" % name] + store_af()
    for i, (name, asm, _, mem) in enumerate(UNARY):
        lines.append("_t_un_%d::" % i)
        if mem:
            # operand in memory at (HL); flags from F
            lines += ["\tld a,(_in_a)", "\tld (_scratch),a", "\tld hl,#_scratch"] + load_af() + \
                     ["\t%s" % mem, "\tpush af", "\tpop bc", "\tld a,(_scratch)", "\tld (_out_a),a",
                      "\tld a,c", "\tld (_out_f),a", "\tret"]
        else:
            lines += load_af() + ["\t%s" % asm] + store_af()
    # DAA
    lines += ["_t_daa::"] + load_af() + ["\tdaa"] + store_af()
    # ADD HL,DE: HL = in_h:in_l, DE = in_a:in_b
    lines += ["_t_addhl::", "\tld a,(_in_a)", "\tld d,a", "\tld a,(_in_b)", "\tld e,a",
              "\tld a,(_in_h)", "\tld h,a", "\tld a,(_in_l)", "\tld l,a", "\tld a,(_in_f)", "\tld c,a",
              "\tpush bc", "\tpop af", "\tadd hl,de", "\tpush af", "\tpop bc", "\tld a,c", "\tld (_out_f),a",
              "\tld a,h", "\tld (_out_h),a", "\tld a,l", "\tld (_out_l),a", "\tret"]
    # ADD SP,e and LD HL,SP+e for each e: SP = in_h:in_l (interrupts are off). F is set
    # with the real stack first; the loads and LD (nn),SP in between leave flags alone.
    restore = ["\tld a,(_scratch+8)", "\tld l,a", "\tld a,(_scratch+9)", "\tld h,a", "\tld sp,hl"]
    for j, e in enumerate(E_VALUES):
        se = e - 256 if e & 0x80 else e
        head = ["\tld (_scratch+8),sp", "\tld a,(_in_f)", "\tld c,a", "\tpush bc", "\tpop af",
                "\tld a,(_in_h)", "\tld h,a", "\tld a,(_in_l)", "\tld l,a", "\tld sp,hl"]
        tail = ["\tpush af", "\tpop bc", "\tld a,c", "\tld (_out_f),a", "\tret"]
        lines += ["_t_addsp_%d::" % j] + head + ["\tadd sp,#%d" % se, "\tld (_scratch+10),sp",
                  "\tld a,(_scratch+11)", "\tld (_out_h),a", "\tld a,(_scratch+10)", "\tld (_out_l),a"] + \
            restore + tail
        lines += ["_t_ldhl_%d::" % j] + head + ["\tldhl sp,#%d" % se, "\tld a,h", "\tld (_out_h),a",
                  "\tld a,l", "\tld (_out_l),a"] + restore + tail
    # Timing routines: TIMA before, REPS bodies, TIMA after; t_result = difference.
    for i, (name, setup, body, tail, _) in enumerate(TIMING):
        lab = "Lt%d" % i
        lines += ["_t_time_%d::" % i]
        if setup:
            lines += ["\t" + x for x in setup.split("\n")]
        lines += ["\tldh a,(0x05)", "\tldh (0x81),a"]  # start value in HRAM: bodies use every register
        for r in range(REPS):
            nxt = "%s_%d" % (lab, r)
            b = body.format(next=nxt, sub=lab + "_sub")
            lines += ["\t" + x.strip() for x in b.split("\n")]
            lines.append(nxt + ":")
        lines += END_TIMING + ["\tdi", "\tret"]
        if tail:
            lines += [x if x.endswith(":") else "\t" + x.strip() for x in tail.format(sub=lab + "_sub").split("\n")]
    # The timer baseline: no body.
    lines += ["_t_time_base::", "\tldh a,(0x05)", "\tldh (0x81),a"] + END_TIMING + ["\tret"]
    open(os.path.join(out, "cpu_gen.s"), "w").write("\n".join(lines) + "\n")


def carray(name, vals, typ="uint8_t"):
    body = ",".join("0x%02X" % v for v in vals)
    return "const %s %s[%d] = {%s};\n" % (typ, name, len(vals), body)


def gen_c(out):
    nb, nu, nt, ne = len(BINARY), len(UNARY), len(TIMING), len(E_VALUES)
    h = ["/* cpu_gen.h: generated by gen_cpu.py: the instruction tests' tables and routines. */\n",
         "#include <stdint.h>\n",
         "#define NB %d\n#define NU %d\n#define NT %d\n#define NE %d\n" % (nb, nu, nt, ne),
         "extern const uint8_t bin_values[16], un_values[32], f_in[2], e_values[NE], t_cycles[NT];\n",
         "extern const uint16_t w16_values[16], sp_values[8];\n",
         "extern const char *const bin_names[NB], *const un_names[NU], *const t_names[NT];\n",
         "extern const uint8_t bin_expect[], un_expect[], daa_expect[], addhl_expect[], spe_expect[];\n",
         "extern void (*const bin_fn[NB])(void);\nextern void (*const un_fn[NU])(void);\n",
         "extern void (*const t_fn[NT])(void);\nextern void (*const addsp_fn[NE])(void);\n",
         "extern void (*const ldhl_fn[NE])(void);\n",
         "void t_daa(void);\nvoid t_addhl(void);\nvoid t_time_base(void);\n"]
    open(os.path.join(out, "cpu_gen.h"), "w").write("".join(h))
    c = ["/* cpu_gen.c: generated by gen_cpu.py: inputs and expected results of the instruction\n"
         " * tests (from the reference model in gen_cpu.py) and the expected M-cycle counts. */\n",
         '#include "cpu_gen.h"\n']
    c.append(carray("bin_values", BIN_VALUES))
    c.append(carray("un_values", UN_VALUES))
    c.append(carray("f_in", F_IN))
    c.append(carray("e_values", E_VALUES))
    c.append("const uint16_t w16_values[16] = {%s};\n" % ",".join("0x%04X" % v for v in W16_VALUES))
    c.append("const uint16_t sp_values[8] = {%s};\n" % ",".join("0x%04X" % v for v in SP_VALUES))
    c.append("const char *const bin_names[NB] = {%s};\n" % ",".join('"%s"' % n for n, _ in BINARY))
    c.append("const char *const un_names[NU] = {%s};\n" % ",".join('"%s"' % u[0] for u in UNARY))
    c.append("const char *const t_names[NT] = {%s};\n" % ",".join('"%s"' % t[0] for t in TIMING))
    c.append(carray("t_cycles", [t[4] for t in TIMING]))
    exp = []  # binary: [op][f][a][b] -> a, f
    for _, fn in BINARY:
        for f in F_IN:
            for a in BIN_VALUES:
                for b in BIN_VALUES:
                    exp += list(fn(a, b, f))
    c.append(carray("bin_expect", exp))
    exp = []
    for u in UNARY:
        for f in F_IN:
            for a in UN_VALUES:
                exp += list(u[2](a, f))
    c.append(carray("un_expect", exp))
    exp = []
    for f in range(8):
        for a in range(256):
            exp += list(ref_daa(a, f << 4))
    c.append(carray("daa_expect", exp))
    exp = []
    for f in F_IN:
        for hl in W16_VALUES:
            for de in W16_VALUES:
                r, fl = ref_add_hl(hl, de, f)
                exp += [r >> 8, r & 0xFF, fl]
    c.append(carray("addhl_expect", exp))
    exp = []
    for sp in SP_VALUES:
        for e in E_VALUES:
            r, fl = ref_sp_e(sp, e, 0)
            exp += [r >> 8, r & 0xFF, fl]
    c.append(carray("spe_expect", exp))
    c.append("".join("void t_bin_%d(void);\n" % i for i in range(nb)))
    c.append("".join("void t_un_%d(void);\n" % i for i in range(nu)))
    c.append("".join("void t_time_%d(void);\n" % i for i in range(nt)))
    c.append("".join("void t_addsp_%d(void);\nvoid t_ldhl_%d(void);\n" % (j, j) for j in range(ne)))
    for name, pre, n in (("bin_fn", "t_bin_", nb), ("un_fn", "t_un_", nu), ("t_fn", "t_time_", nt),
                         ("addsp_fn", "t_addsp_", ne), ("ldhl_fn", "t_ldhl_", ne)):
        c.append("void (*const %s[%d])(void) = {%s};\n" % (name, n, ",".join("%s%d" % (pre, i) for i in range(n))))
    open(os.path.join(out, "cpu_gen.c"), "w").write("".join(c))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    gen_asm(out)
    gen_c(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
