#!/bin/sh
# infer_cpu_vs_torch.sh: gpuvet's float32 CPU inference (the self-play case: positions in,
# eval-mode forward, logits and value out) against PyTorch eager's on the same machine and
# thread count. Per round it runs `gpuvet bench infer --devices cpu` and `torch_infer.py
# --device cpu` back to back over all batch sizes, alternating which goes first, and writes
# a Markdown table (latency median and p99, samples/s, samples per CPU-second, ratios; the
# machine's description and load) to bench/results/.
#
# Both sides take the positions in one form (--positions: cells, gpuvet's default and
# self-play's, or float32 planes).
# usage: bench/infer_cpu_vs_torch.sh [--channels 128] [--batches 1,4,16,64,256] [--threads N]
#        [--norm group] [--min-time 0.3] [--repeats 3] [--rounds 3] [--positions cells|planes] [--out FILE]
# environment: GPUVET (default build/cpu/gpuvet), PYTHON (default: scripts/find-python)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
channels=128 batches=1,4,16,64,256 threads=$(nproc) norm=group min_time=0.3 repeats=3 rounds=3 positions=cells
out="$root/bench/results/$(date -u +%Y-%m-%d)-infer-cpu-vs-torch.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --channels) channels=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --norm) norm=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --positions) positions=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "infer_cpu_vs_torch.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
GPUVET=${GPUVET:-$root/build/cpu/gpuvet}
PYTHON=${PYTHON:-$("$root/scripts/find-python" || true)}
[ -x "$GPUVET" ] || { echo "infer_cpu_vs_torch.sh: no gpuvet at $GPUVET (run make first or set GPUVET)" >&2; exit 3; }
[ -n "$PYTHON" ] || { echo "infer_cpu_vs_torch.sh: no python3 with torch (set PYTHON)" >&2; exit 3; }
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads
raw=$(mktemp)
trap 'rm -f "$raw" "$raw.json"' EXIT
load_before=$(cut -d' ' -f1 /proc/loadavg)
run_gpuvet() {
  "$GPUVET" bench infer --devices cpu --channels "$channels" --batches "$batches" --norm "$norm" \
    --min-time "$min_time" --repeats "$repeats" --threads "$threads" --positions "$positions" --quiet \
    --json "$raw.json" >/dev/null
  "$PYTHON" -c 'import json,sys
for e in json.load(open(sys.argv[1]))["bench_infer"]:
    e["round"] = int(sys.argv[2]); print(json.dumps(e))' "$raw.json" "$1" >> "$raw"
}
run_torch() {
  "$PYTHON" "$root/bench/torch/torch_infer.py" --device cpu --channels "$channels" --batches "$batches" \
    --norm "$norm" --min-time "$min_time" --repeats "$repeats" --threads "$threads" --positions "$positions" |
    "$PYTHON" -c 'import json,sys
for l in sys.stdin:
    e = json.loads(l); e["round"] = int(sys.argv[1]); print(json.dumps(e))' "$1" >> "$raw"
}
r=1
while [ "$r" -le "$rounds" ]; do
  echo "round $r/$rounds: channels $channels, batches $batches ($threads threads)" >&2
  if [ $((r % 2)) = 1 ]; then run_gpuvet "$r"; run_torch "$r"; else run_torch "$r"; run_gpuvet "$r"; fi
  r=$((r + 1))
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
POSITIONS=$positions "$PYTHON" - "$raw" "$out" "$threads" "$min_time" "$repeats" "$rounds" "$norm" "$load_before" "$load_after" "$GPUVET" "$root" <<'PY'
import json, os, platform, statistics, subprocess, sys
raw, out, threads, min_time, repeats, rounds, norm, lb, la, gpuvet, root = sys.argv[1:]
rows = [json.loads(l) for l in open(raw)]
def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception:
        return ""
def med(xs):
    return statistics.median(xs) if xs else float("nan")
model = sh("lscpu | sed -n 's/^Model name: *//p'") or platform.processor()
flags = [f for f in ("avx512f", "avx2", "fma") if f in sh("grep -m1 '^flags' /proc/cpuinfo").split()]
torchv = next((r.get("torch") for r in rows if r.get("impl", "").startswith("pytorch")), "?")
def torch_origin(v):  # a local version (+cu130, +cpu) is PyTorch's own wheel; Debian's has none
    return "PyTorch's wheel" if "+" in v else "Debian python3-torch"
l3 = sh("lscpu | sed -n 's/^L3 cache: *//p'")
mem = sh("awk '/MemTotal/ {printf \"%.0f GiB\", $2/1048576}' /proc/meminfo")
L = ["# Drop7 inference on the CPU: gpuvet float32 against PyTorch eager\n",
     f"Written by `bench/infer_cpu_vs_torch.sh` on {sh('date -u +%Y-%m-%dT%H:%M:%SZ')}. One call: the positions "
     f"in (as {os.environ['POSITIONS']} on both sides: host tensors / `set_batch`), the eval-mode forward, logits and "
     "value out.\n",
     "| machine | |", "| --- | --- |",
     f"| CPU | {model}, {sh('getconf _NPROCESSORS_ONLN')} cores online ({l3} L3), "
     f"{' '.join(flags)} |",
     f"| memory, OS | {mem}, "
     f"{sh('. /etc/os-release && echo $PRETTY_NAME')}, kernel {platform.release()} |",
     f"| gpuvet | {sh(gpuvet + ' --version')} (git {sh('git -C ' + root + ' rev-parse --short HEAD')}), "
     f"3x3 convolutions: {next((r.get('cpu_conv') for r in rows if r.get('impl') == 'gpuvet'), '?')} |",
     f"| PyTorch | {torchv} ({torch_origin(torchv)}, oneDNN convolutions), eager, torch.inference_mode |",
     f"| method | {threads} threads each, {norm} norm, {rows[0]['channels'] if rows else '?'} channels, 6 blocks, fp32; "
     f"per round and batch: calls for at least {min_time} s, {repeats} timed runs; {rounds} rounds alternating which "
     f"side runs first; figures are medians over rounds; host load average {lb} before, {la} after |\n",
     "Latency in ms; `/cpu-s`: samples per CPU-second of the process (less sensitive to other load than wall time); "
     "ratios are PyTorch's latency over gpuvet's and gpuvet's rates over PyTorch's (above 1: gpuvet better).\n",
     "| batch | gpuvet median | gpuvet p99 | PyTorch median | PyTorch p99 | latency ratio | gpuvet samples/s | "
     "PyTorch samples/s | gpuvet /cpu-s | PyTorch /cpu-s | /cpu-s ratio |",
     "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for b in sorted({r["batch"] for r in rows}):
    g = [r for r in rows if r["batch"] == b and r["impl"] == "gpuvet"]
    t = [r for r in rows if r["batch"] == b and r["impl"].startswith("pytorch")]
    f = lambda rs, k: med([r[k] for r in rs if r.get(k) is not None])
    gm, tm = f(g, "latency_ms_median"), f(t, "latency_ms_median")
    gc, tc = f(g, "samples_per_s_per_cpu_second_median"), f(t, "samples_per_s_per_cpu_second_median")
    L.append(f"| {b} | {gm:.2f} | {f(g, 'latency_ms_p99'):.2f} | {tm:.2f} | {f(t, 'latency_ms_p99'):.2f} | "
             f"**{tm / gm:.2f}x** | {f(g, 'samples_per_s_median'):.1f} | {f(t, 'samples_per_s_median'):.1f} | "
             f"{gc:.1f} | {tc:.1f} | **{gc / tc:.2f}x** |")
L += ["\nRaw entries (one JSON object per run, side and batch):\n", "```"]
L += [json.dumps(r, sort_keys=True) for r in rows]
L.append("```")
open(out, "w").write("\n".join(L) + "\n")
print("\n".join(L[:14 + len({r['batch'] for r in rows})]))
print(f"\nwritten to {out}")
PY
