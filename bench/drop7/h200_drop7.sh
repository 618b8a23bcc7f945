#!/bin/sh
# h200_drop7.sh OUT_DIR: the Drop7 game on a GPU machine, under 8 minutes in all (issue 17):
#   1. GPU == CPU batched simulation: test_drop7_gpu (records and moves of 65,536 games per
#      player and mode, optional rules too) with GV_EXPECT_GPU=1 (a skip is a failure);
#   2. gpuvet bench drop7 on cpu,cuda at batches 1, 4, ..., 65536, random and greedy (each
#      GPU batch's records compared with the CPU's before timing), with the crossover;
#   3. a short self-play -> train -> play loop on the GPU (bench/drop7/loop.sh; 4 generations
#      of 512 games x 32 simulations, a 64-channel 4-block network, 500 evaluation games).
# Builds nothing. Prepare on a build machine: make GPU=cuda CUDA_ARCH=90 build tests, then
# carry the checkout with build/cuda. Writes into OUT_DIR: machine.txt, sim_gpu.txt,
# bench_drop7.json/.txt, loop/ (records, checkpoints, datasets, summary.txt) and
# summary.txt. Exit 1 when a check failed, 2 on bad arguments, 3 without a usable GPU.
# Each step has a time limit (STEP1_S 90, STEP2_S 150, STEP3_S 210: 7.5 min of caps) so the whole stays under 8 min.
set -u
out=${1:?usage: bench/drop7/h200_drop7.sh OUT_DIR}
GPUVET=${GPUVET:-build/cuda/gpuvet}
B=$(dirname "$GPUVET")
[ -x "$GPUVET" ] || { echo "h200_drop7.sh: no gpuvet binary at $GPUVET (set GPUVET)" >&2; exit 2; }
[ -x "$B/tests/test_drop7_gpu" ] || { echo "h200_drop7.sh: no $B/tests/test_drop7_gpu (make GPU=cuda CUDA_ARCH=90 build tests)" >&2; exit 2; }
mkdir -p "$out" || exit 2
here=$(cd "$(dirname "$0")" && pwd)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "binary: $GPUVET ($("$GPUVET" --version 2>&1))"
  echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(getconf _NPROCESSORS_ONLN) cores"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
cat "$out/machine.txt"
failed=0
t0=$(date +%s)

echo "== 1. GPU == CPU batched simulation"
GV_EXPECT_GPU=1 GV_DROP7_GPU_GAMES=${GPU_GAMES:-65536} timeout "${STEP1_S:-90}" "$B/tests/test_drop7_gpu" >"$out/sim_gpu.txt" 2>&1
rc=$?
cat "$out/sim_gpu.txt"
if [ "$rc" != 0 ] || grep -q '^FAIL\|^SKIP' "$out/sim_gpu.txt"; then echo "FAIL test_drop7_gpu (exit $rc)"; failed=1; fi
[ "$rc" = 124 ] && echo "(test_drop7_gpu hit its ${STEP1_S:-90} s limit: set GPU_GAMES lower)"

echo "== 2. bench drop7, CPU vs GPU, batches 1..65536"
timeout "${STEP2_S:-150}" "$GPUVET" bench drop7 --devices cpu,cuda --repeats 3 --min-time 0.2 --json "$out/bench_drop7.json" \
  >"$out/bench_drop7.txt" 2>&1
rc=$?
cat "$out/bench_drop7.txt"
[ "$rc" = 3 ] && { echo "h200_drop7.sh: no usable GPU" >&2; exit 3; }
[ "$rc" = 0 ] || { echo "FAIL bench drop7 (exit $rc)"; failed=1; }

echo "== 3. self-play -> train -> play loop on the GPU"
GPUVET="$GPUVET" DEVICES=cuda GENS=${GENS:-4} GAMES=${GAMES:-512} SIMS=${SIMS:-32} EVAL_GAMES=${EVAL_GAMES:-500} \
  CHANNELS=${CHANNELS:-64} BLOCKS=${BLOCKS:-4} EPOCHS=${EPOCHS:-4} BATCH=${BATCH:-256} PARALLEL=${PARALLEL:-256} \
  timeout "${STEP3_S:-210}" sh "$here/loop.sh" "$out/loop" >"$out/loop.txt" 2>&1
rc=$?
tail -n 40 "$out/loop.txt"
[ "$rc" = 0 ] || { echo "FAIL loop.sh (exit $rc; 124: it hit its ${STEP3_S:-210} s limit, the generations done are in loop/summary.txt)"; failed=1; }

{
  cat "$out/machine.txt"
  echo "sim: $(grep -c '^PASS' "$out/sim_gpu.txt") PASS, $(grep -c '^FAIL' "$out/sim_gpu.txt") FAIL lines"
  grep '^verdict' "$out/bench_drop7.txt"
  cat "$out/loop/summary.txt" 2>/dev/null
  echo "total: $(( $(date +%s) - t0 )) s, failed=$failed"
} >"$out/summary.txt"
cat "$out/summary.txt"
exit $failed
