#!/usr/bin/env python3
"""gen_gsu.py OUT.inc [SEED] | gen_gsu.py scene OUT.inc: the Super FX cases of gsu_test.s. Builds GSU programs with
gsu_asm.py (directed ones for branches and the byte after a jump, LOOP/LINK/JMP/LJMP, the
RAM and ROM buffer opcodes, PLOT/RPIX in each colour depth, screen height and plot option,
the code cache; random ALU sequences with TO/WITH/FROM and ALT prefixes), runs them one
after the other on tests/snes/gsu_model.py as the test ROM runs them on the GSU (registers,
flags and RAM carried from case to case), and writes the ca65 include: the GSU code and
data for ROM bank 1 (segment BANK1, the GSU's bank $01) and, in RODATA, the case table the
65816 side walks: per case the start address, SCMR/SCBR/CFGR/CLSR, the kind (1: code
injected into the cache first), the expected R0-R15 and SFR, and a RAM window of bank $70
with its two Fletcher sums. Plain Python 3 (default seed 39)."""
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "snes"))
from gsu_asm import GsuAsm  # noqa: E402
from gsu_model import Gsu  # noqa: E402

BANK1 = 0x8000          # the GSU code and data at $01:8000 (ROM file offset $8000)
RAM_SIZE = 0x20000      # 128 KiB (banks $70 and $71)
DATA = 0xF000           # ROM data for GETB/GETC at $01:F000


class Case:
    def __init__(self, name, start, scmr=0, scbr=1, cfgr=0x80, clsr=1, kind=0, inject=b""):
        self.name, self.start = name, start
        self.scmr, self.scbr, self.cfgr, self.clsr, self.kind, self.inject = scmr, scbr, cfgr, clsr, kind, inject


def build(seed):
    rnd = random.Random(seed)
    a = GsuAsm(BANK1)
    cases = []

    def case(name, body, **kw):
        a.label(name)
        start = a.here()
        body()
        a.stop()
        a.nop()
        cases.append(Case(name, start, **kw))

    # ---- branches: every condition taken and not, the byte after the branch always runs
    def branch_case(cond, x, y, k):
        def body():
            a.iwt(0, x)
            a.iwt(1, y)
            a.cmp(1)                    # flags of R0 - R1
            a.branch(cond, "bt%d" % k)
            a.inc(2)                    # after the branch: runs either way
            a.inc(3)                    # only when not taken
            a.label("bt%d" % k)
            a.inc(4)
        return body
    pairs = [(5, 5), (3, 9), (9, 3), (0x7FFF, 0xFFFF), (0x8000, 1), (0, 1), (0xFFFF, 0xFFFF)]
    k = 0
    for cond in GsuAsm.BRANCH:
        for x, y in pairs[:4] if cond in ("bra",) else pairs:
            case("br%d" % k, branch_case(cond, x, y, k))
            k += 1

    # ---- prefixes across a branch; a multi-byte opcode split over a jump; R15 as operand
    def split_cases():
        a.iwt(3, 0x1111)
        a.iwt(4, 0x0202)
        a.with_(3)                      # the prefix stays over the branch ...
        a.bra("sp1")
        a.add(4)                        # ... and applies here: R3 = R3 + R4
        a.inc(5)
        a.label("sp1")
        a.bra("sp2")
        a.emit(0xF6)                    # IWT R6: its operand comes from the target
        a.inc(5)
        a.label("sp2")
        a.emit(0x34, 0x12)              # R6 = $1234
        a.from_(15)
        a.to(7)                         # R7 = the address of the next opcode
        a.link(3)
        a.nop()
    case("split", split_cases)

    # LOOP, LINK + IWT R15 (a call), JMP R11 (the return), LJMP, jumps through ALU to R15
    a.label("flow")
    flow_start = a.here()
    a.iwt(12, 5)
    a.move(13, 15)
    a.inc(2)
    a.loop()
    a.inc(3)
    a.link(4)
    sub_fix = len(a.code) + 1
    a.iwt(15, 0)
    a.nop()
    a.inc(5)                            # the return lands here
    a.iwt(8, 0x01)                      # LJMP R8 (bank 1), R15 = R9
    ljmp_fix = len(a.code) + 1
    a.iwt(9, 0)
    a.from_(9)
    a.ljmp(8)
    a.inc(6)                            # after LJMP: runs
    a.inc(7)                            # skipped
    a.label("lj")
    a.iwt(0, 4)
    a.with_(15)
    a.add(0)                            # R15 = R15 + 4: a jump
    a.inc(10)                           # after the jump: runs
    a.inc(7)                            # skipped (4 bytes: inc, inc, inc, inc)
    a.inc(7)
    a.inc(7)
    a.inc(7)
    a.inc(9)                            # the target
    a.stop()
    a.nop()
    a.label("sub")
    a.inc(1)
    a.jmp(11)
    a.inc(1)
    cases.append(Case("flow", flow_start))
    a.code[sub_fix:sub_fix + 2] = bytes([a.labels["sub"] & 0xFF, a.labels["sub"] >> 8])
    a.code[ljmp_fix:ljmp_fix + 2] = bytes([a.labels["lj"] & 0xFF, a.labels["lj"] >> 8])

    # ---- RAM: words at even and odd addresses, bytes, LM/SM/LMS/SMS, SBK, RAMB
    def ram_case():
        a.iwt(1, 0x0200)
        a.iwt(2, 0x0211)                # odd
        a.iwt(0, 0xA1B2)
        a.stw(1)
        a.iwt(0, 0xC3D4)
        a.stw(2)
        a.to(5)
        a.ldw(1)
        a.to(6)
        a.ldw(2)
        a.iwt(0, 0x77E5)
        a.stb(2)
        a.to(7)
        a.ldb(2)
        a.iwt(3, 0x5A5A)
        a.sm(0x0300, 3)
        a.lm(8, 0x0211)
        a.sms(0x01F0, 8)
        a.lms(9, 0x01F0)
        a.lm(10, 0x0300)
        a.iwt(0, 0x1357)
        a.sbk()                         # to $0300 (LM's address)
        a.lm(11, 0x0300)
        a.iwt(0, 1)
        a.ramb()                        # bank $71
        a.iwt(0, 0xBEEF)
        a.sm(0x0200, 0)
        a.lm(12, 0x0200)
        a.iwt(0, 0)
        a.ramb()
        a.lm(13, 0x0200)                # bank $70's word again
    case("ram", ram_case)

    # ---- the ROM buffer: GETB/GETBH/GETBL/GETBS/GETC, ROMB, the linear view ($40)
    def rom_case():
        a.iwt(0, 0x01)
        a.romb()
        a.iwt(14, DATA)
        a.getb()
        a.to(1)
        a.getb()
        a.inc(14)
        a.iwt(2, 0x1234)
        a.from_(2)
        a.to(2)
        a.getbh()
        a.inc(14)
        a.from_(2)
        a.to(3)
        a.getbl()
        a.inc(14)
        a.to(4)
        a.getbs()
        a.inc(14)
        a.getc()
        a.iwt(0, 0x40)
        a.romb()                        # bank $40: ROM offset $0F005 is $01:F005
        a.iwt(14, DATA + 5)
        a.to(5)
        a.getb()
        a.iwt(0, 0x0F)
        a.cmode()                       # transparent off, dither, high nibble, freeze
        a.iwt(14, DATA + 6)
        a.getc()
        a.iwt(0, 0x00)
        a.cmode()
        a.iwt(1, 0)
        a.iwt(2, 0)
        a.plot()                        # the colour shows in the bitmap
        a.rpix()
        a.iwt(0, 0x01)
        a.romb()
    case("rom", rom_case, scmr=0x01)

    # ---- PLOT/RPIX: depths 4/16/256 colours, heights 128/160/192/OBJ, plot options
    pk = 0
    for depth in (0, 1, 3):
        for height in (0, 1, 2, 3):
            for por in (0x00, 0x01, 0x02, 0x04, 0x08, 0x0B, 0x10):
                if height == 3 and por == 0x10:
                    continue
                colours = [rnd.randrange(256) for _ in range(6)] + [0x00, 0x10, 0x01]

                def plot_case(colours=colours, por=por, pk=pk):
                    a.iwt(0, por)
                    a.cmode()
                    for i, c in enumerate(colours):
                        a.iwt(0, c)
                        a.color()
                        x = rnd.choice((0, 5, 7, 8, 13, 63, 64, 100, 127) if i else (130, 200, 255))
                        y = rnd.choice((0, 1, 7, 8, 63, 100, 127) if i else (128, 159, 191, 255))
                        a.iwt(1, x)
                        a.iwt(2, y)
                        for _ in range(rnd.choice((1, 3, 9))):
                            a.plot()
                    a.iwt(1, 5)
                    a.iwt(2, 7)
                    a.to(9)
                    a.rpix()
                    if pk % 3:
                        a.rpix()                # flushed; else the last row stays in the cache
                case("plot%d" % pk, plot_case, scmr=depth | (height & 1) << 2 | (height & 2) << 4)
                pk += 1

    # ---- the code cache: CACHE before a loop; code written into the cache by the SNES
    def cache_case():
        a.iwt(12, 40)
        a.cache()
        a.move(13, 15)
        a.add_i(3)
        a.loop()
        a.inc(6)
    case("cache", cache_case)
    inj = GsuAsm(0x0000)
    inj.iwt(0, 0x4242)
    inj.iwt(12, 3)
    inj.move(13, 15)
    inj.inc(3)
    inj.loop()
    inj.nop()
    inj.stop()
    inj.nop()
    code = inj.assemble()
    code = code + bytes(32 - len(code))           # whole lines
    cases.append(Case("inject", 0x0000, kind=1, inject=code))

    def count_loop(n, reg):
        return lambda: (a.iwt(12, n), a.move(13, 15), a.inc(reg), a.loop(), a.nop())
    # ---- a long run: the SNES reads its ROM vectors meanwhile (kind 2)
    case("busy", count_loop(3000, 3), kind=2)
    # ---- the IRQ at STOP: CFGR bit 7 clear (kind 3: the 65816 takes it, its handler reads
    # $3031, so SFR's IRQ bit reads 0 after), set (kind 4: masked, the bit stays)
    case("irq", count_loop(20, 5), cfgr=0x00, kind=3)
    case("irqmask", count_loop(20, 5), cfgr=0x80, kind=4)

    # ---- random ALU sequences
    ops1 = ["add", "adc", "sub", "sbc", "cmp", "and_", "bic", "or_", "xor", "mult", "umult"]
    opsi = ["add_i", "adc_i", "sub_i", "and_i", "bic_i", "or_i", "xor_i", "mult_i", "umult_i"]
    ops0 = ["lsr", "rol", "ror", "asr", "div2", "swap", "sex", "lob", "hib", "not_", "merge", "fmult", "lmult"]
    for rk in range(40):
        def rand_case():
            for r in range(14):
                a.iwt(r, rnd.choice((0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x00FF, 0xFF00)) if rnd.random() < 0.3
                      else rnd.randrange(0x10000))
            for _ in range(30):
                kind = rnd.random()
                if kind < 0.15:
                    a.inc(rnd.randrange(14)) if rnd.random() < 0.5 else a.dec(rnd.randrange(14))
                    continue
                if kind < 0.22:
                    d, s = rnd.randrange(14), rnd.randrange(16)
                    a.move(d, s) if rnd.random() < 0.5 else a.moves(d, s)
                    continue
                if rnd.random() < 0.3:
                    a.from_(rnd.randrange(16))
                if rnd.random() < 0.3:
                    a.to(rnd.randrange(14))
                if rnd.random() < 0.1:
                    a.with_(rnd.randrange(14))
                if kind < 0.55:
                    getattr(a, rnd.choice(ops1))(rnd.randrange(1, 16))
                elif kind < 0.75:
                    getattr(a, rnd.choice(opsi))(rnd.randrange(1, 16))
                else:
                    getattr(a, rnd.choice(ops0))()
        case("alu%d" % rk, rand_case)
    return a, cases


def fletcher(ram, lo, n):
    s1 = s2 = 0
    for i in range(lo, lo + n):
        s1 = (s1 + ram[i]) & 0xFFFF
        s2 = (s2 + s1) & 0xFFFF
    return s1, s2


def scene(out):
    """gsu_scene.s's GSU program: a 256x128 16-colour picture ((X + Y) / 8 and, in dither,
    a diagonal band) plotted row by row, the pixel cache flushed by RPIX."""
    a = GsuAsm(BANK1)
    a.iwt(0, 0)
    a.cmode()
    a.iwt(2, 0)
    a.label("row")
    a.iwt(1, 0)
    a.iwt(12, 256)
    a.move(13, 15)
    a.from_(1)
    a.add(2)                    # R0 = X + Y
    a.lsr()
    a.lsr()
    a.lsr()
    a.color()
    a.plot()
    a.loop()
    a.nop()
    a.iwt(0, 0x02)              # dither: $F1 gives colours 1 and 15 on alternate pixels
    a.cmode()
    a.iwt(0, 0xF1)
    a.color()
    a.from_(2)
    a.to(1)
    a.add(2)                    # R1 = 2Y: a band of 16 dithered pixels
    a.iwt(12, 16)
    a.move(13, 15)
    a.plot()
    a.loop()
    a.nop()
    a.iwt(0, 0)
    a.cmode()
    a.inc(2)
    a.iwt(3, 128)
    a.from_(2)
    a.cmp(3)
    a.bne("row")
    a.nop()
    a.rpix()
    a.stop()
    a.nop()
    code = a.assemble()
    with open(out, "w") as f:
        f.write("; gsu_scene.inc: written by gen_gsu.py scene\n")
        f.write('        .segment "BANK1"\ngsu_scene:\n')
        for j in range(0, len(code), 16):
            f.write("        .byte " + ", ".join("$%02X" % b for b in code[j:j + 16]) + "\n")


def main():
    if sys.argv[1] == "scene":
        scene(sys.argv[2])
        return
    out = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 39
    a, cases = build(seed)
    code = a.assemble()
    if BANK1 + len(code) > DATA:
        raise SystemExit("gen_gsu.py: the GSU code (%d bytes) runs into the data at $%04X" % (len(code), DATA))
    rnd = random.Random(seed + 1)
    data = bytes([0x9C, 0x5E, 0x80, 0xF7, 0x3B, 0x6D, 0xA5] + [rnd.randrange(256) for _ in range(25)])
    rom = bytearray([0xEE]) * 0x10000              # bank 0: the 65816 side (unknown here)
    rom[0x8000:0x8000 + len(code)] = code
    rom[0x8000 + DATA - BANK1:0x8000 + DATA - BANK1 + len(data)] = data
    g = Gsu(bytes(rom), RAM_SIZE)
    g.pbr = 1
    rows = []
    for i, c in enumerate(cases):
        g.scmr, g.scbr = c.scmr, c.scbr
        before = bytes(g.ram[:0x10000])
        if c.kind == 1:
            g.snes_clear_go()
            for j, b in enumerate(c.inject):
                g.snes_cache_write(j, b)
        g.start(c.start)
        sfr = g.sfr_word()
        if c.kind == 3:
            sfr &= ~0x8000                           # the IRQ handler read $3031 first
        g.sfr &= ~0x8000                             # read out by the SNES ($3031)
        after = g.ram[:0x10000]
        changed = [j for j in range(0x10000) if before[j] != after[j]]
        if any(j < 0x100 for j in changed):
            raise SystemExit("gen_gsu.py: case %s writes the status block" % c.name)
        lo, hi = (changed[0], changed[-1] + 1) if changed else (0x100, 0x110)
        s1, s2 = fletcher(after, lo, hi - lo)
        rows.append((c, list(g.r), sfr, lo, hi - lo, s1, s2))
    with open(out, "w") as f:
        f.write("; gsu_cases.inc: written by gen_gsu.py (seed %d): %d cases\n" % (seed, len(cases)))
        f.write("GSU_CASES = %d\n" % len(cases))
        f.write('        .segment "BANK1"\ngsu_code:\n')
        for j in range(0, len(code), 16):
            f.write("        .byte " + ", ".join("$%02X" % b for b in code[j:j + 16]) + "\n")
        f.write("        .res $%04X, $00\n" % (DATA - BANK1 - len(code)))
        f.write("gsu_data:\n        .byte " + ", ".join("$%02X" % b for b in data) + "\n")
        f.write('        .segment "RODATA"\n')
        for c in cases:
            if c.inject:
                f.write("inject_%s:\n" % c.name)
                for j in range(0, len(c.inject), 16):
                    f.write("        .byte " + ", ".join("$%02X" % b for b in c.inject[j:j + 16]) + "\n")
        f.write("; per case (53 bytes): start, SCMR, SCBR, CFGR, CLSR, kind, inject address, inject\n"
                "; length, R0-R15, SFR, RAM window start and length in bank $70, its Fletcher sums\n")
        f.write("gsu_cases:\n")
        for c, r, sfr, lo, n, s1, s2 in rows:
            inj = "inject_%s" % c.name if c.inject else "0"
            f.write("        .word $%04X\n        .byte $%02X, $%02X, $%02X, $%02X, %d\n        .word %s, %d\n"
                    % (c.start, c.scmr, c.scbr, c.cfgr, c.clsr, c.kind, inj, len(c.inject)))
            f.write("        .word " + ", ".join("$%04X" % v for v in r) + "\n")
            f.write("        .word $%04X, $%04X, $%04X, $%04X, $%04X ; %s\n" % (sfr, lo, n, s1, s2, c.name))
        f.write("gsu_names:\n")
        for c in cases:
            f.write('        .byte "%-8s"\n' % c.name[:8])


if __name__ == "__main__":
    main()
