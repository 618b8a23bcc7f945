#!/usr/bin/env python3
"""ra_compare.py: compares what RetroArch captured from a gpuvet core with `gpuvet run`'s
outputs of the same ROM and frame count (tests/libretro/test_retroarch.sh).

  ra_compare.py png RA.png GPUVET.png     exit 0 when the pixels (RGB) are identical
  ra_compare.py wav RA.wav GPUVET.wav     exit 0 when RetroArch's samples equal gpuvet's,
                                          less the few first ones RetroArch's resampler keeps
  ra_compare.py s16 RA.wav OUT.wav START SECONDS   that stretch of RetroArch's float
                                          capture as a 16-bit WAV

Prints one line saying what it compared. Only the Python standard library is used."""
import os
import struct
import sys

# the suite's PNG reader (8-bit RGB, as RetroArch's screenshots and gpuvet's PNGs are)
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "roms", "gb"))
from scene import read_png  # noqa: E402


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
        a, b = read_png(argv[2]), read_png(argv[3])
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
        start = int(float(argv[4]) * rate)
        ra = ra[start:start + int(float(argv[5]) * rate)]
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
