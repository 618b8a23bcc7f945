#!/bin/sh
# call.sh: the second device call of 2026-12-07, after the Game Boy, NES and self-play work
# was merged: what only a GPU can show. scripts/device-pack.sh packed .dist/ (BASE_BIN: the
# sm_90 build of e04a365, before the self-play change); results under /tmp/gv/r, packed into
# $OUT/a.tgz (bench/device_env.sh).
#   1. the emulators' device renderers against the pins and the simulated pipeline
#      (tests/run.sh golden, test_emu_devsim): the new GB PPU (mode 3 dot by dot), APU
#      and NES boards on the device
#   2. issue 42: gpuvet all's throttle lines; bench cpu_instrs.gb at 1, 64 and 1024
#      instances with the CV of each point
#   3. issue 43: bench/results/2026-12-07-h100-selfplay/call.sh (old vs new datasets,
#      self-play beside bench infer)
set -u
. bench/device_env.sh
export GV_EXPECT_GPU=1 GV_ROMS=$root/.dist/roms GV_ROOT=$root
st emulators
sh tests/run.sh golden >"$R/run_golden.txt" 2>&1; echo "tests/run.sh golden: $(tail -n 1 "$R/run_golden.txt")"; grep '^FAIL' "$R/run_golden.txt" | head -5
build/cuda/tests/test_emu_devsim >"$R/devsim.txt" 2>&1; echo "test_emu_devsim rc=$?: $(grep -c '^PASS' "$R/devsim.txt") PASS, $(grep -c '^FAIL' "$R/devsim.txt") FAIL"
grep '^FAIL' "$R/devsim.txt" | head -5
st all
$B all --out "$R/all" >"$R/all.txt" 2>&1; echo "all rc=$?: $(grep -c 'throttled' "$R/all.txt") throttle lines"; grep -E 'throttl|warning' "$R/all.txt" | cut -c1-300
st cpu_instrs
$B bench .dist/roms/gb/cpu_instrs.gb --instances 1,64,1024 --json "$R/cpu_instrs.json" >"$R/cpu_instrs.txt" 2>&1; echo "bench cpu_instrs rc=$?"; tail -n 12 "$R/cpu_instrs.txt" | cut -c1-300
sh bench/results/2026-12-07-h100-selfplay/call.sh
