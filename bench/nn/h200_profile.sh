#!/bin/sh
# h200_profile.sh: where the GPU time of a Drop7 training step and of a batch inference
# goes, for gpuvet (Nsight Compute, one duration per kernel launch, clocks left alone) and
# for PyTorch eager and torch.compile (torch.profiler's CUDA kernel table), on one GPU.
#
# usage: bench/nn/h200_profile.sh OUTDIR [CHANNELS] [TRAIN_BATCH] [INFER_BATCH]
# environment: GPUVET (default build/cuda/gpuvet), PYTHON (default: scripts/find-python)
# writes OUTDIR/{gpuvet_train,gpuvet_infer}.txt (kernels by total time), torch_*.txt
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
out=$1 c=${2:-128} tb=${3:-8192} ib=${4:-4096}
GPUVET=${GPUVET:-$root/build/cuda/gpuvet}
PYTHON=${PYTHON:-$("$root/scripts/find-python" || echo python3)}
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1 || true)
mkdir -p "$out"

# kernels by total time: the CSV of ncu, summed per kernel name, divided by STEPS (the 4
# timed steps; set-up kernels such as the weight preparation are counted too)
summarise() { # csv steps title
  "$PYTHON" - "$1" "$2" "$3" <<'PY'
import csv, sys, collections
path, steps, title = sys.argv[1], float(sys.argv[2]), sys.argv[3]
tot, cnt = collections.Counter(), collections.Counter()
rows = [l for l in open(path) if l.startswith('"')]
for r in csv.DictReader(rows):
    if r.get("Metric Name") != "gpu__time_duration.sum": continue
    v = float(r["Metric Value"].replace(",", ""))
    unit = r.get("Metric Unit", "nsecond")
    v *= {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(unit, 1e-3)
    k = r["Kernel Name"][:110]
    tot[k] += v; cnt[k] += 1
allt = sum(tot.values())
print(f"# {title}: {allt/steps:.1f} us of kernels per step ({sum(cnt.values())/steps:.0f} launches)")
for k, v in tot.most_common(40):
    print(f"{v/steps:10.1f} us {100*v/allt:5.1f}% {cnt[k]/steps:5.1f}x  {k}")
PY
}

if [ -n "$NCU" ]; then
  "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv --log-file "$out/ncu_train.csv" \
    "$GPUVET" bench train --devices cuda --channels "$c" --batches "$tb" --dtype bf16 --steps 4 --repeats 1 \
    --warmup 0 -q >"$out/ncu_train.log" 2>&1 || echo "ncu train: exit $?"
  summarise "$out/ncu_train.csv" 4 "gpuvet bf16 training, $c channels, batch $tb" > "$out/gpuvet_train.txt" || true
  "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv --log-file "$out/ncu_infer.csv" \
    "$GPUVET" bench infer --devices cuda --channels "$c" --batches "$ib" --dtype bf16 --steps 4 --repeats 1 \
    --min-time 0.001 -q >"$out/ncu_infer.log" 2>&1 || echo "ncu infer: exit $?"
  summarise "$out/ncu_infer.csv" 4 "gpuvet bf16 inference, $c channels, batch $ib" > "$out/gpuvet_infer.txt" || true
  gzip -f "$out"/ncu_*.csv
else
  echo "no ncu on this machine" > "$out/gpuvet_train.txt"
fi

"$PYTHON" - "$root" "$c" "$tb" "$ib" "$out" <<'PY'
import sys, os, torch
root, c, tb, ib, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, os.path.join(root, "bench", "torch"))
import drop7_reference as ref
from torch.profiler import profile, ProfilerActivity
dev = "cuda"
for comp in (False, True):
    torch.manual_seed(0)
    net = ref.Drop7Net(c).to(dev)
    opt = ref.make_optimizer(net)
    g = torch.Generator().manual_seed(1)
    x = ref.random_positions(tb, g).float().to(dev)
    tp = torch.randint(0, 7, (tb,), generator=g).to(dev)
    tv = torch.randn(tb, generator=g).to(dev)
    fwd = torch.compile(net) if comp else net
    def step():
        with torch.autocast(device_type=dev, dtype=torch.bfloat16):
            lo, va = fwd(x)
        loss = ref.loss_fn(lo.float(), va.float(), tp, tv)
        opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    for _ in range(5): step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(4): step()
        torch.cuda.synchronize()
    name = "compile" if comp else "eager"
    with open(f"{out}/torch_train_{name}.txt", "w") as f:
        f.write(f"# PyTorch {torch.__version__} {name} bf16 training, {c} channels, batch {tb}, 4 steps\n")
        f.write(p.key_averages().table(sort_by="cuda_time_total", row_limit=40, max_name_column_width=100))
    net.eval()
    xi = x[:ib] if ib <= tb else ref.random_positions(ib, g).float().to(dev)
    with torch.no_grad(), torch.autocast(device_type=dev, dtype=torch.bfloat16):
        for _ in range(5): fwd(xi)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            for _ in range(4): fwd(xi)
            torch.cuda.synchronize()
    with open(f"{out}/torch_infer_{name}.txt", "w") as f:
        f.write(f"# PyTorch {name} bf16 inference, {c} channels, batch {ib}, 4 calls\n")
        f.write(p.key_averages().table(sort_by="cuda_time_total", row_limit=40, max_name_column_width=100))
PY
