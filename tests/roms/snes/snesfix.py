#!/usr/bin/env python3
"""snesfix.py: writes the checksum and its complement into the LoROM header ($7FC0) of one
of gpuvet's own SNES test ROMs, as the cartridge loader checks them (the 16-bit sum of every
byte; the checksum pair itself always adds $1FE). Usage: snesfix.py ROM.sfc"""
import sys

def main():
    path = sys.argv[1]
    rom = bytearray(open(path, "rb").read())
    h = 0x7FC0
    rom[h + 0x1C:h + 0x20] = b"\xff\xff\x00\x00"
    s = sum(rom) & 0xFFFF
    rom[h + 0x1C:h + 0x20] = bytes([~s & 0xFF, (~s >> 8) & 0xFF, s & 0xFF, s >> 8])
    open(path, "wb").write(rom)

if __name__ == "__main__":
    main()
