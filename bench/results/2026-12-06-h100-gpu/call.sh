#!/bin/sh
# device call: MODE cpu = taper profile + A/B + CPU vs PyTorch at 16 threads;
# MODE gpu = issue 15's GPU acceptance (H200 only). Results under $OUT/r, packed as a.tgz.
set -u
mode=${1:-cpu}
root=$(pwd)
R=/tmp/gv/r; mkdir -p "$R"
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
B=$root/build/cuda/gpuvet
export GPUVET=$B GV_BUILD=$root/build/cuda GV_REF_DIR=$root/.dist/ref PYTHON=python3
st() { echo "$1 $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$R/steps.txt"; (cd /tmp/gv && tar -czf "$OUT/a.tgz" r); }
st start
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  lscpu | sed -n 's/^Model name: *//p'; free -g | sed -n 2p; python3 -c 'import torch; print("torch", torch.__version__)'; $B --version; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [ "$mode" = cpu ]; then
  export OMP_NUM_THREADS=16 OPENBLAS_NUM_THREADS=16
  st prof
  # variants: e = equal units (4 per thread), t = tapered (the default), t2 / t3 = tapered, 2 / 3 per thread
  venv() { case $1 in e) echo GV_CPU_TAPER=0 ;; t) echo GV_CPU_TAPER=1 ;; t2) echo GV_CPU_UNITS=2 ;; t3) echo GV_CPU_UNITS=3 ;; esac; }
  for b in 256 1024; do for v in t e t2; do
    env $(venv $v) GV_CPU_PROFILE=1 $B bench train --devices cpu --channels 128 --batches $b --threads 16 \
      --repeats 3 --steps 3 --warmup 2 >"$R/prof_b${b}_$v.out" 2>&1
    echo "prof $b $v"; grep -E "waiting|gradient sum|samples/s|per run" "$R/prof_b${b}_$v.out" | head -6
  done; done
  st ab
  for r in 1 2; do
    case $r in 1) order="e t t2" ;; 2) order="t2 t e" ;; esac
    for v in $order; do
      env $(venv $v) $B bench train --devices cpu --channels 64,128 --batches 256,1024 --threads 16 --repeats 3 \
        --steps 3 --warmup 2 --json "$R/ab_${v}_r$r.json" >"$R/ab_${v}_r$r.out" 2>&1
    done
  done
  python3 - "$R" <<'PY' | tee "$R/ab.md"
import json, sys, glob, statistics as S
R = sys.argv[1]; tab = {}
names = {"e": "equal, 4/thread", "t": "tapered, 4/thread", "t2": "tapered, 2/thread", "t3": "tapered, 3/thread"}
for f in sorted(glob.glob(R + "/ab_*_r*.json")):
    v = f.rsplit("/", 1)[1][3:].rsplit("_r", 1)[0]
    for e in json.load(open(f))["bench_train"]:
        tab.setdefault((e["channels"], e["batch"]), {}).setdefault(v, []).append(e["samples_per_s_median"])
print("| channels/batch | variant | samples/s (rounds) | median / equal |")
print("| --- | --- | --- | ---: |")
for k in sorted(tab):
    base = S.median(tab[k]["e"])
    for v in ("e", "t", "t2", "t3"):
        x = tab[k].get(v, [])
        if x:
            print(f"| {k[0]}/{k[1]} | {names[v]} | {' / '.join(f'{y:,.0f}' for y in x)} | {S.median(x)/base:.3f}x |")
PY
  st torch
  sh bench/train_cpu_vs_torch.sh --threads 16 --steps 3 --repeats 3 --rounds 2 --out "$R/train_cpu16.md" >"$R/train_cpu16.log" 2>&1
  cat "$R/train_cpu16.md"
else
  case ${FORCE:-0}$gpu in *H200*|1*) ;; *) echo "not an H200 ($gpu): nothing run"; st end; exit 0 ;; esac
  export GV_EXPECT_GPU=1 GV_CUDNN=1
  st t128
  sh bench/train_gpu_vs_torch.sh "$R/t128" --channels 128 --batches 256,1024,8192 --dtypes bf16 --compile bf16:256,bf16:1024,bf16:8192 --steps 8 --repeats 3 >"$R/t128.log" 2>&1
  cat "$R/t128/summary.md" | grep -E "^\|" | head -12
  if [ -z "${NOFP32:-}" ]; then
  st fp32
  sh bench/train_gpu_vs_torch.sh "$R/t128fp32" --channels 128 --batches 8192 --dtypes fp32 --compile "" --steps 6 --repeats 3 >"$R/t128fp32.log" 2>&1
  grep -E "^\|" "$R/t128fp32/summary.md" | head -6
  st tf32
  sh bench/train_gpu_vs_torch.sh "$R/t128tf32" --channels 128 --batches 8192 --dtypes fp32 --tf32 --compile "" --steps 6 --repeats 3 >"$R/t128tf32.log" 2>&1
  grep -E "^\|" "$R/t128tf32/summary.md" | head -6
  fi
  st infer
  sh bench/infer_gpu_vs_torch.sh "$R/infer" --batches 1,4096 --compile-batches 1,4096 --dtypes bf16 --repeats 3 >"$R/infer.log" 2>&1
  grep -E "^\|" "$R/infer/summary.md" | head -12
  st checks
  for c in 64 128; do
    $B check --devices cpu,cuda --dtype fp32,bf16 --norm group,batch --channels $c >"$R/check_c$c.txt" 2>&1; echo "check c$c rc=$?"; tail -2 "$R/check_c$c.txt"
  done
  $B check --devices cpu,cuda --dtype fp32,bf16 --norm group,batch --channels 128 --inject-fault >"$R/check_fault.txt" 2>&1; echo "fault rc=$?"; tail -1 "$R/check_fault.txt"
  for t in test_gpu_kernels test_gpu_train; do build/cuda/tests/$t >"$R/$t.txt" 2>&1; echo "$t rc=$?"; tail -1 "$R/$t.txt"; done
  st t64
  sh bench/train_gpu_vs_torch.sh "$R/t64" --channels 64 --batches 256,1024,8192 --dtypes bf16 --compile bf16:256,bf16:1024,bf16:8192 --steps 8 --repeats 3 >"$R/t64.log" 2>&1
  grep -E "^\|" "$R/t64/summary.md" | head -12
fi
st end
ls -la "$OUT/a.tgz"
