#!/bin/sh
# h200_cudnn.sh: the 3x3 convolutions through cuDNN (src/nn/gpu/conv_cudnn.cu) on one GPU,
# in at most about 4 minutes, most important first, each step under `timeout`: the kernel
# self-test against the naive references, `gpuvet check` (64 and 128 channels, GroupNorm and
# BatchNorm, fp32 and bf16) and the fault hook, then `bench train` (bf16, 64/128 channels,
# batches 1024/8192) with the own kernels (GV_CUDNN=0) and with cuDNN (GV_CUDNN=1: required),
# then, while time is left, bench infer at batch 1 and 4096, fp32 and --tf32 training, and
# the kernel timings. cuDNN is PyTorch's (the nvidia.cudnn wheel), put on LD_LIBRARY_PATH.
#
# usage: sh bench/nn/h200_cudnn.sh OUTDIR
# environment: GPUVET (default build/cuda/gpuvet), GV_TESTS (default: tests/ beside GPUVET),
#   PYTHON (default: scripts/find-python), GV_BUDGET_S (default 235: the whole run's time;
#   every step's limit is cut to what is left, and the optional ones start only while a
#   minute is left)
# writes OUTDIR/summary.txt (one line per step, the throughput table) and each step's log
# and JSON record.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
out=$1
mkdir -p "$out"
GPUVET=${GPUVET:-$root/build/cuda/gpuvet}
tests=${GV_TESTS:-$(dirname "$GPUVET")/tests}
PYTHON=${PYTHON:-$("$root/scripts/find-python" 2>/dev/null || command -v python3 || echo python3)}
budget=${GV_BUDGET_S:-235}
t0=$(date +%s)
sum=$out/summary.txt
: > "$sum"
say() { echo "$*" | tee -a "$sum"; }

# cuDNN: the directory of PyTorch's libcudnn.so.9
dnn=$("$PYTHON" -c 'import os, nvidia.cudnn as m; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null || true)
[ -n "$dnn" ] && [ -e "$dnn/libcudnn.so.9" ] ||
  dnn=$("$PYTHON" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null || true)
[ -n "$dnn" ] && [ -e "$dnn/libcudnn.so.9" ] ||
  dnn=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib 2>/dev/null | head -n 1)
if [ -n "$dnn" ]; then
  # and, after it, the wheel's other CUDA libraries that cuDNN may load (runtime, cuBLAS, NVRTC)
  extra=$dnn
  case $dnn in */nvidia/cudnn/lib)
    for d in "$(dirname "$(dirname "$dnn")")"/*/lib; do [ "$d" = "$dnn" ] || [ ! -d "$d" ] || extra=$extra:$d; done ;;
  esac
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$extra"
fi
say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo unknown)"
say "gpuvet: $("$GPUVET" --version 2>&1) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
say "cudnn dir: ${dnn:-none found (the loader's default path)}; $(ls "$dnn"/libcudnn.so.9* 2>/dev/null | head -n 1)"
say "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-}"
say "torch: $(timeout 20 "$PYTHON" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' 2>&1 | tail -n 1)"

# step NAME WANT LIMIT LOG CMD...: runs CMD under timeout (LIMIT seconds, or what is left of
# the budget), output to OUTDIR/LOG; says whether its exit code is WANT (- for any).
step() {
  name=$1 want=$2 limit=$3 log=$out/$4; shift 4
  s0=$(date +%s)
  rem=$(( budget - (s0 - t0) ))
  [ "$rem" -ge 5 ] || { rc=skipped; say "$name: not run, the time budget (${budget}s) is used up"; return; }
  [ "$limit" -le "$rem" ] || limit=$rem
  timeout -k 5 "$limit" "$@" >"$log" 2>&1
  rc=$?
  verdict=ok
  [ "$want" = - ] || [ "$rc" = "$want" ] || verdict="UNEXPECTED (want $want)"
  [ "$rc" = 124 ] || [ "$rc" = 137 ] && verdict="TIMED OUT after ${limit}s"
  say "$name: exit $rc, $verdict, $(( $(date +%s) - s0 ))s: $(grep -E '^(check|FAIL|gpuvet)' "$log" | head -n 3 | tr '\n' ' ')"
}
# time_left: whether an optional step may still start (a minute of the budget left)
time_left() { [ $(( $(date +%s) - t0 + 60 )) -lt "$budget" ]; }

# 1. the kernels against the naive references, cuDNN required
step "self-test (GV_CUDNN=1)" 0 60 selftest.txt env GV_EXPECT_GPU=1 GV_CUDNN=1 "$tests/test_gpu_kernels"
say "  $(grep -c "^PASS gpu.*cudnn" "$out/selftest.txt" 2>/dev/null) cuDNN comparisons passed, $(grep -c "^FAIL" "$out/selftest.txt" 2>/dev/null) failed; $(grep -m1 "^# cuDNN" "$out/selftest.txt" 2>/dev/null)"
grep "^FAIL" "$out/selftest.txt" 2>/dev/null | head -n 5 | tee -a "$sum"

# 2. the network against float64, cuDNN required for every 3x3 convolution (GV_CUDNN_PICK=0:
#    no kind left to the own kernels for being faster at the check's small batch); the fault
#    hook must fail
for c in 64 128; do
  step "check c$c (GV_CUDNN=1)" 0 45 "check_c$c.txt" env GV_CUDNN=1 GV_CUDNN_PICK=0 "$GPUVET" check --devices cpu,cuda \
    --dtype fp32,bf16 --norm group,batch --channels "$c" --gemm-size 0 --json "$out/check_c$c.json"
  # cuDNN refused a dtype (say, true fp32): the check again with cuDNN for bf16 alone
  [ "$rc" = 0 ] || ! grep -q 'cuDNN' "$out/check_c$c.txt" ||
    step "check c$c (GV_CUDNN=bf16)" 0 45 "check_c${c}_bf16only.txt" env GV_CUDNN=bf16 GV_CUDNN_PICK=0 "$GPUVET" check \
      --devices cpu,cuda --dtype fp32,bf16 --norm group,batch --channels "$c" --gemm-size 0
done
step "check --inject-fault (GV_CUDNN=1) must fail" 1 30 check_fault.txt env GV_CUDNN=1 GV_CUDNN_PICK=0 "$GPUVET" check \
  --devices cuda --dtype fp32,bf16 --gemm-size 0 --inject-fault

# 3. training throughput, own kernels against cuDNN (where cuDNN is on, each kind of
#    convolution runs on the faster of the two, as measured per batch size; the log has both
#    times, the record's "conv" the kinds the own kernels kept)
train() { # TAG CUDNN ARGS...
  tag=$1 mode=$2; shift 2
  step "bench train $tag GV_CUDNN=$mode" 0 60 "train_${tag}_cudnn$mode.txt" env GV_CUDNN="$mode" GV_CUDNN_VERBOSE=1 \
    "$GPUVET" bench train --devices cuda --repeats 3 --steps 10 --json "$out/train_${tag}_cudnn$mode.json" "$@"
}
for mode in 0 1; do train bf16 "$mode" --channels 64,128 --batches 1024,8192 --dtype bf16; done

# 4. while time is left: inference, fp32 and TF32 training, the kernels' own timings
for mode in 0 1; do
  time_left && step "bench infer bf16 GV_CUDNN=$mode" 0 30 "infer_cudnn$mode.txt" env GV_CUDNN="$mode" "$GPUVET" \
    bench infer --devices cuda --channels 128 --batches 1,4096 --dtype bf16 --json "$out/infer_cudnn$mode.json"
done
for mode in 0 1; do time_left && train fp32 "$mode" --channels 128 --batches 8192 --dtype fp32; done
for mode in 0 1; do time_left && train tf32 "$mode" --channels 128 --batches 8192 --dtype fp32 --tf32; done
time_left && step "kernel timings (GV_KERNEL_BENCH=1)" - 40 kernels.txt env GV_KERNEL_BENCH=1 GV_CUDNN=1 \
  "$tests/test_gpu_kernels"
grep '^# kernel bench' "$out/kernels.txt" 2>/dev/null | tee -a "$sum"

# the throughput table: every bench record, with the convolution path and peak memory
"$PYTHON" - "$out" <<'PY' | tee -a "$sum"
import glob, json, os, sys
print(f"{'record':<22} {'conv':<14} {'dtype':<5} {'tf32':<5} {'C':>4} {'batch':>6} {'samples/s':>11} {'peak MiB':>9}")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*_cudnn*.json"))):
    try:
        r = json.load(open(path))
    except Exception as e:
        print(f"{os.path.basename(path)}: unreadable ({e})"); continue
    for key in ("bench_train", "bench_infer"):
        for e in r.get(key, []):
            if e.get("device", "").startswith("cpu"):
                continue
            peak = e.get("peak_device_bytes") or 0
            print(f"{os.path.basename(path)[:-5]:<22} {e.get('conv', '?'):<14} {e['dtype']:<5} {str(e.get('tf32')):<5} "
                  f"{e['channels']:>4} {e['batch']:>6} {e.get('samples_per_s_median', 0):>11,.0f} {peak / 2**20:>9,.0f}")
PY
say "total: $(( $(date +%s) - t0 ))s"
