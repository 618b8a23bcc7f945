# gpuvet smoke: on a machine without a usable GPU (CI), stage 1 must fail with the runtime's
# message and a hint, the later stages must be skipped, and the exit code must be 1; with a
# GPU, all five stages must pass.
. "$GV_ROOT/tests/lib.sh"

"$GPUVET" smoke --json "$T_TMP/smoke.json" >"$T_TMP/out" 2>&1
rc=$?
if grep -q '5/5 stages passed' "$T_TMP/out"; then
  if [ $rc = 0 ]; then pass "smoke on a GPU" "$(grep -m1 'open' "$T_TMP/out" | sed 's/^ *//')"
  else fail "smoke on a GPU" "all stages passed but exit $rc"; fi
else
  if [ $rc = 1 ]; then pass "smoke without a GPU exits 1" "$(head -n1 "$T_TMP/out")"
  else fail "smoke without a GPU exits 1" "exit $rc"; fi
  expect_grep "smoke: stage 1 fails with a reason" '^  1 open +FAIL .*[a-zA-Z]' "$T_TMP/out"
  expect_grep "smoke: a hint follows the failure" '^    hint: .{20,}' "$T_TMP/out"
  expect_grep "smoke: later stages are skipped" '^  5 readback +SKIP' "$T_TMP/out"
fi
if grep -Eq '"schema":[[:space:]]*"gpuvet.run/1"' "$T_TMP/smoke.json" && grep -Eq '"stage":[[:space:]]*"readback"' "$T_TMP/smoke.json"; then
  pass "smoke: JSON record" "five stages recorded in $T_TMP/smoke.json"
else
  fail "smoke: JSON record" "no record with the stages"
fi
expect_exit "smoke: bad device name" 2 "$GPUVET" smoke --devices tpu
