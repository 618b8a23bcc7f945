#!/usr/bin/env python3
"""screen_text.py PNG FONT: the text a test ROM left on the screen, one line per row of
8x8 cells, read by matching the cells against the ROM suite's own console font.

FONT is either a Game Boy suite's console.bin (glyphs from ' ', 8 bytes each, bit 7
leftmost) or an NES suite's ascii.chr (pattern-table tiles of 16 bytes indexed by the
character code; the first plane is the glyph). A pixel is ink when its colour is not the
most common colour of the frame (dark text on a light Game Boy screen, light text on a
black NES screen). The 8x8 grid is tried at every alignment; the one that recognises the
most glyphs wins. Used by bench/accuracy.sh for the ROMs that report only on screen."""
import os
import sys
from collections import Counter

# the tree's one PNG reader (8-bit RGB, every filter type)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "roms", "gb"))
from scene import read_png  # noqa: E402


def load_font(path):
    font = open(path, "rb").read()
    glyphs = {}
    if path.endswith(".chr"):  # NES tiles indexed by the character code
        for code in range(32, min(128, len(font) // 16)):
            glyphs.setdefault(tuple(font[code * 16:code * 16 + 8]), chr(code))
    else:  # the first glyph of a shape wins (' ' over a blank $7F)
        for i in range(len(font) // 8):
            glyphs.setdefault(tuple(font[i * 8:i * 8 + 8]), chr(32 + i))
    return glyphs


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: screen_text.py PNG FONT")
    w, h, rgb = read_png(sys.argv[1])
    glyphs = load_font(sys.argv[2])
    pix = [[rgb[3 * (y * w + x):3 * (y * w + x) + 3] for x in range(w)] for y in range(h)]
    paper = Counter(p for r in pix for p in r).most_common(1)[0][0]
    ink = [[1 if p != paper else 0 for p in r] for r in pix]
    best = (-1, [])
    for oy in range(8):
        for ox in range(8):
            lines, hits = [], 0
            for cy in range(oy, h - 7, 8):
                s = ""
                for cx in range(ox, w - 7, 8):
                    cell = tuple(sum(ink[cy + r][cx + k] << (7 - k) for k in range(8)) for r in range(8))
                    ch = glyphs.get(cell, "?")
                    hits += ch not in " ?"
                    s += ch
                lines.append(s.rstrip())
            if hits > best[0]:
                best = (hits, lines)
    print("\n".join(line for line in best[1] if line))


main()
