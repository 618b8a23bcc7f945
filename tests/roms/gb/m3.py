#!/usr/bin/env python3
"""m3.py: the mode-3 register-write test (m3_test.c): its description, the tables the ROM
loads, and the DMG picture expected from it, computed here from the pixel pipeline's rules
(Pan Docs, "Pixel FIFO": the BG fetcher takes 2 dots per step, tile number, low plane,
high plane; mealybug-tearoom-tests' pictures give the dots) independently of gpuvet.

The ROM waits in HALT (IME off) for each line's mode-2 interrupt, which comes at the
line's dot 4 (mooneye's ppu tests; stat_test checks it), then writes one register at
dot W0 + 4 * (LY % 32); the next line's mode 2 restores it. Lines 8-39 write BGP, 40-71 SCX,
72-103 LCDC (bit 4: the BG tile data), 104-135 SCY; 136-143 write BGP with the window on
at WX=0 (WY=0; its map at $9C00 holds one tile of colour 3) and SCX = LY % 8, both set in
the line's mode 2; lines 1-7 show the window at WX=0 with SCX = 0 and write WX (values
WXZ); the others write nothing.

The rules (SCX % 8 = 0, no objects, no window; dots from LY's change): the fetch of the
line's screen tile k reads the tile number at dot 91 + 8k (the map's row and column from
SCY, SCX and LCDC.3 as they are then), the low bit plane at 93 + 8k and the high one at
95 + 8k (LCDC.4 and SCY as they are then); pixel x takes its BGP colour at dot 99 + x. A
write is seen from the first dot of the CPU's M-cycle that makes it; a BGP write in the
very dot a pixel takes its colour gives that pixel the OR of the old and new values.

The window at WX=0 (lines 136-143): it begins as the fetcher's first tile starts, at dot
89; the fetch of its first tile takes 6 dots and its pixels then pop one a dot, the first
SCX % 8 + 7 of them discarded (the window's pixel 0 is 7 left of the screen): pixel x
takes its colour at dot 105 + SCX % 8 + x. With SCX % 8 > 0 the window begins a dot later
(mealybug-tearoom-tests, m3_window_timing_wx_0: "window activating one T-cycle later when
WX = 0 and SCX > 0").

WX written while the window shows (lines 1-7): when WX - 7 matches again the next pixel's X
and that pixel is a window tile's first, a pixel of colour 0 is shown first and the line
goes on one pixel to the right (mealybug-tearoom-tests, m3_wx_4_change: "window
reactivation zero pixels"); with WX=0 from the line's start, that is WX % 8 = 0, and the
write comes in time when its dot is at most 96 + WX (pixel x pops at dot 102 + x; WX reaches
the window's comparison a dot before the other registers reach the fetcher, below).

m3w_test (m3_test.c built with M3W): LCDC written as the fetcher reads it for the
window's first tiles and for objects; only LCDC is set in mode 2, and the line's write
comes at dot W0W + 4 * (its slide's NOPs). Lines 0-71 show the window from the line's
start (WX=7, WY=0) in 9 bands of 8 lines, each with an object of a transparent tile at X =
band (0-7; band 8: none); the window map at $9800 holds tile 0, the one at $9C00 tile 1;
with LCDC.4 clear tile 0 is white and tile 1 black, with it set tile 0 is black. The
band's lines 0-2 set LCDC.6 (the map at $9C00), 3-5 LCDC.4 (data at $8000), at dots 104,
108, 112 (line 0: no write; the bit is cleared in the next line's mode 2); its lines 6-7
show no window but the BG (tile 0 at $8000: black) and clear LCDC.0 (BG off: white) at
dots 108 and 112. Lines
72-119 show an 8x16 object (tile 3: tile 2, colour 1, over tile 3, colour 2) at X = 8, 13,
14 in bands of 16 lines; the object's first 8 lines set 8x8 (LCDC.2 clear: tile 3,
colour 2) at dot 100 + 4 * (LY % 8). Lines 120-135 show the window from WX=7 (tile 1 at
$8010: colour 1) over the BG (tile 0 at $8000: black) with an object (transparent) at X=4
(120-127) or X=0 (128-135) and clear LCDC.5 at dot 100 + 4 * (LY % 8). Lines 136-143 show the window ($9C00: black) over the
BG (white) and write WX (WX_LINES: the WX the line begins with, the write's dot, the value
written; each line begins with the last one's value, line 136 with 7 from the start).

The rules for m3w_test: the line's first pixel would pop at dot 96; an object at X < 8
stalls the line before it by 6 + max(0, 5 - X) dots (Pan Docs' OBJ penalty), so the window
begins at T = 96 + that stall. The window's tile k is read as the fetcher's steps go: tile
number at T + 1 + 8k, low plane at T + 3 + 8k, high at T + 5 + 8k, except the first tile
(k = 0), read 2 dots later (T + 3, T + 5, T + 7; mealybug-tearoom-tests,
m3_lcdc_win_map_change and m3_lcdc_tile_sel_win_change). An object at X >= 8 (no window,
SCX = 0) stalls the line when pixel X - 8 is next, at dot 88 + X; its fetch begins when the
fetcher has read the tile number and low plane of the tile that pixel is in, max(0, 5 -
(X - 8) % 8) dots later, and ends 5 dots after it begins; its low plane takes the object
size of 1 dot after that end, its high plane that of 3 dots after
(mealybug-tearoom-tests, m3_lcdc_obj_size_change). A read sees a write from the first dot
of its M-cycle. A pixel popped at dot t (pixel x at T + x, T as for the window below: pixel
0 is next at T) takes the palettes written by t + 3 and LCDC's enable bits written by t + 2,
or by t + 3 for pixel 0 (mealybug-tearoom-tests, m3_lcdc_bg_en_change). The window (no
object, SCX = 0) begins at the first pixel p (from -7 on)
whose comparison, at dot 96 + p, finds WX = p + 7; that comparison sees a WX write from the
dot before the first dot of its M-cycle (mealybug-tearoom-tests, m3_wx_6_change). The
window begins only if LCDC.5 is set 2 dots after that comparison; if it was set as mode 3
began but is clear then, and pixel 0 is next (the first tile just entered the FIFO), a
pixel of colour 0 comes first and the window does not begin. The window ends at the first
of its tiles whose tile number's read (as above: the first tile's 2 dots late) finds
LCDC.5 clear (mealybug-tearoom-tests, m3_lcdc_win_en_change_multiple_wx).

usage: m3.py gen OUTDIR          writes m3_data.c / m3_data.h for m3_test.c and
                                 m3w_data.c / m3w_data.h for m3w_test
       m3.py expect OUT [w]      writes the expected picture (raw RGB, 160x144) of
                                 m3_test (of m3w_test with w)
       m3.py check PNG [w]       compares a PNG from `gpuvet run gb --png` with it
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scene import read_png  # noqa: E402

W, H = 160, 144
LCDC0 = 0x91  # LCD on, BG map $9800, tiles $8000, BG on
BGP0 = 0xE4
W0 = 108  # the first write's dot: HALT ends at dot 4, 26 M-cycles to the write's M-cycle
GROUPS = ((8, 0x47, 0x1B), (40, 0x43, 0x10), (72, 0x40, 0x81), (104, 0x42, 0x08), (136, 0x47, 0x1B))
WIN0 = (136, 144)  # lines with the window at WX=0 and SCX = LY % 8
WXZ = {1: 24, 2: 27, 3: 32, 4: 16, 5: 40, 6: 43, 7: 48}  # lines 1-7: the WX written
WTILE = 4  # the window's tile (at $8040): every pixel colour 3
LCDC_WIN = LCDC0 | 0x60  # window on, window map $9C00
SCX0 = SCY0 = 0


def tile_px(t, x, hi_set):
    """Colour index of pixel x of tile t: tiles 0-3 at $8000 and 0-3 at $9000 differ."""
    c = ((x >> 1) + t) & 3 if not hi_set else 3 - (((x >> 1) + t) & 3)
    return c


def plane(t, sel9000, bit):
    """Bit plane `bit` (0 low, 1 high) of tile t's rows (all rows alike) as a byte."""
    v = 0
    for x in range(8):
        v |= ((tile_px(t & 3, x, sel9000) >> bit) & 1) << (7 - x)
    return v


def bg_map(row, col):
    return (row + col) & 3


def line_write(y):
    """(dot, register, value, old value) of line y's write, or None."""
    if y in WXZ:
        return W0 + 4 * (y % 32), 0x4B, WXZ[y], 0
    for start, reg, val in GROUPS:
        if start <= y < min(start + 32, WIN0[1]):
            old = {0x47: BGP0, 0x43: SCX0, 0x40: LCDC0, 0x42: SCY0}[reg]
            return W0 + 4 * (y % 32), reg, val, old
    return None


def render():
    grey = (0xFF, 0xAA, 0x55, 0x00)
    img = bytearray()
    for y in range(H):
        wr = line_write(y)

        def reg(r, dot):
            base = {0x47: BGP0, 0x43: SCX0, 0x40: LCDC0, 0x42: SCY0}[r]
            if wr and wr[1] == r and dot >= wr[0]:
                return wr[2]
            return base

        if y in WXZ:
            wx = WXZ[y]
            zx = wx - 7 if wx % 8 == 0 and wr[0] <= 96 + wx else -1
            for x in range(W):
                img += bytes((grey[0 if x == zx else 3],) * 3)
            continue
        if WIN0[0] <= y < WIN0[1]:
            f = y % 8
            for x in range(W):
                dot = 105 + f + x + (1 if f else 0)
                bgp = reg(0x47, dot)
                if wr[0] == dot:
                    bgp |= wr[3]
                img += bytes((grey[(bgp >> 6) & 3],) * 3)
            continue
        for x in range(W):
            k = x >> 3
            d_tile, d_lo, d_hi = 91 + 8 * k, 93 + 8 * k, 95 + 8 * k
            row = (y + reg(0x42, d_tile)) & 255
            col = ((reg(0x43, d_tile) >> 3) + k) & 31
            t = bg_map(row >> 3, col)
            lo = plane(t, not reg(0x40, d_lo) & 0x10, 0)
            hi = plane(t, not reg(0x40, d_hi) & 0x10, 1)
            ci = ((lo >> (7 - (x & 7))) & 1) | (((hi >> (7 - (x & 7))) & 1) << 1)
            dot = 99 + x
            bgp = reg(0x47, dot)
            if wr and wr[1] == 0x47 and wr[0] == dot:
                bgp |= wr[3]
            img += bytes((grey[(bgp >> (2 * ci)) & 3],) * 3)
    return bytes(img)


# ---- m3w_test ----
W0W = 100  # m3w_test's write with no NOP of the slide run: dot 100 (HALT ends at dot 4)
LCDC_WIN_W = 0xA3  # LCD on, window map $9800, window on, tile data $8800, BG map $9800, objects, BG
LCDC_OBJ16 = 0x87  # LCD on, window off, tile data $8800, BG map $9800, 8x16 objects, objects, BG
WIN_FIRST = 2  # the window's first tile: its reads come this many dots after the fetcher's steps
OBJ_LO, OBJ_HI = 1, 3  # an object's planes take LCDC.2 of these many dots after its fetch ends
SIZE_X = (8, 13, 14)  # the 8x16 objects' X on lines 72-119
LCDC_BG8 = 0x93  # LCD on, window off, tile data $8000, BG map $9800, objects, BG
LCDC_WOFF = 0xF3  # LCD on, window map $9C00, window on, tile data $8000, BG map $9800, objects, BG
WOFF_X = (4, 0)  # the objects' X on lines 120-127 and 128-135
LCDC_WX = 0xE3  # LCD on, window map $9C00, window on, tile data $8800, BG map $9800, objects, BG
# lines 136-143: (WX at the line's start, the write's dot, the WX written); on 137 and 143 the
# write comes in the dot after the comparison that would start the window at the first WX
WX_LINES = {136: (7, 128, 14), 137: (14, 104, 57), 138: (57, 140, 13), 139: (13, 104, 57),
            140: (57, 140, 15), 141: (15, 104, 57), 142: (57, 140, 18), 143: (18, 108, 7)}


def w_line(y):
    """(kind, write dot or None, object X or None) of m3w_test's line y: kind "map", "tile"
    (the window lines' LCDC.6 or LCDC.4), "size" (LCDC.2 cleared) or None."""
    if y < 72:
        ox = y // 8 if y // 8 < 8 else None
        r = y % 8
        if r >= 6:
            return "bgoff", 108 + 4 * (r - 6), ox
        return ("map" if r < 3 else "tile"), (104 + 4 * (r % 3) if y else None), ox
    if y < 120:
        row = (y - 72) % 16
        return "size", (W0W + 4 * row if row < 8 else None), SIZE_X[(y - 72) // 16]
    if y < 136:
        return "woff", W0W + 4 * (y % 8), WOFF_X[(y - 120) // 8]
    if y in WX_LINES:
        return "wx", WX_LINES[y][1], None
    return None, None, None


def w_render():
    grey = (0xFF, 0xAA, 0x55, 0x00)
    img = bytearray()
    for y in range(H):
        kind, d, ox = w_line(y)

        def seen(t):
            return d is not None and t >= d

        ci = [0] * W
        if kind in ("map", "tile"):
            t = 96 + (6 + max(0, 5 - ox) if ox is not None else 0)
            for x in range(W):
                k = x >> 3
                late = WIN_FIRST if k == 0 else 0
                b, lo, hi = (t + s + 8 * k + late for s in (1, 3, 5))
                if kind == "map":
                    ci[x] = 3 if seen(b) else 0  # tile 1 (black) from $9C00, tile 0 (white) from $9800
                else:
                    ci[x] = (1 if seen(lo) else 0) | (2 if seen(hi) else 0)  # tile 0 at $8000 is black
        elif kind == "wx":
            a, _, b = WX_LINES[y]
            for p in range(-7, W):
                if p + 7 == (b if d - 1 <= 96 + p else a):  # the window begins: black from p
                    for x in range(max(p, 0), W):
                        ci[x] = 3
                    break
        elif kind == "bgoff":
            t = 96 + (6 + max(0, 5 - ox) if ox is not None else 0)  # pixel 0 pops
            for x in range(W):
                ci[x] = 0 if d <= t + x + (3 if x == 0 else 2) else 3  # BG off: white; the BG: black
        elif kind == "woff":
            t = 96 + 6 + max(0, 5 - ox)  # the window's comparison for pixel 0
            ci = [3] * W  # the BG: black
            if d <= t + 2:
                ci[0] = 0  # LCDC.5 clear: no window, a pixel of colour 0 first
            else:
                k = 0
                while (t + 3 if k == 0 else t + 1 + 8 * k) < d:
                    k += 1
                for x in range(min(8 * k, W)):
                    ci[x] = 1  # the window's tile 1 at $8010
        elif kind == "size":
            end = 88 + ox + max(0, 5 - (ox - 8) % 8) + 5
            if (y - 72) % 16 < 8:  # tile 2 (lo $FF, hi 0) as 8x16, tile 3 (lo 0, hi $FF) as 8x8
                c = (0 if seen(end + OBJ_LO) else 1) | (2 if seen(end + OBJ_HI) else 0)
            else:
                c = 2  # the lower half: tile 3 either way
            for x in range(ox - 8, ox):
                ci[x] = c
        for x in range(W):
            img += bytes((grey[(BGP0 >> (2 * ci[x])) & 3],) * 3)
    return bytes(img)


def write_data(outdir, stem, arrays, defines, what):
    h = ["/* %s_data.h: generated by m3.py. */\n" % stem, "#include <stdint.h>\n"]
    c = ["/* %s_data.c: generated by m3.py (%s). */\n" % (stem, what), '#include "%s_data.h"\n' % stem]
    for k, v in arrays.items():
        h.append("extern const uint8_t %s[%d];\n" % (k, len(v)))
        c.append("const uint8_t %s[%d] = {%s};\n" % (k, len(v), ",".join(str(x) for x in v)))
    h += ["#define %s %s\n" % kv for kv in defines]
    open(os.path.join(outdir, stem + "_data.h"), "w").write("".join(h))
    open(os.path.join(outdir, stem + "_data.c"), "w").write("".join(c))


def gen(outdir):
    tiles = []
    for t in range(4):
        for _ in range(8):
            tiles += [plane(t, False, 0), plane(t, False, 1)]
    tiles9 = []
    for t in range(4):
        for _ in range(8):
            tiles9 += [plane(t, True, 0), plane(t, True, 1)]
    bgmap = [bg_map(r, c) for r in range(32) for c in range(32)]
    line = []  # per line, 8 bytes: register, value, SCX, LCDC, NOPs of the slide to skip
    for y in range(155):
        wr = line_write(y)
        win = WIN0[0] <= y < WIN0[1] or y in WXZ
        line += [wr[1] if wr else 0x80, wr[2] if wr else 0,  # $FF80: HRAM, unused by the ROM
                 y % 8 if WIN0[0] <= y < WIN0[1] else 0, LCDC_WIN if win else LCDC0, 31 - (y & 31), 0, 0, 0]
    write_data(outdir, "m3", {"m3_tiles": tiles, "m3_tiles9": tiles9, "m3_bgmap": bgmap, "m3_line": line},
               [("M3_LCDC0", "0x%02X" % LCDC0), ("M3_BGP0", "0x%02X" % BGP0), ("M3_WTILE", WTILE),
                ("M3_SLIDE_END", 2)], "tiles, map and the per-line writes of m3_test")
    # m3w_test: tiles 1-4 at $8010 (1 and 2: low plane $FF; 3: high plane $FF; 4: transparent)
    objtiles = [0xFF, 0] * 16 + [0, 0xFF] * 8 + [0] * 16
    oam = []
    for b in range(8):  # the window bands' objects, tile 4
        oam += [16 + 8 * b, b, 4, 0]
    for i, x in enumerate(WOFF_X):  # lines 120-135, tile 4
        oam += [16 + 120 + 8 * i, x, 4, 0]
    oam += [0] * (4 * 10)  # the 8x16 objects at OAM 20-22, scanned after mode 2 sets LCDC
    for i, x in enumerate(SIZE_X):
        oam += [16 + 72 + 16 * i, x, 3, 0]
    line = []
    for y in range(155):
        kind, d, _ = w_line(y) if y < H else (None, None, None)
        base = {"size": LCDC_OBJ16, None: LCDC_OBJ16, "wx": LCDC_WX, "woff": LCDC_WOFF,
                "bgoff": LCDC_BG8}.get(kind, LCDC_WIN_W)
        if d is None:
            line += [0x80, 0, 0, base, 31, 0, 0, 0]  # $FF80: HRAM, unused by the ROM
        else:
            reg, val = {"map": (0x40, base | 0x40), "tile": (0x40, base | 0x10), "size": (0x40, base & ~4), "woff": (0x40, base & ~0x20), "bgoff": (0x40, base & ~1),
                        "wx": (0x4B, WX_LINES.get(y, (0, 0, 0))[2])}[kind]
            line += [reg, val, 0, base, 31 - (d - W0W) // 4, 0, 0, 0]
    write_data(outdir, "m3w", {"m3_objtiles": objtiles, "m3_oam": oam, "m3_line": line},
               [("M3_LCDC0", "0x%02X" % LCDC_WIN_W), ("M3_BGP0", "0x%02X" % BGP0), ("M3_SLIDE_END", 16)],
               "object tiles, OAM and the per-line writes of m3w_test")


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
        return 0
    wvar = sys.argv[3:4] == ["w"]
    want = w_render() if wvar else render()
    if cmd == "expect":
        open(sys.argv[2], "wb").write(want)
        return 0
    w, h, got = read_png(sys.argv[2])
    if (w, h) != (W, H):
        print("size %dx%d, expected 160x144" % (w, h))
        return 1
    bad = [(i // 3 % W, i // 3 // W) for i in range(0, len(want), 3) if want[i:i + 3] != got[i:i + 3]]
    if bad:
        lines = sorted(set(y for _, y in bad))
        x, y = bad[0]
        print("%d of %d pixels differ from the expected picture, on %d lines; first at x=%d y=%d: got %s "
              "want %s" % (len(bad), W * H, len(lines), x, y, got[(y * W + x) * 3:(y * W + x) * 3 + 3].hex(),
                           want[(y * W + x) * 3:(y * W + x) * 3 + 3].hex()))
        return 1
    if wvar:
        print("all %d pixels equal the expected picture (LCDC's window-map and tile-data bits written in mode 3 "
              "as the window's first tiles are read, objects at X=0-7 or none; the object size as 8x16 objects "
              "are read; WX as the window's comparison reads it; LCDC.5 cleared as the window begins and goes on; "
              "LCDC.0 cleared as the first pixels take their colours)" % (W * H))
    else:
        print("all %d pixels equal the expected picture (BGP, SCX, LCDC.4, SCY written in mode 3 at 32 dots each; "
              "BGP over the window at WX=0 with SCX %% 8 = 0-7; WX over it, with zero pixels)" % (W * H))
    return 0


if __name__ == "__main__":
    sys.exit(main())
