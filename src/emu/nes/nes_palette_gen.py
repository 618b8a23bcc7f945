#!/usr/bin/env python3
"""nes_palette_gen.py: generates the colour table in nes_palette.c (run once; the table is
committed).

Each of the 64 colours x 8 emphasis settings is decoded the way an NTSC TV decodes the PPU's
composite signal: the PPU outputs a square wave between a low and a high voltage for 12
phases of the colour subcarrier (hue h is "high" during phases where (h + p) mod 12 < 6;
hue 0 is always high, hues $D-$F always low, $E-$F forced to black), emphasis bits
attenuate the signal (x 0.746) during the phases of their colour, and the decoder averages
Y, I and Q over a subcarrier period and converts YIQ to RGB (FCC matrix), with the 2.2/1.8
gamma adjustment. Voltages are the measured levels published on the NESdev wiki.
"""
import math

LEVELS = [0.350, 0.518, 0.962, 1.550, 1.094, 1.506, 1.962, 1.962]  # low x4, high x4
BLACK, WHITE = 0.518, 1.962


def decode(pixel):
    color = pixel & 0x0F
    level = (pixel >> 4) & 3 if color < 0x0E else 1
    lo = LEVELS[level + 4 * (color == 0)]
    hi = LEVELS[level + 4 * (color < 0x0D)]
    y = i = q = 0.0
    for p in range(12):
        def in_phase(c):
            return (c + p) % 12 < 6
        s = hi if in_phase(color) else lo
        if ((pixel & 0x40) and in_phase(0)) or ((pixel & 0x80) and in_phase(4)) or ((pixel & 0x100) and in_phase(8)):
            s *= 0.746
        s = (s - BLACK) / (WHITE - BLACK)
        y += s / 12
        i += s * math.cos(math.pi * (p + 4.5) / 6) / 12
        q += s * math.sin(math.pi * (p + 4.5) / 6) / 12
    r = y + 0.946882 * i + 0.623557 * q
    g = y - 0.274788 * i - 0.635691 * q
    b = y - 1.108545 * i + 1.709007 * q

    def fix(f):
        f = 0.0 if f <= 0 else f ** (2.2 / 1.8)
        return max(0, min(255, int(round(f * 255))))
    return fix(r), fix(g), fix(b)


def main():
    rows = []
    for e in range(8):
        for c in range(64):
            rgb = decode(c | (e << 6))
            rows.append("%3d,%3d,%3d" % rgb)
    print("const uint8_t nes_palette_rgb[512 * 3] = {")
    for k in range(0, 512, 4):
        print("    " + ", ".join(rows[k:k + 4]) + ",")
    print("};")


if __name__ == "__main__":
    main()
