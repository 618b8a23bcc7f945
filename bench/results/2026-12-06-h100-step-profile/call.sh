#!/bin/sh
# device call: the trainer's own per-kind profile of one eager step (GV_TRAIN_BENCH=1 test_gpu_train)
set -u
root=$(pwd); R=/tmp/gv/r; mkdir -p "$R"
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | sed -n 's/^Model name: *//p'; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"
GV_CUDNN=1 GV_TRAIN_BENCH=1 timeout 300 build/cuda/tests/test_gpu_train >"$R/train_bench.txt" 2>&1; echo "rc=$?"
grep "^#" "$R/train_bench.txt"
(cd /tmp/gv && tar -czf "$OUT/a.tgz" r)
