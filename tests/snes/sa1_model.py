#!/usr/bin/env python3
"""sa1_model.py: a small model of the SA-1's arithmetic unit, variable-length bit reader,
BW-RAM bitmap view and character conversion (fullsnes "SNES Cart SA-1"; superfamicom.org
wiki, SA-1 registers; Vitor Vilela's SNES-SA-1-doc), written apart from
src/emu/snes/snes_sa1.c to compute what tests/roms/snes/sa1_test.s must read back:
MCNT $2250 (0 multiply, 1 divide, 2 cumulative sum), MA $2251/2, MB $2253/4 (writing $2254
starts), the result MR $2306-$230A and OF $230B; the bit reader's VBD $2258 (bit 7: auto
increment on reading $230D; bits 0-3: the length, 0 = 16), its start address $2259-$225B
and the 16 bits at the current bit position, $230C/$230D; the bitmap view of BW-RAM (banks
$60-$6F: a pixel of 4 or 2 bits an address, BBF $223F bit 7, the left-most pixel in a byte's
low bits); the SNES's planar character format the character conversion DMA writes (type 2
from rows of pixels, type 1 from a packed bitmap in BW-RAM). Plain Python 3."""


def s16(v):
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def multiply(ma, mb):
    """MR after MCNT=0: the signed 16 x 16 product, 32 bits (4 bytes, little-endian)."""
    return (s16(ma) * s16(mb)) & 0xFFFFFFFF


def divide(ma, mb):
    """MR after MCNT=1: a signed dividend over an unsigned divisor; the quotient rounded
    toward minus infinity (16 bits), the remainder 0 to MB - 1 (16 bits); by zero, both 0
    (fullsnes)."""
    if not mb & 0xFFFF:
        return 0
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


def bitmap_write(bw, b, v, two):
    """Writes pixel v at bitmap address b into bytearray bw (BW-RAM): 2 bits (two) or 4."""
    bits = 2 if two else 4
    per = 8 // bits
    off, sh = b // per, (b % per) * bits
    m = ((1 << bits) - 1) << sh
    bw[off] = (bw[off] & ~m & 0xFF) | ((v << sh) & m)


def bitmap_read(bw, b, two):
    bits = 2 if two else 4
    per = 8 // bits
    return (bw[b // per] >> ((b % per) * bits)) & ((1 << bits) - 1)


def planar(rows, bpp):
    """The SNES's planar character (8 * bpp bytes) of 8 rows of 8 pixels: planes 0 and 1
    a row at a time (16 bytes), then planes 2 and 3, and so on; the left-most pixel in bit 7."""
    out = bytearray(8 * bpp)
    for y, row in enumerate(rows):
        for pl in range(bpp):
            v = 0
            for x, px in enumerate(row):
                v |= ((px >> pl) & 1) << (7 - x)
            out[(pl >> 1) * 16 + y * 2 + (pl & 1)] = v
    return bytes(out)


def packed_char(bitmap, c, bpp, width):
    """Character c of a packed bitmap (bytes) whose lines are width characters wide, bpp
    bits a pixel, the left-most pixel in a byte's low bits: the planar character."""
    pitch = width * bpp
    cx, cy = c % width, c // width
    rows = []
    for y in range(8):
        base = (cy * 8 + y) * pitch + cx * bpp
        row = []
        for x in range(8):
            bit = x * bpp
            row.append((bitmap[base + bit // 8] >> (bit % 8)) & ((1 << bpp) - 1))
        rows.append(row)
    return planar(rows, bpp)
