#!/bin/sh
# acceptance.sh: issue 40's check of a Drop7 network: the network with its player (the search
# its checkpoint names: bench/drop7/set_player.py; or PLAYER="--search ... ") on GAMES fresh
# seeds SEED.. beside expectimax2 and random on the same seeds, game by game.
#
#   bench/drop7/acceptance.sh NET OUT_DIR
#
# The seeds 8,000,000 + i are used by nothing else (training 9,000,000+ and 10,000,000+,
# evaluation 3,000,000+, tuning 2,000,000+ and 3,000,100+, the first acceptance run
# 5,000,000+: docs/DROP7.md). The network plays in chunks of CHUNK games (resumable: a chunk
# whose record is in OUT_DIR is not played again; with DEADLINE seconds, no chunk starts that
# would pass it by the longest chunk so far). At the end OUT_DIR/acceptance.txt holds the
# figures: each player's mean score with its 95% interval, the network's mean over random's
# (the issue asks for at least 10x), and the network minus expectimax2 seed by seed (paired:
# mean difference +- 1.96 sd / sqrt(n); the issue asks that the interval exclude 0).
#
# Environment: GPUVET (./gpuvet), DEVICES (cuda when nvidia-smi lists a GPU, else cpu), THREADS
# (0: all cores), GAMES (1000), CHUNK (200), SEED (8000000), PARALLEL (CHUNK: games side by side),
# EVAL_BATCH (8192: leaves per network call), PLAYER (empty: the checkpoint's), DEADLINE (0: none).
# Exit: 0 figures written (whether or not they pass), 2 bad arguments, else the failing
# command's code.
set -eu
[ $# = 2 ] || { echo "usage: $0 NET OUT_DIR (environment: see the head of this file)" >&2; exit 2; }
net=$1 out=$2
[ -r "$net" ] || { echo "acceptance.sh: $net: no such network (give a checkpoint file)" >&2; exit 2; }
G=${GPUVET:-./gpuvet}
if [ -z "${DEVICES:-}" ]; then
  DEVICES=cpu
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then DEVICES=cuda; fi
fi
THREADS=${THREADS:-0} GAMES=${GAMES:-1000} CHUNK=${CHUNK:-200} SEED=${SEED:-8000000}
PARALLEL=${PARALLEL:-$CHUNK} EVAL_BATCH=${EVAL_BATCH:-8192} PLAYER=${PLAYER:-} DEADLINE=${DEADLINE:-0}
mkdir -p "$out"
t0=$(date +%s)
fail() { cat "$1" >&2; echo "acceptance.sh: $2 failed (output in $1)" >&2; exit 1; }
if [ ! -s "$out/baselines.json" ]; then
  echo "baselines: expectimax2 and random, $GAMES games from seed $SEED"
  "$G" play --policy expectimax2 --baselines random --games "$GAMES" --seed "$SEED" --threads "$THREADS" -q \
    --json "$out/baselines.json.tmp" >"$out/baselines.txt" 2>&1 || fail "$out/baselines.txt" "the baselines"
  mv "$out/baselines.json.tmp" "$out/baselines.json"
fi
i=0 longest=0
while [ $((i * CHUNK)) -lt "$GAMES" ]; do
  n=$CHUNK; [ $(((i + 1) * CHUNK)) -gt "$GAMES" ] && n=$((GAMES - i * CHUNK))
  f=$out/net_$(printf %03d "$i")
  if [ ! -s "$f.json" ]; then
    now=$(date +%s)
    if [ "$DEADLINE" -gt 0 ] && [ $((now - t0 + longest)) -gt "$DEADLINE" ]; then
      echo "deadline: chunk $i not started ($((now - t0)) s spent, the longest chunk $longest s)"; break
    fi
    # shellcheck disable=SC2086
    "$G" play --net "$net" $PLAYER --eval-batch "$EVAL_BATCH" --parallel "$PARALLEL" --devices "$DEVICES" \
      --threads "$THREADS" --games "$n" --seed $((SEED + i * CHUNK)) --baselines none -q --json "$f.json.tmp" \
      >"$f.txt" 2>&1 || fail "$f.txt" "chunk $i"
    mv "$f.json.tmp" "$f.json"
    s=$(($(date +%s) - now)); [ "$s" -gt "$longest" ] && longest=$s
    echo "chunk $i: $(grep '^net ' "$f.txt" | cut -c1-110), $s s"
  fi
  i=$((i + 1))
done
python3 - "$out" "$GAMES" <<'PY' | tee "$out/acceptance.txt"
import glob, json, math, sys
out, want = sys.argv[1], int(sys.argv[2])
def stats(x):
    n = len(x); m = sum(x) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in x) / (n - 1)) if n > 1 else float('nan')
    return m, 1.96 * sd / math.sqrt(n)
base = {e['policy']: e for e in json.load(open(out + '/baselines.json'))['play']}
net, label, secs = [], '', 0.0
for f in sorted(glob.glob(out + '/net_*.json')):
    e = json.load(open(f))['play'][0]
    net += e['scores']; label = e['policy']; secs += e['seconds']
n = len(net)
if n == 0:
    sys.exit('acceptance.sh: no chunk of the network was played')
ex2, rnd = base['expectimax2']['scores'][:n], base['random']['scores'][:n]
print(f"{n} of {want} seeds played by the network" + ("" if n == want else " (not all: the figures are on these seeds)"))
for name, x in ((label, net), ('expectimax2', ex2), ('random', rnd)):
    m, c = stats(x)
    print(f"{name}: {m:,.0f} +- {c:,.0f} (95% CI), median {sorted(x)[n // 2]:,.0f}")
m, _ = stats(net); mr, _ = stats(rnd)
d, dc = stats([a - b for a, b in zip(net, ex2)])
v = 'better: the interval excludes 0' if d - dc > 0 else 'worse' if d + dc < 0 else 'not distinguishable'
print(f"network - expectimax2, seed by seed: {d:+,.0f} +- {dc:,.0f} ({v})")
print(f"network / random: {m / mr:.2f}x (the issue asks for at least 10x)")
print(f"network: {n / secs:.2f} games/s ({secs:.0f} s in all)")
PY
