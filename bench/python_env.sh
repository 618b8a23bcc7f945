#!/bin/sh
# python_env.sh [RESULTS_DIR] [drop7] [console]: the Python package's environments side by side
# with their baselines in one command (docs/PYTHON.md): Drop7Env steps/s against the same rules
# written in NumPy (bench/python/drop7_numpy.py) in the same process, and ConsoleEnv
# instance-frames/s against `gpuvet bench ROM` at 1..1024 instances (bench/python/python_env.py
# says how each is measured and what is compared before any timing). Installs the package with
# `make python` (build/python-venv) first. Writes RESULTS_DIR (default
# bench/results/<date>-python-env): machine.txt, raw.json, summary.md, log.txt.
# GPUVET (default build/cpu/gpuvet), ROMS, INSTANCES, BATCHES, GPU_BATCHES, REPEATS, THREADS override;
# PY names a Python where gpuvet is importable already (a GPU machine where nothing installs):
# then `make python` is not run. Run it on a
# quiet machine: the load average is recorded, and the CPU-time columns are the ones to read
# on a busy one.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=${1:-bench/results/$(date -u +%Y-%m-%d)-python-env}
[ $# -gt 0 ] && shift
export GPUVET=${GPUVET:-$root/build/cpu/gpuvet}
[ -x "$GPUVET" ] || { echo "python_env.sh: $GPUVET is missing (make GPU=cpu)" >&2; exit 2; }
if [ -n "${PY:-}" ]; then
  py=$PY
  $py -c 'import gpuvet' || { echo "python_env.sh: PY=$PY cannot import gpuvet" >&2; exit 2; }
else
  make --no-print-directory python >"${TMPDIR:-/tmp}/python_env_make.log" 2>&1 ||
    { echo "python_env.sh: make python failed:" >&2; tail -n 15 "${TMPDIR:-/tmp}/python_env_make.log" >&2; exit 2; }
  py=build/python-venv/bin/python
fi
mkdir -p "$out"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) usable cores"
  echo "memory: $(awk '/MemTotal/ {printf "%d GiB", $2 / 1048576}' /proc/meminfo)"
  echo "os: $(. /etc/os-release; echo "$PRETTY_NAME"), $(uname -r)"
  echo "gpuvet: $("$GPUVET" --version 2>/dev/null | head -n 1), commit $(git rev-parse --short HEAD 2>/dev/null)"
  echo "python: $($py -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)')"
  echo "torch: $($py -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
$py bench/python/python_env.py "$out" "$@" 2>&1 | tee "$out/log.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
echo "python_env.sh: $out/summary.md"
