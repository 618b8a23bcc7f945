#!/usr/bin/env python3
"""dsp_model.py: a plain-Python model of the SNES S-DSP, written from the documentation
(fullsnes "SNES APU DSP ..." sections; SNESdev wiki "DSP envelopes" for the rate offsets) and
from the rules docs/SNES_DSP.md states where the documents leave a choice. It shares no code
with src/emu/snes/snes_dsp.c and is organised differently (each voice keeps the whole list
of samples it has decoded and an unbounded sample position instead of a 12-entry ring).

It prints test vectors for tests/snes/test_snes_dsp.c:
  brr HDR B0 B1 P1 P2 : O0 O1 O2 O3        one BRR group (4 samples) after p1, p2
  gauss I S0 S1 S2 S3 : OUT                one interpolation
  scenario NAME NSAMPLES                   a run of the whole DSP; then
  ram ADDR HEX                             ARAM bytes before the run
  w N REG VAL                              a register write just before sample N
  o L R ENDX ENVX0..7 OUTX0..7             each sample's output and registers (NSAMPLES lines)
  end
Usage: dsp_model.py [SEED]   (plain Python 3, no modules beyond the standard library)
"""
import random
import sys

# fullsnes, "SNES APU DSP BRR Pitch", 4-Point Gaussian Interpolation: the table in hex.
GAUSS_HEX = """
000 000 000 000 000 000 000 000 000 000 000 000 000 000 000 000 001 001 001 001 001 001 001 001
001 001 001 002 002 002 002 002 002 002 003 003 003 003 003 004 004 004 004 004 005 005 005 005
006 006 006 006 007 007 007 008 008 008 009 009 009 00A 00A 00A 00B 00B 00B 00C 00C 00D 00D 00E
00E 00F 00F 00F 010 010 011 011 012 013 013 014 014 015 015 016 017 017 018 018 019 01A 01B 01B
01C 01D 01D 01E 01F 020 020 021 022 023 024 024 025 026 027 028 029 02A 02B 02C 02D 02E 02F 030
031 032 033 034 035 036 037 038 03A 03B 03C 03D 03E 040 041 042 043 045 046 047 049 04A 04C 04D
04E 050 051 053 054 056 057 059 05A 05C 05E 05F 061 063 064 066 068 06A 06B 06D 06F 071 073 075
076 078 07A 07C 07E 080 082 084 086 089 08B 08D 08F 091 093 096 098 09A 09C 09F 0A1 0A3 0A6 0A8
0AB 0AD 0AF 0B2 0B4 0B7 0BA 0BC 0BF 0C1 0C4 0C7 0C9 0CC 0CF 0D2 0D4 0D7 0DA 0DD 0E0 0E3 0E6 0E9
0EC 0EF 0F2 0F5 0F8 0FB 0FE 101 104 107 10B 10E 111 114 118 11B 11E 122 125 129 12C 130 133 137
13A 13E 141 145 148 14C 150 153 157 15B 15F 162 166 16A 16E 172 176 17A 17D 181 185 189 18D 191
195 19A 19E 1A2 1A6 1AA 1AE 1B2 1B7 1BB 1BF 1C3 1C8 1CC 1D0 1D5 1D9 1DD 1E2 1E6 1EB 1EF 1F3 1F8
1FC 201 205 20A 20F 213 218 21C 221 226 22A 22F 233 238 23D 241 246 24B 250 254 259 25E 263 267
26C 271 276 27B 280 284 289 28E 293 298 29D 2A2 2A6 2AB 2B0 2B5 2BA 2BF 2C4 2C9 2CE 2D3 2D8 2DC
2E1 2E6 2EB 2F0 2F5 2FA 2FF 304 309 30E 313 318 31D 322 326 32B 330 335 33A 33F 344 349 34E 353
357 35C 361 366 36B 370 374 379 37E 383 388 38C 391 396 39B 39F 3A4 3A9 3AD 3B2 3B7 3BB 3C0 3C5
3C9 3CE 3D2 3D7 3DC 3E0 3E5 3E9 3ED 3F2 3F6 3FB 3FF 403 408 40C 410 415 419 41D 421 425 42A 42E
432 436 43A 43E 442 446 44A 44E 452 455 459 45D 461 465 468 46C 470 473 477 47A 47E 481 485 488
48C 48F 492 496 499 49C 49F 4A2 4A6 4A9 4AC 4AF 4B2 4B5 4B7 4BA 4BD 4C0 4C3 4C5 4C8 4CB 4CD 4D0
4D2 4D5 4D7 4D9 4DC 4DE 4E0 4E3 4E5 4E7 4E9 4EB 4ED 4EF 4F1 4F3 4F5 4F6 4F8 4FA 4FB 4FD 4FF 500
502 503 504 506 507 508 50A 50B 50C 50D 50E 50F 510 511 511 512 513 514 514 515 516 516 517 517
517 518 518 518 518 518 519 519
"""
GAUSS = [int(x, 16) for x in GAUSS_HEX.split()]
assert len(GAUSS) == 512

# fullsnes "ADSR/Gain (and Noise) Rates": samples per step; SNESdev wiki: phase offsets by
# column of three (1/0/1040 for the first row, 536/0/1040 after, 0/0 for rates 30/31).
PERIOD = [None, 2048, 1536, 1280, 1024, 768, 640, 512, 384, 320, 256, 192, 160, 128, 96, 80,
          64, 48, 40, 32, 24, 20, 16, 12, 10, 8, 6, 5, 4, 3, 2, 1]
OFFSET = [1, 0, 1040] + [536, 0, 1040] * 9 + [0, 0]
assert len(OFFSET) == 32


def fires(rate, counter):
    return rate != 0 and (counter + OFFSET[rate]) % PERIOD[rate] == 0


def sat16(x):
    return max(-0x8000, min(0x7FFF, x))


def wrap16(x):
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


def s8(x):
    return x - 256 if x & 0x80 else x


def brr_decode(header, data_bytes, old, older):
    """fullsnes 'SNES APU DSP BRR Samples': returns the decoded 15-bit samples."""
    shift, filt = header >> 4, (header >> 2) & 3
    res = []
    for byte in data_bytes:
        for nib in (byte >> 4, byte & 15):
            if nib >= 8:
                nib -= 16
            if shift <= 12:
                sample = (nib << shift) >> 1
            else:                      # 13..15: as shift 12 with nibble SAR 3
                sample = ((nib >> 3) << 12) >> 1
            if filt == 0:
                new = sample
            elif filt == 1:
                new = sample + old + ((-old) >> 4)
            elif filt == 2:
                new = sample + old * 2 + ((-old * 3) >> 5) - older + (older >> 4)
            else:
                new = sample + old * 2 + ((-old * 13) >> 6) - older + ((older * 3) >> 4)
            new = sat16(new)
            # clip to 15 bits: +4000h..+7FFFh -> -4000h..-1, -8000h..-4001h -> 0..+3FFFh
            if new >= 0x4000:
                new -= 0x8000
            elif new < -0x4000:
                new += 0x8000
            res.append(new)
            older, old = old, new
    return res


def gauss(i, oldest, older, old, new):
    out = (GAUSS[0xFF - i] * oldest) >> 10
    out += (GAUSS[0x1FF - i] * older) >> 10
    out += (GAUSS[0x100 + i] * old) >> 10
    out = wrap16(out)                           # the first three: no overflow handling
    out = sat16(out + ((GAUSS[i] * new) >> 10))  # the fourth: saturated
    return out >> 1


RELEASE, ATTACK, DECAY, SUSTAIN = 0, 1, 2, 3


class Voice:
    def __init__(self):
        # 12 zeros before the first sample, then (at power-on) 12 more as if decoded
        self.samples = [0] * 24
        self.pos = 0                 # pitch position since key-on, 12 fractional bits
        self.block = 0
        self.group = 0               # next group (0-3) of the block
        self.env = 0
        self.cut = 0                 # fullsnes "Misc Notes": the new level cut to 11 bits
        self.mode = RELEASE
        self.delay = 0
        self.out = 0


class DSP:
    def __init__(self, ram):
        self.ram = ram
        self.reg = [0] * 128
        self.reg[0x6C] = 0xE0
        self.v = [Voice() for _ in range(8)]
        self.kon = 0
        self.endx = 0
        self.noise = -0x4000
        self.counter = 0
        self.sample_no = 0
        self.echo_pos = 0
        self.echo_size = 0
        self.echo_base = 0          # ESA as read one sample before ("Echo Buffer Notes")
        self.hist = [[0] * 8, [0] * 8]

    def write(self, r, val):
        self.reg[r] = val
        if r == 0x4C:
            self.kon = val
        if r == 0x7C:
            self.endx = 0

    def word(self, a):
        return self.ram[a & 0xFFFF] | self.ram[(a + 1) & 0xFFFF] << 8

    def decode_next(self, x):
        vo = self.v[x]
        hdr = self.ram[vo.block]
        if vo.group == 0 and hdr & 1:
            self.endx |= 1 << x
        data = [self.ram[(vo.block + 1 + 2 * vo.group + k) & 0xFFFF] for k in (0, 1)]
        vo.samples += brr_decode(hdr, data, vo.samples[-1], vo.samples[-2])
        vo.group += 1
        if vo.group == 4:
            vo.group = 0
            if hdr & 1:
                vo.block = self.word(self.reg[0x5D] * 256 + self.reg[x * 16 + 4] * 4 + 2)
                if not hdr & 2:
                    vo.mode, vo.env, vo.cut = RELEASE, 0, 0
            else:
                vo.block = (vo.block + 9) & 0xFFFF

    def envelope(self, vo, adsr1, adsr2, gain):
        c = self.counter
        if vo.mode == RELEASE:
            vo.cut = (vo.env - 8) & 0x7FF
            vo.env = max(0, vo.env - 8)
            return
        level = vo.env
        expo = -(((level - 1) >> 8) + 1)
        rate, step = 0, 0
        if adsr1 & 0x80:
            boundary = ((adsr2 >> 5) + 1) * 0x100
            if vo.mode == ATTACK:
                rate = (adsr1 & 15) * 2 + 1
                step = 1024 if rate == 31 else 32
            elif vo.mode == DECAY:
                rate, step = ((adsr1 >> 4) & 7) * 2 + 16, expo
            else:
                rate, step = adsr2 & 31, expo
        else:
            boundary = ((gain >> 5) + 1) * 0x100
            if gain & 0x80 == 0:
                level = (gain & 0x7F) * 16
            else:
                rate = gain & 31
                step = [-32, expo, 32, 32 if vo.cut < 0x600 else 8][(gain >> 5) & 3]
        if fires(rate, c):
            level += step
        if vo.mode == ATTACK and level >= 0x7E0:
            vo.mode = DECAY
        elif vo.mode == DECAY and level <= boundary:
            vo.mode = SUSTAIN
        vo.cut = level & 0x7FF
        vo.env = max(0, min(0x7FF, level))

    def voice(self, x, prev_out):
        vo, base = self.v[x], x * 16
        if vo.delay:
            if vo.delay <= 3:
                self.decode_next(x)
            vo.delay -= 1
            vo.out = 0
        else:
            step = (self.reg[base + 2] | self.reg[base + 3] << 8) & 0x3FFF
            if x > 0 and self.reg[0x2D] >> x & 1:
                step = min(0x3FFF, (step * ((prev_out >> 4) + 0x400)) >> 10)
            if self.reg[0x3D] >> x & 1:
                smp = self.noise
            else:
                k = 12 + (vo.pos >> 12)   # 12 zeros come before the first sample
                smp = gauss((vo.pos >> 4) & 0xFF, *vo.samples[k:k + 4])
            self.envelope(vo, self.reg[base + 5], self.reg[base + 6], self.reg[base + 7])
            vo.out = (smp * vo.env) >> 11
            before = vo.pos >> 14
            vo.pos += step
            if vo.pos >> 14 != before:
                self.decode_next(x)
        self.reg[base + 8] = vo.env >> 4
        self.reg[base + 9] = (vo.out >> 7) & 0xFF

    def sample(self):
        reg = self.reg
        flg = reg[0x6C]
        poll = self.sample_no % 2 == 0
        for x in range(8):
            vo = self.v[x]
            if flg & 0x80:
                vo.mode, vo.env, vo.cut = RELEASE, 0, 0
            if poll:
                if reg[0x5C] >> x & 1:
                    vo.mode = RELEASE
                if self.kon >> x & 1:
                    vo.samples = [0] * 12
                    vo.pos = 0
                    vo.block = self.word(reg[0x5D] * 256 + reg[x * 16 + 4] * 4)
                    vo.group = 0
                    vo.env, vo.cut, vo.mode, vo.delay, vo.out = 0, 0, ATTACK, 5, 0
                    self.endx &= ~(1 << x)
        if poll:
            self.kon = 0
        if fires(flg & 31, self.counter):
            n = self.noise & 0x7FFF
            n = ((n >> 1) & 0x3FFF) | (((n ^ (n >> 1)) & 1) << 14)
            self.noise = n - 0x8000 if n & 0x4000 else n
        main, echo = [0, 0], [0, 0]
        for x in range(8):
            self.voice(x, self.v[x - 1].out if x else 0)
            for ch in (0, 1):
                part = (self.v[x].out * s8(reg[x * 16 + ch])) >> 6
                main[ch] = sat16(main[ch] + part)
                if reg[0x4D] >> x & 1:
                    echo[ch] = sat16(echo[ch] + part)
        addr = self.echo_base * 256 + self.echo_pos * 4
        out = []
        for ch in (0, 1):
            a = (addr + 2 * ch) & 0xFFFF
            h = self.hist[ch]
            h.pop(0)
            h.append(wrap16(self.word(a)) >> 1)         # h[7] newest, h[0] oldest
            acc = 0
            for k in range(7):
                acc += (h[k] * s8(reg[k * 16 + 0xF])) >> 6
            acc = sat16(wrap16(acc) + ((h[7] * s8(reg[0x7F])) >> 6))
            feedback = sat16(echo[ch] + ((acc * s8(reg[0x0D])) >> 7)) & 0xFFFE
            if not flg & 0x20:
                self.ram[a] = feedback & 0xFF
                self.ram[(a + 1) & 0xFFFF] = feedback >> 8
            mix = sat16((main[ch] * s8(reg[0x0C + ch * 0x10])) >> 7)
            mix = sat16(mix + ((acc * s8(reg[0x2C + ch * 0x10])) >> 7))
            out.append(0 if flg & 0x40 else mix)
        if self.echo_pos == 0:
            self.echo_size = (reg[0x7D] & 15) * 512
        self.echo_pos += 1
        if self.echo_pos >= self.echo_size:
            self.echo_pos = 0
        self.echo_base = reg[0x6D]  # read 32 cycles before the next sample's use of it
        reg[0x7C] = self.endx
        self.counter = (self.counter + 1) % 30720
        self.sample_no += 1
        return out


# ---- vectors ----------------------------------------------------------------------------

def unit_vectors(rng, emit):
    extremes = [0, 1, -1, 0x3FFF, -0x4000, 0x3FF8, -0x3FFA, 0x2000, -0x2000]
    for n in range(3000):
        hdr = n % 256                  # every header byte, 11 or 12 times
        b0, b1 = rng.randrange(256), rng.randrange(256)
        if n % 3 == 0:
            p1, p2 = rng.choice(extremes), rng.choice(extremes)
        else:
            p1, p2 = rng.randrange(-0x4000, 0x4000), rng.randrange(-0x4000, 0x4000)
        o = brr_decode(hdr, [b0, b1], p1, p2)
        emit("brr %d %d %d %d %d : %d %d %d %d" % (hdr, b0, b1, p1, p2, *o))
    for i in range(256):
        for _ in range(6):
            s = [rng.choice(extremes) if rng.random() < 0.4 else rng.randrange(-0x4000, 0x4000) for _ in range(4)]
            emit("gauss %d %d %d %d %d : %d" % (i, *s, gauss(i, *s)))
        emit("gauss %d %d %d %d %d : %d" % (i, -0x4000, -0x4000, -0x4000, -0x4000, gauss(i, -0x4000, -0x4000, -0x4000, -0x4000)))


def brr_sample(rng, nblocks, loop_block, end_code, filters=(0, 1, 2, 3), shifts=range(16)):
    """nblocks random blocks; the last has end code end_code (1 or 3)."""
    out = []
    for b in range(nblocks):
        filt = 0 if b == 0 or b == loop_block else rng.choice(filters)
        hdr = rng.choice(list(shifts)) << 4 | filt << 2 | (end_code if b == nblocks - 1 else rng.choice((0, 2)))
        out += [hdr] + [rng.randrange(256) for _ in range(8)]
    return out


def run_scenario(name, ram_init, writes, nsamples, emit):
    ram = [0] * 65536
    for addr, data in ram_init:
        ram[addr:addr + len(data)] = data
    dsp = DSP(ram)
    emit("scenario %s %d" % (name, nsamples))
    for addr, data in ram_init:
        for k in range(0, len(data), 64):
            emit("ram %d %s" % (addr + k, bytes(data[k:k + 64]).hex()))
    by_sample = {}
    for n, r, v in writes:
        assert 0 <= r < 128 and 0 <= v < 256, (n, r, v)
        by_sample.setdefault(n, []).append((r, v))
        emit("w %d %d %d" % (n, r, v))
    for n in range(nsamples):
        for r, v in by_sample.get(n, []):
            dsp.write(r, v)
        left, right = dsp.sample()
        emit("o %d %d %d %s %s" % (left, right, dsp.endx, " ".join(str(dsp.reg[x * 16 + 8]) for x in range(8)),
                                   " ".join(str(dsp.reg[x * 16 + 9]) for x in range(8))))
    emit("end")


def dir_entries(entries):
    out = []
    for start, loop in entries:
        out += [start & 255, start >> 8, loop & 255, loop >> 8]
    return out


def common_setup(w, n=0, flg=0x20, mvol=(0x7F, 0x7F)):
    w += [(n, 0x6C, flg), (n, 0x0C, mvol[0]), (n, 0x1C, mvol[1]), (n, 0x5D, 0x02)]


def scenarios(rng, emit):
    # 1. BRR through the whole voice: all filters and shifts, loops, end+mute, pitches
    s0 = brr_sample(rng, 14, 4, 3)
    s1 = brr_sample(rng, 6, 0, 1, filters=(0, 1), shifts=range(9, 13))
    s2 = brr_sample(rng, 9, 2, 3, shifts=range(6, 12))
    ram = [(0x200, dir_entries([(0x1000, 0x1000 + 4 * 9), (0x1200, 0x1200), (0x1400, 0x1400 + 2 * 9)])),
           (0x1000, s0), (0x1200, s1), (0x1400, s2)]
    w = []
    common_setup(w)
    pitches = [0x1000, 0x0A3D, 0x2F00, 0x3FFF, 0x0123, 0x1800, 0x0800, 0x1FFF]
    for x in range(8):
        b = x * 16
        w += [(1, b + 0, rng.randrange(256)), (1, b + 1, rng.randrange(256)), (1, b + 2, pitches[x] & 255),
              (1, b + 3, pitches[x] >> 8), (1, b + 4, x % 3), (1, b + 5, 0), (1, b + 7, 0x7F - 3 * x)]
    w += [(2, 0x4C, 0xFF), (700, 0x7C, 0), (1500, 0x4C, 0x05), (2100, 0x02, 0x80), (2100, 0x03, 0x03)]
    run_scenario("brr", ram, w, 3000, emit)

    # 2. envelopes: ADSR settings, every GAIN mode, release, over a rate-counter wrap
    sq = [0xC0] + [0x77, 0x77, 0x99, 0x99] * 2 + [0xC3] + [0x17, 0x71, 0x26, 0xEA, 0x35, 0xD9, 0x44, 0x0F]
    ram = [(0x200, dir_entries([(0x1000, 0x1009)])), (0x1000, sq)]
    w = []
    common_setup(w)
    adsr = [(0x8F, 0xE0), (0xFA, 0x2F), (0xC4, 0x4A), (0x80, 0x00), (0xB7, 0x95), (0xDF, 0x71), (0x83, 0xF3), (0xEB, 0x1D)]
    for x in range(8):
        b = x * 16
        w += [(1, b + 0, 0x30), (1, b + 1, 0x28), (1, b + 2, 0x00), (1, b + 3, 0x08 + x), (1, b + 4, 0),
              (1, b + 5, adsr[x][0]), (1, b + 6, adsr[x][1]), (1, b + 7, 0)]
    w += [(3, 0x4C, 0xFF)]
    # voice 3: GAIN modes in turn (direct, linear down, exp down, linear up, bent up)
    w += [(4, 0x37, 0x40), (900, 0x37, 0x9C), (2500, 0x37, 0x40), (2600, 0x37, 0xB8), (6000, 0x37, 0xDB),
          (9000, 0x37, 0xFA), (12000, 0x37, 0x00), (12100, 0x37, 0xE4), (16000, 0x35, 0x8A)]
    # key-offs and key-ons on the way
    w += [(20001, 0x5C, 0x21), (20400, 0x5C, 0x00), (21000, 0x4C, 0x21), (26000, 0x5C, 0x80),
          (26010, 0x5C, 0x00), (26011, 0x4C, 0x80)]
    # voice 6: linear decrease below 0 then bent increase (the cut value makes the first step +8)
    w += [(30000, 0x65, 0x03), (30000, 0x67, 0x9F), (30200, 0x67, 0xFF), (31000, 0x67, 0x9F), (31150, 0x67, 0xFF)]
    run_scenario("envelope", ram, w, 34000, emit)

    # 3. echo: buffer in ARAM, FIR with overflow-prone taps, feedback, write disable, mute
    ram = [(0x200, dir_entries([(0x1000, 0x1009)])), (0x1000, sq)]
    w = []
    common_setup(w, flg=0x00)
    fir = [0xFF, 0x08, 0x17, 0x24, 0x24, 0x17, 0x08, 0xFF]
    w += [(0, 0x6D, 0x80), (0, 0x7D, 0x01), (0, 0x0D, 0x50), (0, 0x2C, 0x60), (0, 0x3C, 0xA0), (0, 0x4D, 0x05)]
    w += [(0, k * 16 + 0xF, fir[k]) for k in range(8)]
    for x in (0, 2):
        b = x * 16
        w += [(1, b + 0, 0x7F), (1, b + 1, 0x50 if x else 0x20), (1, b + 2, 0x00), (1, b + 3, 0x04 + x),
              (1, b + 5, 0xFF), (1, b + 6, 0xF0)]
    w += [(2, 0x4C, 0x05), (1500, 0x5C, 0x05), (1502, 0x5C, 0x00)]
    w += [(3000, k * 16 + 0xF, v) for k, v in enumerate([0x7F, 0x7F, 0x7F, 0x80, 0x10, 0x00, 0x00, 0x7F])]
    w += [(3000, 0x0D, 0x9C), (3900, 0x6C, 0x20), (4300, 0x6C, 0x40), (4400, 0x6C, 0x00), (4500, 0x7D, 0x02),
          (4600, 0x4C, 0x01)]
    # a new ESA (used from the next sample on), then EDL 0 (a one-entry buffer from the next wrap)
    w += [(5100, 0x6D, 0x90), (5900, 0x6D, 0x84), (6000, 0x7D, 0x00)]
    run_scenario("echo", ram, w, 7000, emit)

    # 4. noise, pitch modulation, KON/KOFF interplay, FLG reset
    s0 = brr_sample(rng, 5, 1, 3, filters=(0,), shifts=(12,))
    ram = [(0x200, dir_entries([(0x1000, 0x1009), (0x1100, 0x1100)])), (0x1000, s0), (0x1100, sq)]
    w = []
    common_setup(w, flg=0x3A)
    for x in range(8):
        b = x * 16
        w += [(1, b + 0, 0x40), (1, b + 1, 0xC0 if x & 1 else 0x40), (1, b + 2, (0x40 * x) & 0xFF), (1, b + 3, 0x03 + x % 3),
              (1, b + 4, x & 1), (1, b + 5, 0x00), (1, b + 7, 0x7F)]
    w += [(1, 0x3D, 0x44), (1, 0x2D, 0x2A), (2, 0x4C, 0xFF), (800, 0x6C, 0x25), (1600, 0x6C, 0x3F),
          (1601, 0x6C, 0x1F), (2000, 0x4C, 0x01), (2000, 0x4C, 0x02), (2400, 0x5C, 0x10), (2401, 0x4C, 0x10),
          (2800, 0x5C, 0x00), (2801, 0x6C, 0xBD), (2820, 0x6C, 0x3D), (2830, 0x4C, 0xFF), (3300, 0x5C, 0xFF),
          (3303, 0x4C, 0x08), (3304, 0x5C, 0x00)]
    run_scenario("noise_pmon_kon", ram, w, 4000, emit)


def resample(stream):
    """docs/SNES_DSP.md, 32 kHz -> 48 kHz: output j is at input position 2j/3, linear between
    the two inputs around it (input -1 being 0), rounded to nearest: floor((3*y + 1) / 3)."""
    out = []
    j = 0
    while True:
        num = 2 * j                  # position * 3
        n = num // 3                 # output j lies between input n-1 and n, weight f/3 on n
        f = num % 3
        # position 2j/3 relative to input -1 .. : input index k = position - 1
        k, frac = divmod(2 * j, 3)
        x0 = stream[k - 1] if k - 1 >= 0 else 0
        if k >= len(stream):
            break
        x1 = stream[k]
        out.append((x0 * (3 - frac) + x1 * frac + 1) // 3)
        j += 1
    return out


def resample_vectors(rng, emit):
    for n in (1, 2, 3, 7, 64, 301):
        xs = [rng.randrange(-0x8000, 0x8000) for _ in range(n)]
        if n == 64:
            xs = [(-0x8000 if k % 2 else 0x7FFF) for k in range(n)]
        emit("rs %d %s : %s" % (n, " ".join(map(str, xs)), " ".join(map(str, resample(xs)))))


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    rng = random.Random(seed)
    lines = []
    emit = lines.append
    unit_vectors(rng, emit)
    resample_vectors(rng, emit)
    scenarios(rng, emit)
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
