#!/bin/sh
# build.sh OUTDIR: builds gpuvet's own Game Boy test ROMs with SDCC's sm83 port into
# OUTDIR: crt0 with sdasgb, C with sdcc -msm83 --no-std-crt0, images with makebin -Z,
# header fields and checksums with gbfix.py. Needs sdcc (Debian package sdcc) and python3.
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=$1
PY=${PYTHON:-python3}
mkdir -p "$out"
cd "$out"
cc_() { sdcc -msm83 -I"$src" -I. -c "$@"; }
link() {
  name=$1; shift
  sdcc -msm83 --no-std-crt0 --code-loc 0x200 --data-loc 0xC000 -o "$name.ihx" crt0.rel common.rel "$@"
  makebin -Z -yN "$name.ihx" "$name.gb"
}
sdasgb -g -o crt0.rel "$src/crt0.s"
cc_ "$src/common.c" -o common.rel

# CPU test
"$PY" "$src/gen_cpu.py" .
sdasgb -g -o cpu_gen.rel cpu_gen.s
cc_ cpu_gen.c -o cpu_gen_c.rel
cc_ "$src/cpu_test.c" -o cpu_test.rel
link cpu_test cpu_test.rel cpu_gen.rel cpu_gen_c.rel
"$PY" "$src/gbfix.py" cpu_test.gb --title CPUTEST --cgb 0x80

# PPU scene
"$PY" "$src/scene.py" gen .
cc_ scene_data.c -o scene_data.rel
cc_ "$src/ppu_scene.c" -o ppu_scene.rel
link ppu_scene ppu_scene.rel scene_data.rel
"$PY" "$src/gbfix.py" ppu_scene.gb --title PPUSCENE --cgb 0x80

# APU test
"$PY" "$src/apu_spec.py" gen .
cc_ "$src/apu_test.c" -o apu_test.rel
link apu_test apu_test.rel
"$PY" "$src/gbfix.py" apu_test.gb --title APUTEST --cgb 0x80

# the APU channels at the M-cycle (PCM12/PCM34 on the CGB, NR52 on both)
cc_ "$src/apu_pcm_test.c" -o apu_pcm_test.rel
link apu_pcm_test apu_pcm_test.rel
"$PY" "$src/gbfix.py" apu_pcm_test.gb --title APUPCM --cgb 0x80

# cartridge banking and battery RAM (MBC5+RAM+BATTERY, 1 MiB ROM, 32 KiB RAM)
cc_ "$src/battery_test.c" -o battery_test.rel
link battery_test battery_test.rel
"$PY" "$src/gbfix.py" battery_test.gb --title BATTERY --cgb 0x80 --type 0x1B --romsize 1024 --ramsize 0x03 --bank-tags

# controller input (needs the movie tests/emu/input_gb.txt to pass)
cc_ "$src/input_test.c" -o input_test.rel
link input_test input_test.rel
"$PY" "$src/gbfix.py" input_test.gb --title INPUT --cgb 0x80

# documented hardware quirks: LCD-on timing, the OAM bug, APU quirks, STOP, EI+HALT
cc_ "$src/quirks_test.c" -o quirks_test.rel
link quirks_test quirks_test.rel
"$PY" "$src/gbfix.py" quirks_test.gb --title QUIRKS --cgb 0x80

# a DMG cartridge: on the CGB model it runs in DMG compatibility mode (picture: compat.py)
cc_ "$src/compat_test.c" -o compat_test.rel
link compat_test compat_test.rel
"$PY" "$src/gbfix.py" compat_test.gb --title COMPAT --cgb 0x00

# two cartridge wirings: MBC2 (256 KiB, its 512 x 4-bit RAM) and MBC1M (1 MiB multi-game)
cc_ "$src/mbc_test.c" -o mbc_test.rel
link mbc2_test mbc_test.rel
"$PY" "$src/gbfix.py" mbc2_test.gb --title MBC2 --cgb 0x80 --type 0x06 --romsize 256 --bank-tags
link mbc1m_test mbc_test.rel
"$PY" "$src/gbfix.py" mbc1m_test.gb --title MBC1M --cgb 0x80 --type 0x01 --romsize 1024 --logo --multicart --bank-tags

# the MBC3's clock (MBC3+TIMER+RAM+BATTERY, 32 KiB RAM)
cc_ "$src/rtc_test.c" -o rtc_test.rel
link rtc_test rtc_test.rel
"$PY" "$src/gbfix.py" rtc_test.gb --title RTC --cgb 0x80 --type 0x10 --romsize 64 --ramsize 0x03

# the MBC7: accelerometer (needs tests/emu/input_mbc7.txt) and EEPROM, 128 KiB
cc_ "$src/mbc7_test.c" -o mbc7_test.rel
link mbc7_test mbc7_test.rel
"$PY" "$src/gbfix.py" mbc7_test.gb --title MBC7 --cgb 0x80 --type 0x22 --romsize 128 --tag-bank0

# Hudson's boards: HuC1 (1 MiB, 32 KiB RAM) and HuC3 (128 KiB, 32 KiB RAM, its clock)
cc_ "$src/huc_test.c" -o huc_test.rel
link huc1_test huc_test.rel
"$PY" "$src/gbfix.py" huc1_test.gb --title HUC1 --cgb 0x80 --type 0xFF --romsize 1024 --ramsize 0x03 --bank-tags
link huc3_test huc_test.rel
"$PY" "$src/gbfix.py" huc3_test.gb --title HUC3 --cgb 0x80 --type 0xFE --romsize 128 --ramsize 0x03 --tag-bank0

# the MMM01 multi-game mapper, 8 MiB and 128 KiB RAM: a game set up plainly, and multiplexed
cc_ "$src/mmm01_test.c" -o mmm01_test.rel
cc_ "$src/mmm01_test.c" -DMUX=1 -o mmm01m_test.rel
for v in mmm01_test mmm01m_test; do
  link $v $v.rel
  "$PY" "$src/gbfix.py" $v.gb --title MMM01 --cgb 0x80 --type 0x0D --romsize 8192 --ramsize 0x04 --mmm01
done

# VRAM and DIV after the boot ROM: a DMG cartridge, one whose title checksum is $43
# (licensee $01, title "C"), and a CGB cartridge, each with a logo pattern of its own; the
# JP at $0101 goes to the DIV reads at $01B0 first
cc_ "$src/boot_test.c" -o boot_test.rel
for v in "boot_test --title BOOT --cgb 0x00" "boot_map_test --title C --cgb 0x00 --licensee 0x01" \
  "boot_cgb_test --title BOOTCGB --cgb 0x80"; do
  set -- $v
  name=$1
  shift
  link "$name" boot_test.rel
  "$PY" "$src/gbfix.py" "$name.gb" --logo --entry 0x01B0 "$@"
done

# starting an HBlank DMA with the LCD off or in mode 0 (CGB)
cc_ "$src/hdma_test.c" -o hdma_test.rel
link hdma_test hdma_test.rel
"$PY" "$src/gbfix.py" hdma_test.gb --title HDMA --cgb 0x80

# the OAM DMA at the M-cycle: its start and end, a restart, its bus conflicts
cc_ "$src/dma_test.c" -o dma_test.rel
link dma_test dma_test.rel
"$PY" "$src/gbfix.py" dma_test.gb --title DMATEST --cgb 0x80

# the CPU's timing against the other units: when it sees an interrupt request
cc_ "$src/timing_test.c" -o timing_test.rel
link timing_test timing_test.rel
"$PY" "$src/gbfix.py" timing_test.gb --title TIMING --cgb 0x80

# the PPU's mode and STAT timing as the CPU sees it (LCD on, the mode-2 interrupt, locks)
cc_ "$src/stat_test.c" -o stat_test.rel
link stat_test stat_test.rel
"$PY" "$src/gbfix.py" stat_test.gb --title STATTEST --cgb 0x80

# register writes during mode 3 (picture: m3.py)
"$PY" "$src/m3.py" gen .
cc_ m3_data.c -o m3_data.rel
cc_ "$src/m3_test.c" -o m3_test.rel
link m3_test m3_test.rel m3_data.rel
"$PY" "$src/gbfix.py" m3_test.gb --title M3TEST --cgb 0x00

# LCDC written in mode 3 as the window's first tiles and objects are read (m3_test.c with
# M3W; its tables from the same m3.py gen)
cc_ m3w_data.c -o m3w_data.rel
cc_ "$src/m3_test.c" -DM3W -o m3w_test.rel
link m3w_test m3w_test.rel m3w_data.rel
"$PY" "$src/gbfix.py" m3w_test.gb --title M3WTEST --cgb 0x00

# the serial shift clock's phase: the system counter's bit 8
cc_ "$src/serial_test.c" -o serial_test.rel
link serial_test serial_test.rel
"$PY" "$src/gbfix.py" serial_test.gb --title SERIAL --cgb 0x80

# the test-ROM protocol of older mooneye builds: the verdict only in the serial bytes
cc_ "$src/proto_test.c" -o proto_fail.rel
cc_ "$src/proto_test.c" -DPASS=1 -o proto_pass.rel
link proto_fail proto_fail.rel
"$PY" "$src/gbfix.py" proto_fail.gb --title PROTOFAIL
link proto_pass proto_pass.rel
"$PY" "$src/gbfix.py" proto_pass.gb --title PROTOPASS
