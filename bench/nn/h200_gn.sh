#!/bin/sh
# h200_gn.sh OUT_DIR: the GroupNorm kernels of issue 15 on a GPU machine, at most 4 minutes
# (each step has a time limit, none runs past 230 s from the start; a step that no longer
# fits is skipped and says so), most important first:
#   1. the kernel self-test with GV_EXPECT_GPU=1: every GroupNorm variant (fp32/bf16 x
#      residual x ReLU x dres, 64 and 128 channels, batches 1, 3, 37, 257), the coalesced
#      and the earlier kernels each against the float64 host computation and against each
#      other, besides the convolution kernels; test_gpu_train (the trainer end to end: the
#      training-mode forward repeats bit for bit, captured inference equals eager);
#   2. gpuvet check --devices cpu,cuda --dtype fp32,bf16 --gemm-size 0 at 64 and 128
#      channels (GroupNorm and BatchNorm), then --inject-fault, which must fail;
#   3. gpuvet bench train --devices cuda --channels 64,128 --batches 1024,8192 --dtype bf16
#      --repeats 3 --steps 10 with the coalesced kernels (the default), the earlier ones
#      (GV_GN_OLD=1), and the coalesced again when 40 s are left (A/B/A);
#   4. the GroupNorm micro-benchmark (GV_NORM_BENCH=1: time and GB/s of each kernel, earlier
#      and coalesced, fp32 and bf16, 64 and 128 channels, batches 8192 and 1024).
# Builds nothing: GPUVET (default build/cuda/gpuvet) and its tests/ beside it, built with
# CUDA_ARCH=90 (scripts/device-pack.sh; LD_LIBRARY_PATH=.dist/lib). Writes OUT_DIR/log.txt
# (all of the output), OUT_DIR/summary.txt (PASS/FAIL lines and the figures) and
# OUT_DIR/raw.tar.gz (every log and JSON record). Exit 1 when a check failed, 2 on bad
# arguments.
set -u
out=${1:?usage: bench/nn/h200_gn.sh OUT_DIR}
GPUVET=${GPUVET:-build/cuda/gpuvet}
case "$GPUVET" in /*) ;; *) GPUVET=$(pwd)/$GPUVET ;; esac
T=$(dirname "$GPUVET")/tests/test_gpu_kernels
[ -x "$GPUVET" ] && [ -x "$T" ] && [ -x "$(dirname "$T")/test_gpu_train" ] ||
  { echo "h200_gn.sh: no $GPUVET or $T or test_gpu_train beside it (make GPU=cuda CUDA_ARCH=90 build tests, or set GPUVET)" >&2; exit 2; }
mkdir -p "$out" || exit 2
raw=$(mktemp -d)
t0=$(date +%s)
# left: seconds left of the 230 s budget; cap N: N, or what is left when that is less (at
# least 1: `timeout 0` would mean no limit)
left() { echo $((230 - ($(date +%s) - t0))); }
cap() { l=$(left); [ "$l" -lt 1 ] && l=1; [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
# verdict NAME RC WANT_RC PATTERN: PASS when the step exited WANT_RC and its log
# ($raw/NAME.txt) has no line matching PATTERN
verdict() {
  if [ "$2" = "$3" ] && ! grep -q "$4" "$raw/$1.txt"; then echo "PASS $1 (exit $2)"
  else echo "FAIL $1 (exit $2, want $3; 124: out of time)"; fi
}
train() { # NAME [ENV=VALUE]: bench train into $raw/NAME.txt and .json
  n=$1; shift
  if [ "$(left)" -lt 40 ]; then echo "(bench train $n skipped: $(left) s left)"; return; fi
  env "$@" timeout "$(cap 75)" "$GPUVET" bench train --devices cuda --channels 64,128 --batches 1024,8192 \
    --dtype bf16 --repeats 3 --steps 10 --json "$raw/$n.json" >"$raw/$n.txt" 2>&1
  echo "bench train $n ($*): exit $?"
  grep -E '^cuda ' "$raw/$n.txt"
}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "binary: $GPUVET ($("$GPUVET" --version 2>&1 | head -n 1))"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1)"

  echo "== 1. kernel self-test (GV_EXPECT_GPU=1)"
  GV_EXPECT_GPU=1 timeout "$(cap 60)" "$T" >"$raw/selftest.txt" 2>&1
  verdict selftest $? 0 '^FAIL\|^SKIP'
  grep -c '^PASS gpu GroupNorm' "$raw/selftest.txt" | sed 's/^/GroupNorm comparisons passed: /'
  grep -E '^(FAIL|SKIP)' "$raw/selftest.txt"
  grep -E '^PASS gpu GroupNorm.* (n=257 C=128 res relu dres|n=1 C=64 relu)' "$raw/selftest.txt"
  GV_EXPECT_GPU=1 timeout "$(cap 45)" "$(dirname "$T")/test_gpu_train" >"$raw/test_gpu_train.txt" 2>&1
  verdict test_gpu_train $? 0 '^FAIL\|^SKIP'
  grep -E '^(FAIL|SKIP)' "$raw/test_gpu_train.txt"

  echo "== 2. check cpu,cuda fp32,bf16 at 64 and 128 channels; the fault hook"
  for c in 64 128; do
    timeout "$(cap 45)" "$GPUVET" check --devices cpu,cuda --dtype fp32,bf16 --channels $c --gemm-size 0 \
      --json "$raw/check$c.json" >"$raw/check$c.txt" 2>&1
    verdict check$c $? 0 '^FAIL'
  done
  grep -h '^FAIL' "$raw"/check*.txt
  timeout "$(cap 30)" "$GPUVET" check --devices cuda --dtype fp32,bf16 --channels 128 --gemm-size 0 --inject-fault \
    >"$raw/check_fault.txt" 2>&1
  verdict check_fault $? 1 '^never'

  echo "== 3. bench train bf16, coalesced / earlier (GV_GN_OLD=1) / coalesced"
  train coalesced GV_GN_OLD=0
  train earlier GV_GN_OLD=1
  train coalesced2 GV_GN_OLD=0

  echo "== 4. GroupNorm micro-benchmark"
  if [ "$(left)" -ge 20 ]; then
    GV_NORM_BENCH=1 timeout "$(cap 60)" "$T" >"$raw/normbench.txt" 2>&1
    echo "(exit $?)"
    grep '^# norm bench\|^FAIL' "$raw/normbench.txt"
  else
    echo "(skipped: $(left) s left)"
  fi
  echo "== done in $(($(date +%s) - t0)) s"
} 2>&1 | tee "$out/log.txt"
grep -E '^(date|binary|gpu|PASS|FAIL|cuda |bench train|# norm bench|GroupNorm comparisons)|skipped' "$out/log.txt" \
  >"$out/summary.txt"
tar -czf "$out/raw.tar.gz" -C "$raw" . && rm -rf "$raw"
grep -q '^FAIL' "$out/log.txt" && exit 1
exit 0
