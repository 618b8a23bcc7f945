# gpuvet env: its output sets up a shell with eval in both bash and sh, after which
# `gpuvet env --check` finds nothing to change; a wrong setting is reported with exit 1.
. "$GV_ROOT/tests/lib.sh"
apu="$GV_ROOT/tests/fixtures/sysfs/apu"

for shell in bash sh; do
  if ! command -v "$shell" >/dev/null 2>&1; then skip "eval in $shell" "$shell is not installed"; continue; fi
  # shellcheck disable=SC2016
  out=$(env -u OPENBLAS_NUM_THREADS -u OMP_NUM_THREADS "$shell" -c 'eval "$("$GPUVET" env)" && "$GPUVET" env --check' 2>&1); rc=$?
  if [ $rc = 0 ] && echo "$out" | grep -q '^0 of [0-9]* settings differ'; then
    pass "eval \"\$(gpuvet env)\" in $shell" "$(echo "$out" | tail -n 1); $(echo "$out" | grep -c '^ok') settings ok"
  else
    fail "eval \"\$(gpuvet env)\" in $shell" "exit $rc: $out"
  fi
  # The fixture APU with a bundled HIP runtime first on the path and an override set.
  # shellcheck disable=SC2016
  # (whatever library path gpuvet itself needs stays after the test's own entry)
  out=$(LD_LIBRARY_PATH=/venv/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} HSA_OVERRIDE_GFX_VERSION=9.0.0 "$shell" -c \
        'eval "$("$GPUVET" env --sysroot "$0")" && echo "LLP=$LD_LIBRARY_PATH HSA=$HSA_OVERRIDE_GFX_VERSION" && "$GPUVET" env --sysroot "$0" --check' "$apu" 2>&1); rc=$?
  if [ $rc = 0 ] && echo "$out" | grep -Eq '^LLP=/opt/rocm/lib:/venv/lib(:[^ ]*)? HSA=11.0.0$'; then
    pass "eval in $shell, APU fixture" "library path and gfx override applied, --check clean"
  else
    fail "eval in $shell, APU fixture" "exit $rc: $out"
  fi
done

OPENBLAS_NUM_THREADS=999 "$GPUVET" env --check >"$T_TMP/chk" 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^differs  OPENBLAS_NUM_THREADS is '999', should be" "$T_TMP/chk"; then
  pass "env --check reports a wrong setting" "$(grep OPENBLAS "$T_TMP/chk")"
else
  fail "env --check reports a wrong setting" "exit $rc: $(cat "$T_TMP/chk")"
fi
"$GPUVET" env >"$T_TMP/env.sh"
if sh -n "$T_TMP/env.sh" && [ "$(grep -c '^# ' "$T_TMP/env.sh")" -gt "$(grep -c '^export ' "$T_TMP/env.sh")" ]; then
  pass "env output" "valid sh, a comment for every setting ($(grep -c '^export ' "$T_TMP/env.sh") exports)"
else
  fail "env output" "$(cat "$T_TMP/env.sh")"
fi
expect_exit "env: bad flag" 2 "$GPUVET" env --nope
expect_exit "probe: bad flag" 2 "$GPUVET" probe --sysroot
expect_exit "blas-race: bad size" 2 "$GPUVET" blas-race --sizes 0
# On the GPU (a self-check where one is visible; exit 3 with a one-line reason elsewhere).
if "$GPUVET" probe --json - 2>/dev/null | grep -Eq '"sources":[[:space:]]*\["(cuda|hip)"'; then want=0; else want=3; fi
expect_exit "blas-race on the GPU (exit 0 with a visible GPU, 3 without)" "$want" \
  "$GPUVET" blas-race --devices cuda --sizes 64,300 --runs 4 -q
"$GPUVET" blas-race --sizes 64,131 --runs 20 --json "$T_TMP/race.json" >"$T_TMP/race.out" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q '^no wrong results' "$T_TMP/race.out" && grep -q '"wrong_runs":	0' "$T_TMP/race.json"; then
  pass "blas-race command on this BLAS" "$(tail -n 1 "$T_TMP/race.out")"
else
  fail "blas-race command on this BLAS" "exit $rc: $(cat "$T_TMP/race.out")"
fi
