#!/usr/bin/env python3
"""compat.py: the picture compat_test.gb shows, computed independently, and the check.

usage: compat.py check dmg|cgb PNG

compat_test.gb is a DMG cartridge. Its picture: BG stripes 40 pixels wide of colours 0,
1, 2, 3 (then 0) through BGP $D2; on lines 80-87 an object of colour 1 (OBP0 $E4) at
x 60-67 and one of colour 2 (OBP1 $E4) at x 56-63, OAM index 0 then 1. DMG priority
(the smaller X wins the overlap, x 60-63) holds on the DMG and on the CGB in DMG
compatibility mode. The DMG shows greys (shade s: 255 - 85 s); the CGB shows the
compatibility palettes that its boot ROM loads for a cartridge without its own entry
(Pan Docs, "Compatibility palettes": BG palette 0 and OBJ palettes 0-1, indexed by the
shade that BGP / OBP0 / OBP1 give), the set called "dark green" in the documentation of
the CGB's palettes: BG $7FFF $1BEF $6180 $0000, OBJ $7FFF $421F $1CF2 $0000 (15-bit BGR,
each 5-bit channel c shown as (c << 3) | (c >> 2))."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scene import read_png  # noqa: E402

W, H = 160, 144
BGP, OBP0, OBP1 = 0xD2, 0xE4, 0xE4
COMPAT_BG = [0x7FFF, 0x1BEF, 0x6180, 0x0000]
COMPAT_OBJ = [0x7FFF, 0x421F, 0x1CF2, 0x0000]


def rgb15(c):
    return tuple(((v << 3) | (v >> 2)) for v in (c & 31, (c >> 5) & 31, (c >> 10) & 31))


def pixel(model, x, y):
    obj = None  # (palette register, its object palette, colour index)
    if 80 <= y < 88:
        if 56 <= x < 64:
            obj = (OBP1, 1, 2)
        elif 64 <= x < 68:
            obj = (OBP0, 0, 1)
    if obj:
        reg, _, ci = obj
        shade = (reg >> (2 * ci)) & 3
        table = COMPAT_OBJ
    else:
        col = x // 8
        ci = col // 5 if col // 5 < 4 else 0
        shade = (BGP >> (2 * ci)) & 3
        table = COMPAT_BG
    if model == "dmg":
        g = 255 - 85 * shade
        return (g, g, g)
    return rgb15(table[shade])


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "check" or sys.argv[2] not in ("dmg", "cgb"):
        print(__doc__)
        return 2
    model = sys.argv[2]
    w, h, got = read_png(sys.argv[3])
    if (w, h) != (W, H):
        print("size %dx%d, expected 160x144" % (w, h))
        return 1
    bad = []
    for y in range(H):
        for x in range(W):
            i = (y * W + x) * 3
            want = pixel(model, x, y)
            if tuple(got[i:i + 3]) != want:
                bad.append((x, y, tuple(got[i:i + 3]), want))
    if bad:
        x, y, g, wnt = bad[0]
        print("%d pixels differ from the expected picture (%s); first at (%d,%d): %s, expected %s"
              % (len(bad), model, x, y, g, wnt))
        return 1
    print("160x144 pixels match the expected %s picture (BG stripes through BGP, objects with DMG priority%s)"
          % (model, ", compatibility palettes" if model == "cgb" else ", greys"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
