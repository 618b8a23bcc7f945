#!/usr/bin/env python3
"""gen_sa1.py OUT.inc [SEED]: the cases of sa1_test.s. Random operands (seed 39 unless
given) for the SA-1's multiply, divide (by zero too) and cumulative sum, a random bit stream
and the bit lengths the bit reader is stepped with, the normal DMA's copies, and the bytes
the SA-1 must store for them, computed by tests/snes/sa1_model.py; the bitmap view's cases
(new_expect), the pixels of character conversion type 2 and the packed bitmap of type 1 with
the characters each must give (cc2_expect, cc1_expect, cc1_iram_expect). Writes the ca65
include: the tables in RODATA and the expected bytes in the order sa1_test.s stores them.
Plain Python 3."""
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
          [(rnd.randrange(65536), rnd.randrange(1, 256)) for _ in range(6)] + \
          [(0x1234, 0), (0x8000, 0), (0xFFFF, 0)]
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
    # the bitmap view (sa1_test.s: BW-RAM $1000-$1002 through banks $60 and BMAP's window):
    # 4 bits a pixel, pixels 0/1 of $1000; 2 bits, pixels 0-3 of $1001; BMAP $82 ($6000 =
    # bitmap $4000), pixel 8 of the 2-bit view into $1002 (which held $FF)
    bw = bytearray(0x2000)
    M.bitmap_write(bw, 0x2000, 0x1A, False)
    M.bitmap_write(bw, 0x2001, 0x0B, False)
    bm = [bw[0x1000], M.bitmap_read(bw, 0x2001, False)]
    for i, v in enumerate((1, 2, 3, 0xFC)):
        M.bitmap_write(bw, 0x4004 + i, v, True)
    bm += [bw[0x1001], M.bitmap_read(bw, 0x4006, True), M.bitmap_read(bw, 0x4006, True)]
    bw[0x1002] = 0xFF
    M.bitmap_write(bw, 0x4008, 2, True)
    bm.append(bw[0x1002])
    # the SA-1's own checks (sa1_test.s, SA1_NEW): the timer (0 1: linear, latched at once;
    # 2-4: the H-IRQ at 300; 5-7: the V-IRQ at line 2; 8: H 341 never comes), $230E open bus,
    # the bitmap view, BW-RAM and I-RAM write protection, the IRQ through SIV taken
    new = [0x00, 0x00, 0x01, 0x01, 0x00, 0x01, 0x02, 0x01, 0x00, 0x00] + bm + \
          [0x11, 0x88, 0x11, 0x11, 0x44, 0x01]
    # character conversion type 2: 16 rows of 4-bit pixels (two characters), written row
    # after row into BRF's halves; the characters in I-RAM at DDA
    cc2_px = [rnd.randrange(16) for _ in range(128)]
    cc2 = M.planar([cc2_px[r * 8:r * 8 + 8] for r in range(8)], 4) + \
          M.planar([cc2_px[r * 8:r * 8 + 8] for r in range(8, 16)], 4)
    # type 1: a packed 4-bit bitmap two characters wide, two character rows (128 bytes)
    cc1_bm = bytes(rnd.randrange(256) for _ in range(128))
    chars = [M.packed_char(cc1_bm, c, 4, 2) for c in range(4)]
    cc1 = b"".join(chars)
    # the SNES's own checks (SNES_NEW): $230E open bus, SFR after SCNT $1A, the NMI through
    # SNV, BW-RAM and I-RAM write protection, SFR's CC-DMA flag set and cleared, BW-RAM
    # itself again once type 1 ends
    snes2 = [0x00, 0x1A, 0x01, 0x11, 0x33, 0x11, 0x11, 0x33, 0x20, 0x00, cc1_bm[0]]

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
        for name, data in (("sa1_expect", exp), ("new_expect", new), ("snes2_expect", snes2),
                           ("cc2_px", cc2_px), ("cc2_expect", cc2), ("cc1_bitmap", cc1_bm),
                           ("cc1_expect", cc1), ("cc1_iram_expect", chars[2] + chars[3])):
            f.write("%s_N = %d\n" % (name.upper(), len(data)))
            for i in range(0, len(data), 16):
                f.write("%s .byte %s\n" % (name + ":" if i == 0 else " " * len(name + ":"),
                                           ", ".join("$%02X" % b for b in data[i:i + 16])))


if __name__ == "__main__":
    main()
