#!/usr/bin/env python3
"""beeps.py WAV: how many beeps a test ROM played, for the ROMs that report their result
code by beeping it (blargg's pal_apu_tests: "reports the result on screen and by beeping a
number of times"; 1 beep = passed). Prints "N beeps" (N may be 0).

A beep of those ROMs is a square wave faded over 16 steps of 8 ms, then 120 ms of silence.
The sound is cut into 5 ms windows; a window is loud when its RMS (around its mean, so a DC
step is not a tone) exceeds a tenth of the loudest window's; a beep is a run of loud windows
of at least 30 ms. Shorter runs (the power-on step, clicks) are not counted. Standard
library only: the wave module reads the 16-bit WAV that `gpuvet run --wav` writes."""
import struct
import sys
import wave


def count_beeps(path):
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2:
            raise ValueError("%s: not a 16-bit WAV" % path)
        rate, ch, n = w.getframerate(), w.getnchannels(), w.getnframes()
        data = struct.unpack("<%dh" % (n * ch), w.readframes(n))
    win = max(1, rate // 200)
    levels = []
    for i in range(0, n - win + 1, win):
        seg = data[i * ch:(i + win) * ch]
        mean = sum(seg) / len(seg)
        levels.append((sum((x - mean) ** 2 for x in seg) / len(seg)) ** 0.5)
    if not levels or max(levels) == 0:
        return 0
    floor = max(levels) / 10
    beeps = run = 0
    for lv in levels + [0.0]:
        if lv > floor:
            run += 1
            continue
        if run * 5 >= 30:
            beeps += 1
        run = 0
    return beeps


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: beeps.py WAV\n")
        return 2
    try:
        print("%d beeps" % count_beeps(sys.argv[1]))
    except (OSError, ValueError, wave.Error, struct.error) as e:
        sys.stderr.write("beeps.py: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
