#!/bin/sh
# h200_infer.sh OUT_DIR: the network's inference work of issue 15 on a GPU machine, one run,
# under 5 minutes (each step has a time limit, and no step runs past 290 s from the start;
# steps 4 and 5 are skipped when less than 25 s are left, step 6 under 60 s):
#   1. the kernel self-test (every conv kernel against the naive one, split-K included) and
#      the GPU trainer tests (the captured inference equals the eager eval forward), both
#      with GV_EXPECT_GPU=1 (a skip is a failure);
#   2. gpuvet check --devices cpu,cuda --dtype fp32,bf16 at 64 and 128 channels (GroupNorm and
#      BatchNorm, batch 16), at 128 channels also at batch 1 (the split-K convolutions), and
#      --inject-fault, which must fail;
#   3. bench/infer_gpu_vs_torch.sh (gpuvet cuda and cpu, PyTorch eager, CUDA graph and
#      torch.compile) at batches 1..4096, fp32 and bf16;
#   4. the GPU batch-1..64 latency without split-K (GV_CONV_SPLITK=0), for the A/B;
#   5. bench/infer_cpu_vs_torch.sh at all cores, batches 1, 4, 16, 64;
#   6. bench/train_cpu_vs_torch.sh at all cores (64 and 128 channels, batches 256 and 1024),
#      when 60 s of the budget are left.
# Builds nothing: GPUVET (default build/cuda/gpuvet) and its tests/ beside it, built with
# CUDA_ARCH=90 (scripts/device-pack.sh). Writes into OUT_DIR at most 4 files: log.txt (all of
# the output), summary.md (the lines that answer the acceptance), infer_gpu_summary.md and
# raw.tar.gz (every record and log). Exit 1 when a check failed, 2 on bad arguments.
set -u
out=${1:?usage: bench/nn/h200_infer.sh OUT_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
GPUVET=${GPUVET:-build/cuda/gpuvet}
case "$GPUVET" in /*) ;; *) GPUVET=$(pwd)/$GPUVET ;; esac
B=$(dirname "$GPUVET")
[ -x "$GPUVET" ] || { echo "h200_infer.sh: no gpuvet binary at $GPUVET (set GPUVET)" >&2; exit 2; }
[ -x "$B/tests/test_gpu_kernels" ] && [ -x "$B/tests/test_gpu_train" ] ||
  { echo "h200_infer.sh: no $B/tests/test_gpu_kernels or test_gpu_train (make GPU=cuda CUDA_ARCH=90 build tests)" >&2; exit 2; }
mkdir -p "$out" || exit 2
raw=$(mktemp -d)
failed=0
step() { echo; echo "== $*"; }
t0=$(date +%s)
# lim CAP: CAP seconds, or what is left of the 290 s budget when that is less
lim() { l=$((290 - ($(date +%s) - t0))); [ "$l" -lt 1 ] && l=1; [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
# ok NAME RC: a test program that must exit 0 and print no FAIL/SKIP line (GV_EXPECT_GPU=1:
# a skip is a failure); okc NAME RC: a check, exit 0 and no FAIL line (its SKIP lines are
# legitimate: the CPU has no bf16 path). Logs are $raw/NAME.txt.
ok() {
  if [ "$2" != 0 ] || grep -q '^FAIL\|^SKIP' "$raw/$1.txt"; then echo "FAIL $1 (exit $2)"; failed=1; else echo "PASS $1"; fi
}
okc() {
  if [ "$2" != 0 ] || grep -q '^FAIL' "$raw/$1.txt"; then echo "FAIL $1 (exit $2)"; failed=1; else echo "PASS $1"; fi
}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "binary: $GPUVET ($("$GPUVET" --version 2>&1)), tree $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(getconf _NPROCESSORS_ONLN) cores"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

  step "1. kernel self-test and GPU trainer tests (GV_EXPECT_GPU=1)"
  GV_EXPECT_GPU=1 timeout "$(lim 60)" "$B/tests/test_gpu_kernels" >"$raw/test_gpu_kernels.txt" 2>&1
  ok test_gpu_kernels $?
  grep -E '^(FAIL|SKIP)|split-K' "$raw/test_gpu_kernels.txt"
  GV_EXPECT_GPU=1 timeout "$(lim 60)" "$B/tests/test_gpu_train" >"$raw/test_gpu_train.txt" 2>&1
  ok test_gpu_train $?
  grep -E '^(FAIL|SKIP)|gpu infer' "$raw/test_gpu_train.txt"

  step "2. check cpu,cuda fp32,bf16 at 64 and 128 channels; batch 1; the fault hook"
  timeout "$(lim 45)" "$GPUVET" check --devices cpu,cuda --dtype fp32,bf16 --channels 64 --json "$raw/check64.json" \
    >"$raw/check64.txt" 2>&1
  okc check64 $?
  timeout "$(lim 45)" "$GPUVET" check --devices cpu,cuda --dtype fp32,bf16 --channels 128 --gemm-size 0 \
    --json "$raw/check128.json" >"$raw/check128.txt" 2>&1
  okc check128 $?
  timeout "$(lim 30)" "$GPUVET" check --devices cpu,cuda --dtype fp32,bf16 --channels 128 --batch 1 --gemm-size 0 \
    >"$raw/check128_b1.txt" 2>&1
  okc check128_b1 $?
  grep -h '^FAIL' "$raw"/check*.txt
  timeout "$(lim 30)" "$GPUVET" check --devices cuda --dtype fp32,bf16 --channels 128 --batch 1 --gemm-size 0 --inject-fault \
    >"$raw/check_fault.txt" 2>&1
  rc=$?
  if [ "$rc" = 1 ]; then echo "PASS check --inject-fault fails (exit 1)"; else echo "FAIL check --inject-fault: exit $rc, want 1"; failed=1; fi

  step "3. inference against PyTorch (bench/infer_gpu_vs_torch.sh)"
  GPUVET="$GPUVET" timeout "$(lim 170)" sh "$root/bench/infer_gpu_vs_torch.sh" "$raw/infer_gpu" --repeats 2 --min-time 0.15 \
    >"$raw/infer_gpu.txt" 2>&1
  rc=$?
  [ "$rc" = 0 ] || { echo "FAIL infer_gpu_vs_torch.sh (exit $rc; 124: its 170 s limit)"; failed=1; }
  cat "$raw/infer_gpu/summary.md" 2>/dev/null

  [ "$(lim 25)" -ge 25 ] || { echo "(steps 4 and 5 skipped: the time budget is spent)"; exit 0; }
  step "4. GPU without split-K (GV_CONV_SPLITK=0), batches 1..64"
  GV_CONV_SPLITK=0 timeout "$(lim 30)" "$GPUVET" bench infer --devices cuda --batches 1,4,16,64 --dtype fp32,bf16 \
    --repeats 2 --min-time 0.15 >"$raw/infer_nosplit.txt" 2>&1 || echo "(bench infer without split-K failed)"
  cat "$raw/infer_nosplit.txt"

  [ "$(lim 25)" -ge 25 ] || { echo "(step 5 skipped: the time budget is spent)"; exit 0; }
  step "5. CPU inference against PyTorch, all cores"
  GPUVET="$GPUVET" timeout "$(lim 60)" sh "$root/bench/infer_cpu_vs_torch.sh" --batches 1,4,16,64 --rounds 2 --min-time 0.2 \
    --repeats 2 --out "$raw/infer_cpu.md" >"$raw/infer_cpu.txt" 2>&1 || echo "(infer_cpu_vs_torch.sh failed)"
  sed -n '/^| batch/,/^$/p' "$raw/infer_cpu.md" 2>/dev/null

  [ "$(lim 60)" -ge 60 ] || { echo "(step 6 skipped: the time budget is spent)"; exit 0; }
  step "6. CPU training against PyTorch, all cores (what time is left)"
  GPUVET="$GPUVET" timeout "$(lim 120)" sh "$root/bench/train_cpu_vs_torch.sh" --rounds 1 --steps 2 --repeats 2 \
    --out "$raw/train_cpu.md" >"$raw/train_cpu.txt" 2>&1 || echo "(train_cpu_vs_torch.sh failed or ran out of time)"
  sed -n '/^| channels/,/^$/p' "$raw/train_cpu.md" 2>/dev/null
} 2>&1 | tee "$out/log.txt"
failed=$(grep -c '^FAIL' "$out/log.txt")
cp "$raw/infer_gpu/summary.md" "$out/infer_gpu_summary.md" 2>/dev/null
{
  sed -n '1,5p' "$out/log.txt"
  echo
  grep -E '^(PASS|FAIL)' "$out/log.txt"
  echo
  grep -E '^\| 1 \||^\| 4096 \||^samples/s|^### ' "$raw/infer_gpu/summary.md" 2>/dev/null
  echo
  sed -n '/^| batch/,/^$/p' "$raw/infer_cpu.md" 2>/dev/null
  echo
  sed -n '/^| channels/,/^$/p' "$raw/train_cpu.md" 2>/dev/null
} >"$out/summary.md"
tar -czf "$out/raw.tar.gz" -C "$raw" . && rm -rf "$raw"
[ "$failed" = 0 ] || exit 1
exit 0
