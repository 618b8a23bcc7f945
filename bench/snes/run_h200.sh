#!/bin/sh
# run_h200.sh OUTDIR [GPUVET]: the SNES workload on a quiet many-core machine (the H200 host),
# for the lead. The SNES has no device renderer yet, so this measures the CPU side only:
#   1. single-core native FPS with sound on the benchmark ROM (taskset -c 0, bench snes);
#   2. the instance sweep of native video + native audio on every host core
#      (1, 16, 64, 256, 1024 instances; bench checks every instance's hashes);
#   3. the host (log) renderer against the native one on every own ROM (hash equality).
# GPUVET defaults to build/cuda/gpuvet (make GPU=cuda CUDA_ARCH=90; a GPU=cpu build works
# too). ROMs: $ROMDIR (cpu_test.sfc, ppu_scene.sfc, bench_scene.sfc), else built here with
# ca65 (Debian's cc65) by tests/roms/snes/build.sh. Build them on the dev machine with
#   sh tests/roms/snes/build.sh bench/snes/roms   (and carry bench/snes/roms)
# when the GPU machine has no cc65.
# Results: OUTDIR/summary.txt (PASS/FAIL lines and tables) and OUTDIR/*.json (run records).
# Exit status: 0 when every check passed. Takes about 3 minutes on 16 cores.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run_h200.sh OUTDIR [GPUVET]}
G=${2:-$here/build/cuda/gpuvet}
mkdir -p "$out"
out=$(cd "$out" && pwd)
sum=$out/summary.txt
: >"$sum"
fails=0
log() { echo "$*" | tee -a "$sum"; }
pass() { log "PASS $1: $2"; }
fail() { log "FAIL $1: $2"; fails=$((fails + 1)); }
log "== gpuvet SNES on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') x $(nproc)"
R=${ROMDIR:-}
if [ -z "$R" ]; then
  R=$out/roms
  if ! sh "$here/tests/roms/snes/build.sh" "$R" >"$out/build.log" 2>&1; then
    fail "roms" "no ROMDIR and tests/roms/snes/build.sh failed (cc65 missing?): $(head -n 1 "$out/build.log")"
    exit 1
  fi
fi
# 1. one core, with sound
taskset -c 0 "$G" bench snes "$R/bench_scene.sfc" --video native --audio native --threads 1 --seconds 5 \
  --repeats 5 --json "$out/single.json" >"$out/single.txt" 2>&1 && pass "single core" "$(grep -E '^native' "$out/single.txt")" ||
  fail "single core" "$(tail -n 2 "$out/single.txt")"
cat "$out/single.txt" >>"$sum"
# 2. every core
"$G" bench snes "$R/bench_scene.sfc" --video native,host --audio native --instances 1,16,64,256,1024 --frames 300 \
  --repeats 3 --json "$out/sweep.json" >"$out/sweep.txt" 2>&1 && pass "sweep" "every instance's hashes equal the native ones" ||
  fail "sweep" "$(tail -n 2 "$out/sweep.txt")"
cat "$out/sweep.txt" >>"$sum"
# 3. host renderer == native
for rom in cpu_test ppu_scene bench_scene; do
  a=$("$G" run snes "$R/$rom.sfc" --frames 600 --video native --no-battery -q 2>&1 | tr '\n' ' ')
  b=$("$G" run snes "$R/$rom.sfc" --frames 600 --video host --instances 64 --no-battery -q 2>&1 | tr '\n' ' ')
  [ "$a" = "$b" ] && pass "$rom host x64 == native" "$a" || fail "$rom host x64 == native" "native $a; host $b"
done
log "== $fails failures"
[ $fails = 0 ]
