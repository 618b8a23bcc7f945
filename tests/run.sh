#!/bin/sh
# The test runner of `make test`. Runs every test program built into $GV_BUILD/tests/ and
# every shell test tests/**/test_*.sh, shows their output, counts the PASS/FAIL/SKIP lines
# they print, lists the programs that failed with the first FAIL line of each, and ends
# with the line "N passed, N failed". A program that exits non-zero without a FAIL line,
# or prints no result at all, counts as one failure. The tests run with a home of their own
# (HOME, XDG_*), removed at the end: what they start (RetroArch, Chromium) writes there.
# Environment: GPUVET (the binary), GV_BUILD (its build folder), PYTHON (a python3 with
# torch, or empty); TESTS=pattern runs only the tests whose name contains pattern; the other
# variables the tests read are in tests/README.md.
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
: >"$tmp/failed"
# python3 still finds the packages installed in the user's own site (pip --user)
[ -z "${HOME:-}" ] || export PYTHONUSERBASE="${PYTHONUSERBASE:-$HOME/.local}"
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_CACHE_HOME="$tmp/home/.cache" \
  XDG_DATA_HOME="$tmp/home/.local/share" XDG_STATE_HOME="$tmp/home/.local/state"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME"

run_one() { # name, command...
  name=$1; shift
  case "$name" in *"$pattern"*) ;; *) return ;; esac
  echo "== $name"
  start=$(date +%s)
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  cat "$tmp/out"
  p=$(grep -c '^PASS ' "$tmp/out"); f=$(grep -c '^FAIL ' "$tmp/out"); s=$(grep -c '^SKIP ' "$tmp/out")
  first=$(grep -m 1 '^FAIL ' "$tmp/out")
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    first="FAIL $name: exited with status $rc without a FAIL line"
    echo "$first"
    f=1
  elif [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$s" = 0 ]; then
    first="FAIL $name: printed no PASS/FAIL/SKIP line"
    echo "$first"
    f=1
  fi
  if [ "$f" != 0 ]; then
    if [ -s "$tmp/err" ]; then echo "   (stderr of $name, last lines)"; tail -n 20 "$tmp/err" | sed 's/^/    /'; fi
    printf '  %s (%s failed): %.300s\n' "$name" "$f" "$first" >>"$tmp/failed"
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
if [ -s "$tmp/failed" ]; then
  n=$(grep -c '' "$tmp/failed")
  echo "$n test program$( [ "$n" = 1 ] || echo s) failed (the first FAIL line of each; all of them are above):"
  cat "$tmp/failed"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
