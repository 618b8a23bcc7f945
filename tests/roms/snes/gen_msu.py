#!/usr/bin/env python3
# gen_msu.py OUTDIR: writes the MSU-1 media of msu_test.sfc (tests/roms/snes/msu_test.s)
# beside it: msu_test.msu (1024 bytes, byte i = (7i + 3) & 0xFF), msu_test-1.pcm (3000
# stereo frames, loop point 1000) and msu_test-2.pcm (200 frames, loop point 0), in the
# documented track format: "MSU1", the 32-bit little-endian loop point (in frames), then
# 44.1 kHz 16-bit little-endian stereo frames. Standard library only; the same bytes
# every time (tests/snes/msu_model.py reads the tracks back).
import struct
import sys


def track1(i):
    # a triangle on L (period 100 frames, +-24000) and a square on R (period 60, +-9000)
    p = i % 100
    left = (p * 960 - 24000) if p < 50 else (72000 - p * 960)
    right = 9000 if (i // 30) % 2 == 0 else -9000
    return left, right


def track2(i):
    return (i * 97) % 4000 - 2000, 1500


def write_track(path, loop, frames):
    with open(path, "wb") as f:
        f.write(b"MSU1" + struct.pack("<I", loop))
        f.write(b"".join(struct.pack("<hh", *fr) for fr in frames))


def main():
    out = sys.argv[1]
    with open(out + "/msu_test.msu", "wb") as f:
        f.write(bytes((7 * i + 3) & 0xFF for i in range(1024)))
    write_track(out + "/msu_test-1.pcm", 1000, [track1(i) for i in range(3000)])
    write_track(out + "/msu_test-2.pcm", 0, [track2(i) for i in range(200)])


if __name__ == "__main__":
    main()
