# The network commands' bad input: unknown flags, bad numbers, channel counts that are not
# multiples of 8, missing, corrupt, truncated or mismatched checkpoints, each one line on
# stderr and exit 2; a GPU asked of a CPU-only build is exit 3.
. "$GV_ROOT/tests/lib.sh"

expect_exit "check: unknown flag" 2 "$GPUVET" check --frobnicate
expect_exit "soak: unknown flag" 2 "$GPUVET" soak --bogus 1
expect_exit "bench train: unknown flag" 2 "$GPUVET" bench train --nope
expect_exit "bench matmul: unknown flag" 2 "$GPUVET" bench matmul --nope
expect_exit "bench train: non-numeric batch" 2 "$GPUVET" bench train --batches 256,abc
expect_exit "bench train: zero batch" 2 "$GPUVET" bench train --batches 0
expect_exit "bench train: empty batch list item" 2 "$GPUVET" bench train --batches 256,,1024
expect_exit "bench train: channels not a multiple of 8" 2 "$GPUVET" bench train --channels 64,100
expect_exit "bench train: unknown dtype" 2 "$GPUVET" bench train --dtype fp16
expect_exit "bench train: unknown norm" 2 "$GPUVET" bench train --norm layer
expect_exit "soak: channels not a multiple of 8" 2 "$GPUVET" soak --channels 12
expect_exit "soak: zero batch" 2 "$GPUVET" soak --batch 0
expect_exit "soak: non-numeric steps" 2 "$GPUVET" soak --steps ten
expect_exit "check: channels not a multiple of 8" 2 "$GPUVET" check --channels 20
expect_exit "check: zero batch" 2 "$GPUVET" check --batch 0
expect_exit "bench matmul: zero size" 2 "$GPUVET" bench matmul --sizes 0
expect_exit "unknown device" 2 "$GPUVET" soak --devices tpu
expect_exit "soak --save with two dtypes" 2 "$GPUVET" soak --devices cpu --dtype fp32,fp64 --save "$T_TMP/x.safetensors"

# checkpoints: missing, not safetensors, a header that lies, truncated, another shape
expect_exit "soak: missing checkpoint" 2 "$GPUVET" soak --init "$T_TMP/none.safetensors"
printf 'this is not a checkpoint at all' > "$T_TMP/garbage.safetensors"
expect_exit "soak: garbage checkpoint" 2 "$GPUVET" soak --init "$T_TMP/garbage.safetensors"
# 16-byte header {"a": 5} padded, then nothing: the header entry is not an object
printf '\020\000\000\000\000\000\000\000{"a": 5}        ' > "$T_TMP/badhdr.safetensors"
expect_exit "soak: bad header entry" 2 "$GPUVET" soak --init "$T_TMP/badhdr.safetensors"
grep -q "tensor 'a'" "$T_TMP/err" && pass "bad header names the tensor" "$(cat "$T_TMP/err")" ||
  fail "bad header names the tensor" "$(cat "$T_TMP/err")"
# a real checkpoint, then damaged copies of it
"$GPUVET" soak --channels 8 --blocks 0 --batch 4 --steps 1 --min-drop 1 --save "$T_TMP/ck.safetensors" >"$T_TMP/out" 2>&1
if [ -s "$T_TMP/ck.safetensors" ]; then
  pass "soak --save writes a checkpoint" "$(wc -c < "$T_TMP/ck.safetensors") bytes"
  head -c 100000 "$T_TMP/ck.safetensors" > "$T_TMP/trunc.safetensors"
  expect_exit "soak: truncated checkpoint" 2 "$GPUVET" soak --init "$T_TMP/trunc.safetensors"
  grep -q "trunc.safetensors" "$T_TMP/err" && pass "truncated checkpoint error names the file" "$(cat "$T_TMP/err")" ||
    fail "truncated checkpoint error names the file" "$(cat "$T_TMP/err")"
  expect_exit "soak: checkpoint of 8 channels with --channels 16" 2 "$GPUVET" soak --init "$T_TMP/ck.safetensors" --channels 16
  expect_exit "check --reference on a checkpoint without reference tensors" 2 "$GPUVET" check --reference "$T_TMP/ck.safetensors"
  grep -q "tensor '[a-z0-9._]*' is missing" "$T_TMP/err" && pass "check --reference names the missing tensor" "$(cat "$T_TMP/err")" ||
    fail "check --reference names the missing tensor" "$(cat "$T_TMP/err")"
else
  fail "soak --save writes a checkpoint" "$(tail -n 2 "$T_TMP/out")"
fi
expect_exit "check --reference: missing file" 2 "$GPUVET" check --reference "$T_TMP/none.safetensors"
expect_exit "check --reference: garbage file" 2 "$GPUVET" check --reference "$T_TMP/garbage.safetensors"

# a GPU in a CPU-only build is the environment's problem (exit 3), said in one line
case "$GV_BUILD" in
  */cpu|*/cpu-asan|*/cpu-tsan)
    expect_exit "check --devices cuda in a CPU-only build" 3 "$GPUVET" check --devices cuda
    expect_exit "bench train --devices cpu,cuda in a CPU-only build" 3 "$GPUVET" bench train --devices cpu,cuda
    ;;
  *) skip "GPU device in a CPU-only build" "this is a GPU build ($GV_BUILD)" ;;
esac
