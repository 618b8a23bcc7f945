#!/bin/sh
# ab_h200.sh OUTDIR OLD NEW ROMDIR [ROMS] [ROUNDS]: two gpuvet builds side by side on a GPU
# machine, Game Boy at 1024 instances: for each ROM (default "cpu_test ppu_scene") and
# round (default "1 2"), OLD then NEW run `bench gb --instances 1024` with video
# native/device/none and audio native/device, with GV_EMU_PHASES=1 (where the device
# frame's time goes). Alternating the builds puts a drift of the machine on both.
# Prints the tables; OUTDIR/<rom>-<A|B>-<round>.txt keep the whole output (A = OLD).
set -u
OUT=${1:?usage: ab_h200.sh OUTDIR OLD NEW ROMDIR [ROMS] [ROUNDS]}
A=${2:?OLD gpuvet}
B=${3:?NEW gpuvet}
R=${4:?ROMDIR}
ROMS=${5:-cpu_test ppu_scene}
ROUNDS=${6:-1 2}
FR=${GB_BENCH_FRAMES:-120}
mkdir -p "$OUT"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)" >"$OUT/machine.txt"
for rom in $ROMS; do
  for round in $ROUNDS; do
    for bin in A B; do
      eval G=\$$bin
      GV_EMU_PHASES=1 "$G" bench gb "$R/$rom.gb" --frames "$FR" --repeats 3 --instances 1024 \
        --video native,device,none --audio native,device >"$OUT/$rom-$bin-$round.txt" 2>&1
      echo "== $rom $bin round $round: exit $?"
      grep -E "^(native|device|none) |phases, $FR|verdict|rror" "$OUT/$rom-$bin-$round.txt"
    done
  done
done
