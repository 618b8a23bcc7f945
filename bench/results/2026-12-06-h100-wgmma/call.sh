#!/bin/sh
# device call: the wgmma forward/dgrad kernels (sm_90a). Self-test against the naive kernels
# and kernel rates against mma.sync, cuDNN and cuBLAS (GV_KERNEL_BENCH); then training
# throughput with the own kernels only (GV_CUDNN=0: mma.sync, wgmma, wgmma wide) and with
# the default (cuDNN against the own kernels, per convolution kind); the step profile; the
# network check on the own wgmma kernels; bench/train_gpu_vs_torch.sh at 128 and 64 channels.
# Results under $OUT/r, packed as a.tgz.
set -u
root=$(pwd); R=/tmp/gv/r; mkdir -p "$R"
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
B=$root/build/cuda/gpuvet
export GV_REF_DIR=$root/.dist/ref GV_EXPECT_GPU=1
st() { echo "$1 $(date -u +%H:%M:%S)" | tee -a "$R/steps.txt"; (cd /tmp/gv && tar -czf "$OUT/a.tgz" r); }
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  lscpu | sed -n 's/^Model name: *//p'; $B --version; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"
st kernels
GV_KERNEL_BENCH=1 timeout 240 build/cuda/tests/test_gpu_kernels >"$R/kernels.txt" 2>&1; echo "kernels rc=$?"
grep -c "^PASS" "$R/kernels.txt"; grep -E "^FAIL|^SKIP|kernel bench" "$R/kernels.txt" | head -40
if grep -q "^FAIL.*wgmma" "$R/kernels.txt"; then echo "wgmma self-test failed: stopping"; st end; exit 0; fi
st train
# variants: run1 "mma wgmma wide dnn", run2 "wgmma async dnn dnnasync" (wide and async
# were removed after them), run3 "mma wgmma" (quick: stops after the checks)
variants=${VARIANTS:-mma wgmma dnn}
for v in $variants; do
  case $v in mma) e="GV_CUDNN=0 GV_WGMMA=0" ;; wgmma) e="GV_CUDNN=0" ;; dnn) e="GV_CUDNN_VERBOSE=1" ;; esac
  env $e timeout 150 $B bench train --devices cuda --channels ${CHANNELS:-64,128} --batches 1024,8192 --dtype bf16 --steps 8 \
    --repeats 3 --json "$R/train_$v.json" >"$R/train_$v.out" 2>&1
  echo "train $v rc=$?"; grep -E "samples/s|conv|cuDNN" "$R/train_$v.out" | head -12
done
st check
GV_CUDNN=0 timeout 120 $B check --devices cpu,cuda --dtype bf16 --norm group,batch --channels 128 >"$R/check_own.txt" 2>&1; echo "check own rc=$?"; tail -2 "$R/check_own.txt"
GV_CUDNN=0 timeout 120 $B check --devices cpu,cuda --dtype bf16 --norm group --channels 128 --inject-fault >"$R/check_fault.txt" 2>&1; echo "fault rc=$?"; tail -1 "$R/check_fault.txt"
[ "${1:-}" = quick ] && { st end; exit 0; }
st profile
GV_CUDNN=0 GV_TRAIN_BENCH=1 timeout 150 build/cuda/tests/test_gpu_train >"$R/train_bench_own.txt" 2>&1; echo "train own rc=$?"
grep "^#" "$R/train_bench_own.txt" | head -12
# issue 15's bf16 training comparison with PyTorch on this binary (the default: cuDNN and
# the own wgmma kernels, picked per convolution kind)
export GPUVET=$B GV_BUILD=$root/build/cuda PYTHON=python3
for c in 128 64; do
  st t$c
  timeout 200 sh bench/train_gpu_vs_torch.sh "$R/t$c" --channels $c --batches 256,1024,8192 --dtypes bf16 \
    --compile bf16:256,bf16:1024,bf16:8192 --steps 8 --repeats 3 >"$R/t$c.log" 2>&1; echo "t$c rc=$?"
  grep -E "^\|" "$R/t$c/summary.md" | head -12
done
st end
