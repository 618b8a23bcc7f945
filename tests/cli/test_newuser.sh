# What a new user meets before and around the first run (issue 12): a plain `make` on a
# machine without the compiler or the libraries names what to install; the bootstrap's
# non-root advice uses sudo, or su -c where sudo is absent; results printed while a progress
# line is drawn on a terminal start on a line of their own; a busy machine is flagged.
. "$GV_ROOT/tests/lib.sh"

# ---- make before the toolchain -------------------------------------------------------------
make -s -C "$GV_ROOT" deps-check CC=no-such-cc >"$T_TMP/out" 2>&1; rc=$?
if [ $rc = 2 ] && grep -q "C compiler 'no-such-cc' is not installed. Run 'make run'" "$T_TMP/out" &&
   grep -q 'scripts/bootstrap.sh build' "$T_TMP/out"; then
  pass "make without a compiler" "exit 2: $(head -n 1 "$T_TMP/out")"
else
  fail "make without a compiler" "exit $rc: $(tr '\n' ' ' <"$T_TMP/out")"
fi
make -s -C "$GV_ROOT" deps-check PKGS="libcjson no-such-package-gv" >"$T_TMP/out" 2>&1; rc=$?
if [ $rc = 2 ] && grep -q 'pkg-config cannot find: no-such-package-gv' "$T_TMP/out" && grep -q "make run" "$T_TMP/out"; then
  pass "make without a library" "exit 2: $(head -n 1 "$T_TMP/out")"
else
  fail "make without a library" "exit $rc: $(tr '\n' ' ' <"$T_TMP/out")"
fi

# ---- the bootstrap's advice when not root: sudo, else su -c ---------------------------------
fake=$T_TMP/fakebin
mkdir -p "$fake"
printf '#!/bin/sh\necho 1000\n' >"$fake/id"
printf '#!/bin/sh\nexit 1\n' >"$fake/dpkg-query"   # every package missing
chmod +x "$fake/id" "$fake/dpkg-query"
PATH=$fake /bin/sh "$GV_ROOT/scripts/bootstrap.sh" build >/dev/null 2>"$T_TMP/err"; rc=$?
if [ $rc = 1 ] && grep -q "^  su -c 'apt-get update && apt-get install -y --no-install-recommends gcc make" "$T_TMP/err"; then
  pass "bootstrap without sudo offers su -c" "$(grep 'su -c' "$T_TMP/err" | cut -c1-90)..."
else
  fail "bootstrap without sudo offers su -c" "exit $rc: $(tr '\n' ' ' <"$T_TMP/err")"
fi
printf '#!/bin/sh\nexit 0\n' >"$fake/sudo"
chmod +x "$fake/sudo"
PATH=$fake /bin/sh "$GV_ROOT/scripts/bootstrap.sh" build >/dev/null 2>"$T_TMP/err"; rc=$?
if [ $rc = 1 ] && grep -q '^  sudo apt-get update && sudo apt-get install' "$T_TMP/err" && ! grep -q 'su -c' "$T_TMP/err"; then
  pass "bootstrap with sudo offers sudo" "$(grep 'sudo apt' "$T_TMP/err" | cut -c1-90)..."
else
  fail "bootstrap with sudo offers sudo" "exit $rc: $(tr '\n' ' ' <"$T_TMP/err")"
fi

# ---- results never glued to a progress line on a terminal ----------------------------------
# script(1) gives the command a terminal; the typescript keeps the raw bytes. Every PASS
# line must begin a line, or follow the clearing sequence \r ESC[K of the progress line.
if command -v script >/dev/null 2>&1; then
  script -qec "'$GPUVET' check --devices cpu --gemm-size 256 --norm group --seed 5" "$T_TMP/tty" >/dev/null 2>&1
  n=$(grep -c 'PASS ' "$T_TMP/tty")
  glued=$(sed 's/\x1b\[K/\n/g; s/\r/\n/g' "$T_TMP/tty" | grep -c '[^[:space:]].*PASS ')
  drawn=$(grep -c '\[ *[0-9.]*s\] check' "$T_TMP/tty")
  if [ "$n" -ge 20 ] && [ "$glued" = 0 ] && [ "$drawn" -ge 1 ]; then
    pass "check on a terminal: results on their own lines" "$n PASS lines, progress drawn $drawn times, 0 glued to it"
  else
    fail "check on a terminal: results on their own lines" "$n PASS lines, $glued glued to other text, progress drawn $drawn times"
  fi
else
  skip "check on a terminal" "script(1) is not installed (package bsdutils)"
fi

# ---- a busy machine is flagged ---------------------------------------------------------------
busy=$T_TMP/busyroot
mkdir -p "$busy/proc"
cp -r "$GV_ROOT/tests/fixtures/sysfs/apu/proc/." "$busy/proc/"
echo "64.00 60.00 50.00 70/900 12345" >"$busy/proc/loadavg"
"$GPUVET" probe --sysroot "$busy" --json "$T_TMP/busy.json" >"$T_TMP/out" 2>&1
expect_grep "probe flags a busy machine" 'the machine is busy: load average 64.0 on [0-9]+ usable core' "$T_TMP/out"
expect_grep "the record keeps the warning" '"the machine is busy: load average 64.0' "$T_TMP/busy.json"
"$GPUVET" probe --sysroot "$GV_ROOT/tests/fixtures/sysfs/apu" >"$T_TMP/out" 2>&1
if grep -q 'machine is busy' "$T_TMP/out"; then fail "probe on a quiet machine" "warned at load 1.25"
else pass "probe on a quiet machine" "no busy warning at load 1.25"; fi

# ---- the probe gives each reason once --------------------------------------------------------
"$GPUVET" probe >"$T_TMP/out" 2>&1
if grep -q '^NVML     not loaded: ' "$T_TMP/out"; then
  why=$(sed -n 's/^NVML     not loaded: \(.\{20\}\).*/\1/p' "$T_TMP/out")
  n=$(grep -cF "$why" "$T_TMP/out")
  if [ "$n" = 1 ]; then pass "probe: the NVML reason once" "'$why...' on 1 line; $(grep '^GPUs' "$T_TMP/out" | cut -c1-100)"
  else fail "probe: the NVML reason once" "'$why...' on $n lines"; fi
else
  skip "probe: the NVML reason once" "NVML is loaded here"
fi
# the probe's units stand beside a number, never after an explanation ("max n/a (...) MHz")
"$GPUVET" probe >"$T_TMP/probe.txt" 2>&1
if grep -Eq 'n/a \(.*\) *(MHz|GHz|W|C|GiB)\b' "$T_TMP/probe.txt"; then
  fail "probe: no unit after an n/a" "$(grep -Em1 'n/a \(.*\) *(MHz|GHz|W|C|GiB)\b' "$T_TMP/probe.txt")"
else pass "probe: no unit after an n/a" "$(grep -Ec 'n/a' "$T_TMP/probe.txt") n/a fields, each ending with its reason"; fi
[ -s "$GV_ROOT/tests/README.md" ] && grep -q 'tests/README.md' "$GV_ROOT/tests/run.sh" &&
  pass "tests/run.sh points to a README that exists" "tests/README.md, $(wc -l <"$GV_ROOT/tests/README.md") lines" ||
  fail "tests/run.sh points to a README that exists" "tests/README.md missing or not named by run.sh"
