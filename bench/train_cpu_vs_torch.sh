#!/bin/sh
# train_cpu_vs_torch.sh: gpuvet's float32 CPU training throughput against PyTorch's on the
# same machine and the same thread count. For each (channels, batch) it runs
# `gpuvet bench train --devices cpu` and `torch_drop7.py --device cpu` back to back, in
# alternating order over several rounds (so that both see the same machine state), and
# writes a Markdown table with the machine's description to bench/results/.
#
# usage: bench/train_cpu_vs_torch.sh [--channels 64,128] [--batches 256,1024] [--threads N]
#        [--steps 3] [--repeats 3] [--rounds 2] [--blocks 6] [--cpu-conv winograd|im2col] [--out FILE]
# environment: GPUVET (default build/cpu/gpuvet), PYTHON (default: scripts/find-python)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
channels=64,128 batches=256,1024 threads=$(nproc) steps=3 repeats=3 rounds=2 blocks=6 conv=winograd
out="$root/bench/results/$(date -u +%Y-%m-%d)-train-cpu-vs-torch.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --channels) channels=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --blocks) blocks=$2; shift 2 ;;
    --cpu-conv) conv=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "train_cpu_vs_torch.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
GPUVET=${GPUVET:-$root/build/cpu/gpuvet}
PYTHON=${PYTHON:-$("$root/scripts/find-python" || true)}
[ -x "$GPUVET" ] || { echo "train_cpu_vs_torch.sh: no gpuvet at $GPUVET (run make first or set GPUVET)" >&2; exit 3; }
[ -n "$PYTHON" ] || { echo "train_cpu_vs_torch.sh: no python3 with torch (set PYTHON)" >&2; exit 3; }
[ "$blocks" = 6 ] || echo "note: torch_drop7.py always builds 6 blocks; --blocks $blocks changes only gpuvet's side" >&2
# both sides get the same number of threads, and nothing else is told to use more
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads
raw=$(mktemp)
trap 'rm -f "$raw" "$raw.json"' EXIT
load_before=$(cut -d' ' -f1 /proc/loadavg)
run_gpuvet() {
  "$GPUVET" bench train --devices cpu --channels "$1" --batches "$2" --blocks "$blocks" --steps "$steps" \
    --repeats "$repeats" --warmup 2 --threads "$threads" --cpu-conv "$conv" --quiet --json "$raw.json" >/dev/null
  "$PYTHON" -c 'import json,sys
for e in json.load(open(sys.argv[1]))["bench_train"]:
    e["round"] = int(sys.argv[2]); print(json.dumps(e))' "$raw.json" "$3" >> "$raw"
}
run_torch() {
  lb=$(cut -d' ' -f1 /proc/loadavg)
  "$PYTHON" "$root/bench/torch/torch_drop7.py" --device cpu --channels "$1" --batches "$2" --dtypes fp32 \
    --steps "$steps" --repeats "$repeats" --threads "$threads" |
    "$PYTHON" -c 'import json,sys
for l in sys.stdin:
    e = json.loads(l); e["round"] = int(sys.argv[1]); e["load_before"] = float(sys.argv[2])
    e["load_after"] = float(open("/proc/loadavg").read().split()[0]); print(json.dumps(e))' "$3" "$lb" >> "$raw"
}
for c in $(echo "$channels" | tr , ' '); do
  for b in $(echo "$batches" | tr , ' '); do
    r=1
    while [ "$r" -le "$rounds" ]; do
      echo "channels $c batch $b round $r/$rounds ($threads threads)" >&2
      if [ $((r % 2)) = 1 ]; then run_gpuvet "$c" "$b" "$r"; run_torch "$c" "$b" "$r"
      else run_torch "$c" "$b" "$r"; run_gpuvet "$c" "$b" "$r"; fi
      r=$((r + 1))
    done
  done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
"$PYTHON" - "$raw" "$out" "$threads" "$steps" "$repeats" "$rounds" "$blocks" "$load_before" "$load_after" "$GPUVET" "$root" "$conv" <<'PY'
import json, os, platform, statistics, subprocess, sys
raw, out, threads, steps, repeats, rounds, blocks, lb, la, gpuvet, root, conv = sys.argv[1:]
rows = [json.loads(l) for l in open(raw)]
def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception:
        return ""
model = sh("lscpu | sed -n 's/^Model name: *//p'") or platform.processor()
mem = sh("awk '/MemTotal/ {printf \"%.0f GiB\", $2/1048576}' /proc/meminfo")
osname = sh(". /etc/os-release && echo $PRETTY_NAME")
rev = sh("git -C " + root + " rev-parse --short HEAD")
blas = sh("ldd " + gpuvet + " | grep -o 'libopenblas[^ ]*' | head -n1")
torchv = next((r.get("torch") for r in rows if r.get("impl", "").startswith("pytorch")), "?")
def torch_origin(v):  # a local version (+cu130, +cpu) is PyTorch's own wheel; Debian's has none
    return "PyTorch's wheel" if "+" in v else "Debian python3-torch"
keys = sorted({(r["channels"], r["batch"]) for r in rows})
lines = []
lines.append("# Drop7 training on the CPU: gpuvet float32 against PyTorch\n")
lines.append(f"Written by `bench/train_cpu_vs_torch.sh` on {sh('date -u +%Y-%m-%dT%H:%M:%SZ')}.\n")
lines.append("| machine | |\n| --- | --- |")
l3 = sh("lscpu | sed -n 's/^L3 cache: *//p'")
ncpu = sh("getconf _NPROCESSORS_ONLN")  # nproc would count OMP_NUM_THREADS
lines.append(f"| CPU | {model}, {ncpu} cores online ({l3} L3) |")
lines.append(f"| memory, OS | {mem}, {osname}, kernel {platform.release()} |")
lines.append(f"| gpuvet | {sh(gpuvet + ' --version')} (git {rev}), {blas}, OpenMP; 3x3 convolutions: {conv} |")
lines.append(f"| PyTorch | {torchv} ({torch_origin(torchv)}, oneDNN convolutions) |")
lines.append(f"| method | {threads} threads each, channels x batch as below, {blocks} blocks, GroupNorm, fp32; per run "
             f"warm-up then {repeats} repeats of {steps} steps, median of repeats; {rounds} rounds alternating which "
             f"side runs first; host load average {lb} before, {la} after |\n")
lines.append("| channels | batch | gpuvet median samples/s (per round) | PyTorch median samples/s (per round) "
             "| gpuvet / PyTorch (of the medians) | per round (the two sides of one round ran back to back) "
             "| per CPU-second: gpuvet / PyTorch |")
lines.append("| ---: | ---: | --- | --- | ---: | --- | ---: |")
for c, b in keys:
    def side(impl):
        return {r["round"]: r["samples_per_s_median"] for r in rows if r["channels"] == c and r["batch"] == b
                and (r.get("impl") == "gpuvet") == (impl == "gpuvet")}
    g, t = side("gpuvet"), side("pytorch")
    gm, tm = statistics.median(g.values()), statistics.median(t.values())
    per = [g[k] / t[k] for k in sorted(g) if k in t and t[k] > 0]
    def cpu(impl):
        xs = [r.get("samples_per_s_per_cpu_second_median") for r in rows if r["channels"] == c and r["batch"] == b
              and (r.get("impl") == "gpuvet") == (impl == "gpuvet")]
        xs = [x for x in xs if x]
        return statistics.median(xs) if xs else float("nan")
    cr = cpu("gpuvet") / cpu("pytorch")
    lines.append(f"| {c} | {b} | **{gm:.1f}** ({', '.join(f'{g[k]:.1f}' for k in sorted(g))}) | **{tm:.1f}** "
                 f"({', '.join(f'{t[k]:.1f}' for k in sorted(t))}) | **{gm / tm:.2f}x** | "
                 f"{', '.join(f'{x:.2f}x' for x in per)} (median {statistics.median(per):.2f}x) | {cr:.2f}x |")
lines.append("\nRaw entries (one JSON object per run and side):\n\n```")
lines += [json.dumps(r, sort_keys=True) for r in rows]
lines.append("```")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines[:12 + len(keys)]))
print(f"\nwritten to {out}")
PY
