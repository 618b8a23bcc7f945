#!/usr/bin/env python3
# msu_model.py WAV TRACK1 TRACK2: an independent model of the MSU-1's audio as docs/SNES.md
# (MSU-1) defines it, written from that text: each 44.1 kHz track resampled to the DSP's
# 32 kHz (output sample: a*(320-frac) + b*frac over 320, toward zero; frac += 441, a frame
# step per 320; b the next frame, the loop point at the end with repeat, silence at the end
# without), times volume/255 (toward zero), added to the DSP's (silent in msu_test.sfc) and
# then taken to 48 kHz by the DSP's documented resampler (docs/SNES_DSP.md: output j between
# inputs k-1 and k, k = floor(2j/3), f = 2j mod 3, floor((x[k-1]*(3-f) + x[k]*f + 1)/3)).
# msu_test.sfc plays track 2 once at volume 255, then track 1 at volume 192 with repeat;
# the model finds the 32 kHz sample each starts on (the only free parameters: the time of
# the program's $2007 writes) from the WAV, then compares every sample of the WAV with its
# own. Prints what it compared; exit 0 on a match, 1 otherwise. Standard library only.
import struct
import sys


def read_track(path):
    b = open(path, "rb").read()
    assert b[:4] == b"MSU1"
    loop = struct.unpack_from("<I", b, 4)[0]
    n = (len(b) - 8) // 4
    frames = [struct.unpack_from("<hh", b, 8 + 4 * i) for i in range(n)]
    return frames, loop


def tdiv(a, b):  # C division: toward zero
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def msu_stream(frames, loop, repeat, volume, count):
    """count 32 kHz samples of a track from its start (fewer when it ends)."""
    n = len(frames)
    out = []
    pos, frac = 0, 0

    def step(p):
        if p + 1 < n:
            return p + 1
        return loop if repeat else n

    while len(out) < count:
        nxt = step(pos)
        smp = []
        for ch in range(2):
            a = frames[pos][ch] if pos < n else 0
            b = frames[nxt][ch] if nxt < n else 0
            v = tdiv(a * (320 - frac) + b * frac, 320)
            smp.append(tdiv(v * volume, 255))
        out.append(smp)
        frac += 441
        ended = False
        while frac >= 320:
            frac -= 320
            pos = step(pos)
            if pos >= n:
                ended = True
                break
        if ended:
            break
    return out


def to48(x32, count48):
    out = []
    for j in range(count48):
        k, f = (2 * j) // 3, (2 * j) % 3
        s = []
        for ch in range(2):
            x0 = x32[k - 1][ch] if k >= 1 and k - 1 < len(x32) else 0
            x1 = x32[k][ch] if k < len(x32) else 0
            s.append((x0 * (3 - f) + x1 * f + 1) // 3)
        out.append(s)
    return out


def clamp(v):
    return max(-32768, min(32767, v))


def synth(n32, segs):
    x = [[0, 0] for _ in range(n32)]
    for start, stream in segs:
        for i, (l, r) in enumerate(stream):
            if start + i < n32:
                x[start + i][0] = clamp(x[start + i][0] + l)
                x[start + i][1] = clamp(x[start + i][1] + r)
    return x


def main():
    wav, t1, t2 = sys.argv[1:4]
    b = open(wav, "rb").read()[44:]
    got = [list(struct.unpack_from("<hh", b, 4 * i)) for i in range(len(b) // 4)]
    n48 = len(got)
    n32 = (n48 * 2 + 2) // 3 + 2
    f1, l1 = read_track(t1)
    f2, l2 = read_track(t2)
    s2 = msu_stream(f2, l2, False, 255, n32)
    s1 = msu_stream(f1, l1, True, 192, n32)
    nz = [j for j in range(n48) if got[j] != [0, 0]]
    if not nz:
        print("msu model: the WAV is silent: no MSU-1 audio was mixed")
        return 1
    j2 = nz[0]
    # the first segment (track 2): its start from the first sound, checked over a window
    start2 = None
    for s in range(max(0, 2 * j2 // 3 - 4), 2 * j2 // 3 + 4):
        w = to48(synth(s + len(s2) + 4, [(s, s2)]), 3 * (s + len(s2)) // 2 + 4)
        if w == got[:len(w)]:
            start2 = s
            break
    if start2 is None:
        print("msu model: no start of track 2 near 48 kHz sample %d matches the WAV" % j2)
        return 1
    end2 = 3 * (start2 + len(s2)) // 2 + 4
    later = [j for j in range(end2, n48) if got[j] != [0, 0]]
    if not later:
        print("msu model: track 1 never sounds after track 2 (ends at 48 kHz sample %d)" % end2)
        return 1
    j1 = later[0]
    for s in range(max(0, 2 * j1 // 3 - 4), 2 * j1 // 3 + 4):
        want = to48(synth(n32, [(start2, s2), (s, s1)]), n48)
        if want == got:
            print("msu model: %d 48 kHz stereo samples equal: track 2 (%d frames, once, volume 255) from "
                  "32 kHz sample %d, track 1 (%d frames, loop %d, repeat, volume 192) from 32 kHz sample %d"
                  % (n48, len(f2), start2, len(f1), l1, s))
            return 0
    want = to48(synth(n32, [(start2, s2), (2 * j1 // 3, s1)]), n48)
    bad = next(j for j in range(n48) if want[j] != got[j])
    print("msu model: track 1 near 32 kHz sample %d: first difference at 48 kHz sample %d: model %s, gpuvet %s"
          % (2 * j1 // 3, bad, want[bad], got[bad]))
    return 1


if __name__ == "__main__":
    sys.exit(main())
