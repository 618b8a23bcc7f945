#!/usr/bin/env python3
"""gbfix.py: sets the header fields of a Game Boy ROM image and fixes its checksums.

usage: gbfix.py ROM [--title T] [--cgb 0x80] [--type 0x00] [--romsize N] [--ramsize N]
                    [--licensee N] [--logo] [--multicart] [--bank-tags] [--entry ADDR]

The header checksum at $014D is x = 0; x = x - byte - 1 over $0134-$014C; the global
checksum at $014E-$014F is the big-endian sum of every byte except those two. --romsize
pads the image to N KiB (power of two, >= 32); --bank-tags writes each 16 KiB bank's number
into its last two bytes (for MBC tests). --licensee sets the old licensee code ($014B;
else it stays as makebin left it).
--logo fills the logo area $0104-$0133 with a pattern of our own (no emulator checks the
logo; the boot ROM unpacks whatever is there into VRAM). --multicart copies bank 0 into
banks $10, $20 and $30, as each game of a 1 MiB MBC1M multi-game cartridge starts with
its own header. --entry makes the JP at $0101 go to ADDR instead of crt0's start (for
code that must run at a known M-cycle after the boot ROM hands over)."""
import argparse
import sys


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
    ap.add_argument("--entry", type=lambda s: int(s, 0), default=None)
    a = ap.parse_args()
    rom = bytearray(open(a.rom, "rb").read())
    size = max(len(rom), 32768, a.romsize * 1024)
    n = 32768
    while n < size:
        n *= 2
    rom += b"\xff" * (n - len(rom))
    code = {32768 << i: i for i in range(9)}[n]
    title = a.title.encode("ascii")[:15]
    rom[0x134:0x143] = title + b"\x00" * (15 - len(title))
    rom[0x143] = a.cgb
    rom[0x146] = 0
    rom[0x147] = a.type
    rom[0x148] = code
    rom[0x149] = a.ramsize
    if a.licensee is not None:
        rom[0x14B] = a.licensee
    rom[0x14C] = 0
    if a.logo:  # 48 bytes, no two neighbours alike
        rom[0x104:0x134] = bytes((i * 0x35 + 0x1B) & 0xFF for i in range(48))
    if a.entry is not None:
        rom[0x101:0x104] = bytes((0xC3, a.entry & 0xFF, a.entry >> 8))
    if a.multicart:
        for g in range(1, 4):
            rom[g * 0x40000:g * 0x40000 + 0x4000] = rom[0:0x4000]
    if a.bank_tags:
        for b in range(1, n // 16384):
            rom[b * 16384 + 16382] = b & 0xFF
            rom[b * 16384 + 16383] = b >> 8
    x = 0
    for i in range(0x134, 0x14D):
        x = (x - rom[i] - 1) & 0xFF
    rom[0x14D] = x
    s = (sum(rom) - rom[0x14E] - rom[0x14F]) & 0xFFFF
    rom[0x14E] = s >> 8
    rom[0x14F] = s & 0xFF
    open(a.rom, "wb").write(rom)
    return 0


if __name__ == "__main__":
    sys.exit(main())
