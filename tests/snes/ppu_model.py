"""ppu_model.py PNG SCENE: checks a frame of one of gpuvet's own SNES PPU scenes pixel by
pixel against a model written from the scene's source (tests/roms/snes/SCENE.s) and the
PPU's documented rules, independent of the emulator's renderer. Prints what it compared
and the first differences; exit 0 when every modelled pixel is equal, 1 otherwise.
Scenes: ppu_direct (direct colour in modes 3, 4 and 7), ppu_bright (the master brightness
curve), ppu_scroll (the BG scroll registers' write-twice rule), obj_wrap (sprites past
Y = 255), warm_boot (the picture after a reset), opt_test (offset-per-tile in modes 2, 4
and 6; mode 6 hi-res, so a 512-wide frame), hires_m5, hires_pseudo, hires_il and overscan
(the frame sizes: hi-res, pseudo-hires, interlace with OBJ interlace, overscan; their size
is checked too), midline (midline_test.s: register writes inside a line), hires_mosaic and
hires_il_mosaic (mosaic on mode 5's BGs, without and with interlace)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'roms', 'gb'))
from scene import read_png  # noqa: E402  (the tree's PNG reader)


def rgb(c):
    """BGR555 at full brightness as the 8-bit RGB gpuvet writes."""
    f = lambda v: (v << 3) | (v >> 2)
    return (f(c & 31), f((c >> 5) & 31), f(c >> 10))


def direct(c, pal):
    """Direct colour: pixel BBGGGRRR, palette bits bgr -> BGR555 (R = RRRr0, G = GGGg0, B = BBb00)."""
    r = (c & 7) << 2 | (pal & 1) << 1
    g = ((c >> 3) & 7) << 2 | ((pal >> 1) & 1) << 1
    b = (c >> 6) << 3 | ((pal >> 2) & 1) << 2
    return r | g << 5 | b << 10


def ppu_direct():
    """The expected picture of ppu_direct.s: {(x, picture line): rgb}."""
    vram = {}
    for w in range(0x4000):                       # mode 7: map byte w & $FF, pixel byte w ^ w >> 6
        vram[w] = (w & 0xFF) | ((w ^ (w >> 6)) & 0xFF) << 8
    for n in range(0x400):                        # BG1 map at $4000
        vram[0x4000 + n] = (n | n << 10) & 0xDC03
    for i in range(128):                          # BG1 characters at $5000
        vram[0x5000 + i] = ((i * 0x3B1D) ^ (i << 5)) & 0xFFFF
    backdrop = 3                                  # CGRAM 0 = (0 << 5) | 3
    # $FC then $00 to BG1HOFS: BG1's scroll is $00 << 8 | $FC & ~7 | ($FC << 8 >> 8) & 7 = 252
    # (the register's bits 8-10 hold the first byte's low three bits until the second write),
    # mode 7's is $00FC = 252; both vertical ones are 3
    hofs, m7hofs, vofs = 252, 0xFC, 3
    out = {}
    for line in range(1, 225):
        for x in range(256):
            if line < 160:                        # modes 3 and 4: BG1 256 colours, 8x8 tiles, 32x32 map
                gy, gx = (line + vofs) & 0x3FF, (x + hofs) & 0x3FF
                e = vram[0x4000 + ((gy >> 3) & 31) * 32 + ((gx >> 3) & 31)]
                ry = 7 - (gy & 7) if e & 0x8000 else gy & 7
                rx = 7 - (gx & 7) if e & 0x4000 else gx & 7
                base = 0x5000 + (e & 0x3FF) * 32 + ry
                c = 0
                for plane in range(8):
                    word = vram.get(base + (plane >> 1) * 8, 0)
                    byte = (word >> (8 * (plane & 1))) & 0xFF
                    c |= ((byte >> (7 - rx)) & 1) << plane
                pal = (e >> 10) & 7
            else:                                 # mode 7: A = D = 1/2, B = C = 0, centre 0, scroll (252, 3)
                a = d = 0x80
                X = (((a * m7hofs) & ~63) + a * x) >> 8
                Y = (((d * vofs) & ~63) + ((d * line) & ~63)) >> 8
                tile = vram[((Y >> 3) & 127) * 128 + ((X >> 3) & 127)] & 0xFF
                c = vram[tile * 64 + (Y & 7) * 8 + (X & 7)] >> 8
                pal = 0
            # the sub screen is the same BG1 pixel: add half inside x 96-159 gives it back
            out[(x, line - 1)] = rgb(direct(c, pal) if c else backdrop)
    return out


def ppu_bright():
    """The expected picture of ppu_bright.s: white backdrop, brightness b = (line - 1) // 14
    (HDMA), scaled as documented: b = 0 black, else the 8-bit colour * (b + 1) / 16."""
    out = {}
    for line in range(1, 225):
        b = (line - 1) // 14
        v = 0 if b == 0 else rgb(0x7FFF)[0] * (b + 1) // 16
        for x in range(256):
            out[(x, line - 1)] = (v, v, v)
    return out


def ppu_scroll():
    """The expected picture of ppu_scroll.s: BG1 (HOFS $10D, white) in front of BG2 (HOFS 4,
    red), each with one opaque pixel per tile, at screen x where (x + HOFS) mod 8 = 0."""
    out = {}
    for y in range(224):
        for x in range(256):
            c = 0x7FFF if (x + 0x10D) % 8 == 0 else 0x001F if (x + 4) % 8 == 0 else 0
            out[(x, y)] = rgb(c)
    return out


def obj_wrap():
    """The expected picture of obj_wrap.s: sprites drawn on screen line L at row
    (L - 1 - Y) mod 256 when that is below their height, so rows past line 256 wrap to the
    top. Sprite 0 (32x32, Y 240, X 100), 1 (32x32, Y 200, X 20), 2 (8x8, Y 252, X 180, colour
    5); the 32x32 ones have colour 1-4 by tile row; the others are on no line."""
    colours = [0x0000, 0x001F, 0x03E0, 0x7C00, 0x7FE0, 0x03FF]
    sprites = [(100, 240, 32, None), (20, 200, 32, None), (180, 252, 8, 5)]
    out = {}
    for line in range(1, 225):
        for x in range(256):
            c = 0
            for sx, sy, size, solid in sprites:   # sprite 0 in front
                row = (line - 1 - sy) & 0xFF
                if row < size and sx <= x < sx + size:
                    c = colours[solid if solid else row // 8 + 1]
                    break
            out[(x, line - 1)] = rgb(c)
    return out


def warm_boot():
    """The expected picture of warm_boot.s, before and after a reset: the red backdrop plus
    the fixed colour blue 31 (colour math, add): magenta."""
    return {(x, y): rgb(0x001F + 0x7C00) for y in range(224) for x in range(256)}


def opt_test():
    """The expected picture of opt_test.s. Offset-per-tile as documented: in modes 2, 4 and 6
    BG3's map gives BG1/BG2 a scroll per 8-pixel column; the entries are read from BG3's
    scroll (HOFS / 8 the first column, VOFS / 8 the row, fine bits ignored), entry k for the
    BG's column k + 1 (column 0, the leftmost, keeps the plain scroll); bit 13 enables it for
    BG1, bit 14 for BG2; modes 2 and 6 take a horizontal entry from the row and a vertical
    one from the row below, mode 4 one entry, vertical when bit 15 is set; a horizontal value
    replaces HOFS except its low 3 bits, a vertical one replaces VOFS (10 bits each)."""
    vram, a = [], 0x1357
    for i in range(0x8000):
        vram.append((a ^ (a >> 5)) & 0xFFFF)
        a = (a + 0x9E37) & 0xFFFF
    for t in range(32):                           # BG3's map rows 2 and 3 at $0800
        vram[0x0840 + t] = ((t * 37) & 0x3FF) | (t % 3 != 0) << 13 | (t % 4 != 1) << 14 | (t & 1) << 15
        vram[0x0860 + t] = ((t * 11 + 5) & 0x3FF) | (t % 5 != 2) << 13 | (t % 3 != 1) << 14
    cgram = [(0x0C63 + j * 0x2E1B) & 0x7FFF for j in range(256)]
    bgmap, chars = (0x0000, 0x0400), 0x2000
    hofs, vofs = (0x103, 0x010), (0x002, 0x3F9)
    h3, v3 = 0x01A, 0x016

    def scroll(mode, bg, col):
        if col == 0:
            return hofs[bg], vofs[bg]
        tx, ty = ((h3 >> 3) + col - 1) & 31, (v3 >> 3) & 31
        eh = vram[0x0800 + ty * 32 + tx]
        ev = 0 if mode == 4 else vram[0x0800 + ((ty + 1) & 31) * 32 + tx]
        if mode == 4 and eh & 0x8000:
            eh, ev = 0, eh
        on = 0x2000 << bg
        return ((eh & 0x3F8) | (hofs[bg] & 7) if eh & on else hofs[bg]), (ev & 0x3FF if ev & on else vofs[bg])

    out = {}
    for line in range(1, 168):
        mode = 2 if line < 112 else 4
        for x in range(256):
            bg = 0 if x < 128 else 1              # window 1 (x 0-127) shows BG1 inside, BG2 outside
            bpp = {2: (4, 4), 4: (8, 2), 6: (4, 0)}[mode][bg]
            c, pal = 0, 0
            if bpp:
                h, v = scroll(mode, bg, (x + (hofs[bg] & 7)) >> 3)
                gx, gy = (x + h) & 0x3FF, (line + v) & 0x3FF
                e = vram[bgmap[bg] + ((gy >> 3) & 31) * 32 + ((gx >> 3) & 31)]
                ry = 7 - (gy & 7) if e & 0x8000 else gy & 7
                rx = 7 - (gx & 7) if e & 0x4000 else gx & 7
                base = chars + (e & 0x3FF) * bpp * 4 + ry
                for plane in range(bpp):
                    word = vram[(base + (plane >> 1) * 8) & 0x7FFF]
                    c |= ((word >> (8 * (plane & 1) + 7 - rx)) & 1) << plane
                pal = 0 if bpp == 8 else ((e >> 10) & 7) * (1 << bpp)
            out[(2 * x, line - 1)] = out[(2 * x + 1, line - 1)] = rgb(cgram[pal + c] if c else cgram[0])
    # mode 6 is hi-res: the frame is 512 wide (lines 1-167 above: each pixel doubled). Pixel
    # X of a mode 6 line: even X the sub screen (empty: the fixed colour, black), odd X the
    # main screen: BG1 (x = X / 2 inside window 1, x 0-127) at hi-res position X, tiles 16
    # wide (the right half tile n + 1), HOFS in lo-res pixels (2 hi-res), offset-per-tile
    # columns 16 hi-res pixels wide; BG2 is no mode 6 layer: the backdrop
    for line in range(168, 225):
        for X in range(512):
            if X % 2 == 0:
                out[(X, line - 1)] = (0, 0, 0)
                continue
            c, pal = 0, 0
            if X // 2 < 128:
                h, v = scroll(6, 0, (X + ((hofs[0] << 1) & 15)) >> 4)
                gx, gy = ((h << 1) + X) & 0x3FF, (line + v) & 0x3FF
                e = vram[bgmap[0] + ((gy >> 3) & 31) * 32 + ((gx >> 4) & 31)]
                ry = 7 - (gy & 7) if e & 0x8000 else gy & 7
                r16 = 15 - (gx & 15) if e & 0x4000 else gx & 15
                base = chars + ((e & 0x3FF) + (r16 >> 3)) * 16 + ry
                for plane in range(4):
                    word = vram[(base + (plane >> 1) * 8) & 0x7FFF]
                    c |= ((word >> (8 * (plane & 1) + 7 - (r16 & 7))) & 1) << plane
                pal = ((e >> 10) & 7) * 16
            out[(X, line - 1)] = rgb(cgram[pal + c] if c else cgram[0])
    return out


def frame_scene(variant):
    """The expected frame of hires_test.s assembled as `variant` (its head comment): (width,
    height, {(x, row): rgb}). As documented: a hi-res line is 512 pixels, the sub screen's in
    the even ones and the main screen's in the odd ones, the sub screen's backdrop the fixed
    colour; colour math applies to a main screen pixel as on a lo-res line, and to a sub
    screen pixel with the main screen's pixel to its left as the other operand when the math
    applies to that one; modes 5 and 6 draw their BGs at 512 dots with tiles 16 wide (16x8, or 16x16 with
    the tile size bit; the right half is tile n + 1, the lower n + 16) and count HOFS in
    lo-res pixels (two hi-res ones); pseudo-hires draws main and sub at 256 dots. Overscan
    gives 239 lines; interlace both fields of each line, field f's in row 2 * (line - 1) + f,
    modes 5 and 6 reading BG line 2 * line + f, and with OBJ interlace a sprite's row
    2 * (line - Y - 1) + f (half its height in lines). Sprites (priority 3) are in front of
    every BG. Mosaic on hi-res BGs (fullsnes "Hires Notes", Anomie's register doc $2106) counts
    in lo-res units: a block of size N is 2N half-pixels wide, all of them the block's leftmost
    (even) half-pixel, and N lines tall from line 1; with interlace 2N half-lines, so both
    fields show field 0's BG line of the block's top line."""
    vram, a = [], 0x1357
    for i in range(0x8000):
        vram.append((a ^ (a >> 5)) & 0xFFFF)
        a = (a + 0x9E37) & 0xFFFF
    cgram = [(0x0C63 + j * 0x2E1B) & 0x7FFF for j in range(256)]
    fixed = 31 | 10 << 10
    mos = 3 if variant in ('hires_mosaic', 'hires_il_mosaic') else 0  # MOSAIC $23: BG1, BG2
    variant = {'hires_mosaic': 'hires_m5', 'hires_il_mosaic': 'hires_il'}.get(variant, variant)
    m5 = variant in ('hires_m5', 'hires_il')
    il = variant == 'hires_il'
    lines = 239 if variant in ('hires_il', 'overscan') else 224
    wide = variant != 'overscan'
    sprites = variant in ('hires_il', 'overscan')
    # bg: (map, characters, hofs, vofs, bpp, 16 lines tall)
    bgs = [(0x0000, 0x1000, 19, 5, 4, False), (0x0C00, 0x2000, 7, 33, 2 if m5 else 4, True)]

    def bg_pixel(bg, gx, gy, wide16):
        mp, chars, _, _, bpp, tall = bgs[bg]
        th = 16 if tall else 8
        w16 = wide16 or tall
        e = vram[mp + ((gy // th) & 31) * 32 + ((gx >> (4 if w16 else 3)) & 31)]
        ry = gy % th
        if e & 0x8000:
            ry = th - 1 - ry
        tile = (e & 0x3FF) + (ry >> 3) * 16
        if w16:
            r = 15 - (gx & 15) if e & 0x4000 else gx & 15
            tile += r >> 3
        else:
            r = 7 - (gx & 7) if e & 0x4000 else gx & 7
        base = chars + tile * bpp * 4 + (ry & 7)
        c = 0
        for plane in range(bpp):
            word = vram[(base + (plane >> 1) * 8) & 0x7FFF]
            c |= ((word >> (8 * (plane & 1) + 7 - (r & 7))) & 1) << plane
        return ((e >> 10) & 7) * (1 << bpp) + c if c else None

    def obj_pixel(x, line, f):
        for (sx, sy, tile, pal, size) in ((40, 100, 0x10, 0, 8), (100, 226, 0x24, 1, 16)):
            row = (line - 1 - sy) & 0xFF
            if il:
                row = row * 2 + f
            if row >= size or not sx <= x < sx + size:
                continue
            col = x - sx
            tn = (((tile >> 4) + (row >> 3)) & 15) << 4 | ((tile + (col >> 3)) & 15)
            a0 = tn * 16 + (row & 7)
            c = 0
            for plane in range(4):
                word = vram[(a0 + (plane >> 1) * 8) & 0x7FFF]
                c |= ((word >> (8 * (plane & 1) + 7 - (col & 7))) & 1) << plane
            if c:
                return 128 + pal * 16 + c
        return None

    out = {}
    for row in range(lines * (2 if il else 1)):
        line, f = (row >> 1) + 1 if il else row + 1, row & 1 if il else 0
        prev_math, prev_main = False, 0
        for x in range(256):
            o = obj_pixel(x, line, f) if sprites else None
            if m5 and mos:  # mosaic counts lo-res pixels and lines: both half-pixels of x are
                # the BG's even half-pixel at the block's left, of the block's top line (field 0's)
                ml = line - (line - 1) % mos
                vl = 2 * ml if il else ml
                hx = 2 * (x - x % mos)
                m = bg_pixel(0, ((bgs[0][2] << 1) + hx) & 0x3FF, (vl + bgs[0][3]) & 0x3FF, True)
                sb = bg_pixel(1, ((bgs[1][2] << 1) + hx) & 0x3FF, (vl + bgs[1][3]) & 0x3FF, True)
            elif m5:                              # hi-res BGs: main BG1 at 2x + 1, sub BG2 at 2x
                vl = 2 * line + f if il else line
                m = bg_pixel(0, ((bgs[0][2] << 1) + 2 * x + 1) & 0x3FF, (vl + bgs[0][3]) & 0x3FF, True)
                sb = bg_pixel(1, ((bgs[1][2] << 1) + 2 * x) & 0x3FF, (vl + bgs[1][3]) & 0x3FF, True)
            else:
                m = bg_pixel(0, (bgs[0][2] + x) & 0x3FF, (line + bgs[0][3]) & 0x3FF, False)
                sb = bg_pixel(1, (bgs[1][2] + x) & 0x3FF, (line + bgs[1][3]) & 0x3FF, False)
            main = cgram[o if o is not None else m if m is not None else 0]
            subc = cgram[sb] if sb is not None else fixed
            if variant == 'hires_pseudo':
                # colour math (add, halved) where BG1 is the main screen's pixel: the main
                # pixel with the sub screen's (halved unless that is the sub backdrop), the
                # sub pixel with the main screen's pixel to its left (x - 1)
                math = o is None and m is not None
                if math:
                    main = add(main, subc, sb is not None)
                if x > 0 and prev_math:
                    subc = add(subc, prev_main, True)
                prev_math, prev_main = math, cgram[m] if math else 0
            if not wide:
                out[(x, row)] = rgb(main)
                continue
            out[(2 * x + 1, row)] = rgb(main)
            out[(2 * x, row)] = rgb(subc)
    return (512 if wide else 256), lines * (2 if il else 1), out


def add(a, b, half):
    """BGR555 a + b per component, halved (or clamped to 31)."""
    out = 0
    for sh in (0, 5, 10):
        v = ((a >> sh) & 31) + ((b >> sh) & 31)
        out |= (v >> 1 if half else min(v, 31)) << sh
    return out


def midline(pix, w):
    """midline_test.s: each picture line before and after the write its band makes inside
    the line (pixel x at dot x + 22; fullsnes, "SNES Timing"). A band line must show the
    'before' colours up to one pixel in the window HTIME - 22 .. HTIME - 22 + 100 (the IRQ's
    and the handler's delay: the wake-up and seven instructions, about 90 dots) and the 'after' ones from there on; the other lines 'before'.
    Returns (lines compared, [(line, what)] that differ)."""
    grey, white = 0x2108, 0x7FFF
    bright = lambda c, b: tuple(v * (b + 1) // 16 for v in rgb(c))
    stripes = lambda x, hofs: (x + hofs) % 8 == 0

    def colour(x, p, band, after):
        bg = 175 <= p <= 223 and stripes(x, 4 if band == 11 and after else 0)
        if band == 12 and after or band == 13 and after:
            bg = False                              # TM without BG1; mode 0: tile 1 blank
        if bg:
            return rgb(white)
        if not after:
            return rgb(grey)
        return {1: bright(grey, 7), 3: (0, 0, 0), 5: rgb(0x001F), 7: rgb(grey | 31),
                9: rgb(0x1084)}.get(band, rgb(grey))   # 9: (grey + 0) / 2

    htime = 60
    lo, hi = htime - 22, htime - 22 + 100
    bad, splits = [], []
    for p in range(224):
        band = p >> 4
        got = [tuple(pix[(p * w + x) * 3:(p * w + x) * 3 + 3]) for x in range(256)]
        a = [colour(x, p, band, False) for x in range(256)]
        if band not in (1, 3, 5, 7, 9, 11, 12, 13):
            if got != a:
                x = next(i for i in range(256) if got[i] != a[i])
                bad.append((p, 'x %d: %s, model %s (no write)' % (x, got[x], a[x])))
            continue
        b = [colour(x, p, band, True) for x in range(256)]
        pre = [True] * 257                          # pre[x]: pixels < x as before
        for x in range(256):
            pre[x + 1] = pre[x] and got[x] == a[x]
        suf = [True] * 257                          # suf[x]: pixels >= x as after
        for x in range(255, -1, -1):
            suf[x] = suf[x + 1] and got[x] == b[x]
        ok = [x for x in range(lo, hi + 1) if pre[x] and suf[x]]
        if ok:
            splits.append(ok[0])
        else:
            x = next((i for i in range(256) if not pre[i + 1]), None)
            bad.append((p, 'no change at one pixel in %d-%d (%s)' % (
                lo, hi, 'the whole line as before' if x is None else 'x %d: %s' % (x, got[x]))))
    return 224, bad, splits


def main():
    png, scene = sys.argv[1], sys.argv[2]
    if scene == 'midline':
        w, h, pix = read_png(png)
        if (w, h) != (256, 224):
            print('midline: the picture is %dx%d, the model 256x224' % (w, h))
            return 1
        n, bad, splits = midline(pix, w)
        print('midline: %d lines compared with the model (8 bands of writes inside the line, changes at '
              'pixels %s-%s), %d differ' % (n, min(splits) if splits else '-', max(splits) if splits else '-',
                                           len(bad)))
        for p, what in bad[:5]:
            print('  line %d: %s' % (p + 1, what))
        return 1 if bad else 0
    size = None
    if scene in ('hires_m5', 'hires_pseudo', 'hires_il', 'overscan', 'hires_mosaic', 'hires_il_mosaic'):
        sw, sh, want = frame_scene(scene)
        size = (sw, sh)
    else:
        want = {'ppu_direct': ppu_direct, 'ppu_bright': ppu_bright, 'ppu_scroll': ppu_scroll,
                'obj_wrap': obj_wrap, 'warm_boot': warm_boot, 'opt_test': opt_test}[scene]()
    w, h, pix = read_png(png)
    if size and (w, h) != size:
        print('%s: the picture is %dx%d, the model %dx%d' % (scene, w, h, size[0], size[1]))
        return 1
    at = lambda x, y: tuple(pix[(y * w + x) * 3:(y * w + x) * 3 + 3])
    bad = [(k, v, at(*k)) for k, v in sorted(want.items(), key=lambda kv: (kv[0][1], kv[0][0])) if at(*k) != v]
    print('%s: %d pixels compared with the model, %d differ' % (scene, len(want), len(bad)))
    for (x, y), v, got in bad[:5]:
        print('  x %d line %d: model %s, picture %s' % (x, y + 1, v, got))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
