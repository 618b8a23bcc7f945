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
    def alt1(self): self.emit(0x3D)
    def alt2(self): self.emit(0x3E)
    def alt3(self): self.emit(0x3F)
    def to(self, n): self.emit(0x10 | self._reg(n))
    def with_(self, n): self.emit(0x20 | self._reg(n))
    def from_(self, n): self.emit(0xB0 | self._reg(n))
    def move(self, d, s): self.with_(s); self.to(d)          # Rd = Rs
    def moves(self, d, s): self.with_(d); self.from_(s)      # Rd = Rs, flags

    # ---- one-byte and special -------------------------------------------------------------
    def stop(self): self.emit(0x00)
    def nop(self): self.emit(0x01)
    def cache(self): self.emit(0x02)
    def lsr(self): self.emit(0x03)
    def rol(self): self.emit(0x04)
    def loop(self): self.emit(0x3C)
    def plot(self): self.emit(0x4C)
    def rpix(self): self.emit(0x3D, 0x4C)
    def swap(self): self.emit(0x4D)
    def color(self): self.emit(0x4E)
    def cmode(self): self.emit(0x3D, 0x4E)
    def not_(self): self.emit(0x4F)
    def merge(self): self.emit(0x70)
    def sbk(self): self.emit(0x90)
    def link(self, n): self.emit(0x90 | self._reg(n, 1, 4))
    def sex(self): self.emit(0x95)
    def asr(self): self.emit(0x96)
    def div2(self): self.emit(0x3D, 0x96)
    def ror(self): self.emit(0x97)
    def jmp(self, n): self.emit(0x90 | self._reg(n, 8, 13))
    def ljmp(self, n): self.emit(0x3D, 0x90 | self._reg(n, 8, 13))
    def lob(self): self.emit(0x9E)
    def fmult(self): self.emit(0x9F)
    def lmult(self): self.emit(0x3D, 0x9F)
    def hib(self): self.emit(0xC0)
    def getc(self): self.emit(0xDF)
    def ramb(self): self.emit(0x3E, 0xDF)
    def romb(self): self.emit(0x3F, 0xDF)
    def getb(self): self.emit(0xEF)
    def getbh(self): self.emit(0x3D, 0xEF)
    def getbl(self): self.emit(0x3E, 0xEF)
    def getbs(self): self.emit(0x3F, 0xEF)

    # ---- register operand -----------------------------------------------------------------
    def stw(self, n): self.emit(0x30 | self._reg(n, 0, 11))
    def stb(self, n): self.emit(0x3D, 0x30 | self._reg(n, 0, 11))
    def ldw(self, n): self.emit(0x40 | self._reg(n, 0, 11))
    def ldb(self, n): self.emit(0x3D, 0x40 | self._reg(n, 0, 11))
    def add(self, n): self.emit(0x50 | self._reg(n))
    def adc(self, n): self.emit(0x3D, 0x50 | self._reg(n))
    def add_i(self, k): self.emit(0x3E, 0x50 | self._reg(k))
    def adc_i(self, k): self.emit(0x3F, 0x50 | self._reg(k))
    def sub(self, n): self.emit(0x60 | self._reg(n))
    def sbc(self, n): self.emit(0x3D, 0x60 | self._reg(n))
    def sub_i(self, k): self.emit(0x3E, 0x60 | self._reg(k))
    def cmp(self, n): self.emit(0x3F, 0x60 | self._reg(n))
    def and_(self, n): self.emit(0x70 | self._reg(n, 1))
    def bic(self, n): self.emit(0x3D, 0x70 | self._reg(n, 1))
    def and_i(self, k): self.emit(0x3E, 0x70 | self._reg(k, 1))
    def bic_i(self, k): self.emit(0x3F, 0x70 | self._reg(k, 1))
    def mult(self, n): self.emit(0x80 | self._reg(n))
    def umult(self, n): self.emit(0x3D, 0x80 | self._reg(n))
    def mult_i(self, k): self.emit(0x3E, 0x80 | self._reg(k))
    def umult_i(self, k): self.emit(0x3F, 0x80 | self._reg(k))
    def or_(self, n): self.emit(0xC0 | self._reg(n, 1))
    def xor(self, n): self.emit(0x3D, 0xC0 | self._reg(n, 1))
    def or_i(self, k): self.emit(0x3E, 0xC0 | self._reg(k, 1))
    def xor_i(self, k): self.emit(0x3F, 0xC0 | self._reg(k, 1))
    def inc(self, n): self.emit(0xD0 | self._reg(n, 0, 14))
    def dec(self, n): self.emit(0xE0 | self._reg(n, 0, 14))

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
