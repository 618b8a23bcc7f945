#!/bin/sh
# selfplay_vs_infer.sh OUT_DIR: self-play's leaf evaluations beside `gpuvet bench infer` on the
# same network and batch, per device (cpu, plus cuda when nvidia-smi sees a GPU; DEVICES="cuda"
# picks), one command (issue 43). Per device:
#   selfplay --channels C --blocks B --games G --parallel P --sims S (its record: evaluation
#     calls, batch sizes, share of real positions, its rate and its own short bench at batch P)
#   bench infer at batches P, P/2, P/4 (cells, the way self-play hands positions over; on the
#     CPU with --threads 1, as selfplay's default)
# and OUT_DIR/summary.md: per device self-play's positions/s, bench infer's at batch P (the batch
# over the median latency of a call), the ratio (the efficiency), and where the difference goes
# (positions a call, batch sizes, the share of real positions in the batches computed).
# Environment: GPUVET (default build/cuda/gpuvet, else build/cpu/gpuvet), CHANNELS 128, BLOCKS 6,
# and per device GAMES, PARALLEL, SIMS: cuda 256, 256, 32 (the issue's run); cpu 32, 32, 8
# (CPU_GAMES, CPU_PARALLEL, CPU_SIMS: a minute or two on one core). Exit 1 when a run failed,
# 2 on bad arguments.
set -u
out=${1:?usage: bench/drop7/selfplay_vs_infer.sh OUT_DIR}
if [ -z "${GPUVET:-}" ]; then
  GPUVET=build/cuda/gpuvet
  [ -x "$GPUVET" ] || GPUVET=build/cpu/gpuvet
fi
[ -x "$GPUVET" ] || { echo "selfplay_vs_infer.sh: no gpuvet binary at $GPUVET (set GPUVET)" >&2; exit 2; }
mkdir -p "$out" || exit 2
C=${CHANNELS:-128} NB=${BLOCKS:-6}
if [ -z "${DEVICES:-}" ]; then
  DEVICES=cpu
  nvidia-smi -L >/dev/null 2>&1 && DEVICES="cpu cuda"
fi
failed=0
for d in $DEVICES; do
  if [ "$d" = cuda ]; then g=${GAMES:-256} p=${PARALLEL:-256} s=${SIMS:-32} th=""
  else g=${CPU_GAMES:-32} p=${CPU_PARALLEL:-32} s=${CPU_SIMS:-8} th="--threads 1"; fi
  b=$((g < p ? g : p))
  echo "== $d: selfplay, $C channels, $NB blocks, $g games, $p side by side, $s simulations"
  "$GPUVET" selfplay --devices "$d" --channels "$C" --blocks "$NB" --games "$g" --parallel "$p" --sims "$s" \
    --out "$out/${d}_sp.st" --force -q --json "$out/${d}_selfplay.json" >"$out/${d}_selfplay.txt" 2>&1 || failed=1
  grep -E '^(time|evaluation)' "$out/${d}_selfplay.txt"
  bs=$b
  [ $((b / 2)) -ge 1 ] && bs="$bs,$((b / 2))"
  [ $((b / 4)) -ge 1 ] && bs="$bs,$((b / 4))"
  echo "== $d: bench infer at batches $bs"
  # shellcheck disable=SC2086
  "$GPUVET" bench infer --devices "$d" --channels "$C" --blocks "$NB" --batches "$bs" $th \
    --json "$out/${d}_infer.json" >"$out/${d}_infer.txt" 2>&1 || failed=1
  grep -E "^$d" "$out/${d}_infer.txt"
  rm -f "$out/${d}_sp.st"
done
python3 - "$out" $DEVICES <<'EOF' >"$out/summary.md" || failed=1
import json, sys
out, devs = sys.argv[1], sys.argv[2:]
print("| device | games x sims | batch | self-play positions/s | its own bench (after the games) | bench infer at the batch | efficiency | calls | positions a call | batch sizes | real positions |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for d in devs:
    try:
        sp = json.load(open(f"{out}/{d}_selfplay.json"))["selfplay"]
        inf = json.load(open(f"{out}/{d}_infer.json"))["bench_infer"]
    except Exception as e:  # a run that failed: its row says so
        print(f"| {d} | failed: {e} |")
        continue
    b = int(sp["bench_batch"])
    row = [e for e in inf if int(e.get("batch", -1)) == b]
    # bench infer's rate as the issue quotes it: the batch over the median latency of a call
    bi = b / (row[0]["latency_ms_median"] / 1e3) if row and row[0].get("latency_ms_median") else None
    rate = sp["eval_positions_per_s"]
    calls = sp["eval_calls"]
    print(f"| {d} | {sp['games_played']:.0f} x {sp['sims']:.0f} | {b} | {rate:,.0f} | {sp['bench_positions_per_s']:,.0f} "
          f"({100 * sp['eval_efficiency']:.0f}%) | {bi:,.0f} | {100 * rate / bi:.0f}% | {calls:.0f} | "
          f"{sp['evals'] / calls:.1f} | {sp['eval_sizes']:.0f} | {100 * sp['eval_occupancy']:.0f}% |" if bi else
          f"| {d} | no bench infer row at batch {b} |")
EOF
cat "$out/summary.md"
exit $failed
