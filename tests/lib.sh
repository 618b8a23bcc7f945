# lib.sh: helpers for shell tests (sourced). Each helper prints one PASS/FAIL/SKIP line.
# GPUVET is the binary under test (set by make test); GV_ROOT the checkout.
: "${GPUVET:?run through make test (GPUVET is not set)}"
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT INT TERM

pass() { echo "PASS $1: $2"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
# skip_gpu NAME WHY: a GPU step that cannot run: SKIP, or FAIL where GV_EXPECT_GPU=1 says this
# machine has a usable GPU.
skip_gpu() { if [ "${GV_EXPECT_GPU:-0}" = 1 ]; then fail "$1" "GV_EXPECT_GPU=1 but: $2"; else skip "$1" "$2"; fi; }

# expect_exit NAME CODE CMD...: runs CMD, checks its exit status is CODE; for codes 2 and 3
# also that stderr is exactly one line (the one-line error promised to users).
expect_exit() {
  name=$1; want=$2; shift 2
  "$@" >"$T_TMP/out" 2>"$T_TMP/err"
  rc=$?
  lines=$(grep -c '' "$T_TMP/err")
  msg=$(head -n 1 "$T_TMP/err")
  if [ "$rc" != "$want" ]; then
    fail "$name" "exit $rc, expected $want ($*): $msg"
  elif { [ "$want" = 2 ] || [ "$want" = 3 ]; } && [ "$lines" != 1 ]; then
    fail "$name" "exit $rc as expected but stderr has $lines lines, expected one: $msg"
  else
    pass "$name" "exit $rc${msg:+: $msg}"
  fi
}

# expect_grep NAME PATTERN FILE: FILE contains a line matching the extended regex PATTERN.
expect_grep() {
  if grep -Eq -- "$2" "$3"; then pass "$1" "found /$2/"; else fail "$1" "no line matches /$2/ in $3"; fi
}

# nes_roms NAME: sets romdir to our NES test ROMs, prebuilt in GV_ROMS/nes (a GPU machine
# without ca65), else built here into GV_BUILD/roms/nes; when they cannot be built, prints
# a SKIP line for NAME and exits the test.
nes_roms() {
  romdir=${GV_ROMS:+$GV_ROMS/nes}
  [ -n "$romdir" ] && return 0
  romdir=$GV_BUILD/roms/nes
  if ! sh "$GV_ROOT/tests/nes/build_roms.sh" "$romdir" >"$T_TMP/nes.log" 2>&1; then
    skip "$1" "the NES test ROMs did not build (ca65/ld65 from the Debian package cc65)"
    exit 0
  fi
}
