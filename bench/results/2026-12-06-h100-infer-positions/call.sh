#!/bin/sh
# device call: inference positions as cells / float32 planes (this tree) vs float64 planes
# (.dist/base), side by side with PyTorch in both forms, CPU batch 1. Results in $OUT/a.tgz.
set -u
root=$(pwd)
R=/tmp/gv/r; mkdir -p "$R"
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
B=$root/build/cuda/gpuvet A=$root/.dist/base/gpuvet
export GPUVET=$B GV_BUILD=$root/build/cuda PYTHON=python3 GV_EXPECT_GPU=1 GV_CUDNN=1
st() { echo "$1 $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$R/steps.txt"; (cd /tmp/gv && tar -czf "$OUT/a.tgz" r); }
st start
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  lscpu | sed -n 's/^Model name: *//p'; free -g | sed -n 2p; python3 -c 'import torch; print("torch", torch.__version__)'; $B --version; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"
build/cuda/tests/test_gpu_train >"$R/test_gpu_train.txt" 2>&1; echo "test_gpu_train rc=$?"; grep -E "positions|^FAIL" "$R/test_gpu_train.txt"; tail -1 "$R/test_gpu_train.txt"
st ab
for r in 1 2; do
  case $r in 1) order="f64 planes cells" ;; 2) order="cells planes f64" ;; esac
  for v in $order; do
    case $v in f64) cmd="$A bench infer" ;; *) cmd="$B bench infer --positions $v" ;; esac
    $cmd --devices cuda --dtype bf16 --channels 128 --batches 1024,4096 --repeats 3 --quiet \
      --json "$R/ab_${v}_r$r.json" >"$R/ab_${v}_r$r.out" 2>&1 || echo "ab $v r$r failed"
  done
done
python3 - "$R" <<'PY' | tee "$R/ab.md"
import json, sys, glob
R = sys.argv[1]
print("| positions | round | batch | latency ms median (p99) | set_batch ms median | samples/s |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for f in sorted(glob.glob(R + "/ab_*_r*.json")):
    v, r = f.rsplit("/", 1)[1][3:-5].split("_r")
    for e in json.load(open(f))["bench_infer"]:
        print(f"| {v} | {r} | {e['batch']} | {e['latency_ms_median']:.3f} ({e['latency_ms_p99']:.3f}) | {e.get('input_ms_median', float('nan')):.3f} | {e['samples_per_s_median']:,.0f} |")
PY
for p in cells planes; do
  st "infer_$p"
  sh bench/infer_gpu_vs_torch.sh "$R/infer_$p" --batches 1,4096 --compile-batches 1,4096 --dtypes bf16 --repeats 3 --positions $p >"$R/infer_$p.log" 2>&1
  grep -E "^\| (1|4096) " "$R/infer_$p/summary.md" | head -2; grep "samples/s at batch 4096: g" "$R/infer_$p/summary.md"
done
st cpu16
sh bench/infer_cpu_vs_torch.sh --threads 16 --batches 1,4,16 --rounds 2 --out "$R/infer_cpu16.md" >"$R/infer_cpu16.log" 2>&1
grep -E "^\| (1|4|16) " "$R/infer_cpu16.md" | head -3
st end
ls -la "$OUT/a.tgz"
