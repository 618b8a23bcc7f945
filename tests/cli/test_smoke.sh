# gpuvet smoke: with a GPU all five stages pass (exit 0). Without one it says why on one
# stderr line and exits 3 (the environment cannot do it): a build without a GPU backend says
# so; a build with one prints stage 1's failure with the runtime's message and a hint, and
# skips the later stages. GV_EXPECT_GPU=1 (a GPU machine) makes anything but 5/5 a failure.
. "$GV_ROOT/tests/lib.sh"

"$GPUVET" smoke --json "$T_TMP/smoke.json" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
errl=$(grep -c '' "$T_TMP/err")
if grep -q '5/5 stages passed' "$T_TMP/out"; then
  if [ $rc = 0 ]; then pass "smoke on a GPU" "$(grep -m1 'open' "$T_TMP/out" | sed 's/^ *//')"
  else fail "smoke on a GPU" "all stages passed but exit $rc"; fi
  if grep -Eq '"stage":[[:space:]]*"readback"' "$T_TMP/smoke.json"; then pass "smoke: JSON record" "five stages recorded"
  else fail "smoke: JSON record" "no record with the stages"; fi
elif [ "${GV_EXPECT_GPU:-0}" = 1 ]; then
  fail "smoke on a GPU" "GV_EXPECT_GPU=1 but exit $rc: $(head -n 3 "$T_TMP/out" "$T_TMP/err" | tr '\n' ' ')"
elif [ -z "$("$GPUVET" probe --json - -q 2>/dev/null | grep -o '"gpu_backend":[[:space:]]*"[a-z]*"')" ]; then
  if [ $rc = 3 ] && [ "$errl" = 1 ] && grep -q 'without a GPU backend' "$T_TMP/err"; then
    pass "smoke without a GPU backend" "exit 3: $(cat "$T_TMP/err")"
  else
    fail "smoke without a GPU backend" "exit $rc (expected 3), $errl stderr lines: $(head -n 2 "$T_TMP/err" | tr '\n' ' ')"
  fi
else
  if [ $rc = 3 ] && [ "$errl" = 1 ]; then pass "smoke without a GPU exits 3" "$(cat "$T_TMP/err")"
  else fail "smoke without a GPU exits 3" "exit $rc, $errl stderr lines"; fi
  expect_grep "smoke: stage 1 fails with a reason" '^  1 open +FAIL .*[a-zA-Z]' "$T_TMP/out"
  expect_grep "smoke: a hint follows the failure" '^    hint: .{20,}' "$T_TMP/out"
  expect_grep "smoke: later stages are skipped" '^  5 readback +SKIP' "$T_TMP/out"
  if grep -Eq '"stage":[[:space:]]*"readback"' "$T_TMP/smoke.json"; then pass "smoke: JSON record" "five stages recorded"
  else fail "smoke: JSON record" "no record with the stages"; fi
fi
expect_exit "smoke: bad device name" 2 "$GPUVET" smoke --devices tpu
