#!/bin/sh
# call.sh: the device call for issue 40: the Drop7 training recipe on an H100 (or H200), then
# the acceptance evaluation, one call of about 9 minutes. scripts/device-pack.sh packed .dist/
# (bench/device_env.sh: $B the sm_90 binary, results under $R, `st` packs them into $OUT/a.tgz).
#   1. bench/drop7/train_strong.sh on cuda, 16 CPU threads for the searches, a budget of
#      TRAIN_BUDGET seconds (300), its defaults otherwise: generation 0 from 2048 expectimax1
#      games (discount 0.95), then generations of 128 self-play games of the network's
#      expectimax1 search, 64 channels, 2 blocks, leaves 1:0 and 0.1:1 tried at each
#      evaluation on 100 seeds (the run directory /tmp/gv/run, $WORK/run; its records, curve and best network copied
#      into $R/run, the datasets left out)
#   2. the best network on the 1000 acceptance seeds 5,000,000..5,000,999 (never used in
#      training or evaluation), in chunks of 100 games until the deadline (start + DEADLINE
#      seconds, 480), beside expectimax2 (16 threads) and random on the same seeds; the
#      figures: mean +- 95% interval, the ratio to random, the difference with expectimax2
#      and its interval (Welch), the games/s of each
#   3. the same network and seeds on the CPU and the GPU: 2 self-play games each, the
#      datasets compared byte for byte (the CPU's float32 forward and the GPU's differ in
#      their last bits: a difference is reported with the count of differing bytes, the
#      games' scores beside it), and the CPU's games/s of `play` with the best network
set -u
. bench/device_env.sh
export GV_ROOT=$root
t_call=$(date +%s)
# The sizes (a rehearsal on a CPU machine sets them small, with DEV=cpu): the training's
# budget, the deadline of the acceptance chunks (seconds from the start of the call), the
# acceptance games and chunk, the device, and the recipe's settings that differ from its
# defaults.
TRAIN_BUDGET=${TRAIN_BUDGET:-300} DEADLINE=${DEADLINE:-480} ACC_GAMES=${ACC_GAMES:-1000} N=${ACC_CHUNK:-100}
DEV=${DEV:-cuda} TH=${TH:-16}
export GAMES=${GAMES:-128} PARALLEL=${PARALLEL:-128} EVAL_BATCH=${EVAL_BATCH:-8192} EVAL_GAMES=${EVAL_GAMES:-100}
export CHANNELS=${CHANNELS:-64} BLOCKS=${BLOCKS:-2} SEARCH=expectimax1 SAMPLES=1 GENS=${GENS:-40}
work=${WORK:-/tmp/gv}
run=$work/run
st train
GPUVET=$B DEVICES=$DEV THREADS=$TH BUDGET=$TRAIN_BUDGET sh bench/drop7/train_strong.sh "$run" >"$R/train_strong.txt" 2>&1
echo "train_strong.sh rc=$?"
grep -E '^generation|budget' "$R/train_strong.txt"
mkdir -p "$R/run"
(cd "$run" && find . -type f ! -name '*.st' | while read -r f; do mkdir -p "$R/run/$(dirname "$f")"; cp "$f" "$R/run/$f"; done)
cp "$run/best.st" "$R/run/best.st" 2>/dev/null
cat "$run/summary.md"
st acceptance
A=5000000
acc=$R/acc
mkdir -p "$acc"
# the baselines on all the acceptance seeds
/usr/bin/time -f %e -o "$acc/ex2.time" "$B" play --policy expectimax2 --baselines random --games "$ACC_GAMES" --seed $A \
  --threads "$TH" -q --json "$acc/ex2.json" >"$acc/ex2.txt" 2>&1
echo "expectimax2 + random, $ACC_GAMES games: rc=$? $(cat "$acc/ex2.time") s"; grep -E '^(expectimax2|random) ' "$acc/ex2.txt"
read -r best_gen best_mean best_ci best_leaf <"$run/best.txt"
leaf="--value-weight ${best_leaf%%:*} --heuristic-weight ${best_leaf#*:}"
echo "best: generation $best_gen, leaf $best_leaf ($leaf)"
st network
# the best network in chunks of 100 seeds, until the deadline
i=0 last=0
while [ "$i" -lt $((ACC_GAMES / N)) ]; do
  left=$((t_call + DEADLINE - $(date +%s)))
  [ "$left" -le "$last" ] && { echo "deadline: $i chunks of $N played, $left s left, a chunk took $last s"; break; }
  t0=$(date +%s)
  # shellcheck disable=SC2086
  if ! "$B" play --net "$run/best.st" --search expectimax1 --samples 1 $leaf --eval-batch "$EVAL_BATCH" --parallel "$PARALLEL" \
    --devices "$DEV" --threads "$TH" --games $N --seed $((A + N * i)) --baselines none -q --json "$acc/net_$i.json" \
    >"$acc/net_$i.txt" 2>&1; then
    echo "chunk $i failed: $(tail -n 2 "$acc/net_$i.txt")"; break
  fi
  last=$(( $(date +%s) - t0 ))
  echo "chunk $i (seeds $((A + N * i))..$((A + N * i + N - 1))): $(grep '^net ' "$acc/net_$i.txt" | cut -c1-120), $last s"
  i=$((i + 1))
  st "network $i"
done
# the figures: the network's chunks pooled (mean, sample variance from each chunk's interval
# and mean), against the baselines on the same seeds (their per-chunk figures are not kept:
# when fewer than 10 chunks ran, the baselines' 1000-game figures are on more seeds than the
# network's; say so)
jn() { sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\([-0-9.eE+]*\),*$/\1/p" "$1" | sed -n "${3:-1}p"; }
{
  for k in $(seq 0 $((i - 1))); do echo "$(jn "$acc/net_$k.json" score_mean) $(jn "$acc/net_$k.json" score_ci95) $(jn "$acc/net_$k.json" seconds)"; done
} | awk -v n=$N -v na="$ACC_GAMES" -v em="$(jn "$acc/ex2.json" score_mean 1)" -v ec="$(jn "$acc/ex2.json" score_ci95 1)" \
      -v rm="$(jn "$acc/ex2.json" score_mean 2)" -v rc="$(jn "$acc/ex2.json" score_ci95 2)" '
  { m[NR] = $1; s = $2 * sqrt(n) / 1.96; v[NR] = s * s; t += $3 }
  END {
    k = NR; if (!k) { print "no chunk of the network played"; exit }
    N = k * n; mean = 0; for (j = 1; j <= k; j++) mean += m[j] / k
    ss = 0; for (j = 1; j <= k; j++) ss += (n - 1) * v[j] + n * (m[j] - mean) ^ 2
    ci = 1.96 * sqrt(ss / (N - 1)) / sqrt(N)
    printf "network (expectimax1 search): %d games: %.0f +- %.0f (95%% CI), %.2f games/s\n", N, mean, ci, N / t
    printf "expectimax2 (%d games): %.0f +- %.0f; random: %.0f +- %.0f\n", na, em, ec, rm, rc
    d = mean - em; h = sqrt(ci * ci + ec * ec)
    vd = (d - h > 0) ? "better, the interval excludes 0" : ((d + h < 0) ? "worse" : "not distinguishable")
    printf "network - expectimax2: %+.0f +- %.0f (%s)%s\n", d, h, vd, ((N < na) ? " [the network played fewer seeds than the baselines]" : "")
    printf "network / random: %.2fx (acceptance: at least 10x)\n", mean / rm
  }' | tee "$R/acceptance.txt"
"$B" report "$run/curve.json" -o "$R/run/curve.html" >/dev/null 2>&1
st cpu-gpu
# the same network and seeds on both devices (2 games of its search), and the CPU's play speed
for dv in cpu $DEV; do
  # shellcheck disable=SC2086
  "$B" selfplay --net "$run/best.st" --search expectimax1 --samples 1 $leaf --eval-batch "$EVAL_BATCH" --games 2 --parallel 2 \
    --devices $dv --threads "$TH" --seed 6000000 --discount 0.95 --out "$work/same_$dv.st" --force -q >"$R/same_$dv.txt" 2>&1
  echo "selfplay on $dv rc=$?: $(grep '^selfplay:' "$R/same_$dv.txt" | cut -c1-160)"
done
if cmp -s $work/same_cpu.st "$work/same_$DEV.st"; then echo "CPU and $DEV datasets identical ($(wc -c <$work/same_cpu.st) bytes)"
else echo "CPU and $DEV datasets differ: $(cmp -l $work/same_cpu.st "$work/same_$DEV.st" 2>/dev/null | wc -l) of $(wc -c <$work/same_cpu.st) bytes"; fi
# shellcheck disable=SC2086
/usr/bin/time -f %e -o "$R/cpu_play.time" "$B" play --net "$run/best.st" --search expectimax1 --samples 1 $leaf --devices cpu \
  --threads "$TH" --games 4 --parallel 4 --seed 7000000 --baselines none -q >"$R/cpu_play.txt" 2>&1
echo "play on the CPU ($TH threads), 4 games: $(grep '^net' "$R/cpu_play.txt" | cut -c1-120); $(cat "$R/cpu_play.time") s wall"
st end
