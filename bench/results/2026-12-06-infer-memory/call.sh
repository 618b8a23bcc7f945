#!/bin/sh
# device call: inference-only GPU trainers (nn_trainer_opts.infer_only: no activation
# gradients, masks or data-gradient weights; the blocks share four activation buffers).
# test_gpu_train (the inference trainer's outputs bit for bit the full trainer's, the
# training calls refused, less memory); bench/infer_gpu_vs_torch.sh, bf16, batches 1-4096,
# with the memory each side holds; then (unless `quick`) issue 15's GPU targets on the
# same binary. Results under $OUT/r, packed as a.tgz.
set -u
. bench/device_env.sh
export GV_EXPECT_GPU=1
st train_test
timeout 200 build/cuda/tests/test_gpu_train >"$R/test_gpu_train.txt" 2>&1; echo "test_gpu_train rc=$?"
grep "infer_only" "$R/test_gpu_train.txt" | cut -c1-300; tail -1 "$R/test_gpu_train.txt"
if grep -q "^FAIL" "$R/test_gpu_train.txt"; then grep "^FAIL" "$R/test_gpu_train.txt" | head; st end; exit 0; fi
export GV_CUDNN=1
st infer
ib=1,64,1024,4096; [ "${1:-}" = quick ] && ib=1,4096
sh bench/infer_gpu_vs_torch.sh "$R/infer" --batches $ib --compile-batches 1,4096 --dtypes bf16 --repeats 3 >"$R/infer.log" 2>&1
echo "infer rc=$?"; grep -E "^\||^peak" "$R/infer/summary.md" | head -30
[ "${1:-}" = quick ] && { st end; exit 0; }
export GV_RELU_BITS=1
. bench/nn_gpu_targets.sh
st end
