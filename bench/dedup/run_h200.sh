#!/bin/sh
# run_h200.sh OUT A_BUILD B_BUILD: the GPU checks of the dedup branch (issue 13), for the lead
# on the H200. A_BUILD is the build folder of main before the merge, B_BUILD this branch's
# (both `make GPU=cuda CUDA_ARCH=90 build tests`, e.g. build/cuda of two checkouts).
#   1. with B: the test programs whose kernels the branch changed, GV_EXPECT_GPU=1 (a GPU
#      step that skips is a failure): test_gpu_kernels (conv_mma.cu, conv_simt.cu, norm.cu,
#      selftest.cu), test_gpu_train (trainer.cu), test_drop7_gpu (drop7_gpu.cu, the shared
#      generator of core/rng.h), test_emu_golden (gb_gpu.cu, nes_gpu.cu, emu_gpu.cu: the
#      device hashes against the pins), test_smoke (smoke.cu);
#   2. the A/B of bench/ab/h200_ab.sh (one-core FPS of both consoles, GPU training
#      samples/s, A and B alternating) with ROUNDS=3, on our own ROMs built under B_BUILD/roms.
# Writes OUT/tests.txt (every PASS/FAIL/SKIP line), OUT/ab.tsv and OUT/ab.md. Exit 0 when no
# test failed. About 4-5 minutes (most of it the A/B).
set -u
out=${1:?usage: run_h200.sh OUT A_BUILD B_BUILD}
A=${2:?A_BUILD} B=${3:?B_BUILD}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
fails=0
export GV_EXPECT_GPU=1 GV_ROOT="$root" GV_BUILD="$B" GPUVET="$B/gpuvet"
: >"$out/tests.txt"
for t in test_gpu_kernels test_gpu_train test_drop7_gpu; do
  echo "== $t" >>"$out/tests.txt"
  "$B/tests/$t" >>"$out/tests.txt" 2>&1 || fails=$((fails + 1))
done
for t in emu/test_emu_golden cli/test_smoke; do
  echo "== $t" >>"$out/tests.txt"
  sh "$root/tests/$t.sh" >>"$out/tests.txt" 2>&1 || fails=$((fails + 1))
done
f=$(grep -c '^FAIL' "$out/tests.txt")
echo "tests: $(grep -c '^PASS' "$out/tests.txt") passed, $f failed, $(grep -c '^SKIP' "$out/tests.txt") skipped (OUT/tests.txt)"
[ "$f" = 0 ] || fails=$((fails + 1))
nes=$B/roms/nes gb=$B/roms/gb
if [ -d "$nes" ] && [ -d "$gb" ]; then
  ROUNDS=${ROUNDS:-3} sh "$root/bench/ab/h200_ab.sh" "$out" "$A/gpuvet" "$B/gpuvet" "$nes" "$gb"
else
  echo "A/B skipped: no ROMs under $B/roms (test_emu_golden builds them with ca65 and sdcc)"
fi
[ "$fails" = 0 ]
