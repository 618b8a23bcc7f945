#!/bin/sh
# device call: the wgmma forward with TMA loads (conv_fwd_wgmma_tma: im2col tensor map for
# the activations, tiled map for the weights, mbarrier stages), on top of the inference-only
# trainers. The kernel self-test (TMA against the naive kernel: 37 and 700 samples, split-K,
# residual, 64 and 128 channels) and kernel rates (GV_KERNEL_BENCH: cp.async and TMA forms,
# cuDNN, cuBLAS); test_gpu_train (inference trainers); the network check on the own kernels
# with TMA; training with the own kernels without and with TMA, and with the default pick
# (cuDNN or own per convolution kind) with TMA; inference at batches 1 and 4096 against
# PyTorch. Results under $OUT/r, packed as a.tgz.
set -u
. bench/device_env.sh
export GV_EXPECT_GPU=1
st kernels
GV_KERNEL_BENCH=1 timeout 200 build/cuda/tests/test_gpu_kernels >"$R/kernels.txt" 2>&1; echo "kernels rc=$?"
echo "PASS $(grep -c '^PASS' "$R/kernels.txt") FAIL $(grep -c '^FAIL' "$R/kernels.txt")"
grep -E "^FAIL|^SKIP|kernel bench|wgmma-tma" "$R/kernels.txt" | cut -c1-160 | head -40
tma_ok=1; grep -q "^FAIL.*wgmma-tma" "$R/kernels.txt" && tma_ok=0; grep -q "wgmma-tma" "$R/kernels.txt" || tma_ok=0
echo "tma_ok=$tma_ok"
st train_test
timeout 200 build/cuda/tests/test_gpu_train >"$R/test_gpu_train.txt" 2>&1; echo "test_gpu_train rc=$?"
grep "infer_only" "$R/test_gpu_train.txt" | cut -c1-200; grep -E "^FAIL" "$R/test_gpu_train.txt" | head; tail -1 "$R/test_gpu_train.txt"
if [ $tma_ok = 1 ]; then
  st check_tma
  GV_CUDNN=0 GV_TMA=1 timeout 120 $B check --devices cpu,cuda --dtype bf16 --norm group,batch --channels 128 >"$R/check_tma.txt" 2>&1
  echo "check own+tma rc=$?"; tail -2 "$R/check_tma.txt"
  GV_CUDNN=0 GV_TMA=1 timeout 120 $B check --devices cpu,cuda --dtype bf16 --norm group --channels 64 >"$R/check_tma64.txt" 2>&1
  echo "check own+tma c64 rc=$?"; tail -1 "$R/check_tma64.txt"
  st train
  for v in own owntma dnntma; do
    case $v in own) e="GV_CUDNN=0 GV_TMA=0" ;; owntma) e="GV_CUDNN=0 GV_TMA=1" ;; dnntma) e="GV_TMA=1" ;; esac
    env $e timeout 150 $B bench train --devices cuda --channels 64,128 --batches 256,1024,8192 --dtype bf16 --steps 8 \
      --repeats 3 --json "$R/train_$v.json" >"$R/train_$v.out" 2>&1
    echo "train $v rc=$?"; grep -E "samples/s|conv" "$R/train_$v.out" | cut -c1-160 | head -14
  done
fi
st infer
sh bench/infer_gpu_vs_torch.sh "$R/infer" --batches 1,64,1024,4096 --compile-batches 1,4096 --dtypes bf16 --repeats 3 >"$R/infer.log" 2>&1
echo "infer rc=$?"; grep -E "^\||^peak" "$R/infer/summary.md" | head -30
st end
