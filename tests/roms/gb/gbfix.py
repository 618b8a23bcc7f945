#!/usr/bin/env python3
"""gbfix.py: sets the header fields of a Game Boy ROM image and fixes its checksums.

usage: gbfix.py ROM [--title T] [--cgb 0x80] [--type 0x00] [--romsize N] [--ramsize N]
                    [--licensee N] [--logo] [--multicart] [--bank-tags] [--tag-bank0] [--mmm01]

The header checksum at $014D is x = 0; x = x - byte - 1 over $0134-$014C; the global
checksum at $014E-$014F is the big-endian sum of every byte except those two. --romsize
pads the image to N KiB (power of two, >= 32); --bank-tags writes each 16 KiB bank's number
into its last two bytes (for MBC tests). --licensee sets the old licensee code ($014B;
else it stays as makebin left it).
--logo fills the logo area $0104-$0133 with a pattern of our own (no emulator checks the
logo; the boot ROM unpacks whatever is there into VRAM). --multicart copies bank 0 into
banks $10, $20 and $30, as each game of a 1 MiB MBC1M multi-game cartridge starts with
its own header. --tag-bank0 tags bank 0 as well. --mmm01 lays the image out as an MMM01
cartridge: bank 0 (the program) copied into every 16 KiB bank, every bank tagged (bank 0
too), the header fields and checksum written into the menu's header, in the last 32 KiB
(where the MMM01 starts), and a first game's header (MBC1, 128 KiB) at $0100."""
import argparse
import sys


def header(rom, base, title, cgb, typ, code, ramsize, licensee):
    """The header fields at base + $0134-$014C."""
    t = title.encode("ascii")[:15]
    h = base
    rom[h + 0x134:h + 0x143] = t + b"\x00" * (15 - len(t))
    rom[h + 0x143] = cgb
    rom[h + 0x146] = 0
    rom[h + 0x147] = typ
    rom[h + 0x148] = code
    rom[h + 0x149] = ramsize
    if licensee is not None:
        rom[h + 0x14B] = licensee
    rom[h + 0x14C] = 0


def checksum(rom, base):
    """The header checksum at base + $014D: x = 0; x = x - byte - 1 over $0134-$014C."""
    x = 0
    for i in range(0x134, 0x14D):
        x = (x - rom[base + i] - 1) & 0xFF
    rom[base + 0x14D] = x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rom")
    ap.add_argument("--title", default="")
    ap.add_argument("--cgb", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--type", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--romsize", type=int, default=0, help="KiB")
    ap.add_argument("--ramsize", type=lambda s: int(s, 0), default=0, help="header code")
    ap.add_argument("--licensee", type=lambda s: int(s, 0), default=None)
    ap.add_argument("--logo", action="store_true")
    ap.add_argument("--multicart", action="store_true")
    ap.add_argument("--bank-tags", action="store_true")
    ap.add_argument("--tag-bank0", action="store_true")
    ap.add_argument("--mmm01", action="store_true")
    a = ap.parse_args()
    rom = bytearray(open(a.rom, "rb").read())
    size = max(len(rom), 32768, a.romsize * 1024)
    n = 32768
    while n < size:
        n *= 2
    rom += b"\xff" * (n - len(rom))
    code = {32768 << i: i for i in range(9)}[n]
    if a.mmm01:
        for b in range(1, n // 16384):
            rom[b * 16384:(b + 1) * 16384] = rom[0:16384]
    hdr = n - 0x8000 if a.mmm01 else 0
    header(rom, hdr, a.title, a.cgb, a.type, code, a.ramsize, a.licensee)
    if a.mmm01:
        header(rom, 0, "GAME1", a.cgb, 0x01, 2, 0, a.licensee)
    if a.logo:  # 48 bytes, no two neighbours alike
        rom[0x104:0x134] = bytes((i * 0x35 + 0x1B) & 0xFF for i in range(48))
    if a.multicart:
        for g in range(1, 4):
            rom[g * 0x40000:g * 0x40000 + 0x4000] = rom[0:0x4000]
    if a.bank_tags or a.tag_bank0 or a.mmm01:
        for b in range(0 if a.tag_bank0 or a.mmm01 else 1, n // 16384):
            rom[b * 16384 + 16382] = b & 0xFF
            rom[b * 16384 + 16383] = b >> 8
    checksum(rom, hdr)
    if a.mmm01:
        checksum(rom, 0)
    s = (sum(rom) - rom[0x14E] - rom[0x14F]) & 0xFFFF
    rom[0x14E] = s >> 8
    rom[0x14F] = s & 0xFF
    open(a.rom, "wb").write(rom)
    return 0


if __name__ == "__main__":
    sys.exit(main())
