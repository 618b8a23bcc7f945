#!/bin/sh
# device call: the wgmma weight gradient with TMA loads (conv_wgrad_wgmma_tma) beside the
# TMA forward (default on sm_90 since af4f354). The kernel self-test (every TMA kernel
# against the naive ones) and kernel rates; the network check on the own kernels; training
# with the own kernels without TMA (GV_TMA=0) and with it, and the default pick; the step
# profile on the own kernels; then bf16 training at 128 channels against PyTorch eager and
# torch.compile (bench/train_gpu_vs_torch.sh, as in bench/nn_gpu_targets.sh). Stops after
# the self-test if a kernel fails it; `quick`: only the self-test, the check and training
# with the own kernels without and with TMA and the default pick with TMA. Results under
# $OUT/r (a.tgz).
set -u
. bench/device_env.sh
export GV_EXPECT_GPU=1
st kernels
GV_KERNEL_BENCH=1 timeout 200 build/cuda/tests/test_gpu_kernels >"$R/kernels.txt" 2>&1; echo "kernels rc=$?"
echo "PASS $(grep -c '^PASS' "$R/kernels.txt") FAIL $(grep -c '^FAIL' "$R/kernels.txt")"
grep -E "^FAIL|^SKIP|kernel bench|wgmma-tma" "$R/kernels.txt" | cut -c1-150 | head -50
if grep -q "^FAIL" "$R/kernels.txt"; then echo "self-test failed: stopping"; st end; exit 0; fi
st check_own
GV_CUDNN=0 timeout 120 $B check --devices cpu,cuda --dtype bf16 --norm group,batch --channels 128 >"$R/check_own128.txt" 2>&1
echo "check own c128 rc=$?"; tail -1 "$R/check_own128.txt"
GV_CUDNN=0 timeout 120 $B check --devices cpu,cuda --dtype bf16 --norm group,batch --channels 64 >"$R/check_own64.txt" 2>&1
echo "check own c64 rc=$?"; tail -1 "$R/check_own64.txt"
st train
vs="own owntma dnn dnntma"; [ "${1:-}" = quick ] && vs="own owntma dnntma"
for v in $vs; do
  case $v in own) e="GV_CUDNN=0 GV_TMA=0" ;; owntma) e="GV_CUDNN=0" ;; dnn) e="GV_TMA=0" ;; dnntma) e="GV_TMA=1" ;; esac
  env $e timeout 150 $B bench train --devices cuda --channels 64,128 --batches 256,1024,8192 --dtype bf16 --steps 8 \
    --repeats 3 --json "$R/train_$v.json" >"$R/train_$v.out" 2>&1
  echo "train $v rc=$?"; grep -E "^cuda" "$R/train_$v.out"
done
[ "${1:-}" = quick ] && { st end; exit 0; }
st profile
GV_CUDNN=0 GV_TRAIN_BENCH=1 timeout 150 build/cuda/tests/test_gpu_train >"$R/train_bench_own.txt" 2>&1; echo "profile rc=$?"
grep "^#" "$R/train_bench_own.txt" | head -40
st t128
timeout 200 sh bench/train_gpu_vs_torch.sh "$R/t128" --channels 128 --batches 256,1024,8192 --dtypes bf16 \
  --compile bf16:256,bf16:1024,bf16:8192 --steps 8 --repeats 3 >"$R/t128.log" 2>&1; echo "t128 rc=$?"
grep -E "^\|" "$R/t128/summary.md" | head -12
st end
