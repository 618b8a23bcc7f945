#!/bin/sh
# run_h200.sh OUTDIR [GPUVET]: the Game Boy workload on a GPU machine, for the lead.
#   1. device hash checks: every own test ROM, DMG and CGB, every renderer pairing
#      (video/audio native, host, device; 1 and 64 instances) against the native hashes,
#      the device PNG against the native PNG (and scene.py's expected picture), the test-ROM
#      verdicts with device renderers;
#   2. the instance sweep native vs device (bench gb, which itself checks every instance's
#      hashes against the native renderers' and reports the crossover);
#   3. single-core native FPS (taskset -c 0).
# GPUVET defaults to build/cuda/gpuvet (make GPU=cuda CUDA_ARCH=90). ROMs: $ROMDIR, else
# built with sdcc when it is installed, else the copies in fuzz/seeds/gb_rom.
# Results: OUTDIR/summary.txt (PASS/FAIL lines and tables), OUTDIR/*.json (run records).
# Knobs (for a quick dry run): GB_FRAMES (600), GB_SWEEP (1,16,64,256,1024), GB_BIG (1024),
# GB_BENCH_FRAMES (300), GB_SINGLE_FRAMES (3000), GB_BIG_REPEATS (5: timed runs per pairing
# at the large count; bench gb takes them in rounds over the pairings).
# Exit status: 0 when every check passed, 1 otherwise. Takes about 6 minutes on a
# 16-core H200 machine (most of it the 1024-instance benchmarks).
set -u
FR=${GB_FRAMES:-600}
SWEEP=${GB_SWEEP:-1,16,64,256,1024}
BIG=${GB_BIG:-1024}
BF=${GB_BENCH_FRAMES:-300}
SF=${GB_SINGLE_FRAMES:-3000}
BR=${GB_BIG_REPEATS:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run_h200.sh OUTDIR [GPUVET]}
G=${2:-$here/build/cuda/gpuvet}
mkdir -p "$out"
out=$(cd "$out" && pwd)
t_start=$(date +%s)
sum=$out/summary.txt
: >"$sum"
fails=0
log() { echo "$*" | tee -a "$sum"; }
pass() { log "PASS $1: $2"; }
fail() { log "FAIL $1: $2"; fails=$((fails + 1)); }

log "== gpuvet Game Boy on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') x $(nproc)"
log "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)"
log "binary: $G ($("$G" --version 2>&1))"

R=${ROMDIR:-}
if [ -z "$R" ]; then
  if command -v sdcc >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 &&
    sh "$here/tests/roms/gb/build.sh" "$out/roms" >"$out/rom-build.log" 2>&1; then
    R=$out/roms
  else
    R=$here/fuzz/seeds/gb_rom
  fi
fi
log "roms: $R ($(ls "$R"/*.gb | xargs -n1 basename | tr '\n' ' '))"

hashes() { # rom model video audio instances [extra...]
  rom=$1 m=$2 v=$3 a=$4 n=$5
  shift 5
  "$G" run gb "$R/$rom.gb" --model "$m" --frames "$FR" --video "$v" --audio "$a" --instances "$n" -q "$@" \
    2>>"$out/stderr.txt" | grep -E '^(video|audio)_hash' | tr '\n' ' '
}

log "== 1. device hash checks ($FR frames each)"
for rom in cpu_test ppu_scene apu_test; do
  [ -f "$R/$rom.gb" ] || continue
  for m in dmg cgb; do
    ref=$(hashes $rom $m native native 1 --png "$out/$rom-$m-native.png")
    if [ -z "$ref" ]; then fail "$rom $m native" "no hashes (see $out/stderr.txt)"; continue; fi
    for cfg in "host host 1" "device device 1" "device device 64" "device native 64" "native device 64" "host device 64"; do
      set -- $cfg
      extra=
      [ "$3" = 1 ] && [ "$1" = device ] && extra="--png $out/$rom-$m-device.png"
      # shellcheck disable=SC2086
      got=$(hashes $rom $m "$1" "$2" "$3" $extra)
      want=$ref
      if [ "$1" = none ]; then want=""; fi
      if [ -n "$got" ] && [ "$got" = "$want" ]; then
        pass "$rom $m video=$1 audio=$2 x$3" "$got"
      else
        fail "$rom $m video=$1 audio=$2 x$3" "native: $ref; got: $got"
      fi
    done
    if cmp -s "$out/$rom-$m-native.png" "$out/$rom-$m-device.png"; then
      pass "$rom $m device png" "identical to the native PNG"
    else
      fail "$rom $m device png" "differs from the native PNG"
    fi
    if [ "$rom" = ppu_scene ] && [ -f "$out/$rom-$m-device.png" ] && command -v python3 >/dev/null 2>&1; then
      if msg=$(python3 "$here/tests/roms/gb/scene.py" check $m "$out/$rom-$m-device.png" 2>&1); then
        pass "$rom $m device picture" "$msg"
      else
        fail "$rom $m device picture" "$msg"
      fi
    fi
  done
done
for rom in cpu_test apu_test; do
  [ -f "$R/$rom.gb" ] || continue
  for m in dmg cgb; do
    if "$G" run gb "$R/$rom.gb" --model $m --test-rom --video device --audio device >"$out/t.txt" 2>&1 &&
      grep -q '^test ROM: passed' "$out/t.txt"; then
      pass "$rom $m test-rom on device renderers" "$(grep '^test-rom' "$out/t.txt")"
    else
      fail "$rom $m test-rom on device renderers" "$(tail -n 2 "$out/t.txt" | tr '\n' ' ')"
    fi
  done
done

log "== 2. instance sweep, native vs device video (bench gb checks every instance's hashes)"
for rom in ppu_scene cpu_test; do
  [ -f "$R/$rom.gb" ] || continue
  if "$G" bench gb "$R/$rom.gb" --frames "$BF" --repeats 3 --video native,device --audio native \
    --instances "$SWEEP" --json "$out/bench-$rom.json" >"$out/bench-$rom.txt" 2>&1; then
    pass "bench $rom" "all hashes equal the native renderers'"
  else
    fail "bench $rom" "exit $? (see $out/bench-$rom.txt)"
  fi
  cat "$out/bench-$rom.txt" >>"$sum"
done
# Every renderer pairing at the large count; 'none' rows show what the core alone costs.
for rom in ppu_scene cpu_test; do
  [ -f "$R/$rom.gb" ] || continue
  if "$G" bench gb "$R/$rom.gb" --frames "$BF" --repeats "$BR" --video native,host,device,none --audio native,device \
    --instances "$BIG" --json "$out/bench-$rom-audio.json" >"$out/bench-$rom-audio.txt" 2>&1; then
    pass "bench $rom renderers x$BIG" "all hashes equal the native renderers'"
  else
    fail "bench $rom renderers x$BIG" "exit $? (see $out/bench-$rom-audio.txt)"
  fi
  cat "$out/bench-$rom-audio.txt" >>"$sum"
done

log "== 3. native, one core, with sound"
for rom in ppu_scene cpu_test; do
  [ -f "$R/$rom.gb" ] || continue
  taskset -c 0 "$G" bench gb "$R/$rom.gb" --frames "$SF" --repeats 5 --threads 1 --video native --audio native \
    --json "$out/single-$rom.json" >"$out/single-$rom.txt" 2>&1
  cat "$out/single-$rom.txt" >>"$sum"
done

log "== $fails failed check(s) in $(($(date +%s) - t_start)) s; results in $out"
[ $fails = 0 ]
