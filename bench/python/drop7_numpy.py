"""drop7_numpy.py: Drop7 in plain NumPy, n games as arrays, written from docs/DROP7.md for
bench/python_env.sh: what a Python user would write without gpuvet (the style of
bench/torch/drop7_reference.py: batched tensors, no loop over games). The same rules,
generator and random player as the project's game, so that its records can be compared with
Drop7Env's before anything is timed.

Board: cell[g, y, x] (y = 0 the top row), codes 0 empty, 1..7 numbers, 8 solid, 9 cracked.
The generator is xoshiro256** seeded by splitmix64 (4 uint64 words per game), draws below n
by rejection of the lowest 2^64 mod n values.
"""
import math

import numpy as np

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
SOLID, CRACKED = 8, 9
FNV_OFFSET, FNV_PRIME = np.uint64(0xcbf29ce484222325), np.uint64(0x100000001b3)
PLAYER_XOR = np.uint64(0x5deece66d2b3c9a1)


def rules(mode="normal"):
    """The numbers of a mode (docs/DROP7.md, "The rules and where they come from")."""
    chain = np.array([0] + [math.isqrt(49 * k ** 5) for k in range(1, 50)], dtype=np.int64)  # floor(7 k^2.5)
    nxt = np.array([0] + [10] * 7 + [30, 0], dtype=np.int64)
    r = dict(drops_first=30, drops_step=1, drops_min=5, level_bonus=7000, clear_bonus=70000, start_discs=12,
             next_w=nxt, start_w=nxt.copy(), reveal_w=np.array([0] + [1] * 7 + [0, 0], dtype=np.int64), chain=chain)
    if mode == "hardcore":
        r.update(drops_first=5, drops_step=0, level_bonus=17000, start_discs=16)
        r["next_w"] = r["next_w"].copy()
        r["next_w"][SOLID] = 0
    return r


def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


def seed_rng(seeds):
    """(n, 4) uint64 states from (n,) seeds: splitmix64 four times."""
    x = seeds.astype(np.uint64).copy()
    s = np.zeros((len(x), 4), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(4):
            x += np.uint64(0x9e3779b97f4a7c15)
            z = x.copy()
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xbf58476d1ce4e5b9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94d049bb133111eb)
            s[:, i] = z ^ (z >> np.uint64(31))
    return s


def next_u64(s, idx):
    """xoshiro256** on the games idx of state s (advanced in place); their outputs."""
    s0, s1, s2, s3 = s[idx, 0], s[idx, 1], s[idx, 2], s[idx, 3]
    with np.errstate(over="ignore"):
        out = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 = s2 ^ s0
    s3 = s3 ^ s1
    s1 = s1 ^ s2
    s0 = s0 ^ s3
    s2 = s2 ^ t
    s3 = _rotl(s3, 45)
    s[idx, 0], s[idx, 1], s[idx, 2], s[idx, 3] = s0, s1, s2, s3
    return out


def below(s, idx, n):
    """Uniform in [0, n) for the games idx (n: an int or an array per game)."""
    n = np.broadcast_to(np.asarray(n, dtype=np.uint64), idx.shape).copy()
    lim = (np.uint64(0) - n) % n
    out = np.zeros(len(idx), dtype=np.uint64)
    todo = np.arange(len(idx))
    while len(todo):
        x = next_u64(s, idx[todo])
        ok = x >= lim[todo]
        out[todo[ok]] = x[ok] % n[todo[ok]]
        todo = todo[~ok]
    return out


def draw_code(s, idx, w):
    """A code 1..9 with probability w[c] / sum(w) for the games idx."""
    r = below(s, idx, int(w[1:].sum())).astype(np.int64)
    cum = np.cumsum(w[1:])
    return 1 + (r[:, None] >= cum[None, :]).sum(axis=1)


def _runs(occ):
    """Horizontal run length through each cell of (k, 7, 7) occupancy."""
    left = np.zeros(occ.shape, dtype=np.int64)
    right = np.zeros(occ.shape, dtype=np.int64)
    for x in range(7):
        left[:, :, x] = occ[:, :, x] * ((left[:, :, x - 1] if x else 0) + 1)
        xr = 6 - x
        right[:, :, xr] = occ[:, :, xr] * ((right[:, :, xr + 1] if xr < 6 else 0) + 1)
    return left + right - 1


def exploding(cell):
    occ = (cell > 0).astype(np.int64)
    num = (cell >= 1) & (cell <= 7)
    height = occ.sum(axis=1, keepdims=True)          # columns are packed from the bottom
    return num & ((_runs(occ) == cell) | (height == cell))


def gravity(cell):
    order = np.argsort(cell > 0, axis=1, kind="stable")   # empties first (top), discs keep order
    return np.take_along_axis(cell, order, axis=1)


class Games:
    """n games from seeds; the fields of a record as arrays."""

    def __init__(self, seeds, mode="normal", max_moves=5000):
        self.R = rules(mode)
        self.max_moves = max_moves
        self.seed = np.asarray(seeds, dtype=np.uint64)
        n = self.n = len(self.seed)
        self.rng = seed_rng(self.seed)
        self.prng = seed_rng(self.seed ^ PLAYER_XOR)
        self.cell = np.zeros((n, 7, 7), dtype=np.int64)
        z = lambda: np.zeros(n, dtype=np.int64)  # noqa: E731
        self.score, self.nmoves, self.chain_steps, self.max_chain, self.exploded, self.clears = z(), z(), z(), z(), z(), z()
        self.level = np.ones(n, dtype=np.int64)
        self.drops_left = np.full(n, self.drops(1))
        self.over = z()
        self.hash = np.full(n, FNV_OFFSET, dtype=np.uint64)
        placed = z()
        idx_all = np.arange(n)
        for _ in range(4 * self.R["start_discs"]):
            idx = idx_all[placed < self.R["start_discs"]]
            if not len(idx):
                break
            x = below(self.rng, idx, 7).astype(np.int64)
            code = draw_code(self.rng, idx, self.R["start_w"])
            h = (self.cell[idx, :, x] > 0).sum(axis=1)
            room = h < 7
            idx, x, code, h = idx[room], x[room], code[room], h[room]
            self.cell[idx, 6 - h, x] = code
            bad = exploding(self.cell[idx]).any(axis=(1, 2))
            self.cell[idx[bad], 6 - h[bad], x[bad]] = 0
            placed[idx[~bad]] += 1
        self.next = draw_code(self.rng, idx_all, self.R["next_w"])

    def drops(self, level):
        R = self.R
        return np.maximum(R["drops_min"], R["drops_first"] - R["drops_step"] * (level - 1))

    def legal(self):
        """(n, 7) bool: columns with room, none once a game is over."""
        return (self.cell[:, 0, :] == 0) & (self.over == 0)[:, None]

    def resolve(self, idx, step0):
        """Chains of the games idx; returns the steps each made."""
        R = self.R
        step = np.broadcast_to(np.asarray(step0, dtype=np.int64), idx.shape).copy()
        steps = np.zeros(len(idx), dtype=np.int64)
        live = np.arange(len(idx))
        while len(live):
            g = idx[live]
            c = self.cell[g]
            X = exploding(c)
            any_x = X.any(axis=(1, 2))
            live, g, c, X = live[any_x], g[any_x], c[any_x], X[any_x]
            if not len(live):
                break
            step[live] += 1
            steps[live] += 1
            cnt = X.sum(axis=(1, 2))
            self.score[g] += cnt * R["chain"][np.minimum(step[live], 49)]
            self.exploded[g] += cnt
            Xi = X.astype(np.int64)
            nb = np.zeros_like(Xi)
            nb[:, 1:, :] += Xi[:, :-1, :]
            nb[:, :-1, :] += Xi[:, 1:, :]
            nb[:, :, 1:] += Xi[:, :, :-1]
            nb[:, :, :-1] += Xi[:, :, 1:]
            solid, cracked = c == SOLID, c == CRACKED
            ge1, ge2 = nb >= 1, nb >= 2
            reveal = (cracked & ge1) | (solid & ge2)
            c[solid & ge1 & ~ge2] = CRACKED
            # numbers drawn columns left to right, each bottom to top, before the discs fall
            for x in range(7):
                for y in range(6, -1, -1):
                    k = np.flatnonzero(reveal[:, y, x])
                    if len(k):
                        c[k, y, x] = draw_code(self.rng, g[k], R["reveal_w"])
            c[X] = 0
            self.cell[g] = gravity(c)
        done = steps > 0
        g = idx[done]
        self.chain_steps[g] += steps[done]
        self.max_chain[g] = np.maximum(self.max_chain[g], step[done])
        empty = ~(self.cell[g] > 0).any(axis=(1, 2))
        self.score[g[empty]] += R["clear_bonus"]
        self.clears[g[empty]] += 1
        return steps

    def step(self, cols):
        """Plays cols (n,) in the games still running (legal columns)."""
        R = self.R
        idx = np.flatnonzero((self.over == 0) & (self.nmoves < self.max_moves))
        x = cols[idx]
        with np.errstate(over="ignore"):
            self.hash[idx] = (self.hash[idx] ^ x.astype(np.uint64)) * FNV_PRIME
        h = (self.cell[idx, :, x] > 0).sum(axis=1)
        self.cell[idx, 6 - h, x] = self.next[idx]
        self.resolve(idx, 0)
        self.nmoves[idx] += 1
        self.drops_left[idx] -= 1
        rise = idx[self.drops_left[idx] == 0]
        top = (self.cell[rise, 0, :] > 0).any(axis=1)
        self.over[rise[top]] = 2
        self.next[rise[top]] = 0
        up = rise[~top]
        self.cell[up, :-1, :] = self.cell[up, 1:, :]
        self.cell[up, 6, :] = SOLID
        self.score[up] += R["level_bonus"]
        self.level[up] += 1
        self.drops_left[up] = self.drops(self.level[up])
        self.resolve(up, 0)
        run = idx[self.over[idx] == 0]
        full = (self.cell[run, 0, :] > 0).all(axis=1)
        self.over[run[full]] = 1
        self.next[run[full]] = 0
        go = run[~full]
        self.next[go] = draw_code(self.rng, go, R["next_w"])

    def pick_random(self):
        """The random player: a uniform legal column from each game's own generator."""
        legal = self.legal()
        idx = np.flatnonzero(legal.any(axis=1) & (self.nmoves < self.max_moves))
        k = below(self.prng, idx, legal[idx].sum(axis=1)).astype(np.int64)
        cols = np.zeros(self.n, dtype=np.int64)
        rank = np.cumsum(legal[idx], axis=1) - 1
        cols[idx] = np.argmax(legal[idx] & (rank == k[:, None]), axis=1)
        return cols

    def running(self):
        return (self.over == 0) & (self.nmoves < self.max_moves)

    def encode(self):
        """(n, 12, 7, 7) float32 planes, as the project's encoder."""
        out = np.zeros((self.n, 12, 7, 7), dtype=np.float32)
        np.put_along_axis(out, self.cell[:, None, :, :], 1.0, axis=1)
        nv = np.where((self.next >= 1) & (self.next <= 7), self.next, 0).astype(np.float32) / np.float32(7)
        out[:, 10] = nv[:, None, None]
        out[:, 11] = (self.drops_left.astype(np.float32) / np.float32(30))[:, None, None]
        return out
