#!/bin/sh
# build.sh OUTDIR: assembles gpuvet's own SNES test ROMs (ca65 --cpu 65816 from Debian's
# cc65; the SPC700 parts with our macro pack src/emu/snes/spc700.inc) into OUTDIR/*.sfc and
# writes their header checksums (snesfix.py). Sizes are powers of two, so the checksum is
# the plain byte sum.
set -e
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
py=${PYTHON:-python3}
mkdir -p "$out"
"$py" "$here/gen_tiles.py" "$out/scene_tiles.inc"
for src in cpu_test ppu_scene ppu_direct ppu_bright opt_test warm_boot hv_test alu_test irq_late irq_wrap ppu_scroll cpu_dpwrap vram_test obj_wrap mdr_test irq_h0 hdma_init dma_time dma_wram dma_hdma irq_153 joy_busy refresh_test; do
  ca65 --cpu 65816 -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/$src.o" "$here/$src.s"
  ld65 -C "$here/lorom.cfg" -o "$out/$src.sfc" "$out/$src.o"
  "$py" "$here/snesfix.py" "$out/$src.sfc"
done
# register writes inside a line (midline_test.s: H-IRQ timed writes, checked against ppu_model.py)
for src in midline_test; do
  ca65 --cpu 65816 -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/$src.o" "$here/$src.s"
  ld65 -C "$here/lorom.cfg" -o "$out/$src.sfc" "$out/$src.o"
  "$py" "$here/snesfix.py" "$out/$src.sfc"
done
# the sound CPU's TEST register: wait cycles and the timer pause (spc_test.s); interlace's
# 263-line frames in field 0 (il_timing.s)
for src in spc_test il_timing; do
  ca65 --cpu 65816 -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/$src.o" "$here/$src.s"
  ld65 -C "$here/lorom.cfg" -o "$out/$src.sfc" "$out/$src.o"
  "$py" "$here/snesfix.py" "$out/$src.sfc"
done
# the benchmark ROM: the scene with its game loop (ppu_scene.s, -D BENCH)
ca65 --cpu 65816 -D BENCH -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/bench_scene.o" "$here/ppu_scene.s"
ld65 -C "$here/lorom.cfg" -o "$out/bench_scene.sfc" "$out/bench_scene.o"
"$py" "$here/snesfix.py" "$out/bench_scene.sfc"
# the Super FX test ROM: its GSU programs and expected results from gen_gsu.py (gsu_asm.py,
# tests/snes/gsu_model.py), the ROM laid out by gsu.cfg (the extended header at $00:FFB0)
"$py" "$here/gen_gsu.py" "$out/gsu_cases.inc"
ca65 --cpu 65816 -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/gsu_test.o" "$here/gsu_test.s"
ld65 -C "$here/gsu.cfg" -o "$out/gsu_test.sfc" "$out/gsu_test.o"
"$py" "$here/snesfix.py" "$out/gsu_test.sfc"
# the Super FX picture ROM (the GSU's program from gen_gsu.py scene)
"$py" "$here/gen_gsu.py" scene "$out/gsu_scene.inc"
ca65 --cpu 65816 -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/gsu_scene.o" "$here/gsu_scene.s"
ld65 -C "$here/gsu.cfg" -o "$out/gsu_scene.sfc" "$out/gsu_scene.o"
"$py" "$here/snesfix.py" "$out/gsu_scene.sfc"
# the Super FX benchmark ROM: the picture plotted again every other frame (gsu_scene.s, -D GSU_BENCH)
ca65 --cpu 65816 -D GSU_BENCH -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/gsu_bench.o" "$here/gsu_scene.s"
ld65 -C "$here/gsu.cfg" -o "$out/gsu_bench.sfc" "$out/gsu_bench.o"
"$py" "$here/snesfix.py" "$out/gsu_bench.sfc"
# the frame-size scenes: hires_test.s four ways (its head comment), and mosaic on hi-res
# BGs without and with interlace
for v in "hires_m5 " "hires_pseudo -D PSEUDO" "hires_il -D INTERLACE" "overscan -D OVERSCAN" \
         "hires_mosaic -D MOSAIC" "hires_il_mosaic -D INTERLACE -D MOSAIC"; do
  set -- $v
  name=$1
  shift
  ca65 --cpu 65816 "$@" -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/$name.o" "$here/hires_test.s"
  ld65 -C "$here/lorom.cfg" -o "$out/$name.sfc" "$out/$name.o"
  "$py" "$here/snesfix.py" "$out/$name.sfc"
done
# the MSU-1 (msu_test.s) and its media beside it (gen_msu.py: the data file and two tracks)
for src in msu_test; do
  ca65 --cpu 65816 -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/$src.o" "$here/$src.s"
  ld65 -C "$here/lorom.cfg" -o "$out/$src.sfc" "$out/$src.o"
  "$py" "$here/snesfix.py" "$out/$src.sfc"
done
"$py" "$here/gen_msu.py" "$out"
# the SA-1 test ROM: its cases and expected results from gen_sa1.py (tests/snes/sa1_model.py),
# the SNES's and the SA-1's code in one source, the 2 MiB ROM laid out by sa1.cfg
"$py" "$here/gen_sa1.py" "$out/sa1_cases.inc"
ca65 --cpu 65816 -I "$here" -I "$out" -I "$root/src/emu/snes" -o "$out/sa1_test.o" "$here/sa1_test.s"
ld65 -C "$here/sa1.cfg" -o "$out/sa1_test.sfc" "$out/sa1_test.o"
"$py" "$here/snesfix.py" "$out/sa1_test.sfc"
