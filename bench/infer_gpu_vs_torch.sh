#!/bin/sh
# infer_gpu_vs_torch.sh: Drop7 inference (the self-play case: positions in, eval-mode
# forward, logits and value out) on the GPU and the CPU with gpuvet, and PyTorch on the same
# GPU in one command, side by side: eager, torch.compile and the eager forward captured in a
# CUDA graph. Builds nothing (GPUVET is a binary built with the GPU backend). Writes into
# OUTDIR (default $OUT): machine.txt, test_gpu_train.txt (when the build has
# tests/test_gpu_train beside GPUVET: inference checked against the eager forward),
# gpuvet.json/.txt (with the GPU-vs-CPU crossover), torch_*.jsonl, summary.md (latency
# medians and ratios per batch). Under 4 minutes on an H200 host with the defaults
# (torch.compile compiles once per batch size and dtype: 4 compilations). Every side takes
# the positions in one form (--positions: cells, gpuvet's default and self-play's, expanded
# on the device, PyTorch's inside its compiled or captured forward; or float32 planes).
#
# usage: bench/infer_gpu_vs_torch.sh [OUTDIR] [--channels 128] [--batches 1,4,16,64,256,1024,4096]
#        [--compile-batches 1,4096] [--dtypes fp32,bf16] [--min-time 0.2] [--repeats 3]
#        [--positions cells|planes]
# environment: GPUVET (default build/cuda/gpuvet), PYTHON (default: scripts/find-python)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-}
case "${1:-}" in -*|"") ;; *) out=$1; shift ;; esac
[ -n "$out" ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
channels=128 batches=1,4,16,64,256,1024,4096 cbatches=1,4096 dtypes=fp32,bf16 min_time=0.2 repeats=3 positions=cells
while [ $# -gt 0 ]; do
  case "$1" in
    --channels) channels=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --compile-batches) cbatches=$2; shift 2 ;;
    --dtypes) dtypes=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --positions) positions=$2; shift 2 ;;
    *) echo "infer_gpu_vs_torch.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
GPUVET=${GPUVET:-$root/build/cuda/gpuvet}
PYTHON=${PYTHON:-$("$root/scripts/find-python" || true)}
[ -x "$GPUVET" ] || { echo "infer_gpu_vs_torch.sh: no gpuvet at $GPUVET (set GPUVET)" >&2; exit 3; }
[ -n "$PYTHON" ] || { echo "infer_gpu_vs_torch.sh: no python3 with torch (set PYTHON)" >&2; exit 3; }
mkdir -p "$out"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo unknown)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores)"
  echo "os: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
  echo "torch: $("$PYTHON" -c 'import torch; print(torch.__version__)')"
  echo "gpuvet: $("$GPUVET" --version) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
  echo "positions: $positions (every side's input)"
} > "$out/machine.txt"
cat "$out/machine.txt"
T=torch_infer.py
tgt=$(dirname "$GPUVET")/tests/test_gpu_train
if [ -x "$tgt" ]; then
  echo "== $tgt (captured inference equals the eager eval forward)"
  "$tgt" > "$out/test_gpu_train.txt" 2>&1 || echo "test_gpu_train failed (see test_gpu_train.txt)" >&2
  grep -E '^(PASS|FAIL|SKIP) gpu infer' "$out/test_gpu_train.txt" || true
fi
echo "== gpuvet bench infer (cuda and cpu)"
"$GPUVET" bench infer --devices cpu,cuda --channels "$channels" --batches "$batches" --dtype "$dtypes" \
  --min-time "$min_time" --repeats "$repeats" --positions "$positions" --json "$out/gpuvet.json" | tee "$out/gpuvet.txt"
echo "== PyTorch eager and CUDA graph"
"$PYTHON" "$root/bench/torch/$T" --device cuda --modes eager,cudagraph --channels "$channels" --batches "$batches" \
  --dtypes "$dtypes" --min-time "$min_time" --repeats "$repeats" --positions "$positions" | tee "$out/torch_eager_graph.jsonl"
echo "== torch.compile (batches $cbatches)"
"$PYTHON" "$root/bench/torch/$T" --device cuda --modes compile --channels "$channels" --batches "$cbatches" \
  --dtypes "$dtypes" --min-time "$min_time" --repeats "$repeats" --positions "$positions" | tee "$out/torch_compile.jsonl" ||
  echo "torch.compile failed (see above); the summary has no compile column" >&2
echo "== PyTorch CPU eager (batches 1,64)"
"$PYTHON" "$root/bench/torch/$T" --device cpu --modes eager --channels "$channels" --batches 1,64 \
  --min-time "$min_time" --repeats "$repeats" --positions "$positions" | tee "$out/torch_cpu.jsonl"
"$PYTHON" - "$out" <<'PY' | tee "$out/summary.md"
import glob, json, os, sys
out = sys.argv[1]
rec = json.load(open(os.path.join(out, "gpuvet.json")))
rows = [dict(e, impl="gpuvet-" + e["device"]) for e in rec.get("bench_infer", [])]
for f in sorted(glob.glob(os.path.join(out, "torch_*.jsonl"))):
    rows += [json.loads(l) for l in open(f) if l.startswith("{")]
for r in rows:
    if r["impl"].startswith("pytorch") and r["device"] == "cpu":
        r["impl"] += "-cpu"
impls = ["gpuvet-cuda", "gpuvet-cpu", "pytorch-eager", "pytorch-cudagraph", "pytorch-compile", "pytorch-eager-cpu"]
print(open(os.path.join(out, "machine.txt")).read())
for dt in sorted({r["dtype"] for r in rows}):
    print(f"\n### {dt}: latency median ms (p99), samples/s at the largest batch; ratios: the other's median "
          "latency over gpuvet cuda's (above 1: gpuvet faster)\n")
    print("| batch | " + " | ".join(impls) + " | vs eager | vs cudagraph | vs compile | vs gpuvet cpu |")
    print("| ---: |" + " ---: |" * (len(impls) + 4))
    for b in sorted({r["batch"] for r in rows}):
        cell, lat = [], {}
        for i in impls:
            m = [r for r in rows if r["impl"] == i and r["batch"] == b and (r["dtype"] == dt or i.endswith("cpu"))]
            if m:
                lat[i] = m[0]["latency_ms_median"]
                cell.append(f"{m[0]['latency_ms_median']:.3f} ({m[0]['latency_ms_p99']:.3f})")
            else:
                cell.append("-")
        g = lat.get("gpuvet-cuda")
        rat = [f"{lat[k] / g:.2f}x" if g and k in lat else "-" for k in
               ("pytorch-eager", "pytorch-cudagraph", "pytorch-compile", "gpuvet-cpu")]
        print(f"| {b} | " + " | ".join(cell) + " | " + " | ".join(rat) + " |")
    big = max(r["batch"] for r in rows)
    tp = {r["impl"]: r["samples_per_s_median"] for r in rows if r["batch"] == big and r["dtype"] == dt}
    print(f"\nsamples/s at batch {big}: " + ", ".join(f"{k} {v:,.0f}" for k, v in tp.items()))
mem = {(r["impl"], r["dtype"]): r.get("peak_device_bytes") for r in rows if r["batch"] == max(x["batch"] for x in rows)}
print("\npeak device bytes at the largest batch: " + ", ".join(f"{k[0]} {k[1]} {v / 2**20:.0f} MiB"
      for k, v in mem.items() if v))
for b in sorted({r["batch"] for r in rows if r["impl"] == "pytorch-eager-cpu"}):
    g = [r for r in rows if r["impl"] == "gpuvet-cpu" and r["batch"] == b]
    t = [r for r in rows if r["impl"] == "pytorch-eager-cpu" and r["batch"] == b]
    if g and t:
        print(f"\nCPU batch {b}: gpuvet {g[0]['latency_ms_median']:.3f} ms, PyTorch eager {t[0]['latency_ms_median']:.3f} ms "
              f"median latency: {t[0]['latency_ms_median'] / g[0]['latency_ms_median']:.2f}x")
for c in rec.get("bench_infer_crossover", []):
    print(f"\ncrossover {c['device']} {c['dtype']} c{c['channels']:.0f} {c['norm']}: GPU faster than gpuvet's CPU from "
          f"batch {c['gpu_faster_from_batch']}" if c.get("gpu_faster_from_batch") is not None else
          f"\ncrossover {c['device']} {c['dtype']}: the GPU is not faster at the largest batches")
PY
