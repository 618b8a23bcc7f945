#!/usr/bin/env python3
"""peterlemon.py: gpuvet on the ROMs of PeterLemon/SNES (github.com/PeterLemon/SNES, test
material: never committed here), for bench/snes/peterlemon.sh.

Every *.sfc under ROOT is run with `gpuvet run snes ROM --frames N --png OUT` (one instance,
native video). A ROM is "refused" when gpuvet exits 2 (the loader said no), "coproc" when
it is under CHIP/ (a coprocessor cartridge, a separate issue: still run, counted apart).
When a PNG of the ROM's name lies beside it (the author's reference screenshot), the run's
frames are compared with it pixel for pixel: "match" when any frame equals it (found by its
XXH3-64 among --frame-hashes, as the GB Emulator Shootout polls its screenshots: the
animated ROMs' screenshots were taken at some moment); otherwise the last frame: "colours" (the same
picture in other colours: a one-to-one colour map takes one to the other; the CPU tests'
screenshots were taken with another 5-to-8-bit conversion than the SPC700 tests'), else
"differ" with the number of differing pixels. Frames have their own sizes (hi-res 512 wide,
interlace 448 or 478 lines: docs/SNES.md "Frame sizes"), and a frame matches a reference of
its size by its hash; no frame matching and a last frame of another size than the reference
is "size"; a reference that is no PNG "badref". A 448-line reference whose odd rows repeat the
rows above (a 224-line frame shot line-doubled, as the pseudo-hires demos' are) is compared
at 224 lines. Writes OUTDIR/results.tsv (rom, verdict, exit status, pixels
differing, the warning line) and prints the counts.

usage: [JOBS=N] peterlemon.py GPUVET ROOT OUTDIR [FRAMES]   (N ROMs at a time, default 1;
       default 3000 frames: the SPC700 tests
       need about 3000 to reach their last page)
"""
import concurrent.futures
import ctypes
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "roms", "gb"))
from scene import read_png  # noqa: E402


def read_bmp(path):
    """A 24-bit uncompressed BMP (one reference screenshot is a BMP named .png): (w, h, RGB)."""
    d = open(path, "rb").read()
    if d[:2] != b"BM":
        raise ValueError("neither PNG nor BMP")
    off = struct.unpack("<I", d[10:14])[0]
    w, h = struct.unpack("<ii", d[18:26])
    bits, comp = struct.unpack("<H", d[28:30])[0], struct.unpack("<I", d[30:34])[0]
    if bits != 24 or comp != 0:
        raise ValueError("BMP of %d bits, compression %d" % (bits, comp))
    stride = (w * 3 + 3) & ~3
    out = bytearray()
    for y in range(abs(h)):
        row = (abs(h) - 1 - y) if h > 0 else y
        line = d[off + row * stride:off + row * stride + w * 3]
        for x in range(w):
            out += bytes((line[3 * x + 2], line[3 * x + 1], line[3 * x]))
    return w, abs(h), out


def read_picture(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    return read_bmp(path) if magic == b"BM" else read_png(path)


def frame_with(hashes, rgb):
    """The first frame of a --frame-hashes file whose picture is rgb (by its XXH3-64, the
    hash gpuvet gives a frame, through the system's libxxhash), or None."""
    if XXH3 is None:
        return None
    want = "%016x" % XXH3(bytes(rgb), len(rgb))
    with open(hashes) as f:
        for line in f:
            n, vh = line.split()[:2]
            if vh == want:
                return int(n)
    return None


try:
    _lib = ctypes.CDLL("libxxhash.so.0")
    _lib.XXH3_64bits.restype = ctypes.c_uint64
    _lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    XXH3 = _lib.XXH3_64bits
except OSError:
    XXH3 = None


def same_up_to_colours(a, b):
    """The two pictures are one picture in other colours: a one-to-one map of a's colours
    onto b's takes a to b (another 5-to-8-bit colour conversion)."""
    fwd, back = {}, {}
    for i in range(0, len(a), 3):
        x, y = bytes(a[i:i + 3]), bytes(b[i:i + 3])
        if fwd.setdefault(x, y) != y or back.setdefault(y, x) != x:
            return False
    return True


def judge(gpuvet, root, outdir, frames, rom):
    """One ROM: (relative path, verdict, exit status, pixels differing, message)."""
    rel = os.path.relpath(rom, root)
    key = rel.replace("/", "_")[:-4]
    png = os.path.join(outdir, key + ".png")
    fh = os.path.join(outdir, key + ".hashes")
    p = subprocess.run([gpuvet, "run", "snes", rom, "--frames", str(frames), "--png", png, "--frame-hashes", fh,
                        "-q", "--no-battery"], capture_output=True, text=True)
    warn = " ".join(l for l in p.stderr.splitlines() if "warning" in l)
    coproc = rel.startswith("CHIP/")
    ref = rom[:-4] + ".png"
    diff = "-"
    if p.returncode == 2:
        verdict = "refused"
        warn = p.stderr.strip().replace("\n", " ")
    elif p.returncode != 0:
        verdict = "error"
        warn = p.stderr.strip().replace("\n", " ")
    elif not os.path.isfile(ref):
        verdict = "ran"
    else:
        try:
            w, h, want = read_picture(ref)
        except (ValueError, OSError) as e:
            w, h, want = None, None, str(e)
        gw, gh, got = read_png(png)
        doubled = False
        if w is not None and (w, h) != (gw, gh) and (w, h // 2) == (gw, gh) and h % 2 == 0:
            # a screenshot of a 224-line frame taken line-doubled (448 lines): its even rows
            # are the frame when every odd row repeats the row above
            rows = [bytes(want[y * w * 3:(y + 1) * w * 3]) for y in range(h)]
            if all(rows[2 * y] == rows[2 * y + 1] for y in range(h // 2)):
                want, h, doubled = b"".join(rows[0::2]), h // 2, True
        if w is None:
            verdict = "badref"
            diff = want
        elif frame_with(fh, want) is not None:
            verdict = "match"
            diff = "0 (frame %d%s)" % (frame_with(fh, want), ", the reference line-doubled" if doubled else "")
        elif (w, h) != (gw, gh):
            verdict = "size"
            diff = "%dx%d, the last frame %dx%d" % (w, h, gw, gh)
        else:
            n = sum(1 for i in range(0, len(want), 3) if want[i:i + 3] != got[i:i + 3])
            diff = str(n) + (" (the reference line-doubled)" if doubled else "")
            verdict = "match" if n == 0 else "colours" if same_up_to_colours(got, want) else "differ"
    if coproc:
        verdict = "coproc-" + verdict
    return (rel, verdict, str(p.returncode), diff, warn)


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    gpuvet, root, outdir = sys.argv[1:4]
    frames = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
    os.makedirs(outdir, exist_ok=True)
    roms = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.lower().endswith(".sfc"))
    jobs = int(os.environ.get("JOBS", "1"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        rows = list(ex.map(lambda rom: judge(gpuvet, root, outdir, frames, rom), roms))
    counts = {}
    for r in rows:
        counts[r[1]] = counts.get(r[1], 0) + 1
    with open(os.path.join(outdir, "results.tsv"), "w") as f:
        f.write("rom\tverdict\texit\tpixels_differing\tmessage\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print("%d ROMs, %d frames each (%s)" % (len(roms), frames, outdir))
    for k in sorted(counts):
        print("%-16s %d" % (k, counts[k]))


if __name__ == "__main__":
    main()
