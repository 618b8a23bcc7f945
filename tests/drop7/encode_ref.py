#!/usr/bin/env python3
"""encode_ref.py: an independent reference of the Drop7 input encoding, written from the
docstring of bench/torch/drop7_reference.py, for tests/drop7/test_drop7_encode.c.

    input (N, 12, 7, 7) planes: 0 empty, 1..7 disc value 1..7, 8 solid cover,
    9 cracked cover, 10 next-disc value / 7 (constant plane),
    11 moves-until-rise / 30 (constant plane); flatten order c*49 + y*7 + x.

Fixed by docs/DROP7.md: y = 0 is the top row; a covered next disc has value 0; the
values are float32 (the quotient rounded once to float32). Also the legal-move mask:
bit x set when column x's top cell is empty and the game is not over.

usage: encode_ref.py POSITIONS PLANES_OUT LEGAL_OUT
POSITIONS is text: a line with the count N, then per position a line
"next drops_left over" (next: 0..9, 8 solid, 9 cracked) and 7 lines of 7 characters,
top row first ('.' empty, '1'..'7', 'S' solid, 'C' cracked). PLANES_OUT gets
(N, 12, 7, 7) float32 little-endian, LEGAL_OUT N bytes.
"""
import sys

import numpy as np

CELL = {".": 0, "S": 8, "C": 9}
CELL.update({str(v): v for v in range(1, 8)})


def encode(rows, nxt, drops_left):
    x = np.zeros((12, 7, 7), dtype=np.float32)
    for y in range(7):
        for col in range(7):
            x[CELL[rows[y][col]], y, col] = 1.0
    value = nxt if 1 <= nxt <= 7 else 0
    x[10, :, :] = np.float32(value) / np.float32(7)
    x[11, :, :] = np.float32(drops_left) / np.float32(30)
    return x


def legal(rows, over):
    if over:
        return 0
    return sum(1 << col for col in range(7) if rows[0][col] == ".")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    lines = open(sys.argv[1]).read().split("\n")
    n = int(lines[0])
    planes = np.zeros((n, 12, 7, 7), dtype=np.float32)
    masks = np.zeros(n, dtype=np.uint8)
    k = 1
    for i in range(n):
        nxt, drops_left, over = (int(t) for t in lines[k].split())
        rows = lines[k + 1:k + 8]
        assert all(len(r) == 7 for r in rows), f"position {i}: bad rows {rows}"
        k += 8
        planes[i] = encode(rows, nxt, drops_left)
        masks[i] = legal(rows, over)
    planes.astype("<f4").tofile(sys.argv[2])
    masks.tofile(sys.argv[3])


if __name__ == "__main__":
    main()
