#!/usr/bin/env python3
"""gsu_model.py: a plain-Python model of the Super FX (GSU) for gpuvet's GSU test ROM,
written from fullsnes ("SNES Cart GSU-n": memory map, I/O ports, bitmap ports, opcode
tables with their flags, prefixes, the jump notes, code cache and pixel cache). It shares no
code with src/emu/snes/snes_gsu.c and is organised differently: opcodes are decoded into
(mnemonic, operand) through one table per ALT state, and the byte after a jump is modelled
as an address stream (the next fetch comes from the byte after the jump, the one after it
from the target) instead of a prefetch register. No timing: results only.

Used by tests/roms/snes/gen_gsu.py (which builds the test ROM's cases and their expected
registers and RAM sums); plain Python 3, no modules beyond the standard library."""

M16 = 0xFFFF

# flag bits of SFR
FZ, FCY, FS, FOV, FGO, FIRQ = 0x02, 0x04, 0x08, 0x10, 0x20, 0x8000


def _decode_tables():
    """(alt, opcode) -> (mnemonic, n): alt 0-3. ALT combinations an opcode lacks fall back
    (ALT3 to ALT1 to none, ALT2 to none), as fullsnes "Ignored Prefixes" says."""
    base = {}
    for op in range(256):
        hi, n = op >> 4, op & 15
        m = None
        if op == 0x00: m = "stop"
        elif op == 0x01: m = "nop"
        elif op == 0x02: m = "cache"
        elif op == 0x03: m = "lsr"
        elif op == 0x04: m = "rol"
        elif op <= 0x0F: m = "branch"
        elif hi == 0x1: m = "to"
        elif hi == 0x2: m = "with"
        elif hi == 0x3: m = {12: "loop", 13: "alt1", 14: "alt2", 15: "alt3"}.get(n, "stw")
        elif hi == 0x4: m = {12: "plot", 13: "swap", 14: "color", 15: "not"}.get(n, "ldw")
        elif hi == 0x5: m = "add"
        elif hi == 0x6: m = "sub"
        elif hi == 0x7: m = "merge" if n == 0 else "and"
        elif hi == 0x8: m = "mult"
        elif hi == 0x9: m = ["sbk", "link", "link", "link", "link", "sex", "asr", "ror", "jmp", "jmp", "jmp", "jmp",
                             "jmp", "jmp", "lob", "fmult"][n]
        elif hi == 0xA: m = "ibt"
        elif hi == 0xB: m = "from"
        elif hi == 0xC: m = "hib" if n == 0 else "or"
        elif hi == 0xD: m = "getc" if n == 15 else "inc"
        elif hi == 0xE: m = "getb" if n == 15 else "dec"
        else: m = "iwt"
        base[op] = m
    alt1 = {"stw": "stb", "ldw": "ldb", "plot": "rpix", "color": "cmode", "add": "adc", "sub": "sbc", "and": "bic",
            "mult": "umult", "asr": "div2", "jmp": "ljmp", "fmult": "lmult", "ibt": "lms", "or": "xor",
            "getb": "getbh", "iwt": "lm"}
    alt2 = {"add": "add#", "sub": "sub#", "and": "and#", "mult": "mult#", "ibt": "sms", "or": "or#", "getc": "ramb",
            "getb": "getbl", "iwt": "sm"}
    alt3 = {"add": "adc#", "sub": "cmp", "and": "bic#", "mult": "umult#", "or": "xor#", "getc": "romb",
            "getb": "getbs"}
    tables = []
    for alt in range(4):
        t = {}
        for op, m in base.items():
            if alt == 1:
                m = alt1.get(m, m)
            elif alt == 2:
                m = alt2.get(m, m)
            elif alt == 3:
                m = alt3.get(m, alt1.get(m, m))
            t[op] = (m, op & 15)
        tables.append(t)
    return tables


TABLES = _decode_tables()
PREFIXES = {"alt1", "alt2", "alt3", "to", "with", "from"}


def s8(v):
    v &= 0xFF
    return v - 256 if v & 0x80 else v


def s16(v):
    v &= M16
    return v - 65536 if v & 0x8000 else v


class Gsu:
    def __init__(self, rom, ram_size):
        self.rom = rom                       # the cartridge's ROM (a power of two long)
        self.ram = bytearray(ram_size)
        self.r = [0] * 16
        self.sfr = 0
        self.pbr = self.rombr = self.rambr = 0
        self.scbr = self.scmr = 0
        self.colr = self.por = 0
        self.alt = 0
        self.bflag = False
        self.src = self.dst = 0
        self.pc = 0              # address of the next byte to fetch
        self.then = None         # after the next fetch, continue here (a jump)
        self.romb_byte = 0
        self.last_ram = 0
        self.cbr = 0
        self.lines = set()       # cache lines (0-31) holding code
        self.cache = bytearray(512)
        self.pix = None          # pixel cache: (x & F8, y), {x & 7: colour}

    # ---- memory ---------------------------------------------------------------------------
    def read(self, bank, addr):
        bank &= 0x7F
        if bank < 0x40:
            return self.rom[((bank << 15) | (addr & 0x7FFF)) % len(self.rom)]
        if bank < 0x60:
            return self.rom[(((bank - 0x40) << 16) | addr) % len(self.rom)]
        if bank in (0x70, 0x71):
            return self.ram[(((bank - 0x70) << 16) | addr) % len(self.ram)]
        return 0

    def ram_index(self, addr):
        return ((self.rambr << 16) | (addr & M16)) % len(self.ram)

    def load_word(self, addr):
        self.last_ram = addr & M16
        lo = self.ram[self.ram_index(addr)]
        hi = self.ram[self.ram_index(addr ^ 1)]
        return lo | hi << 8

    def store_word(self, addr, v):
        self.last_ram = addr & M16
        self.ram[self.ram_index(addr)] = v & 0xFF
        self.ram[self.ram_index(addr ^ 1)] = (v >> 8) & 0xFF

    def fetch(self):
        a = self.pc
        if (a - self.cbr) & M16 < 512 and ((a >> 4) & 31) in self.lines:
            b = self.cache[a & 0x1FF]
        else:
            b = self.read(self.pbr, a)
        if self.then is not None:
            self.pc, self.then = self.then, None
        else:
            self.pc = (a + 1) & M16
        return b

    # ---- registers ------------------------------------------------------------------------
    def get(self, n):
        return self.pc if n == 15 else self.r[n]

    def put(self, n, v):
        v &= M16
        if n == 15:
            self.then = v        # the byte at pc runs first, then v
            self.r[15] = v
            return
        self.r[n] = v
        if n == 14:
            self.romb_byte = self.read(self.rombr, v)

    def flag(self, f, on):
        self.sfr = (self.sfr | f) if on else (self.sfr & ~f)

    def sz(self, v):
        self.flag(FS, v & 0x8000)
        self.flag(FZ, (v & M16) == 0)

    def out(self, v):
        self.sz(v)
        self.put(self.dst, v)

    # ---- bitmap ---------------------------------------------------------------------------
    def bpp(self):
        return {0: 2, 1: 4, 2: 4, 3: 8}[self.scmr & 3]

    def pixel_at(self, x, y):
        """(byte offset of the pixel's plane 0 in RAM, bit)"""
        height = [128, 160, 192, None][(self.scmr >> 2 & 1) | (self.scmr >> 4 & 2)]
        if self.por & 0x10:
            height = None
        if height is None:  # OBJ mode: four 128x128 quarters of 16x16 tiles
            tile = (y // 128) * 0x200 + (x // 128) * 0x100 + (y // 8 % 16) * 0x10 + (x // 8 % 16)
        else:
            tile = (x // 8) * (height // 8) + y // 8
        return self.scbr * 0x400 + tile * self.bpp() * 8 + (y % 8) * 2, 7 - x % 8

    def plane_index(self, base, p):
        return (base + (p // 2) * 16 + p % 2) % len(self.ram)

    def flush_pixels(self):
        if not self.pix:
            return
        (x0, y), cols = self.pix
        self.pix = None
        base, _ = self.pixel_at(x0, y)
        for p in range(self.bpp()):
            i = self.plane_index(base, p)
            for xi, c in cols.items():
                bit = 7 - xi
                self.ram[i] = (self.ram[i] & ~(1 << bit)) | (((c >> p) & 1) << bit)

    def do_plot(self):
        x, y = self.r[1] & 0xFF, self.r[2] & 0xFF
        c = self.colr
        depth = self.scmr & 3
        if self.por & 2 and depth != 3 and (x + y) % 2 == 1:
            c >>= 4
        bits = {0: 2, 1: 4, 2: 4, 3: 4 if self.por & 8 else 8}[depth]
        if self.por & 1 or c % (1 << bits):
            key = (x & 0xF8, y)
            if self.pix and self.pix[0] != key:
                self.flush_pixels()
            if not self.pix:
                self.pix = (key, {})
            self.pix[1][x & 7] = c
            if len(self.pix[1]) == 8:
                self.flush_pixels()
        self.r[1] = (self.r[1] + 1) & M16

    def do_rpix(self):
        self.flush_pixels()
        x, y = self.r[1] & 0xFF, self.r[2] & 0xFF
        base, bit = self.pixel_at(x, y)
        return sum(((self.ram[self.plane_index(base, p)] >> bit) & 1) << p for p in range(self.bpp()))

    def set_color(self, v):
        v &= 0xFF
        if self.por & 4:
            v = (v & 0xF0) | (v >> 4)
        self.colr = (self.colr & 0xF0) | (v & 0x0F) if self.por & 8 else v

    # ---- arithmetic -----------------------------------------------------------------------
    def addition(self, a, b, c, keep=True):
        t = a + b + c
        v = t & M16
        self.flag(FCY, t > M16)
        self.flag(FOV, s16(a) + s16(b) + c != s16(v))
        self.out(v) if keep else self.sz(v)

    def subtraction(self, a, b, borrow, keep=True):
        t = a - b - borrow
        v = t & M16
        self.flag(FCY, t >= 0)
        self.flag(FOV, s16(a) - s16(b) - borrow != s16(v))
        self.out(v) if keep else self.sz(v)

    # ---- one opcode -----------------------------------------------------------------------
    def step(self):
        op = self.fetch()
        m, n = TABLES[self.alt][op]
        rs = self.get(self.src)
        keep_prefix = False
        if m == "branch":
            e = s8(self.fetch())
            f = self.sfr
            s, ov, z, cy = bool(f & FS), bool(f & FOV), bool(f & FZ), bool(f & FCY)
            cond = {5: True, 6: s == ov, 7: s != ov, 8: not z, 9: z, 10: not s, 11: s, 12: not cy, 13: cy,
                    14: not ov, 15: ov}[op]
            if cond:
                self.put(15, self.pc + e)
            return
        if m in ("alt1", "alt2", "alt3"):
            self.alt = {"alt1": 1, "alt2": 2, "alt3": 3}[m]
            return
        if m == "with":
            self.src = self.dst = n
            self.bflag = True
            return
        if m == "to" and not self.bflag:
            self.dst = n
            return
        if m == "from" and not self.bflag:
            self.src = n
            return
        if m == "to":                    # MOVE Rn = Rs
            self.put(n, rs)
        elif m == "from":                # MOVES Rd = Rn
            v = self.get(n)
            self.flag(FOV, v & 0x80)
            self.out(v)
        elif m == "stop":
            self.sfr = (self.sfr & ~FGO) | FIRQ
            self.fetch()                 # the byte after STOP is fetched, not run
        elif m == "nop":
            pass
        elif m == "cache":
            if self.cbr != self.pc & 0xFFF0:
                self.cbr = self.pc & 0xFFF0
                self.lines = set()
        elif m == "lsr":
            self.flag(FCY, rs & 1)
            self.out(rs >> 1)
        elif m == "rol":
            v = ((rs << 1) | (1 if self.sfr & FCY else 0)) & M16
            self.flag(FCY, rs & 0x8000)
            self.out(v)
        elif m == "ror":
            v = (rs >> 1) | (0x8000 if self.sfr & FCY else 0)
            self.flag(FCY, rs & 1)
            self.out(v)
        elif m == "asr":
            self.flag(FCY, rs & 1)
            self.out(s16(rs) >> 1)
        elif m == "div2":
            self.flag(FCY, rs & 1)
            self.out(0 if rs == M16 else s16(rs) >> 1)
        elif m == "stw":
            self.store_word(self.r[n], rs)
        elif m == "stb":
            self.last_ram = self.r[n]
            self.ram[self.ram_index(self.r[n])] = rs & 0xFF
        elif m == "ldw":
            self.put(self.dst, self.load_word(self.r[n]))
        elif m == "ldb":
            self.last_ram = self.r[n]
            self.put(self.dst, self.ram[self.ram_index(self.r[n])])
        elif m == "loop":
            self.r[12] = (self.r[12] - 1) & M16
            self.sz(self.r[12])
            if self.r[12]:
                self.put(15, self.r[13])
        elif m == "plot":
            self.do_plot()
        elif m == "rpix":
            self.out(self.do_rpix())
        elif m == "swap":
            self.out(((rs & 0xFF) << 8) | (rs >> 8))
        elif m == "color":
            self.set_color(rs)
        elif m == "cmode":
            self.por = rs & 0x1F
        elif m == "not":
            self.out(rs ^ M16)
        elif m in ("add", "adc", "add#", "adc#"):
            b = n if m.endswith("#") else self.get(n)
            self.addition(rs, b, 1 if m.startswith("adc") and self.sfr & FCY else 0)
        elif m in ("sub", "sbc", "sub#", "cmp"):
            b = n if m == "sub#" else self.get(n)
            self.subtraction(rs, b, 1 if m == "sbc" and not self.sfr & FCY else 0, m != "cmp")
        elif m == "merge":
            v = (self.r[7] & 0xFF00) | (self.r[8] >> 8)
            self.flag(FS, v & 0x8080)
            self.flag(FOV, v & 0xC0C0)
            self.flag(FCY, v & 0xE0E0)
            self.flag(FZ, v & 0xF0F0)
            self.put(self.dst, v)
        elif m in ("and", "bic", "and#", "bic#", "or", "xor", "or#", "xor#"):
            b = n if m.endswith("#") else self.get(n)
            k = m.rstrip("#")
            v = {"and": rs & b, "bic": rs & ~b & M16, "or": rs | b, "xor": rs ^ b}[k]
            self.out(v)
        elif m in ("mult", "umult", "mult#", "umult#"):
            b = n if m.endswith("#") else self.get(n)
            v = (rs & 0xFF) * (b & 0xFF) if m.startswith("u") else s8(rs) * s8(b)
            self.out(v & M16)
        elif m in ("fmult", "lmult"):
            p = s16(rs) * s16(self.r[6])
            self.flag(FCY, (p >> 15) & 1)
            if m == "lmult":
                self.put(4, p & M16)
            self.out((p >> 16) & M16)
        elif m == "sbk":
            self.store_word(self.last_ram, rs)
        elif m == "link":
            self.put(11, self.pc + n)
        elif m == "sex":
            self.out(s8(rs) & M16)
        elif m == "jmp":
            self.put(15, self.get(n))
        elif m == "ljmp":
            self.pbr = self.get(n) & 0xFF
            self.put(15, rs)
            self.cbr = rs & 0xFFF0
            self.lines = set()
        elif m == "lob":
            v = rs & 0xFF
            self.flag(FS, v & 0x80)
            self.flag(FZ, v == 0)
            self.put(self.dst, v)
        elif m == "hib":
            v = rs >> 8
            self.flag(FS, v & 0x80)
            self.flag(FZ, v == 0)
            self.put(self.dst, v)
        elif m == "ibt":
            self.put(n, s8(self.fetch()) & M16)
        elif m == "lms":
            self.put(n, self.load_word(self.fetch() * 2))
        elif m == "sms":
            self.store_word(self.fetch() * 2, self.get(n))
        elif m in ("iwt", "lm", "sm"):
            lo = self.fetch()
            a = lo | self.fetch() << 8
            if m == "iwt":
                self.put(n, a)
            elif m == "lm":
                self.put(n, self.load_word(a))
            else:
                self.store_word(a, self.get(n))
        elif m == "inc":
            v = (self.r[n] + 1) & M16
            self.sz(v)
            self.put(n, v)
        elif m == "dec":
            v = (self.r[n] - 1) & M16
            self.sz(v)
            self.put(n, v)
        elif m == "getc":
            self.set_color(self.romb_byte)
        elif m == "ramb":
            self.rambr = rs & 1
        elif m == "romb":
            self.rombr = rs & 0xFF
        elif m in ("getb", "getbh", "getbl", "getbs"):
            b = self.romb_byte
            v = {"getb": b, "getbh": (rs & 0xFF) | b << 8, "getbl": (rs & 0xFF00) | b, "getbs": s8(b) & M16}[m]
            self.put(self.dst, v)
        else:
            raise AssertionError(m)
        if not keep_prefix:
            self.alt = 0
            self.bflag = False
            self.src = self.dst = 0

    # ---- the SNES's side ------------------------------------------------------------------
    def start(self, r15, limit=1000000):
        """The SNES writes R15 (setting GO): runs to STOP; returns the opcodes run."""
        self.pc = r15 & M16
        self.then = None
        self.sfr |= FGO
        k = 0
        while self.sfr & FGO:
            self.step()
            k += 1
            if k > limit:
                raise RuntimeError("GSU program at %#x does not stop" % r15)
        self.r[15] = self.pc if self.then is None else self.then
        return k

    def sfr_word(self):
        return self.sfr | (0x100 if self.alt & 1 else 0) | (0x200 if self.alt & 2 else 0) | (0x1000 if self.bflag else 0)

    def snes_clear_go(self):
        """The SNES writes SFR with GO = 0: CBR = 0, the code cache emptied."""
        self.sfr &= ~FGO
        self.cbr = 0
        self.lines = set()

    def snes_cache_write(self, i, v):
        self.cache[i] = v
        if i % 16 == 15:
            self.lines.add(i // 16)
