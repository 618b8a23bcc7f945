#!/bin/sh
# device call: the GroupNorm ReLU mask kept as bits (norm.cu, gpu_norm_relu_bits). The kernel
# self-test (the bit-mask runs must equal the output-mask runs exactly) with the GroupNorm
# bench (earlier, coalesced, coalesced+bits); test_gpu_train; bf16 training at 128 channels
# with the bits (GV_RELU_BITS=1, now the default) and without (GV_RELU_BITS=0), two rounds in opposite orders; the
# step profile both ways; then (unless `quick`) issue 15's GPU targets on the same binary,
# with the bits.
# Results under $OUT/r, packed as a.tgz.
set -u
. bench/device_env.sh
export GV_EXPECT_GPU=1
st kernels
GV_NORM_BENCH=1 timeout 200 build/cuda/tests/test_gpu_kernels >"$R/kernels.txt" 2>&1; echo "kernels rc=$?"
echo "PASS $(grep -c '^PASS' "$R/kernels.txt") FAIL $(grep -c '^FAIL' "$R/kernels.txt")"
grep -E "^FAIL|^SKIP" "$R/kernels.txt" | head -20; grep "bit mask" "$R/kernels.txt" | head -2 | cut -c1-400
grep "norm bench" "$R/kernels.txt"
if grep -q "^FAIL" "$R/kernels.txt"; then echo "self-test failed: stopping"; st end; exit 0; fi
st train_test
timeout 150 build/cuda/tests/test_gpu_train >"$R/test_gpu_train.txt" 2>&1; echo "test_gpu_train rc=$?"; tail -1 "$R/test_gpu_train.txt"
st ab
for r in 1 2; do
  case $r in 1) order="bits out" ;; 2) order="out bits" ;; esac
  for v in $order; do
    case $v in bits) e="GV_RELU_BITS=1" ;; out) e="GV_RELU_BITS=0" ;; esac
    env $e timeout 150 $B bench train --devices cuda --channels 128 --batches 1024,8192 --dtype bf16 --steps 8 \
      --repeats 3 --json "$R/ab_${v}_r$r.json" >"$R/ab_${v}_r$r.out" 2>&1; echo "ab $v r$r rc=$?"
  done
done
python3 - "$R" <<'PY' | tee "$R/ab.md"
import json, sys, glob, statistics as S
R = sys.argv[1]; tab = {}
for f in sorted(glob.glob(R + "/ab_*_r*.json")):
    v = f.rsplit("/", 1)[1][3:].rsplit("_r", 1)[0]
    for e in json.load(open(f))["bench_train"]:
        tab.setdefault((e["channels"], e["batch"]), {}).setdefault(v, []).append(e["samples_per_s_median"])
print("| channels/batch | ReLU mask | samples/s (round 1 / round 2) | median / output mask |")
print("| --- | --- | --- | ---: |")
for k in sorted(tab):
    base = S.median(tab[k]["out"])
    for v in ("out", "bits"):
        x = tab[k].get(v, [])
        print(f"| {k[0]}/{k[1]} | {v} | {' / '.join(f'{y:,.0f}' for y in x)} | {S.median(x)/base:.3f}x |")
PY
st profile
for v in bits out; do
  case $v in bits) e="GV_RELU_BITS=1" ;; out) e="GV_RELU_BITS=0" ;; esac
  env $e GV_TRAIN_BENCH=1 timeout 150 build/cuda/tests/test_gpu_train >"$R/profile_$v.txt" 2>&1; echo "profile $v rc=$?"
  grep "^#" "$R/profile_$v.txt" | head -8
done
[ "${1:-}" = quick ] && { st end; exit 0; }
# issue 15's GPU targets on the same binary (the commands of ../2026-12-06-h100-gpu/call.sh,
# checks first, so that a call cut short keeps what matters most)
export GV_CUDNN=1 GV_RELU_BITS=1
st checks
for c in 64 128; do
  $B check --devices cpu,cuda --dtype fp32,bf16 --norm group,batch --channels $c >"$R/check_c$c.txt" 2>&1; echo "check c$c rc=$?"; tail -2 "$R/check_c$c.txt"
done
$B check --devices cpu,cuda --dtype fp32,bf16 --norm group,batch --channels 128 --inject-fault >"$R/check_fault.txt" 2>&1; echo "fault rc=$?"; tail -1 "$R/check_fault.txt"
for c in 128 64; do
  st t$c
  sh bench/train_gpu_vs_torch.sh "$R/t$c" --channels $c --batches 256,1024,8192 --dtypes bf16 --compile bf16:256,bf16:1024,bf16:8192 --steps 8 --repeats 3 >"$R/t$c.log" 2>&1
  grep -E "^\|" "$R/t$c/summary.md" | head -12
done
st infer
sh bench/infer_gpu_vs_torch.sh "$R/infer" --batches 1,4096 --compile-batches 1,4096 --dtypes bf16 --repeats 3 >"$R/infer.log" 2>&1
grep -E "^\|" "$R/infer/summary.md" | head -12
st fp32
sh bench/train_gpu_vs_torch.sh "$R/t128fp32" --channels 128 --batches 8192 --dtypes fp32 --compile "" --steps 6 --repeats 3 >"$R/t128fp32.log" 2>&1
grep -E "^\|" "$R/t128fp32/summary.md" | head -6
st tf32
sh bench/train_gpu_vs_torch.sh "$R/t128tf32" --channels 128 --batches 8192 --dtypes fp32 --tf32 --compile "" --steps 6 --repeats 3 >"$R/t128tf32.log" 2>&1
grep -E "^\|" "$R/t128tf32/summary.md" | head -6
st end
