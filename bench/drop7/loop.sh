#!/bin/sh
# loop.sh: the Drop7 self-play -> train -> play loop from a random network (issue 17).
# Generation g: `gpuvet selfplay` with network g (generation 0: a fresh random network)
# writes data_g.st; `gpuvet train` trains network g on the datasets of the last WINDOW
# generations into network g+1 (net_<g+1>.st); `gpuvet play` plays network g+1 with the
# search against the greedy, random and expectimax1 baselines on the same seeds and prints
# the verdict (mean score, 95% CI of the difference). Every record goes to OUT as JSON; summary.txt
# holds one line per generation.
#
#   bench/drop7/loop.sh OUT_DIR
# Environment (defaults for a small CPU run of about 10 minutes on 2 cores):
#   GPUVET (./gpuvet), DEVICES (cpu; cuda on a GPU machine), GENS (3), GAMES (64 self-play
#   games per generation), SIMS (16), EVAL_GAMES (200), EVAL_SIMS (SIMS), CHANNELS (16),
#   BLOCKS (1), EPOCHS (4), BATCH (128), LR (1e-3), WINDOW (2), PARALLEL (64), THREADS (1),
#   SEED (1; evaluation plays seeds 1000000+i, never a self-play seed)
set -eu
out=${1:?usage: bench/drop7/loop.sh OUT_DIR}
G=${GPUVET:-./gpuvet}
DEVICES=${DEVICES:-cpu} GENS=${GENS:-3} GAMES=${GAMES:-64} SIMS=${SIMS:-16} EVAL_GAMES=${EVAL_GAMES:-200}
EVAL_SIMS=${EVAL_SIMS:-$SIMS} CHANNELS=${CHANNELS:-16} BLOCKS=${BLOCKS:-1} EPOCHS=${EPOCHS:-4} BATCH=${BATCH:-128}
LR=${LR:-1e-3} WINDOW=${WINDOW:-2} PARALLEL=${PARALLEL:-64} THREADS=${THREADS:-1} SEED=${SEED:-1}
mkdir -p "$out"
sum="$out/summary.txt"
common="--devices $DEVICES --threads $THREADS"
# run FILE CMD...: CMD's output into FILE and onto the terminal; the loop stops when CMD fails
run() {
  f=$1; shift
  if "$@" >"$f" 2>&1; then rc=0; else rc=$?; fi
  cat "$f"
  [ "$rc" = 0 ] || { echo "loop.sh: $1 failed with exit $rc (output in $f)" >&2; exit "$rc"; }
}
echo "loop: $(date -u +%FT%TZ) $GENS generations, $GAMES games x $SIMS sims, ${CHANNELS}x$BLOCKS net, eval $EVAL_GAMES games x $EVAL_SIMS sims, device $DEVICES" | tee "$sum"
evalseed=$((1000000 + SEED))
# shellcheck disable=SC2086
run "$out/play_0.txt" $G play --channels "$CHANNELS" --blocks "$BLOCKS" --seed "$evalseed" --games "$EVAL_GAMES" \
  --sims "$EVAL_SIMS" --parallel "$PARALLEL" $common -q --json "$out/play_0.json"
grep '^verdict' "$out/play_0.txt" | sed 's/^/gen 0 (random net): /' >> "$sum"
net=""
g=0
while [ "$g" -lt "$GENS" ]; do
  t0=$(date +%s)
  if [ -z "$net" ]; then src="--channels $CHANNELS --blocks $BLOCKS"; else src="--net $net"; fi
  # shellcheck disable=SC2086
  run "$out/selfplay_$g.txt" $G selfplay $src --games "$GAMES" --sims "$SIMS" --parallel "$PARALLEL" \
    --seed $((SEED + 100000 * g)) --out "$out/data_$g.st" --force $common -q --json "$out/selfplay_$g.json"
  data=""
  k=$((g - WINDOW + 1)); [ "$k" -lt 0 ] && k=0
  while [ "$k" -le "$g" ]; do data="$data $out/data_$k.st"; k=$((k + 1)); done
  # shellcheck disable=SC2086
  run "$out/train_$g.txt" $G train --data $data $src --epochs "$EPOCHS" --batch "$BATCH" --lr "$LR" \
    --seed $((SEED + g)) --save "$out/net_$((g + 1)).st" $common -q --json "$out/train_$g.json"
  net="$out/net_$((g + 1)).st"
  # shellcheck disable=SC2086
  run "$out/play_$((g + 1)).txt" $G play --net "$net" --seed "$evalseed" --games "$EVAL_GAMES" --sims "$EVAL_SIMS" \
    --parallel "$PARALLEL" $common -q --json "$out/play_$((g + 1)).json"
  g=$((g + 1))
  echo "gen $g: $(grep '^selfplay:' "$out/selfplay_$((g - 1)).txt" | cut -c1-120)" >> "$sum"
  echo "gen $g: $(grep '^time:' "$out/selfplay_$((g - 1)).txt")" >> "$sum"
  grep '^verdict' "$out/play_$g.txt" | sed "s/^/gen $g: /" >> "$sum"
  echo "gen $g: $(( $(date +%s) - t0 )) s" >> "$sum"
done
cat "$sum"
