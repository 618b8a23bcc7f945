#!/bin/sh
# infer_split.sh OUT_DIR: where an inference call's time goes at large batches: `gpuvet
# bench infer` (bf16 on a GPU, fp32 on the CPU; 128 channels, batches 1024 and 4096) at
# several thread counts (OMP_NUM_THREADS: the host's conversion of the positions) and, on a
# GPU, several input chunk sizes (GV_INPUT_CHUNK), one run each. Prints and writes
# OUT_DIR/split.txt, a line per run and batch: the call's median and p99 latency, the
# median of set_batch's part of it (input_ms_median: the positions converted, and on a GPU
# their copies queued) and samples/s; OUT_DIR/*.json and *.out keep each run.
# usage: sh bench/nn/infer_split.sh OUT_DIR [--devices cuda|cpu] [--threads 16,4,1]
#        [--chunks 256,1024,4096] [--batches 1024,4096] [--repeats 3] [--positions planes|cells]
# environment: GPUVET (default build/cuda/gpuvet), PYTHON (default: scripts/find-python)
set -u
[ $# -ge 1 ] || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
out=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
dev=cuda threads=$(nproc),4,1 chunks=256,1024,4096 batches=1024,4096 repeats=3 positions=planes
while [ $# -gt 0 ]; do
  case "$1" in
    --devices) dev=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --chunks) chunks=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --positions) positions=$2; shift 2 ;;
    *) echo "infer_split.sh: unknown argument '$1' (see the usage in the script)" >&2; exit 2 ;;
  esac
done
case $dev in cuda) dt=bf16 ;; cpu) dt=fp32 chunks= ;; *) echo "infer_split.sh: --devices is cuda or cpu, not '$dev'" >&2; exit 2 ;; esac
GPUVET=${GPUVET:-$root/build/cuda/gpuvet}
PYTHON=${PYTHON:-$("$root/scripts/find-python" 2>/dev/null || command -v python3)}
[ -x "$GPUVET" ] || { echo "infer_split.sh: no gpuvet at $GPUVET (set GPUVET)" >&2; exit 3; }
mkdir -p "$out" || exit 2
: >"$out/split.txt"
fails=0
one() { # NAME ENV...: one bench infer run, its lines appended to split.txt
  name=$1; shift
  if ! env "$@" "$GPUVET" bench infer --devices "$dev" --dtype "$dt" --channels 128 --batches "$batches" \
      --positions "$positions" --repeats "$repeats" --quiet --json "$out/$name.json" >"$out/$name.out" 2>&1; then
    echo "$name: gpuvet bench infer failed (see $out/$name.out)" | tee -a "$out/split.txt"
    fails=$((fails + 1))
    return
  fi
  "$PYTHON" -c 'import json, sys
for e in json.load(open(sys.argv[1]))["bench_infer"]:
    print("%-12s batch %5d  call %.3f ms (p99 %.3f)  set_batch %.3f ms  %.0f samples/s" % (sys.argv[2],
          e["batch"], e["latency_ms_median"], e["latency_ms_p99"], e["input_ms_median"], e["samples_per_s_median"]))' \
    "$out/$name.json" "$name" | tee -a "$out/split.txt"
}
for t in $(echo "$threads" | tr , ' '); do one "threads$t" OMP_NUM_THREADS="$t"; done
n=$(echo "$threads" | cut -d, -f1)
for c in $(echo "$chunks" | tr , ' '); do one "chunk$c" OMP_NUM_THREADS="$n" GV_INPUT_CHUNK="$c"; done
[ "$fails" = 0 ]
