#!/usr/bin/env python3
"""scene.py: the PPU scene test: its description, the data the ROM loads, and the
picture expected from it, computed here independently of gpuvet from the Pan Docs
rules (tile data, BG/window maps and CGB attributes, 8x16 objects, the 10-objects-per-
line limit, DMG and CGB object priority, the BG-over-OBJ attribute, palettes) and the
colour definitions of gpuvet's framebuffer (DMG shades FF/AA/55/00, CGB 5-bit channels
expanded as (c << 3) | (c >> 2)).

The ROM changes SCX between lines 71 and 72 and turns the window off for lines 110-119
(both in HBlank, from the LYC interrupt), so the window line counter must resume after
the gap.

usage: scene.py gen OUTDIR            writes scene_data.c / scene_data.h for ppu_scene.c
       scene.py expect dmg|cgb OUT    writes the expected picture (raw RGB, 160x144)
       scene.py check dmg|cgb PNG     compares a PNG from `gpuvet run gb --png` with it
"""
import os
import struct
import sys
import zlib

W, H = 160, 144
SCX0, SCY0, SCX1 = 13, 37, 100
WX, WY = 87, 96
LCDC = 0xF7  # LCD on, window map $9C00, window on, tiles $8000, BG map $9800, OBJ 8x16, OBJ on, BG on
BGP, OBP0, OBP1 = 0xE4, 0xD2, 0x1B
LYC_SCX, LYC_WOFF, LYC_WON = 71, 109, 119  # changes take effect on the next line


def bg_tile(t):
    if t == 0:
        return [[0] * 8 for _ in range(8)]
    return [[(x * (t % 4 + 1) + y * (t // 4 + 1) + t) % 4 for x in range(8)] for y in range(8)]


def bank1_tile(t):
    return [[(x ^ y ^ t) % 4 for x in range(8)] for y in range(8)]


def win_tile(t):
    return [[(x // 2 + y // 2 + t) % 4 for x in range(8)] for y in range(8)]


def obj_pair(kind):
    """An 8x16 object as 16 rows of 8 colour indices."""
    if kind == 0:  # opaque
        return [[1 + (x + y) % 3 for x in range(8)] for y in range(16)]
    if kind == 1:  # asymmetric, with transparent pixels (for flips)
        return [[(x * y + x) % 4 if x < 6 else 0 for x in range(8)] for y in range(16)]
    return [[((x + y) % 2) * (1 + y % 3) for x in range(8)] for y in range(16)]  # checker


def tiles():
    """VRAM bank 0 and bank 1 tiles as {index: 8 rows}."""
    b0 = {t: bg_tile(t) for t in range(16)}
    for t in range(4):
        b0[16 + t] = win_tile(t)
    for k, base in ((0, 32), (1, 34), (2, 36)):
        rows = obj_pair(k)
        b0[base], b0[base + 1] = rows[:8], rows[8:]
    b1 = {t: bank1_tile(t) for t in range(16)}
    rows = obj_pair(2)
    b1[38], b1[39] = [r[::-1] for r in rows[:8]], [r[::-1] for r in rows[8:]]
    return b0, b1


def bg_map():
    return [[(x * 3 + y * 5) % 16 if (x + y) % 7 else 0 for x in range(32)] for y in range(32)]


def win_map():
    return [[16 + (x + 2 * y) % 4 for x in range(32)] for y in range(32)]


def bg_attr():
    """CGB BG attributes: palette, bank 1, X flip, Y flip, priority."""
    a = []
    for y in range(32):
        row = []
        for x in range(32):
            v = (x + y) % 8
            if (x * y) % 5 == 1:
                v |= 0x08
            if x % 3 == 1:
                v |= 0x20
            if y % 4 == 2:
                v |= 0x40
            if (x + 2 * y) % 9 == 4:
                v |= 0x80
            row.append(v)
        a.append(row)
    return a


def oam():
    """40 objects: (y, x, tile, attr), OAM order."""
    o = []
    for i in range(12):  # 12 objects on the same lines: only the first 10 show
        o.append((40, 16 + 12 * i, 32, 0))
    o += [(76, 60, 32, 0x00), (76, 56, 36, 0x10), (76, 60, 34, 0x00), (76, 64, 36, 0x01)]  # priority group
    o += [(96, 100, 32, 0x80 | 0x02)]  # behind BG colours 1-3
    o += [(96, 24, 34, 0x20), (96, 36, 34, 0x40), (96, 48, 34, 0x60)]  # flips
    o += [(60, 4, 34, 0x03), (8, 120, 36, 0x00), (130, 164, 34, 0x04)]  # off the edges
    for p in range(8):  # palettes: DMG OBP1 for odd p, CGB palettes 0-7
        o.append((120, 84 + 10 * p, 36 if p % 2 else 34, p | (0x10 if p % 2 else 0)))
    o.append((150, 140, 38, 0x08 | 0x05))  # CGB: tile from VRAM bank 1
    while len(o) < 40:
        o.append((0, 0, 0, 0))  # off screen (Y=0)
    return o


def cgb_palettes():
    bg = [[((p * 4 + c * 7) % 32, (p * 9 + c * 3 + 5) % 32, (31 - p * 3 - c * 5) % 32) for c in range(4)] for p in range(8)]
    ob = [[((p * 5 + c * 9 + 3) % 32, (p * 7 + c * 11) % 32, (p * 2 + c * 13 + 7) % 32) for c in range(4)] for p in range(8)]
    return bg, ob


def enc_tile(rows):
    out = []
    for r in rows:
        lo = hi = 0
        for x, c in enumerate(r):
            lo |= (c & 1) << (7 - x)
            hi |= (c >> 1) << (7 - x)
        out += [lo, hi]
    return out


def gen(outdir):
    b0, b1 = tiles()
    t0 = [0] * (40 * 16)
    t1 = [0] * (40 * 16)
    for t, rows in b0.items():
        t0[t * 16:t * 16 + 16] = enc_tile(rows)
    for t, rows in b1.items():
        t1[t * 16:t * 16 + 16] = enc_tile(rows)
    bgp, obp = cgb_palettes()

    def pal_bytes(pals):
        out = []
        for p in pals:
            for (r, g, b) in p:
                v = r | (g << 5) | (b << 10)
                out += [v & 0xFF, v >> 8]
        return out

    arrays = {
        "tiles0": t0, "tiles1": t1,
        "bgmap": sum(bg_map(), []), "winmap": sum(win_map(), []), "bgattr": sum(bg_attr(), []),
        "oam_init": sum([list(x) for x in oam()], []),
        "cgb_bgpal": pal_bytes(bgp), "cgb_obpal": pal_bytes(obp),
    }
    h = ["/* scene_data.h: generated by scene.py. */\n", "#include <stdint.h>\n"]
    c = ["/* scene_data.c: generated by scene.py (the PPU scene's tiles, maps, attributes,\n"
         " * palettes and objects). */\n", '#include "scene_data.h"\n']
    for k, v in arrays.items():
        h.append("extern const uint8_t %s[%d];\n" % (k, len(v)))
        c.append("const uint8_t %s[%d] = {%s};\n" % (k, len(v), ",".join(str(x) for x in v)))
    for k, v in (("SCX0", SCX0), ("SCY0", SCY0), ("SCX1", SCX1), ("WX0", WX), ("WY0", WY), ("LCDC0", LCDC),
                 ("BGP0", BGP), ("OBP00", OBP0), ("OBP10", OBP1), ("LYC_SCX", LYC_SCX), ("LYC_WOFF", LYC_WOFF),
                 ("LYC_WON", LYC_WON)):
        h.append("#define %s %d\n" % (k, v))
    open(os.path.join(outdir, "scene_data.h"), "w").write("".join(h))
    open(os.path.join(outdir, "scene_data.c"), "w").write("".join(c))


def c8(v):
    return (v << 3) | (v >> 2)


def render(model):
    """The expected 160x144 RGB picture."""
    cgb = model == "cgb"
    b0, b1 = tiles()
    bmap, wmap, attr = bg_map(), win_map(), bg_attr()
    objs = oam()
    bgp, obp = cgb_palettes()
    grey = [0xFF, 0xAA, 0x55, 0x00]
    img = bytearray()
    win_line = 0
    for y in range(H):
        scx = SCX0 if y <= LYC_SCX else SCX1
        win_on = not (LYC_WOFF < y <= LYC_WON)
        win_here = win_on and y >= WY and WX <= 166
        wl = win_line
        if win_here:
            win_line += 1
        # OAM scan: the first 10 objects (OAM order) whose 16 rows cover the line
        sel = [i for i, (oy, ox, t, a) in enumerate(objs) if 0 <= y + 16 - oy < 16][:10]
        if not cgb:
            sel.sort(key=lambda i: (objs[i][1], i))  # DMG: smaller X first, then OAM order
        for x in range(W):
            if win_here and x + 7 >= WX:
                col, row, mp, am = x + 7 - WX, wl, wmap, None
            else:
                col, row, mp, am = (x + scx) & 255, (y + SCY0) & 255, bmap, attr
            t = mp[row // 8][col // 8]
            a = attr[row // 8][col // 8] if (cgb and am is not None) else 0
            if cgb and am is None:
                a = 0  # the window map's attributes ($9C00 in bank 1) are zero
            ty, tx = row % 8, col % 8
            if a & 0x40:
                ty = 7 - ty
            if a & 0x20:
                tx = 7 - tx
            tile = (b1 if a & 0x08 else b0).get(t)
            bci = tile[ty][tx] if tile else 0
            oci, oa = 0, 0
            for i in sel:
                oy, ox, ot, oat = objs[i]
                dx = x - (ox - 8)
                if not 0 <= dx < 8:
                    continue
                r = y + 16 - oy
                if oat & 0x40:
                    r = 15 - r
                if oat & 0x20:
                    dx = 7 - dx
                bank = b1 if (cgb and oat & 0x08) else b0
                tt = (ot & 0xFE) + (r // 8)
                rows = bank.get(tt)
                c = rows[r % 8][dx] if rows else 0
                if c:
                    oci, oa = c, oat
                    break
            if cgb:
                if oci and (bci == 0 or not ((a | oa) & 0x80)):
                    rgb = obp[oa & 7][oci]
                else:
                    rgb = bgp[a & 7][bci]
                img += bytes((c8(rgb[0]), c8(rgb[1]), c8(rgb[2])))
            else:
                if oci and (bci == 0 or not oa & 0x80):
                    shade = ((OBP1 if oa & 0x10 else OBP0) >> (2 * oci)) & 3
                else:
                    shade = (BGP >> (2 * bci)) & 3
                img += bytes((grey[shade],) * 3)
    return bytes(img)


def read_png(path):
    """Decodes a non-interlaced PNG of any colour type and depth (grey, RGB, palette, grey
    with alpha, RGBA; 1 to 16 bits; all five filter types) into (w, h, 8-bit RGB bytes):
    grey g becomes (g, g, g) scaled to 8 bits, a palette index its entry, alpha is dropped,
    16-bit samples keep their high byte."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w, plte = 8, b"", 0, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            if inter or ctype not in (0, 2, 3, 4, 6):
                raise ValueError("interlaced or unknown colour type %d" % ctype)
        elif kind == b"PLTE":
            plte = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    chans = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bits = chans * depth                     # bits per pixel
    bpp = max(1, bits // 8)                  # the filters' byte distance
    stride = (w * bits + 7) // 8
    raw = zlib.decompress(idat)
    out, prev = bytearray(), bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                if f == 1:
                    line[i] = (line[i] + a) & 255
                elif f == 2:
                    line[i] = (line[i] + b) & 255
                elif f == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                    line[i] = (line[i] + pr) & 255
        prev = line
        if ctype == 2 and depth == 8:
            out += line
            continue
        if depth < 8:  # samples packed from the high bits
            per = 8 // depth
            s = [(line[x // per] >> (8 - depth * (x % per + 1))) & ((1 << depth) - 1) for x in range(w)]
        else:  # one byte, or the high byte of two, per sample
            step = depth // 8
            s = line[::step]
        for x in range(w):
            if ctype == 3:
                out += plte[3 * s[x]:3 * s[x] + 3]
            elif ctype in (0, 4):
                g = s[x * chans]
                g = g * 255 // ((1 << depth) - 1) if depth < 8 else g
                out += bytes((g, g, g))
            else:
                out += bytes(s[x * chans:x * chans + 3])
    return w, h, bytes(out)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
        return 0
    model = sys.argv[2]
    want = render(model)
    if cmd == "expect":
        open(sys.argv[3], "wb").write(want)
        return 0
    w, h, got = read_png(sys.argv[3])
    if (w, h) != (W, H):
        print("size %dx%d, expected 160x144" % (w, h))
        return 1
    bad = [(i // 3 % W, i // 3 // W) for i in range(0, len(want), 3) if want[i:i + 3] != got[i:i + 3]]
    if bad:
        x, y = bad[0]
        print("%d of %d pixels differ from the expected picture; first at x=%d y=%d: got %s want %s" %
              (len(bad), W * H, x, y, got[(y * W + x) * 3:(y * W + x) * 3 + 3].hex(),
               want[(y * W + x) * 3:(y * W + x) * 3 + 3].hex()))
        return 1
    print("all %d pixels equal the expected picture (%s)" % (W * H, model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
