#!/bin/sh
# h200_bn.sh OUT: the H200 evidence for the deterministic BatchNorm sums (one device call,
# about 6 minutes, after scripts/device-pack.sh with BASE_BIN set to the build before them):
#  1. test_gpu_train (the training-mode forward repeats bit for bit) and test_gpu_kernels,
#     with GV_EXPECT_GPU=1;
#  2. `check --devices cuda` BatchNorm on the 128-channel, 6-block network at batch 64 with
#     the seeds that failed the AdamW-moment comparison before (3085496036710999972 twice,
#     11, 12, 13), for the old (A) and the new (B) binary; both reference files;
#  3. PyTorch's own bf16 gradient error on the reference files (bench/torch/bf16_grad_error.py);
#  4. bench train BatchNorm 128 channels, batch 1024, fp32 and bf16: A and B alternating, 2 rounds.
# Writes OUT/bn.txt (everything) and OUT/summary.txt.
set -u
out=${1:?usage: h200_bn.sh OUT}
mkdir -p "$out"
root=$(pwd)
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
export GPUVET=$root/build/cuda/gpuvet GV_BUILD=$root/build/cuda GV_REF_DIR=$root/.dist/ref GV_EXPECT_GPU=1
A=$root/.dist/base/gpuvet B=$root/.dist/build/cuda/gpuvet
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  echo "== tests"
  for t in test_gpu_train test_gpu_kernels; do timeout 120 "$GV_BUILD/tests/$t" 2>&1 | grep -E '^(PASS|FAIL|SKIP)'; done
  echo "== check BatchNorm 128x6 batch 64 (failed count per run)"
  for bin in A B; do
    eval "g=\$$bin"
    for s in 3085496036710999972 3085496036710999972 11 12 13; do
      timeout 60 "$g" check --devices cuda --norm batch --channels 128 --blocks 6 --batch 64 --gemm-size 0 --seed "$s" >"$out/c.txt" 2>&1
      echo "$bin seed $s exit $? $(tail -n 1 "$out/c.txt") | $(grep -E '^FAIL' "$out/c.txt" | tr -s ' ' | cut -c1-110 | tr '\n' ';')"
    done
  done
  echo "== check --reference (B)"
  for f in drop7_c32_group_n8 drop7_c32_batch_n8; do
    timeout 60 "$B" check --devices cuda --dtype fp32,bf16 --reference "$GV_REF_DIR/$f.safetensors" >"$out/c.txt" 2>&1
    echo "$f exit $? $(tail -n 1 "$out/c.txt") | $(grep -E '^FAIL' "$out/c.txt" | tr -s ' ' | cut -c1-110 | tr '\n' ';')"
    grep -E '^(PASS|FAIL) +cuda +bf16' "$out/c.txt" | grep grad | sort -k8 -g | tail -n 3 | tr -s ' '
  done
  echo "== PyTorch bf16 gradient error"
  timeout 120 python3 bench/torch/bf16_grad_error.py "$GV_REF_DIR"/drop7_c32_*.safetensors 2>&1 | tail -n 4
  echo "== bench train BatchNorm 128ch batch 1024 (samples/s, median of 3)"
  for r in 1 2; do
    for bin in A B; do
      eval "g=\$$bin"
      timeout 90 "$g" bench train --devices cuda --channels 128 --batches 1024 --norm batch --dtype fp32,bf16 -q \
        --json "$out/t.json" >/dev/null 2>&1
      echo "round $r $bin: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(' '.join(f\"{e['dtype']} {e['samples_per_s_median']:.0f}\" for e in r['bench_train']))" "$out/t.json" 2>&1 | tail -n 1)"
    done
  done
} >"$out/bn.txt" 2>&1
grep -E '^(==|FAIL|A seed|B seed|drop7|round|[a-z0-9_.]+ +(bf16|autocast))' "$out/bn.txt" >"$out/summary.txt"
rm -f "$out/c.txt"
cat "$out/summary.txt"
