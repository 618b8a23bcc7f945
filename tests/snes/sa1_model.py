#!/usr/bin/env python3
"""sa1_model.py: a small model of the SA-1's arithmetic unit and variable-length bit reader
(fullsnes "SNES Cart SA-1"; superfamicom.org wiki, SA-1 registers), written apart from
src/emu/snes/snes_sa1.c to compute what tests/roms/snes/sa1_test.s must read back:
MCNT $2250 (0 multiply, 1 divide, 2 cumulative sum), MA $2251/2, MB $2253/4 (writing $2254
starts), the result MR $2306-$230A and OF $230B; the bit reader's VBD $2258 (bit 7: auto
increment on reading $230D; bits 0-3: the length, 0 = 16), its start address $2259-$225B
and the 16 bits at the current bit position, $230C/$230D. Plain Python 3."""


def s16(v):
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def multiply(ma, mb):
    """MR after MCNT=0: the signed 16 x 16 product, 32 bits (4 bytes, little-endian)."""
    return (s16(ma) * s16(mb)) & 0xFFFFFFFF


def divide(ma, mb):
    """MR after MCNT=1, MB not 0: a signed dividend over an unsigned divisor; the quotient
    rounded toward minus infinity (16 bits), the remainder 0 to MB - 1 (16 bits)."""
    q, r = divmod(s16(ma), mb & 0xFFFF)
    return (q & 0xFFFF) | (r & 0xFFFF) << 16


def cumulative(pairs):
    """MR (40 bits) and OF after MCNT=2 (which clears MR) and each pair's MB written."""
    total, of = 0, 0
    for ma, mb in pairs:
        total += s16(ma) * s16(mb)
        if total >= 1 << 39 or total < -(1 << 39):
            of = 0x80
        total = ((total + (1 << 39)) % (1 << 40)) - (1 << 39)
    return total & 0xFFFFFFFFFF, of


class BitReader:
    """The bit reader over bytes data (the ROM from the start address on)."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def peek(self):
        v = 0
        for i in range(3):
            v |= self.data[(self.pos >> 3) + i] << (8 * i)
        return (v >> (self.pos & 7)) & 0xFFFF

    def shift(self, n):
        self.pos += n if n else 16
