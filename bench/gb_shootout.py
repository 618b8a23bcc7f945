#!/usr/bin/env python3
"""gb_shootout.py: the GB Emulator Shootout's way of judging Game Boy test ROMs, for
bench/accuracy.sh --shootout (python3 and its standard library only).

The Shootout (github.com/gbdev/GBEmulatorShootout) lists its tests in testroms/<suite>.py:
each has a ROM, a model (DMG, CGB or SGB), a run time in seconds and the picture a
passing emulator shows (by default the ROM's name with .png; some also ship a .fail.png).
It starts the emulator, waits for its start-up time (the boot), then takes a screenshot
every 0.1 s until the run time plus 5 seconds are over, stopping at the first one that
matches a picture; none matched is a failure. The match: both
pictures are converted to 8-bit luma (ITU-R 601: L = (19595 R + 38470 G + 7471 B + 2^15)
>> 16, as the Python Imaging Library's convert("L") does) and the screenshot passes when no
pixel's luma differs from the expected picture's by more than 50 (so palettes that keep
the four shades apart all match). A test without an expected picture is "INFO" and counts
as passed, as in the Shootout's own tally (everything but FAIL). Here there is no boot:
a test's screenshot is the frame after its run time plus those 5 seconds, in frames of the
machine (70224 dots, 59.73 per second). The suites ship no failure pictures, so polling
and this last frame differ only for a test whose passing picture goes away again.

usage: gb_shootout.py list SHOOTOUT
         one line per test, tab-separated: suite, name, key (a file name for it), ROM
         (absolute; "-" when it is not in SHOOTOUT), model, frames, features
       gb_shootout.py judge SHOOTOUT SHOTS OUTDIR EMULATOR...
         reads SHOTS/EMULATOR/KEY.png (or KEY.skip: one line, why the test cannot run
         there, not counted; or KEY.error: why the emulator drew nothing, a failure) for
         every test, writes OUTDIR/results.tsv (the verdict of each emulator on each
         test) and prints the counts: suite ("total" last), emulator, passed, run
The suites judged: SUITES below. The test lists are read from SHOOTOUT's own files (its
Test(...) entries are evaluated with a stand-in for its test module), so they follow it.
"""
import importlib
import math
import os
import sys
import types

# the tree's one PNG reader
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "roms", "gb"))
from scene import read_png  # noqa: E402

SUITES = ["acid", "blargg", "mooneye", "samesuite", "mealybug"]
FRAME_DOTS, CLOCK = 70224, 4194304
THRESHOLD = 50  # the largest luma difference a matching pixel may have
SLACK = 5.0     # seconds the Shootout's runner waits beyond a test's run time


class Test:
    """What the Shootout's Test records (its constructor's keyword arguments)."""

    def __init__(self, name, *, runtime, rom=None, result=None, model="DMG", required_features=None,
                 description=None, url=None, tags=None):
        self.name = name
        self.rom = os.path.join("testroms", rom or name)
        self.model = model
        self.runtime = runtime
        self.features = sorted(required_features or ())
        if result is None:
            result = os.path.splitext(rom or name)[0] + ".png"
        self.results = [os.path.join("testroms", r) for r in (result if isinstance(result, list) else [result])]


def load_tests(root):
    """[(suite, Test)] in the Shootout's order, from root/testroms/<suite>.py."""
    stub = types.ModuleType("test")
    stub.Test, stub.DMG, stub.CGB, stub.SGB, stub.PCM = Test, "DMG", "CGB", "SGB", "PCM"
    sys.modules["test"] = stub
    sys.path.insert(0, root)
    out = []
    for suite in SUITES:
        if not os.path.isfile(os.path.join(root, "testroms", suite + ".py")):
            raise SystemExit("gb_shootout.py: %s/testroms/%s.py is missing (the Shootout's test list)" % (root, suite))
        mod = importlib.import_module("testroms." + suite)
        out += [(suite, t) for t in mod.all]
    return out


def key_of(name):
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def frames_of(t):
    return math.ceil((t.runtime + SLACK) * CLOCK / FRAME_DOTS)


def luma(rgb):
    return [(19595 * rgb[i] + 38470 * rgb[i + 1] + 7471 * rgb[i + 2] + 0x8000) >> 16 for i in range(0, len(rgb), 3)]


_pictures = {}


def picture(path):
    """(w, h, luma) of a PNG, cached; None when there is no such file."""
    if path not in _pictures:
        if os.path.exists(path):
            w, h, rgb = read_png(path)
            _pictures[path] = (w, h, luma(rgb))
        else:
            _pictures[path] = None
    return _pictures[path]


def same(a, b):
    """The Shootout's comparison: the pictures' common area, no luma apart by more than 50."""
    (wa, ha, la), (wb, hb, lb) = a, b
    return all(abs(la[y * wa + x] - lb[y * wb + x]) <= THRESHOLD for y in range(min(ha, hb)) for x in range(min(wa, wb)))


def judge_one(root, t, shot):
    """PASS, FAIL or INFO (no expected picture) for a screenshot's path."""
    passes = [p for p in (picture(os.path.join(root, r)) for r in t.results) if p]
    fails = [p for p in (picture(os.path.join(root, os.path.splitext(r)[0] + ".fail.png")) for r in t.results) if p]
    got = picture(shot)
    if any(same(got, p) for p in passes):
        return "PASS"
    if any(same(got, p) for p in fails) or passes:
        return "FAIL"
    return "INFO"


def cmd_list(root):
    for suite, t in load_tests(root):
        rom = os.path.join(root, t.rom)
        print("\t".join([suite, t.name, key_of(t.name), rom if os.path.exists(rom) else "-", t.model,
                         str(frames_of(t)), ",".join(t.features) or "-"]))


def cmd_judge(root, shots, outdir, emus):
    tests = load_tests(root)
    rows, counts = [], {}
    for suite, t in tests:
        row = [suite, t.name, t.model, str(frames_of(t))]
        for e in emus:
            base = os.path.join(shots, e, key_of(t.name))
            if os.path.exists(base + ".png"):
                v = judge_one(root, t, base + ".png")
            elif os.path.exists(base + ".error"):
                v = "FAIL: " + open(base + ".error").read().strip()
            elif os.path.exists(base + ".skip"):
                v = "skip: " + open(base + ".skip").read().strip()
            else:
                v = "skip: no screenshot"
            row.append(v)
            c = counts.setdefault((suite, e), [0, 0])
            if not v.startswith("skip"):
                c[1] += 1
                c[0] += not v.startswith("FAIL")
        rows.append(row)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "results.tsv"), "w") as f:
        f.write("\t".join(["suite", "test", "model", "frames"] + emus) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    for s in SUITES + ["total"]:
        for e in emus:
            p, n = [sum(counts.get((su, e), [0, 0])[i] for su in SUITES if s in (su, "total")) for i in (0, 1)]
            print("%s\t%s\t%d\t%d" % (s, e, p, n))


def main(argv):
    if len(argv) == 3 and argv[1] == "list":
        cmd_list(argv[2])
    elif len(argv) >= 6 and argv[1] == "judge":
        cmd_judge(argv[2], argv[3], argv[4], argv[5:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
