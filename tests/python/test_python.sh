# test_python.sh: the Python package (python/, docs/PYTHON.md) as a user installs it: a fresh
# virtual environment over Debian's python3 with --system-site-packages, `pip install
# --no-build-isolation --no-index` of a copy of python/ (nothing downloaded, the checkout left
# as it is), then tests/python/test_gpuvet.py (unittest) in it, which prints a PASS, FAIL or
# SKIP line per test: Drop7Env's records against `gpuvet bench drop7` / `gpuvet play` and the
# engine, ConsoleEnv's frames and hashes against `gpuvet run`, state round trips, work RAM,
# bad input as exceptions, PyTorch where it is importable, and the example of docs/PYTHON.md;
# then tests/python/test_device.py, the GPU side (SKIP lines with the reason where no GPU can be
# used). The package is built over the library variant of GV_BUILD (GPUVET_GPU=cuda for a
# build/cuda* build, else cpu), so that its messages are those of the CLI under test.
. "$GV_ROOT/tests/lib.sh"
export OMP_WAIT_POLICY=passive PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
py=${GV_PY_SYS:-/usr/bin/python3}
command -v "$py" >/dev/null 2>&1 || py=python3
if ! "$py" -c 'import numpy, setuptools, venv' >/dev/null 2>&1; then
  skip "python package" "$py cannot import numpy, setuptools and venv: install Debian's python3-numpy python3-setuptools python3-venv (make bootstrap-test does)"
  exit 0
fi
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if [ ! -f "$inc/Python.h" ]; then
  skip "python package" "no $inc/Python.h: install Debian's python3-dev (make bootstrap-test does)"
  exit 0
fi
venv=$T_TMP/venv
if ! "$py" -m venv --system-site-packages "$venv" >"$T_TMP/venv.log" 2>&1; then
  fail "python venv" "$py -m venv --system-site-packages failed: $(tail -n 1 "$T_TMP/venv.log")"
  exit 0
fi
cp -r "$GV_ROOT/python" "$T_TMP/src"
rm -rf "$T_TMP/src/build" "$T_TMP/src"/*.egg-info
case $(basename "${GV_BUILD:-cpu}") in
  cuda*) gpu=cuda ;;
  *) gpu=cpu ;;
esac
start=$(date +%s)
if GPUVET_GPU=$gpu GPUVET_ROOT=$GV_ROOT "$venv/bin/pip" install --no-build-isolation --no-index "$T_TMP/src" >"$T_TMP/pip.log" 2>&1; then
  pass "python install" "pip install --no-build-isolation --no-index into a fresh venv over $py (--system-site-packages) in $(( $(date +%s) - start )) s ($gpu variant of the library)"
else
  fail "python install" "pip install failed: $(grep -m 1 -iE 'error' "$T_TMP/pip.log")"
  tail -n 20 "$T_TMP/pip.log" >&2
  exit 0
fi
cd "$T_TMP" || exit 1
GV_PY_TMP=$T_TMP "$venv/bin/python" "$GV_ROOT/tests/python/test_gpuvet.py"
rc=$?
GV_PY_TMP=$T_TMP "$venv/bin/python" "$GV_ROOT/tests/python/test_device.py" || rc=1
exit $rc
