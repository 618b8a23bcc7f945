"""compare_datasets.py: two self-play datasets of the same network, seeds and settings (one
played with --devices cpu, one with --devices cuda) compared position by position, for issue
40's "CPU and GPU self-play give the same datasets where the arithmetic is exact".

  python3 bench/drop7/compare_datasets.py A.st B.st [TOL]     (a python3 with torch and numpy)

The network's arithmetic is not the same on both sides (OpenBLAS on the CPU, cuBLAS/cuDNN on
the GPU: the sums run in another order), so leaf values differ in their last bits, and a search
whose best two columns are that close can pick another one; from there that game's positions
differ. The script says how far the datasets agree: the metadata (every key but the devices'),
the position count, the positions equal bit for bit (planes, policy and value), the first one
that differs and, over the positions whose planes are equal, the largest policy and value
differences (TOL, default 0: a difference above it counts).
Exit 0 when the datasets are equal (within TOL), 1 when they differ, 2 on bad input.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch"))
import safetensors_io  # noqa: E402  (the tree's safetensors reader)


def load(path):
    """({name: NumPy array}, metadata) of a dataset; a file that is not one: exit 2."""
    try:
        t, meta = safetensors_io.load(path)
    except (OSError, ValueError, KeyError, IndexError, RuntimeError) as e:
        print("compare_datasets.py: %s: not a safetensors dataset (%s)" % (path, e), file=sys.stderr)
        sys.exit(2)
    return {k: v.numpy() for k, v in t.items()}, meta


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    (a, ma), (b, mb) = load(sys.argv[1]), load(sys.argv[2])
    tol = float(sys.argv[3]) if len(sys.argv) == 4 else 0.0
    skip = {"devices", "device", "created", "time"}
    meta_diff = sorted(k for k in set(ma) | set(mb) if k not in skip and ma.get(k) != mb.get(k))
    print("metadata: %s" % ("equal" if not meta_diff else "differs in " + ", ".join(
        "%s (%s vs %s)" % (k, ma.get(k), mb.get(k)) for k in meta_diff)))
    na, nb = len(a["value"]), len(b["value"])
    n = min(na, nb)
    pl = (a["planes"][:n] == b["planes"][:n]).reshape(n, -1).all(1)
    dp = np.abs(a["policy"][:n].astype(np.float64) - b["policy"][:n]).max(1)
    dv = np.abs(a["value"][:n].astype(np.float64) - b["value"][:n])
    same = pl & (dp <= tol) & (dv <= tol)
    print("positions: %d and %d; %d of the first %d equal (planes bit for bit, policy and value within %g)" % (
        na, nb, int(same.sum()), n, tol))
    if pl.any():
        print("over the %d positions whose planes are equal: policy differs by at most %.3g, value by at most %.3g" % (
            int(pl.sum()), float(dp[pl].max()), float(dv[pl].max())))
    bad = np.flatnonzero(~same)
    if len(bad) or na != nb or meta_diff:
        if len(bad):
            print("first difference: position %d; positions differing: %d" % (int(bad[0]), len(bad)))
        print("verdict: the datasets differ")
        sys.exit(1)
    print("verdict: the datasets are the same (%d positions)" % n)


if __name__ == "__main__":
    main()
