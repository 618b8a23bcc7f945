#!/bin/sh
# train_gpu_vs_torch.sh: gpuvet's GPU training throughput against PyTorch's on the same
# GPU, in one command: `gpuvet bench train --devices cuda` (with telemetry), then
# `torch_drop7.py --device cuda` eager and, for the configurations named by --compile,
# torch.compile. Writes the records, a joined Markdown table of medians and ratios (with
# peak device memory) and the machine's description into the output folder.
#
# usage: bench/train_gpu_vs_torch.sh OUTDIR [--channels 128] [--batches 256,1024,4096,8192]
#        [--dtypes fp32,bf16] [--compile bf16:8192,...] [--tf32] [--steps 20] [--repeats 5]
# --tf32: fp32 on TF32 matrix units on both sides (gpuvet --tf32; PyTorch with TF32 allowed).
# environment: GPUVET (default ./gpuvet), PYTHON (default: scripts/find-python)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
out=$1; shift
channels=128 batches=256,1024,4096,8192 dtypes=fp32,bf16 compile=bf16:8192 steps=20 repeats=5 tf32=
while [ $# -gt 0 ]; do
  case "$1" in
    --channels) channels=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --dtypes) dtypes=$2; shift 2 ;;
    --compile) compile=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --tf32) tf32=--tf32; shift ;;
    --repeats) repeats=$2; shift 2 ;;
    *) echo "train_gpu_vs_torch.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
GPUVET=${GPUVET:-$root/gpuvet}
PYTHON=${PYTHON:-$("$root/scripts/find-python" || true)}
TORCH_BENCH=${TORCH_BENCH:-$root/bench/torch/torch_drop7.py}
[ -n "$PYTHON" ] || { echo "train_gpu_vs_torch.sh: no python3 with torch (set PYTHON)" >&2; exit 3; }
mkdir -p "$out"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo unknown)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores)"
  echo "os: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
  echo "torch: $("$PYTHON" -c 'import torch; print(torch.__version__)')"
  echo "gpuvet: $("$GPUVET" --version) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
} > "$out/machine.txt"
cat "$out/machine.txt"

echo "== gpuvet bench train (cuda)"
"$GPUVET" bench train --devices cuda --channels "$channels" --batches "$batches" --dtype "$dtypes" $tf32 \
  --steps "$steps" --repeats "$repeats" --warmup 5 --json "$out/gpuvet.json" | tee "$out/gpuvet.txt"

echo "== PyTorch eager"
"$PYTHON" "$TORCH_BENCH" --device cuda --channels "$channels" --batches "$batches" --dtypes "$dtypes" $tf32 \
  --steps "$steps" --repeats "$repeats" | tee "$out/torch_eager.jsonl"

: > "$out/torch_compile.jsonl"
for cfg in $(echo "$compile" | tr , ' '); do
  dt=${cfg%%:*} b=${cfg#*:}
  echo "== torch.compile $dt batch $b"
  "$PYTHON" "$TORCH_BENCH" --device cuda --channels "$channels" --batches "$b" --dtypes "$dt" --compile $tf32 \
    --steps "$steps" --repeats "$repeats" | tee -a "$out/torch_compile.jsonl"
done

"$PYTHON" "$root/bench/join_torch.py" "$out/gpuvet.json" "$out/torch_eager.jsonl" "$out/torch_compile.jsonl" \
  --machine "$(sed 's/^/    /' "$out/machine.txt")" --json "$out/summary.json" | tee "$out/summary.md"
