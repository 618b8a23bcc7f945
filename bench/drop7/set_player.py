#!/usr/bin/env python3
"""set_player.py: names the player a Drop7 checkpoint was made for, in its safetensors
__metadata__ (player_search, player_samples, player_value_weight, player_heuristic_weight),
so that `gpuvet play --net CKPT` / `selfplay` play that search when their flags do not say
otherwise (docs/DROP7.md, "The shipped network"). The tensors are copied byte for byte; the
output is written to a temporary file and renamed.

  python3 bench/drop7/set_player.py IN.st OUT.st --search expectimax1 --samples 4 \
      --value-weight 0.1 --heuristic-weight 1

Exit codes: 0 done, 2 bad input (the file or a flag, one line on stderr).
"""
import argparse
import json
import os
import struct
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inp", metavar="IN.st")
    ap.add_argument("out", metavar="OUT.st")
    ap.add_argument("--search", required=True, choices=["puct", "expectimax0", "expectimax1"])
    ap.add_argument("--samples", type=int, required=True)
    ap.add_argument("--value-weight", type=float, required=True)
    ap.add_argument("--heuristic-weight", type=float, required=True)
    a = ap.parse_args()
    if not 1 <= a.samples <= 16:
        sys.exit(f"set_player.py: --samples {a.samples}: give 1..16")
    for k in ("value_weight", "heuristic_weight"):
        if not 0 <= getattr(a, k) <= 1000:
            sys.exit(f"set_player.py: --{k.replace('_', '-')} {getattr(a, k)}: give 0..1000")
    try:
        with open(a.inp, "rb") as f:
            raw = f.read()
        n = struct.unpack("<Q", raw[:8])[0]
        if len(raw) < 8 or n > len(raw) - 8:
            raise ValueError("the header length passes the end of the file")
        head = json.loads(raw[8:8 + n].decode("utf-8"))
        if not isinstance(head, dict):
            raise ValueError("the header is not a JSON object")
    except (OSError, ValueError, struct.error, UnicodeDecodeError) as e:
        sys.exit(f"set_player.py: {a.inp}: not a safetensors file ({e})")
    meta = head.get("__metadata__") or {}
    meta.update({"player_search": a.search, "player_samples": str(a.samples),
                 "player_value_weight": repr(a.value_weight), "player_heuristic_weight": repr(a.heuristic_weight)})
    head["__metadata__"] = meta
    hb = json.dumps(head, separators=(",", ":")).encode("utf-8")
    hb += b" " * (-len(hb) % 8)  # the data stays 8-byte aligned
    d = os.path.dirname(os.path.abspath(a.out))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".set_player.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(hb)) + hb + raw[8 + n:])
        os.replace(tmp, a.out)
    except OSError as e:
        os.unlink(tmp)
        sys.exit(f"set_player.py: {a.out}: {e}")
    print(f"{a.out}: player {a.search} K{a.samples} leaf {a.value_weight:g}:{a.heuristic_weight:g}")


if __name__ == "__main__":
    main()
