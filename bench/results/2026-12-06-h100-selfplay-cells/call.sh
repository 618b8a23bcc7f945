#!/bin/sh
# device call: self-play on the GPU with positions as cells (this tree) against float64
# planes (.dist/base, 8242d25): the same games byte for byte, and where the time went.
set -u
root=$(pwd)
R=/tmp/gv/r; mkdir -p "$R"
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
B=$root/build/cuda/gpuvet A=$root/.dist/base/gpuvet
export GV_EXPECT_GPU=1 GV_CUDNN=1
st() { echo "$1 $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$R/steps.txt"; (cd /tmp/gv && tar -czf "$OUT/a.tgz" r); }
st start
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | sed -n 's/^Model name: *//p'; nproc; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"
build/cuda/tests/test_gpu_train >"$R/test_gpu_train.txt" 2>&1; echo "test_gpu_train rc=$?"; grep -E "positions|^FAIL" "$R/test_gpu_train.txt"; tail -1 "$R/test_gpu_train.txt"
for r in 1 2; do
  case $r in 1) order="base new" ;; 2) order="new base" ;; esac
  for v in $order; do
    case $v in base) bin=$A ;; new) bin=$B ;; esac
    st "sp_${v}_r$r"
    timeout 200 $bin selfplay --devices cuda --channels 128 --blocks 6 --games 256 --parallel 256 --sims 8 \
      --out "$R/sp_${v}_r$r.st" --json "$R/sp_${v}_r$r.json" >"$R/sp_${v}_r$r.out" 2>&1; echo "$v r$r rc=$?"
    grep -E "^time:" "$R/sp_${v}_r$r.out"
  done
done
for p in "base_r1 new_r1" "base_r2 new_r2" "base_r1 base_r2" "new_r1 new_r2"; do
  set -- $p
  if cmp -s "$R/sp_$1.st" "$R/sp_$2.st"; then echo "$1 vs $2: datasets identical ($(wc -c <"$R/sp_$1.st") bytes)"; else echo "$1 vs $2: datasets differ"; fi
done | tee "$R/cmp.txt"
rm -f "$R"/sp_*.st
st end
