#!/usr/bin/env python3
"""gen_sa1.py OUT.inc [SEED]: the cases of sa1_test.s. Random operands (seed 39 unless
given) for the SA-1's multiply, divide and cumulative sum, a random bit stream and the bit
lengths the bit reader is stepped with, the normal DMA's copies, and the bytes the SA-1 must store for them, computed
by tests/snes/sa1_model.py. Writes the ca65 include: the tables in RODATA and sa1_expect,
the bytes in the order sa1_test.s stores them. Plain Python 3."""
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "snes"))
import sa1_model as M  # noqa: E402

FIXED = [1, 3, 8, 16, 5, 12, 7, 2, 15, 4]   # fixed mode: read, then shift by each
AUTO = [(9, 4), (0, 3), (6, 5)]             # auto mode: (length, reads) per run


def main():
    out = sys.argv[1]
    rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 39)
    edge = [(0x7FFF, 0x7FFF), (0x8000, 0x8000), (0x8000, 0x7FFF), (0xFFFF, 0x0001)]
    mul = edge + [(rnd.randrange(65536), rnd.randrange(65536)) for _ in range(12)]
    div = [(0x8000, 0xFFFF), (0x7FFF, 1), (0xFFF9, 2)] + [(rnd.randrange(65536), rnd.randrange(1, 65536))
                                                           for _ in range(6)] + \
          [(rnd.randrange(65536), rnd.randrange(1, 256)) for _ in range(6)]
    cum = [(rnd.randrange(65536), rnd.randrange(65536)) for _ in range(10)]
    bits = bytes(rnd.randrange(256) for _ in range(64))
    exp = []
    for a, b in mul:
        exp += list(M.multiply(a, b).to_bytes(4, "little"))
    for a, b in div:
        exp += list(M.divide(a, b).to_bytes(4, "little"))
    mr, of = M.cumulative(cum)
    exp += list(mr.to_bytes(5, "little")) + [of]
    br = M.BitReader(bits)
    for n in FIXED:
        exp += list(br.peek().to_bytes(2, "little"))
        br.shift(n)
    br = M.BitReader(bits)
    for n, reads in AUTO:
        for _ in range(reads):
            exp += list(br.peek().to_bytes(2, "little"))
            br.shift(n)
    # the normal DMA: 16 bytes of the bit stream copied twice; CFR with its DMA flag ($20) and
    # message 5, then without (CIC)
    exp += list(bits[:16]) * 2 + [0x25, 0x05]
    def words(pairs):
        return ", ".join("$%04X, $%04X" % p for p in pairs)
    with open(out, "w") as f:
        f.write("; sa1_cases.inc: written by gen_sa1.py (tests/snes/sa1_model.py's results)\n")
        f.write("        .segment \"RODATA\"\n")
        f.write("MUL_N = %d\nDIV_N = %d\nCUM_N = %d\nFIX_N = %d\nEXP_N = %d\n" %
                (len(mul), len(div), len(cum), len(FIXED), len(exp)))
        f.write("mul_in: .word %s\n" % words(mul))
        f.write("div_in: .word %s\n" % words(div))
        f.write("cum_in: .word %s\n" % words(cum))
        f.write("fix_len: .byte %s\n" % ", ".join(str(n) for n in FIXED))
        f.write("auto_run: .byte %s, 0\n" % ", ".join("$%02X, %d" % (0x80 | n, r) for n, r in AUTO))
        f.write("bitdata: .byte %s\n" % ", ".join("$%02X" % b for b in bits))
        f.write("        .byte 0, 0, 0, 0\n")
        for i in range(0, len(exp), 16):
            f.write("%s .byte %s\n" % ("sa1_expect:" if i == 0 else "           ",
                                       ", ".join("$%02X" % b for b in exp[i:i + 16])))


if __name__ == "__main__":
    main()
