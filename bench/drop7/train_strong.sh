#!/bin/sh
# train_strong.sh: the Drop7 training recipe (issue 40): generations of self-play -> train ->
# evaluate into one run directory, resumable, within a wall-time budget (docs/DROP7.md,
# "Training a strong player").
#
#   bench/drop7/train_strong.sh RUN_DIR
#
# Generation 0: BOOT_GAMES games of the expectimax1 player (`selfplay --policy expectimax1`:
# its positions, its played column as the policy target, the points still to come
# discounted by DISCOUNT per move as the value) train a fresh CHANNELS x BLOCKS network
# (BOOT_EPOCHS epochs; BOOT_GAMES=0: the positions of a fresh random network's search
# instead). Generation g >= 1: the best network plays GAMES games with the search SEARCH
# (default expectimax1: the expectimax search over the columns and the next disc with the
# network's value at its leaves, SAMPLES reveal samples, the best network's leaf weights),
# the network named by FROM (best: the best network; latest: the last generation's) goes on
# training on the datasets of the last WINDOW generations, plus generation 0's while ANCHOR
# is 1 (EPOCHS epochs, peak rate LR x LR_DECAY^g, the value head on the discounted points /
# VALUE_SCALE), and the new network plays EVAL_GAMES fixed seeds with the same search, once
# per leaf of LEAVES (the best leaf is its score). It becomes the best only when its mean
# beats the best's by a 95% interval of the difference that excludes 0 (the networks play
# the same seeds; generation 0 is the first best). Self-play always uses the best network.
#
# Seeds (disjoint): evaluation 3,000,000 + i (i < EVAL_GAMES); bootstrap games 9,000,000 + i;
# self-play of generation g 10,000,000 + 100,000 g + i; the final 1000-seed acceptance
# (bench/drop7/acceptance.sh) plays 8,000,000 + i (a first run, before the search was tuned,
# played 5,000,000 + i: bench/results/2026-12-07-h100-drop7-train/call.sh). The default
# seeds of `play` (1+), the old loop's evaluation (1,000,000+) and the expectimax tuning
# (2,000,000+) are none of these.
#
# RUN_DIR holds gen_NNN/ per generation (data.st, selfplay.{txt,json}, net.st,
# train.{txt,json}, eval_V_H.{txt,json} per leaf and eval.{txt,json} the best, row.txt,
# done), baselines.{txt,json} (random and expectimax1 on the evaluation seeds), best.st and
# best.txt (the best network: its generation, mean, interval, leaf), curve.json (a gpuvet record: `gpuvet report RUN_DIR/curve.json` shows the
# learning curve), curve.md, summary.md. Rerun with the same RUN_DIR to continue after the
# last finished generation (a generation cut off midway is played again; its self-play
# dataset is resumed).
#
# Environment (defaults: a GPU run; tests/drop7/test_drop7_strong.sh runs a tiny one):
#   GPUVET (./gpuvet), DEVICES (cuda when nvidia-smi lists a GPU, else cpu), THREADS (all
#   cores: the searches' threads), GENS (12: generations after generation 0), BUDGET (0: none;
#   else seconds: a generation is not started when the time spent so far in this invocation
#   plus the longest generation so far would pass it), BOOT_GAMES (2048), BOOT_EPOCHS (2),
#   GAMES (128), SEARCH (expectimax1), SAMPLES (1), PARALLEL (64: games side by side),
#   EVAL_BATCH (4096: leaves per network call), CHANNELS (64), BLOCKS (2), EPOCHS (2),
#   BATCH (256), LR (1e-3), LR_DECAY (0.9), VALUE_SCALE (2000: about 1 per standard deviation of the discounted target), WINDOW (3), EVAL_GAMES (200),
#   DISCOUNT (0.95: the value target is the points still to come discounted per move,
#   `selfplay --discount`), LEAVES ("1:0 0.1:1": the leaves V:H the evaluation tries, the leaf
#   V x the network's value - H x the expectimax heuristic, `play --value-weight V
#   --heuristic-weight H`; the best one is the network's, and the best network's self-plays),
#   BASELINES (random,expectimax1: played once on the evaluation seeds; none: skipped), CHUNK
#   (4096: games between rewrites of a self-play dataset, which is rewritten whole each time),
#   FROM (best: each generation trains on from the best network, so a worse one is not built
#   on; latest: on from the previous generation), ANCHOR (1: generation 0's expectimax1 games
#   stay in every generation's training data; 0: only the window). Both were latest/0 before
#   bench/results/2026-12-07-h100-drop7-curve2: with them each generation trained on the
#   last and, once the bootstrap games left the window, on 384 self-play games alone, and
#   the scores fell from generation 0's 174,554 to 67,431 by generation 5.
set -eu
out=${1:?usage: bench/drop7/train_strong.sh RUN_DIR}
G=${GPUVET:-./gpuvet}
if [ -z "${DEVICES:-}" ]; then
  DEVICES=cpu
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then DEVICES=cuda; fi
fi
THREADS=${THREADS:-0} GENS=${GENS:-12} BUDGET=${BUDGET:-0} BOOT_GAMES=${BOOT_GAMES:-2048} BOOT_EPOCHS=${BOOT_EPOCHS:-2}
GAMES=${GAMES:-128} SEARCH=${SEARCH:-expectimax1} SAMPLES=${SAMPLES:-1} PARALLEL=${PARALLEL:-64}
EVAL_BATCH=${EVAL_BATCH:-4096} CHANNELS=${CHANNELS:-64} BLOCKS=${BLOCKS:-2} EPOCHS=${EPOCHS:-2} BATCH=${BATCH:-256}
LR=${LR:-1e-3} LR_DECAY=${LR_DECAY:-0.9} VALUE_SCALE=${VALUE_SCALE:-2000} WINDOW=${WINDOW:-3}
FROM=${FROM:-best} ANCHOR=${ANCHOR:-1}
EVAL_GAMES=${EVAL_GAMES:-200} BASELINES=${BASELINES:-random,expectimax1} CHUNK=${CHUNK:-4096}
LEAVES=${LEAVES:-1:0 0.1:1} DISCOUNT=${DISCOUNT:-0.95}
EVAL_SEED=3000000 BOOT_SEED=9000000 SP_SEED=10000000
mkdir -p "$out"
rm -f "$out/stopped.txt"
now() { date +%s.%N | cut -c1-14; }
t_start=$(now)
# jnum FILE KEY: the first number of "KEY" in a record (one key per line, as gpuvet writes them)
jnum() { v=$(sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\([-0-9.eE+]*\),*$/\1/p" "$1" | head -n 1); echo "${v:-nan}"; }
# run FILE CMD...: CMD's output into FILE; the run stops when CMD fails
run() {
  f=$1; shift
  if "$@" >"$f" 2>&1; then :; else
    rc=$?; cat "$f" >&2; echo "train_strong.sh: $1 failed with exit $rc (output in $f)" >&2; exit "$rc"
  fi
}
search="--search $SEARCH --samples $SAMPLES --eval-batch $EVAL_BATCH"
# leaf V:H: the search's leaf V x the network's value - H x the heuristic (the flags)
leafw() { echo "--value-weight ${1%%:*} --heuristic-weight ${1#*:}"; }
common="--devices $DEVICES --threads $THREADS -q"
cat >"$out/config.txt" <<EOF
train_strong.sh $(date -u +%FT%TZ) $($G --version 2>/dev/null | head -n 1)
DEVICES=$DEVICES THREADS=$THREADS GENS=$GENS BUDGET=$BUDGET BOOT_GAMES=$BOOT_GAMES BOOT_EPOCHS=$BOOT_EPOCHS GAMES=$GAMES
SEARCH=$SEARCH SAMPLES=$SAMPLES LEAVES="$LEAVES" PARALLEL=$PARALLEL EVAL_BATCH=$EVAL_BATCH
CHANNELS=$CHANNELS BLOCKS=$BLOCKS EPOCHS=$EPOCHS
BATCH=$BATCH LR=$LR LR_DECAY=$LR_DECAY VALUE_SCALE=$VALUE_SCALE DISCOUNT=$DISCOUNT WINDOW=$WINDOW EVAL_GAMES=$EVAL_GAMES BASELINES=$BASELINES FROM=$FROM ANCHOR=$ANCHOR
seeds: evaluation $EVAL_SEED+i, bootstrap $BOOT_SEED+i, self-play of generation g $SP_SEED+100000g+i, acceptance 8000000+i (bench/drop7/acceptance.sh)
EOF

# The baselines on the evaluation seeds, once.
if [ "$BASELINES" != none ] && [ ! -s "$out/baselines.json" ]; then
  first=${BASELINES%%,*} rest=${BASELINES#*,}
  [ "$rest" = "$BASELINES" ] && rest=none
  run "$out/baselines.txt" $G play --policy "$first" --baselines "$rest" --games "$EVAL_GAMES" --seed $EVAL_SEED \
    --threads "$THREADS" -q --json "$out/baselines.json.tmp"
  mv "$out/baselines.json.tmp" "$out/baselines.json"
fi

best_gen=-1 best_mean=0 best_ci=0 best_leaf=${LEAVES%% *} longest=0
[ -s "$out/best.txt" ] && read -r best_gen best_mean best_ci best_leaf <"$out/best.txt"
g=0
while [ "$g" -le "$GENS" ]; do
  d=$out/$(printf gen_%03d "$g")
  if [ -f "$d/done" ]; then
    s=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' "$d/row.txt")
    longest=$(awk -v a="$longest" -v b="${s:-0}" 'BEGIN { print (b > a ? b : a) }')
    g=$((g + 1)); continue
  fi
  spent=$(awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  if awk -v s="$spent" -v l="$longest" -v b="$BUDGET" 'BEGIN { exit !(b > 0 && s + l > b) }'; then
    echo "train_strong.sh: budget: ${spent} s spent + ${longest} s for the longest generation > $BUDGET s: stopping before generation $g" \
      | tee "$out/stopped.txt"
    break
  fi
  mkdir -p "$d"
  t0=$(now)
  # self-play (or the bootstrap's expectimax games)
  if [ "$g" = 0 ]; then
    if [ "$BOOT_GAMES" -gt 0 ]; then
      player="--policy expectimax1 --games $BOOT_GAMES --seed $BOOT_SEED"
    else
      player="--channels $CHANNELS --blocks $BLOCKS --games $GAMES --seed $SP_SEED $search $(leafw "$best_leaf")"
    fi
  else
    player="--net $out/best.st --games $GAMES --seed $((SP_SEED + 100000 * g)) $search $(leafw "$best_leaf")"
  fi
  # shellcheck disable=SC2086
  run "$d/selfplay.txt" $G selfplay $player --discount "$DISCOUNT" --parallel "$PARALLEL" --chunk "$CHUNK" --out "$d/data.st" --resume $common \
    --json "$d/selfplay.json"
  t1=$(now)
  data="" k=$((g - WINDOW + 1)); [ "$k" -lt 0 ] && k=0
  [ "$ANCHOR" = 1 ] && [ "$k" -gt 0 ] && data="$out/gen_000/data.st"
  while [ "$k" -le "$g" ]; do data="$data $out/$(printf gen_%03d "$k")/data.st"; k=$((k + 1)); done
  if [ "$g" = 0 ]; then src="--channels $CHANNELS --blocks $BLOCKS" ep=$BOOT_EPOCHS
  elif [ "$FROM" = best ]; then src="--net $out/best.st" ep=$EPOCHS
  else src="--net $out/$(printf gen_%03d $((g - 1)))/net.st" ep=$EPOCHS; fi
  lr=$(awk -v a="$LR" -v f="$LR_DECAY" -v g="$g" 'BEGIN { printf "%.6g", a * f ^ g }')
  # shellcheck disable=SC2086
  run "$d/train.txt" $G train --data $data $src --epochs "$ep" --batch "$BATCH" --lr "$lr" --value-scale "$VALUE_SCALE" \
    --seed $((g + 1)) --save "$d/net.st" $common --json "$d/train.json"
  t2=$(now)
  # shellcheck disable=SC2086
  # each leaf of LEAVES on the evaluation seeds; the best is this network's score and leaf
  leaf="" mean=-1
  for lw in $LEAVES; do
    ef=$d/eval_$(echo "$lw" | tr ':' '_')
    # shellcheck disable=SC2046
    run "$ef.txt" $G play --net "$d/net.st" $search $(leafw "$lw") --games "$EVAL_GAMES" --seed $EVAL_SEED \
      --parallel "$PARALLEL" --baselines none $common --json "$ef.json"
    if awk -v a="$(jnum "$ef.json" score_mean)" -v b="$mean" 'BEGIN { exit !(a > b) }'; then
      leaf=$lw mean=$(jnum "$ef.json" score_mean); cp "$ef.json" "$d/eval.json"; cp "$ef.txt" "$d/eval.txt"
    fi
  done
  t3=$(now)
  mean=$(jnum "$d/eval.json" score_mean) ci=$(jnum "$d/eval.json" score_ci95)
  # promotion: the difference's 95% interval (Welch, from the two intervals) above 0
  verdict=$(awk -v m="$mean" -v c="$ci" -v bm="$best_mean" -v bc="$best_ci" -v bg="$best_gen" 'BEGIN {
    if (bg < 0) { print "first 0 0"; exit }
    d = m - bm; h = sqrt(c * c + bc * bc)
    printf "%s %.1f %.1f\n", (d - h > 0 ? "promoted" : "kept"), d, h }')
  set -- $verdict
  if [ "$1" != kept ]; then
    cp "$d/net.st" "$out/best.st.tmp" && mv "$out/best.st.tmp" "$out/best.st"
    best_gen=$g best_mean=$mean best_ci=$ci best_leaf=$leaf
    echo "$best_gen $best_mean $best_ci $best_leaf" >"$out/best.txt"
  fi
  sp=$d/selfplay.json
  awk -v g="$g" -v v="$1" -v dd="$2" -v dh="$3" -v bg="$best_gen" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" \
    -v games="$(jnum "$sp" games_in_file)" -v pos="$(jnum "$sp" positions_in_file)" -v ev="$(jnum "$sp" evals)" \
    -v spt="$(jnum "$sp" seconds_total)" -v inf="$(jnum "$sp" seconds_inference)" -v sps="$(jnum "$sp" score_mean)" \
    -v lf="$leaf" -v m="$mean" -v c="$ci" -v mm="$(jnum "$d/eval.json" moves_mean)" -v mc="$(jnum "$d/eval.json" moves_ci95)" \
    -v vl="$(sed -n 's/.*"val_value_mse":[[:space:]]*\([-0-9.eE+na]*\),*$/\1/p' "$d/train.json" | tail -n 1)" 'BEGIN {
      printf "generation=%d games=%s positions=%s selfplay_score=%s evals=%s selfplay_positions_per_s=%s ", g, games, pos, sps, ev, (spt > 0 ? pos / spt : "nan")
      printf "eval_positions_per_s=%s score_mean=%s score_ci95=%s moves_mean=%s moves_ci95=%s val_value_mse=%s ", (inf > 0 ? ev / inf : "nan"), m, c, mm, mc, vl
      printf "leaf=%s verdict=%s diff_vs_best=%s diff_ci95=%s best=%d seconds_selfplay=%.1f seconds_train=%.1f seconds_eval=%.1f seconds=%.1f\n", lf, v, dd, dh, bg, t1 - t0, t2 - t1, t3 - t2, t3 - t0
    }' >"$d/row.txt"
  touch "$d/done"
  s=$(awk -v a="$t0" -v b="$t3" 'BEGIN { printf "%.1f", b - a }')
  longest=$(awk -v a="$longest" -v b="$s" 'BEGIN { print (b > a ? b : a) }')
  echo "generation $g: $mean +- $ci ($(jnum "$d/eval.json" moves_mean) moves, leaf $leaf), $1 (best: generation $best_gen), $s s"
  g=$((g + 1))
done

# curve.json (a gpuvet record: drop7_run, one entry per generation), curve.md, summary.md
{
  printf '{\n\t"schema":\t"gpuvet.run/1",\n\t"command":\t"train_strong",\n\t"run_dir":\t"%s",\n' "$out"
  # the record's header (gpuvet report's first line): the gpuvet that ran it, this
  # invocation's start (config.txt's first line) and end, the machine
  printf '\t"gpuvet_version":\t"%s",\n\t"started_at":\t"%s",\n\t"finished_at":\t"%s",\n\t"exit_code":\t0,\n' \
    "$($G --version 2>/dev/null | head -n 1 | sed 's/^gpuvet //; s/["\\]//g')" "$(sed -n '1s/^train_strong.sh \([^ ]*\).*/\1/p' "$out/config.txt")" \
    "$(date -u +%FT%TZ)"
  printf '\t"host":\t{"hostname": "%s"},\n' "$(hostname 2>/dev/null | sed 's/["\\]//g')"
  [ -s "$out/baselines.json" ] && awk '/^\t"play":/ { on = 1 } on { print } on && /^\t\t}\],?$/ { exit }' "$out/baselines.json" \
    | sed '$s/\],*$/],/'
  printf '\t"drop7_run":\t['
  sep=""
  for r in "$out"/gen_*/row.txt; do
    [ -f "$r" ] || continue
    printf '%s{' "$sep"
    tr ' ' '\n' <"$r" | awk -F= 'NF == 2 { v = $2; if (v !~ /^-?[0-9.eE+]+$/) v = "\"" v "\""; printf "%s\"%s\": %s", (n++ ? ", " : ""), $1, v }'
    printf '}'
    sep=", "
  done
  printf ']\n}\n'
} >"$out/curve.json"
$G report "$out/curve.json" -o "$out/curve.md" >/dev/null 2>&1 || echo "train_strong.sh: gpuvet report could not read $out/curve.json" >&2
{
  echo "# Drop7 training run $out"
  echo
  sed 's/^/    /' "$out/config.txt"
  echo
  [ -s "$out/baselines.txt" ] && { echo "Baselines on the evaluation seeds:"; echo; grep -E '^(policy|random|expectimax|greedy)' "$out/baselines.txt" | sed 's/^/    /'; echo; }
  echo "| gen | score (eval) | 95% CI | moves | +- | leaf | verdict | best | positions | self-play pos/s | selfplay s | train s | eval s |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for r in "$out"/gen_*/row.txt; do
    [ -f "$r" ] || continue
    tr ' ' '\n' <"$r" | awk -F= '{ v[$1] = $2 } END {
      printf "| %d | %.0f | %.0f | %.1f | %.1f | %s | %s | %d | %s | %.0f | %s | %s | %s |\n", v["generation"], v["score_mean"], v["score_ci95"],
        v["moves_mean"], v["moves_ci95"], v["leaf"], v["verdict"], v["best"], v["positions"], v["selfplay_positions_per_s"],
        v["seconds_selfplay"], v["seconds_train"], v["seconds_eval"] }'
  done
  echo
  [ -s "$out/best.txt" ] && read -r bg bm bc bl <"$out/best.txt" && echo "Best: generation $bg, $bm +- $bc on the $EVAL_GAMES evaluation seeds with the leaf $bl (value weight:heuristic weight; $out/best.st)."
  [ -f "$out/stopped.txt" ] && cat "$out/stopped.txt"
  echo "Wall time of this invocation: $(awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s."
} >"$out/summary.md"
cat "$out/summary.md"
