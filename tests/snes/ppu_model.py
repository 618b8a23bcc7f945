"""ppu_model.py PNG SCENE: checks a frame of one of gpuvet's own SNES PPU scenes pixel by
pixel against a model written from the scene's source (tests/roms/snes/SCENE.s) and the
PPU's documented rules, independent of the emulator's renderer. Prints what it compared
and the first differences; exit 0 when every modelled pixel is equal, 1 otherwise.
Scenes: ppu_direct (direct colour in modes 3, 4 and 7), ppu_bright (the master brightness
curve), warm_boot (the picture after a reset), opt_test (offset-per-tile in modes 2, 4 and 6)."""
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
    # $FC then $00 to BG1HOFS: BG1's scroll is ($00 << 8 | $FC & ~7 | ($FC << 8 >> 8) & 7) & $3FF
    # = 248 (the two-write latch), mode 7's is $00FC = 252; both vertical ones are 3
    hofs, m7hofs, vofs = 248, 0xFC, 3
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
    for line in range(1, 225):
        mode = 2 if line < 112 else 4 if line < 168 else 6
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
            out[(x, line - 1)] = rgb(cgram[pal + c] if c else cgram[0])
    return out


def main():
    png, scene = sys.argv[1], sys.argv[2]
    want = {'ppu_direct': ppu_direct, 'ppu_bright': ppu_bright, 'warm_boot': warm_boot,
            'opt_test': opt_test}[scene]()
    w, h, pix = read_png(png)
    at = lambda x, y: tuple(pix[(y * w + x) * 3:(y * w + x) * 3 + 3])
    bad = [(k, v, at(*k)) for k, v in sorted(want.items(), key=lambda kv: (kv[0][1], kv[0][0])) if at(*k) != v]
    print('%s: %d pixels compared with the model, %d differ' % (scene, len(want), len(bad)))
    for (x, y), v, got in bad[:5]:
        print('  x %d line %d: model %s, picture %s' % (x, y + 1, v, got))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
