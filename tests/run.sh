#!/bin/sh
# The test runner of `make test`. Runs every test program built into $GV_BUILD/tests/ and
# every shell test tests/**/test_*.sh, shows their output, counts the PASS/FAIL/SKIP lines
# they print and ends with the line "N passed, N failed". A program that exits non-zero
# without a FAIL line, or prints no result at all, counts as one failure.
# Environment: GPUVET (the binary), GV_BUILD (its build folder), PYTHON (a python3 with
# torch, or empty); TESTS=pattern runs only the tests whose name contains pattern.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
: "${GV_BUILD:?set GV_BUILD to the build folder (make test does)}"
: "${GPUVET:?set GPUVET to the gpuvet binary (make test does)}"
export GPUVET GV_BUILD GV_ROOT="$root" PYTHON="${PYTHON:-}"
# GV_REF_DIR: a folder of PyTorch reference vectors, when given; else the tests generate
# them with bench/torch/make_reference.py (tests/cli/nn_ref.sh, tests/nn/nn_testlib.h).
export GV_REF_DIR="${GV_REF_DIR:-}"
pattern=${1:-${TESTS:-}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0 skip=0

run_one() { # name, command...
  name=$1; shift
  case "$name" in *"$pattern"*) ;; *) return ;; esac
  echo "== $name"
  start=$(date +%s)
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  cat "$tmp/out"
  p=$(grep -c '^PASS ' "$tmp/out"); f=$(grep -c '^FAIL ' "$tmp/out"); s=$(grep -c '^SKIP ' "$tmp/out")
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    echo "FAIL $name: exited with status $rc without a FAIL line; its stderr:"
    tail -n 20 "$tmp/err" | sed 's/^/    /'
    f=1
  elif [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$s" = 0 ]; then
    echo "FAIL $name: printed no PASS/FAIL/SKIP line"
    f=1
  elif [ "$f" != 0 ]; then
    echo "   (stderr of $name, last lines)"; tail -n 10 "$tmp/err" | sed 's/^/    /'
  fi
  echo "   $name: $p passed, $f failed, $s skipped in $(( $(date +%s) - start ))s"
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

for t in "$GV_BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  run_one "$(basename "$t")" "$t"
done
for t in $(find "$root/tests" -name 'test_*.sh' | sort); do
  run_one "$(basename "$t" .sh)" sh "$t"
done

echo "$skip skipped (each SKIP line above says why)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
