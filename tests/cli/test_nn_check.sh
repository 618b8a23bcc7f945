# gpuvet check on the CPU: passes on correct code, fails (exit 1) when the fault hook skips
# part of a kernel's output, repeats with --seed, and checks against PyTorch reference files.
. "$GV_ROOT/tests/lib.sh"
. "$GV_ROOT/tests/cli/nn_ref.sh"

expect_exit "check passes (GEMM 512, network, both norms)" 0 "$GPUVET" check --devices cpu --gemm-size 512 --json "$T_TMP/c.json"
n_pass=$(grep -c '^PASS' "$T_TMP/out"); n_fail=$(grep -c '^FAIL' "$T_TMP/out")
if [ "$n_pass" -ge 60 ] && [ "$n_fail" = 0 ] && grep -q '"pass":	true' "$T_TMP/c.json"; then
  pass "check lines" "$n_pass PASS lines, each with metric and tolerance; $(tail -n 1 "$T_TMP/out")"
else
  fail "check lines" "$n_pass PASS, $n_fail FAIL: $(tail -n 1 "$T_TMP/out"); $(grep -E '^(check: seed|FAIL)' "$T_TMP/out" | tr -s ' ' | tr '\n' ';')"
fi
expect_grep "check prints the seed" '^check: seed [0-9]+ \(repeat with --seed' "$T_TMP/out"
expect_grep "check covers gradients" 'PASS +cpu +fp32 batch grad blocks.1.c2.weight +rel_l2' "$T_TMP/out"
expect_grep "check covers the GEMM" 'PASS +cpu +fp32 - +gemm 512 \(fp32\) +max_rel' "$T_TMP/out"
expect_grep "check compares the ReLU masks" 'PASS +cpu +fp32 batch relu masks differing from float64 +share' "$T_TMP/out"

expect_exit "check fails with --inject-fault" 1 "$GPUVET" check --devices cpu --gemm-size 0 --norm group --inject-fault
expect_grep "the fault shows as FAIL lines" '^FAIL +cpu +fp32 group forward logits' "$T_TMP/out"

"$GPUVET" check --devices cpu --gemm-size 0 --norm batch --seed 42 > "$T_TMP/s1" 2>&1
"$GPUVET" check --devices cpu --gemm-size 0 --norm batch --seed 42 > "$T_TMP/s2" 2>&1
if cmp -s "$T_TMP/s1" "$T_TMP/s2" && grep -q 'seed 42 ' "$T_TMP/s1"; then
  pass "check --seed repeats a run" "identical output for --seed 42 ($(wc -l < "$T_TMP/s1") lines)"
else
  fail "check --seed repeats a run" "outputs differ"
fi

for f in drop7_c32_group_n8.safetensors drop7_c32_batch_n8.safetensors; do
  if ref=$(nn_ref_file "$f"); then
    expect_exit "check --reference $f" 0 "$GPUVET" check --devices cpu --reference "$ref"
    expect_grep "check --reference $f: fp64 after 10 steps" 'PASS +cpu +fp64 (group|batch) params after 10 steps +rel_l2' "$T_TMP/out"
  else
    skip "check --reference $f" "$ref"
  fi
done
