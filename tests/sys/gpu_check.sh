#!/bin/sh
# gpu_check.sh: the GPU-side checks of probe, telemetry, blas-race and report, for a machine
# with an NVIDIA GPU. From the repository root, after `make GPU=cuda -j"$(nproc)"`:
#     sh tests/sys/gpu_check.sh [OUTDIR]
# Prints PASS/FAIL/SKIP lines and exits 1 on any FAIL. OUTDIR (default gpu-check/) keeps
# probe.json, race.json, race.html and, when `bench train` records telemetry, train.json
# and train.html: copy them back to screenshot the HTML with bench/screenshot.sh.
set -u
out=${1:-gpu-check}
mkdir -p "$out"
root=$(pwd)
bin=$root/build/cuda/gpuvet
fails=0
pass() { echo "PASS $1: $2"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
skip() { echo "SKIP $1: $2"; }
[ -x "$bin" ] || { echo "FAIL build: $bin is missing (run make GPU=cuda first)"; exit 1; }
py=$(command -v python3 || true)

# json FILE EXPR: evaluates a Python expression over the parsed record `r` (prints it).
json() { "$py" -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# 1. This part's test programs on this machine: the probe of the real GPU against the
#    schema of docs/PROBE.md, the real NVML sampled at 5 Hz, blas-race, report.
progs="test_probe_schema test_telemetry test_sysfs test_blas_race test_report"
# build the test programs unless they are already there (a machine that cannot build, such as
# a GPU machine given a prebuilt build/cuda, runs them as they are)
missing=""
for t in $progs; do [ -x "build/cuda/tests/$t" ] || missing="$missing build/cuda/tests/$t"; done
if [ -n "$missing" ]; then
  # shellcheck disable=SC2086
  make --no-print-directory GPU=cuda $missing >"$out/build-tests.log" 2>&1 || fail "test build" "see $out/build-tests.log"
fi
for t in $progs test_env; do   # test_report also runs test_report_cli (run.sh matches substrings)
  GPUVET=$bin GV_BUILD=$root/build/cuda sh tests/run.sh "$t" >"$out/$t.log" 2>&1
  line=$(tail -n 1 "$out/$t.log")
  case "$line" in *" 0 failed") pass "$t" "$line; $(grep -E '^(PASS real NVML|PASS probe schema: this machine|SKIP)' "$out/$t.log" | head -n 3 | tr '\n' ' ')" ;;
                  *) fail "$t" "$line (see $out/$t.log)" ;; esac
done

# 2. The probe: the GPU as NVML and the runtime see it.
"$bin" probe >"$out/probe.txt" 2>&1
"$bin" probe --json - >"$out/probe.json" 2>>"$out/probe.txt"
if [ -n "$py" ]; then
  desc=$(json "$out/probe.json" "(r['gpus'][0]['vendor'], r['gpus'][0]['name'], r['gpus'][0]['arch'], r['gpus'][0]['memory']['kind'], r['gpus'][0]['sources'], r['nvml']['loaded'], r['gpu_backend'])" 2>&1)
  case "$desc" in "('NVIDIA', "*"'sm_"*"'dedicated', ['cuda', 'nvml'], True, 'cuda')") pass "probe: GPU seen by runtime and NVML" "$desc" ;;
                  *) fail "probe: GPU seen by runtime and NVML" "$desc" ;; esac
else
  skip "probe fields" "python3 is not installed; see $out/probe.json"
fi

# 3. blas-race on the GPU: cuBLAS fp32 against float64 (exit 1 on a wrong result), with
#    telemetry from NVML during the runs.
"$bin" blas-race --devices cuda --sizes 256,1024,2048 --runs 40 --telemetry-hz 10 --json "$out/race.json" >"$out/race.txt" 2>&1
rc=$?
[ $rc = 0 ] && pass "blas-race on cuda" "$(tail -n 1 "$out/race.txt")" || fail "blas-race on cuda" "exit $rc: $(tail -n 3 "$out/race.txt")"
if [ -n "$py" ]; then
  tel=$(json "$out/race.json" "r['telemetry']['sources']['gpu'], r['telemetry']['achieved_hz'], max(x or 0 for x in r['telemetry']['series']['gpu_power_w']), max(x or 0 for x in r['telemetry']['series']['gpu_sm_mhz'])" 2>&1)
  ok=$(json "$out/race.json" "r['telemetry']['sources']['gpu'].startswith('nvml') and r['telemetry']['achieved_hz'] >= 5 and max(x or 0 for x in r['telemetry']['series']['gpu_power_w']) > 0 and max(x or 0 for x in r['telemetry']['series']['gpu_sm_mhz']) > 0" 2>&1)
  [ "$ok" = True ] && pass "telemetry during blas-race" "source, Hz, max W, max MHz: $tel" || fail "telemetry during blas-race" "$tel"
fi
"$bin" report "$out/race.json" -o "$out/race.html" >/dev/null 2>&1 && pass "report of the blas-race record" "$out/race.html" ||
  fail "report of the blas-race record" "gpuvet report failed"

# 4. The acceptance run: bench train on CPU and GPU, with telemetry wired in by the lead.
"$bin" bench train --devices cpu,cuda --json "$out/train.json" >"$out/train.txt" 2>&1
rc=$?
if [ $rc != 0 ]; then
  skip "bench train" "exit $rc: $(tail -n 1 "$out/train.txt")"
elif [ -n "$py" ] && [ "$(json "$out/train.json" "'telemetry' in r")" = True ]; then
  tel=$(json "$out/train.json" "[(p['label'], p['samples'], round(p['t1']-p['t0'],2), p['gpu_power_w']['median'], p['gpu_sm_mhz']['median']) for p in r['telemetry']['phases'] if 'cuda' in p['label']]" 2>&1)
  ok=$(json "$out/train.json" "all(p['samples'] >= 5*(p['t1']-p['t0']) and (p['gpu_power_w']['median'] or 0) > 0 and (p['gpu_sm_mhz']['median'] or 0) > 0 for p in r['telemetry']['phases'] if 'cuda' in p['label']) and any('cuda' in p['label'] for p in r['telemetry']['phases'])" 2>&1)
  [ "$ok" = True ] && pass "bench train telemetry: >= 5 samples/s, GPU power and clocks" "$tel" || fail "bench train telemetry" "$tel"
  "$bin" report "$out/train.json" -o "$out/train.html" >"$out/train-report.txt" 2>&1 && pass "report of bench train" "$(grep '^verdict' "$out/train-report.txt" | head -n 3 | tr '\n' ' ')" ||
    fail "report of bench train" "$(cat "$out/train-report.txt")"
else
  skip "bench train telemetry" "the record has no telemetry (wire gv_telemetry_start/phase_begin/phase_end/stop into bench train)"
fi
echo "gpu_check: $fails failed; outputs in $out/"
[ $fails = 0 ]
