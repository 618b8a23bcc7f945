#!/bin/sh
# h200_run.sh OUT: what one H200 session runs after scripts/device-pack.sh (with BASE_BIN set
# to the A binary) packed .dist/: the GPU tests with GV_EXPECT_GPU=1 (a GPU step that skips is
# a failure), the network's GPU checks, and the A/B of bench/ab/h200_ab.sh. Builds nothing.
set -u
out=${1:?usage: h200_run.sh OUT}
mkdir -p "$out"
root=$(pwd)
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
export GPUVET=$root/build/cuda/gpuvet GV_BUILD=$root/build/cuda GV_REF_DIR=$root/.dist/ref GV_ROMS=$root/.dist/roms
export GV_EXPECT_GPU=1 PYTHON=python3
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  lscpu | sed -n 's/^Model name: *//p'; nproc; cut -d' ' -f1-3 /proc/loadavg
  for t in test_smoke test_all test_emu_golden test_gpu_kernels test_gpu_train test_drop7_gpu test_emu_devsim; do
    sh tests/run.sh "$t" 2>&1 | grep -E '^(==|PASS|FAIL|SKIP|[0-9]+ (passed|skipped))'
  done
} >"$out/tests.txt" 2>&1
grep -E '^(FAIL|[0-9]+ passed)' "$out/tests.txt"
[ "${SKIP_NN_CHECK:-0}" = 1 ] || sh tests/nn/gpu_check.sh "$out/nn" >"$out/nn_check.txt" 2>&1
grep -cE '^PASS' "$out/nn_check.txt" 2>/dev/null; grep -E '^FAIL' "$out/nn_check.txt" 2>/dev/null | head
[ -x .dist/base/gpuvet ] && ROUNDS=${ROUNDS:-3} sh bench/ab/h200_ab.sh "$out/ab" .dist/base/gpuvet .dist/build/cuda/gpuvet .dist/roms/nes .dist/roms/gb >"$out/ab.txt" 2>&1
cat "$out/ab/ab.md" 2>/dev/null
