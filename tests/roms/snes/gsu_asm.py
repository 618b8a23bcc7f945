#!/usr/bin/env python3
"""gsu_asm.py: a Super FX (GSU) code emitter for gpuvet's own SNES test ROMs: one method per
mnemonic (the native syntax of the GSU's manual, as fullsnes "SNES Cart GSU-n CPU ..."
tabulates it, ALT1/ALT2/ALT3 opcodes spelled as their own mnemonics), labels and the
branches' 8-bit displacements (relative to the address after the branch). Python keywords
take a trailing underscore (and_, or_, not_, with_, from_). Used by gen_gsu.py; plain
Python 3. Written for gpuvet; anyone may use, copy and redistribute it (CC0)."""


class GsuAsm:
    BRANCH = {"bra": 0x05, "bge": 0x06, "blt": 0x07, "bne": 0x08, "beq": 0x09, "bpl": 0x0A, "bmi": 0x0B,
              "bcc": 0x0C, "bcs": 0x0D, "bvc": 0x0E, "bvs": 0x0F}

    def __init__(self, org):
        self.org = org
        self.code = bytearray()
        self.labels = {}
        self.fixups = []  # (offset of the displacement byte, label)

    def here(self):
        return self.org + len(self.code)

    def label(self, name):
        if name in self.labels:
            raise ValueError("label %s twice" % name)
        self.labels[name] = self.here()

    def emit(self, *bs):
        for b in bs:
            if not 0 <= b <= 0xFF:
                raise ValueError("byte %r" % b)
            self.code.append(b)

    @staticmethod
    def _reg(n, lo=0, hi=15):
        if not lo <= n <= hi:
            raise ValueError("register r%d not allowed here (r%d-r%d)" % (n, lo, hi))
        return n

    def branch(self, name, target):
        self.emit(self.BRANCH[name], 0)
        self.fixups.append((len(self.code) - 1, target))

    def __getattr__(self, name):  # bra/bge/... label
        if name in GsuAsm.BRANCH:
            return lambda target: self.branch(name, target)
        raise AttributeError(name)

    # ---- prefixes ---------------------------------------------------------------------
    def to(self, n): self.emit(0x10 | self._reg(n))
    def with_(self, n): self.emit(0x20 | self._reg(n))
    def from_(self, n): self.emit(0xB0 | self._reg(n))
    def move(self, d, s): self.with_(s); self.to(d)          # Rd = Rs
    def moves(self, d, s): self.with_(d); self.from_(s)      # Rd = Rs, flags

    # ---- operand-less opcodes: FIXED_OPS below; with a register in the opcode ----------
    def link(self, n): self.emit(0x90 | self._reg(n, 1, 4))
    def jmp(self, n): self.emit(0x90 | self._reg(n, 8, 13))
    def ljmp(self, n): self.emit(0x3D, 0x90 | self._reg(n, 8, 13))

    # ---- immediates and memory ------------------------------------------------------------
    def ibt(self, n, v):
        if not -128 <= v <= 255:
            raise ValueError("ibt #%d" % v)
        self.emit(0xA0 | self._reg(n), v & 0xFF)

    def lms(self, n, a):
        if a & 1 or not 0 <= a <= 0x1FE:
            raise ValueError("lms address %#x" % a)
        self.emit(0x3D, 0xA0 | self._reg(n), a >> 1)

    def sms(self, a, n):
        if a & 1 or not 0 <= a <= 0x1FE:
            raise ValueError("sms address %#x" % a)
        self.emit(0x3E, 0xA0 | self._reg(n), a >> 1)

    def iwt(self, n, v):
        v &= 0xFFFF
        self.emit(0xF0 | self._reg(n), v & 0xFF, v >> 8)

    def lm(self, n, a):
        self.emit(0x3D, 0xF0 | self._reg(n), a & 0xFF, (a >> 8) & 0xFF)

    def sm(self, a, n):
        self.emit(0x3E, 0xF0 | self._reg(n), a & 0xFF, (a >> 8) & 0xFF)

    def assemble(self):
        for at, target in self.fixups:
            dest = self.labels[target] if isinstance(target, str) else target
            d = dest - (self.org + at + 1)
            if not -128 <= d <= 127:
                raise ValueError("branch to %s out of reach (%d)" % (target, d))
            self.code[at] = d & 0xFF
        self.fixups = []
        return bytes(self.code)


# The opcodes with a register or 4-bit immediate in the low nibble: name -> (ALT prefix byte
# or None, high nibble, lowest and highest operand).
NIBBLE_OPS = {
    "stw": (None, 0x30, 0, 11), "stb": (0x3D, 0x30, 0, 11), "ldw": (None, 0x40, 0, 11), "ldb": (0x3D, 0x40, 0, 11),
    "add": (None, 0x50, 0, 15), "adc": (0x3D, 0x50, 0, 15), "add_i": (0x3E, 0x50, 0, 15), "adc_i": (0x3F, 0x50, 0, 15),
    "sub": (None, 0x60, 0, 15), "sbc": (0x3D, 0x60, 0, 15), "sub_i": (0x3E, 0x60, 0, 15), "cmp": (0x3F, 0x60, 0, 15),
    "and_": (None, 0x70, 1, 15), "bic": (0x3D, 0x70, 1, 15), "and_i": (0x3E, 0x70, 1, 15), "bic_i": (0x3F, 0x70, 1, 15),
    "mult": (None, 0x80, 0, 15), "umult": (0x3D, 0x80, 0, 15), "mult_i": (0x3E, 0x80, 0, 15),
    "umult_i": (0x3F, 0x80, 0, 15),
    "or_": (None, 0xC0, 1, 15), "xor": (0x3D, 0xC0, 1, 15), "or_i": (0x3E, 0xC0, 1, 15), "xor_i": (0x3F, 0xC0, 1, 15),
    "inc": (None, 0xD0, 0, 14), "dec": (None, 0xE0, 0, 14),
}


def _nibble_op(prefix, base, lo, hi):
    def emit(self, n):
        n = self._reg(n, lo, hi)
        if prefix is None:
            self.emit(base | n)
        else:
            self.emit(prefix, base | n)
    return emit


for _name, _spec in NIBBLE_OPS.items():
    setattr(GsuAsm, _name, _nibble_op(*_spec))


# The opcodes without an operand: name -> their bytes (ALT prefix first).
FIXED_OPS = {
    "alt1": (0x3D,), "alt2": (0x3E,), "alt3": (0x3F,), "stop": (0x00,), "nop": (0x01,), "cache": (0x02,),
    "lsr": (0x03,), "rol": (0x04,), "loop": (0x3C,), "plot": (0x4C,), "rpix": (0x3D, 0x4C), "swap": (0x4D,),
    "color": (0x4E,), "cmode": (0x3D, 0x4E), "not_": (0x4F,), "merge": (0x70,), "sbk": (0x90,), "sex": (0x95,),
    "asr": (0x96,), "div2": (0x3D, 0x96), "ror": (0x97,), "lob": (0x9E,), "fmult": (0x9F,), "lmult": (0x3D, 0x9F),
    "hib": (0xC0,), "getc": (0xDF,), "ramb": (0x3E, 0xDF), "romb": (0x3F, 0xDF), "getb": (0xEF,),
    "getbh": (0x3D, 0xEF), "getbl": (0x3E, 0xEF), "getbs": (0x3F, 0xEF),
}


def _fixed_op(code):
    return lambda self: self.emit(*code)


for _name, _code in FIXED_OPS.items():
    setattr(GsuAsm, _name, _fixed_op(_code))
