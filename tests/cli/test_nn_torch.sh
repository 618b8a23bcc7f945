# A checkpoint written by gpuvet loads into PyTorch's Drop7Net with load_state_dict(strict=True)
# and gives the same logits: make_reference.py --init builds a reference file from the
# checkpoint with PyTorch in float64, and gpuvet check --reference compares gpuvet's forward,
# gradients and steps on that state with PyTorch's. For GroupNorm (saved fp32) and BatchNorm.
. "$GV_ROOT/tests/lib.sh"

if [ -z "${PYTHON:-}" ]; then
  skip "checkpoint into PyTorch" "no python3 with torch (PYTHON is empty): PyTorch is not installed here"
  exit 0
fi
for norm in group batch; do
  ck="$T_TMP/ck_$norm.safetensors"
  "$GPUVET" soak --devices cpu --channels 16 --blocks 2 --norm $norm --batch 16 --steps 4 --min-drop 1 --save "$ck" > "$T_TMP/out" 2>&1
  if [ ! -s "$ck" ]; then fail "soak --save ($norm)" "$(tail -n 2 "$T_TMP/out")"; continue; fi
  if "$PYTHON" "$GV_ROOT/bench/torch/make_reference.py" --init "$ck" --out "$T_TMP/ref_$norm.safetensors" --batch 8 > "$T_TMP/py" 2>&1; then
    pass "PyTorch loads the $norm checkpoint" "$(head -n 1 "$T_TMP/py")"
  else
    fail "PyTorch loads the $norm checkpoint" "$(tail -n 3 "$T_TMP/py" | tr '\n' ' ')"
    continue
  fi
  expect_exit "same logits as PyTorch ($norm)" 0 "$GPUVET" check --devices cpu --reference "$T_TMP/ref_$norm.safetensors"
  expect_grep "fp64 logits against PyTorch ($norm)" "^PASS +cpu +fp64 $norm forward logits \(train mode\) +rel_l2" "$T_TMP/out"
  expect_grep "fp32 eval logits against PyTorch ($norm)" "^PASS +cpu +fp32 $norm eval logits" "$T_TMP/out"
done
