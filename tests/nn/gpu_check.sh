#!/bin/sh
# gpu_check.sh: the device side of the network's commands, for a machine with an NVIDIA GPU.
# From the repository root, after `make GPU=cuda -j"$(nproc)"`:
#     sh tests/nn/gpu_check.sh [OUTDIR]
# Runs check (fp32, bf16, tf32; the fault hook must fail; PyTorch reference files), soak on
# the GPU (and a GPU-trained checkpoint through PyTorch), bench train (CPU and GPU, record
# keys, speedup, peak memory) and bench matmul; prints PASS/FAIL/SKIP lines and exits 1 on
# any FAIL. OUTDIR (default nn-gpu-check/) keeps every output and JSON record.
set -u
out=${1:-nn-gpu-check}
mkdir -p "$out"
root=$(pwd)
bin=$root/build/cuda/gpuvet
fails=0
pass() { echo "PASS $1: $2"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
skip() { echo "SKIP $1: $2"; }
[ -x "$bin" ] || { echo "FAIL build: $bin is missing (run make GPU=cuda first)"; exit 1; }
py=$(scripts/find-python 2>/dev/null || command -v python3 || true)
# the PyTorch reference files: from $GV_REF_DIR, else generated with bench/torch/make_reference.py
export GV_ROOT="$root" GV_BUILD="${GV_BUILD:-$root/build/cuda}" PYTHON="${PYTHON:-$py}"
. "$root/tests/cli/nn_ref.sh"

# run NAME WANT_EXIT OUTFILE CMD...: runs a command, checks its exit code, keeps its output.
run() {
  name=$1 want=$2 log=$3; shift 3
  "$@" >"$log" 2>&1
  rc=$?
  if [ "$rc" = "$want" ]; then pass "$name" "exit $rc: $(grep -E '^(check|soak)' "$log" | tail -n 1)"
  else fail "$name" "exit $rc, expected $want (see $log): $(grep -E '^FAIL|gpuvet' "$log" | head -n 3 | tr '\n' ' ')"; fi
}
# json FILE EXPR: a Python expression over the parsed record r.
json() { "$py" -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# 1. check: GEMM 4096 and the network (GroupNorm, BatchNorm) on CPU and GPU, fp32 and bf16,
#    against the float64 host path; then TF32; then the fault hook, which must fail.
run "check cpu,cuda fp32,bf16" 0 "$out/check.txt" "$bin" check --devices cpu,cuda --dtype fp32,bf16 --json "$out/check.json"
run "check cuda --tf32" 0 "$out/check_tf32.txt" "$bin" check --devices cuda --dtype fp32 --tf32 --json "$out/check_tf32.json"
run "check cuda fp32 larger network (128 channels, 6 blocks, batch 64)" 0 "$out/check_big.txt" \
  "$bin" check --devices cuda --dtype fp32 --channels 128 --blocks 6 --batch 64 --gemm-size 0
run "check cuda bf16 larger network (128 channels, 6 blocks, batch 64)" 0 "$out/check_big_bf16.txt" \
  "$bin" check --devices cuda --dtype bf16 --channels 128 --blocks 6 --batch 64 --gemm-size 0
# a seed whose BatchNorm draw cancels in the value head's bias gradient (|sum| / sum of |terms|
# = 0.0054): compared at its scale it passes; as a plain relative error it failed (1.5e-1)
run "check cpu,cuda bf16 64 channels, seed 65915030611158912" 0 "$out/check_seed.txt" \
  "$bin" check --devices cpu,cuda --dtype bf16 --channels 64 --seed 65915030611158912 --gemm-size 0
run "check cuda --inject-fault must fail" 1 "$out/check_fault.txt" \
  "$bin" check --devices cuda --dtype fp32,bf16 --gemm-size 0 --inject-fault
if [ -n "$py" ] && [ -s "$out/check.json" ]; then
  got=$(json "$out/check.json" "sorted(set((e['device'], e['dtype'], e['norm']) for e in r['check'] if e['device'] != 'host'))" 2>&1)
  case "$got" in *"'cuda', 'bf16', 'batch'"*"'cuda', 'bf16', 'group'"*"'cuda', 'fp32', 'batch'"*"'cuda', 'fp32', 'group'"*)
    pass "check covered cuda fp32/bf16 x group/batch" "$got" ;;
    *) fail "check covered cuda fp32/bf16 x group/batch" "$got" ;; esac
  masks=$(json "$out/check.json" "[(e['dtype'], e['norm'], e['value']) for e in r['check'] if e['device'] != 'cpu' and 'relu masks' in e['what']]" 2>&1)
  case "$masks" in *"'bf16'"*) pass "GPU reports its ReLU masks" "share differing from float64: $masks" ;;
                   *) fail "GPU reports its ReLU masks" "no 'relu masks' comparison for cuda: $masks" ;; esac
fi
for f in drop7_c32_group_n8.safetensors drop7_c32_batch_n8.safetensors; do
  if ref=$(nn_ref_file "$f"); then
    run "check --reference $f on cuda" 0 "$out/ref_$f.txt" "$bin" check --devices cpu,cuda --dtype fp32,bf16 --reference "$ref"
  else
    skip "check --reference $f" "$ref"
  fi
done

# 2. soak on the GPU: the acceptance size in fp32 and bf16, BatchNorm, and a GPU-trained
#    checkpoint that PyTorch loads (strict) and gpuvet's paths then match.
run "soak cuda fp32 (channels 64, batch 256)" 0 "$out/soak.txt" "$bin" soak --devices cuda --channels 64 --batch 256 --json "$out/soak.json"
run "soak cuda bf16" 0 "$out/soak_bf16.txt" "$bin" soak --devices cuda --dtype bf16 --channels 64 --batch 256
run "soak cuda BatchNorm" 0 "$out/soak_bn.txt" "$bin" soak --devices cuda --norm batch --channels 64 --batch 256
run "soak cuda --save" 0 "$out/soak_save.txt" "$bin" soak --devices cuda --channels 32 --blocks 2 --batch 64 --steps 20 --min-drop 1 --save "$out/gpu_ck.safetensors"
if [ -n "$py" ] && "$py" -c 'import torch' 2>/dev/null && [ -s "$out/gpu_ck.safetensors" ]; then
  if "$py" bench/torch/make_reference.py --init "$out/gpu_ck.safetensors" --out "$out/gpu_ck_ref.safetensors" --batch 8 >"$out/gpu_ck_py.txt" 2>&1; then
    pass "PyTorch loads the GPU-trained checkpoint" "$(head -n 1 "$out/gpu_ck_py.txt")"
    run "check --reference on the GPU-trained checkpoint" 0 "$out/gpu_ck_check.txt" "$bin" check --devices cpu,cuda --reference "$out/gpu_ck_ref.safetensors"
  else
    fail "PyTorch loads the GPU-trained checkpoint" "$(tail -n 2 "$out/gpu_ck_py.txt" | tr '\n' ' ')"
  fi
else
  skip "GPU checkpoint into PyTorch" "no python3 with torch here"
fi

# 3. bench train on CPU and GPU: the table, the record's keys, peak memory and its share,
#    the GPU/CPU speedup per configuration; bf16 too.
run "bench train cpu,cuda" 0 "$out/train.txt" "$bin" bench train --devices cpu,cuda --channels 64,128 --batches 256,1024,4096 \
  --dtype fp32,bf16 --json "$out/train.json"
if [ -n "$py" ] && [ -s "$out/train.json" ]; then
  keys=$(json "$out/train.json" "[k for k in ['device','channels','batch','dtype','samples_per_s_best','samples_per_s_median','samples_per_s_max','peak_device_bytes','device_pool_bytes','peak_share','speedup_vs_cpu','load_before','load_after'] if not any(k in e for e in r['bench_train'] if e['device'] != 'cpu')]" 2>&1)
  [ "$keys" = "[]" ] && pass "bench train GPU entries have every key" "$(json "$out/train.json" "len(r['bench_train'])") entries" ||
    fail "bench train GPU entries have every key" "missing: $keys"
  sp=$(json "$out/train.json" "[(e['channels'], e['batch'], e['dtype'], round(e.get('speedup_vs_cpu') or 0, 1), round((e.get('peak_share') or 0) * 100, 2)) for e in r['bench_train'] if e['device'] != 'cpu']" 2>&1)
  pass "bench train speedups (channels, batch, dtype, x CPU, % of pool)" "$sp"
fi

# 4. bench matmul: fp32, tf32 and bf16 on the GPU, each spot-checked.
run "bench matmul cuda" 0 "$out/matmul.txt" "$bin" bench matmul --devices cpu,cuda --json "$out/matmul.json"

echo "gpu_check (nn): $fails failed; outputs in $out/"
[ "$fails" = 0 ]
