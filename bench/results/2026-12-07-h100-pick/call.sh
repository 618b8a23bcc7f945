#!/bin/sh
# device call: the cuDNN-or-own pick timed with runs back to back (time_conv), then the
# 128-channel bf16 side-by-side against PyTorch. Results under $OUT/r, packed as a.tgz.
set -u
root=$(pwd)
R=/tmp/gv/r; mkdir -p "$R"
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
B=$root/build/cuda/gpuvet
export GPUVET=$B GV_BUILD=$root/build/cuda PYTHON=python3 GV_EXPECT_GPU=1 GV_CUDNN=1
st() { echo "$1 $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$R/steps.txt"; (cd /tmp/gv && tar -czf "$OUT/a.tgz" r); }
st start
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; $B --version; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"
st picks
for r in 1 2; do
  GV_CUDNN_VERBOSE=1 $B bench train --devices cuda --dtype bf16 --channels 128 --batches 256,1024,8192 --steps 8 --repeats 3 \
    --warmup 5 >"$R/picks_$r.txt" 2>&1
  grep -E "^# batch|^cuda" "$R/picks_$r.txt"
done
st train
build/cuda/tests/test_gpu_train >"$R/test_gpu_train.txt" 2>&1; echo "test_gpu_train rc=$?"; tail -1 "$R/test_gpu_train.txt"
st t128
sh bench/train_gpu_vs_torch.sh "$R/t128" --channels 128 --batches 256,1024,8192 --dtypes bf16 --compile bf16:256,bf16:1024,bf16:8192 --steps 8 --repeats 3 >"$R/t128.log" 2>&1
grep -E "^\|" "$R/t128/summary.md" | head -6
st end
