#!/bin/sh
# scratch: A/B of two gpuvet binaries on the H200, Game Boy x1024, interleaved
OUT=$1; B=$2; N=$3; R=$4; ROMS=${5:-cpu_test ppu_scene}; ROUNDS=${6:-1 2}
mkdir -p $OUT
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc); $(lscpu | grep -E 'Thread|Core|Socket' | tr '\n' ' ')" > $OUT/machine.txt
for rom in $ROMS; do
  for round in $ROUNDS; do
    for bin in B N; do
      eval G=\$$bin
      GV_GB_PHASES=1 $G bench gb $R/$rom.gb --frames 120 --repeats 3 --instances 1024 --video native,device,none --audio native,device > $OUT/$rom-$bin-$round.txt 2>&1
      echo "== $rom $bin $round rc=$?"; grep -E "^(native|device|none) |phases|verdict|rror" $OUT/$rom-$bin-$round.txt
    done
  done
done
