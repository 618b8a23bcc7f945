#!/usr/bin/env python3
"""ra_compare.py: compares what RetroArch captured from a gpuvet core with `gpuvet run`'s
outputs of the same ROM and frame count (tests/libretro/test_retroarch.sh).

  ra_compare.py png RA.png GPUVET.png     exit 0 when the pixels (RGB) are identical
  ra_compare.py wav RA.wav GPUVET.wav     exit 0 when RetroArch's samples equal gpuvet's,
                                          less the few first ones RetroArch's resampler keeps
  ra_compare.py s16 RA.wav OUT.wav SECONDS   RetroArch's float capture as a 16-bit WAV

Prints one line saying what it compared. Only the Python standard library is used."""
import struct
import sys
import zlib


def png_rgb(path):
    """(width, height, bytes RGB) of an 8-bit RGB or RGBA PNG, non-interlaced."""
    d = open(path, "rb").read()
    if d[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    i, idat, w = 8, b"", None
    while i < len(d):
        n, kind = struct.unpack(">I4s", d[i:i + 8])
        body = d[i + 8:i + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"{path}: depth {depth}, colour type {ctype}, interlace {interlace}")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        i += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    out, prev = bytearray(), bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        out += line if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3)
    return w, h, bytes(out)


def wav(path):
    """(channels, rate, bits, data) of a WAV file."""
    d = open(path, "rb").read()
    i, fmt, data = 12, None, None
    while i + 8 <= len(d):
        kind, n = d[i:i + 4], struct.unpack("<I", d[i + 4:i + 8])[0]
        if kind == b"fmt ":
            _, ch, rate, _, _, bits = struct.unpack("<HHIIHH", d[i + 8:i + 24])
            fmt = (ch, rate, bits)
        elif kind == b"data":
            data = d[i + 8:i + 8 + n]
        i += 8 + n + (n & 1)
    return fmt + (data,)


def ra_samples(path):
    """RetroArch's capture (ALSA's file plugin, float32 stereo) as int16 pairs."""
    ch, rate, bits, data = wav(path)
    if ch != 2 or bits != 32:
        raise ValueError(f"{path}: {ch} channels of {bits} bits, expected float32 stereo")
    f = struct.unpack(f"<{len(data) // 4}f", data)
    return rate, [(round(f[k] * 32768), round(f[k + 1] * 32768)) for k in range(0, len(f), 2)], f


def main(argv):
    mode = argv[1]
    if mode == "png":
        a, b = png_rgb(argv[2]), png_rgb(argv[3])
        same = a == b
        diff = sum(1 for k in range(0, min(len(a[2]), len(b[2])), 3) if a[2][k:k + 3] != b[2][k:k + 3])
        print(f"RetroArch's screenshot {a[0]}x{a[1]}, gpuvet run's PNG {b[0]}x{b[1]}: "
              f"{'identical pixels' if same else f'{diff} pixels differ'}")
        return 0 if same else 1
    if mode == "wav":
        rate, ra, f = ra_samples(argv[2])
        ch, grate, bits, data = wav(argv[3])
        g = struct.unpack(f"<{len(data) // 2}h", data)
        gv = [(g[k], g[k]) for k in range(len(g))] if ch == 1 else [(g[k], g[k + 1]) for k in range(0, len(g), 2)]
        exact = all(abs(v * 32768 - round(v * 32768)) == 0 for v in f)
        held = len(gv) - len(ra)
        ok = rate == grate and exact and 0 <= held <= 16 and ra == gv[held:] and any(s != (0, 0) for s in ra)
        print(f"RetroArch played {len(ra)} stereo samples at {rate} Hz, gpuvet run wrote {len(gv)} at {grate} Hz: "
              f"{'equal' if ra == gv[held:] else 'different'} from gpuvet's sample {held} on (the first {held} are "
              f"held in RetroArch's resampler), every float an exact int16 {'yes' if exact else 'no'}")
        return 0 if ok else 1
    if mode == "s16":
        rate, ra, _ = ra_samples(argv[2])
        ra = ra[:int(float(argv[4]) * rate)]
        body = b"".join(struct.pack("<hh", max(-32768, min(32767, l)), max(-32768, min(32767, r))) for l, r in ra)
        hdr = b"RIFF" + struct.pack("<I", 36 + len(body)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 2, rate,
                                                                                       rate * 4, 4, 16)
        open(argv[3], "wb").write(hdr + b"data" + struct.pack("<I", len(body)) + body)
        print(f"{argv[3]}: {len(ra)} stereo samples at {rate} Hz")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
