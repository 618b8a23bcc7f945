# test_drop7_strong.sh: the training recipe bench/drop7/train_strong.sh in a tiny run (an
# 8-channel network, a handful of games, the network's expectimax search of depth 0): every
# generation's files, the curve record (parsed by gpuvet report), summary.md, promotion lines,
# the budget stop and the resume after it; the value scale kept in the checkpoint; and
# --net default (a missing shipped network: exit 3, one line naming the path; one given by
# GV_MODELS: played; the shipped models/drop7-default.st found, played and loaded in PyTorch); selfplay --discount in the dataset and a resume with another one refused.
. "$GV_ROOT/tests/lib.sh"

run=$T_TMP/run
tiny() { # GENS [BUDGET]: the tiny run into $run
  GPUVET=$GPUVET DEVICES=cpu THREADS=1 GENS=$1 BUDGET=${2:-0} BOOT_GAMES=3 BOOT_EPOCHS=1 GAMES=2 PARALLEL=2 EVAL_GAMES=3 \
    CHANNELS=8 BLOCKS=0 EPOCHS=1 BATCH=64 SEARCH=expectimax0 EVAL_BATCH=64 BASELINES=random VALUE_SCALE=100000 LEAVES="1:0 0:1" \
    sh "$GV_ROOT/bench/drop7/train_strong.sh" "$run"
}
expect_exit "train_strong.sh: generations 0 and 1" 0 tiny 1
missing=""
for f in config.txt baselines.json best.st best.txt curve.json curve.md summary.md; do [ -s "$run/$f" ] || missing="$missing $f"; done
for g in 000 001; do
  for f in data.st net.st selfplay.json train.json eval.json row.txt done; do [ -e "$run/gen_$g/$f" ] || missing="$missing gen_$g/$f"; done
done
[ -z "$missing" ] && pass "train_strong.sh run directory" "config, baselines, best, curve, summary and 2 generations' files present" ||
  fail "train_strong.sh run directory" "missing:$missing"
expect_grep "train_strong.sh: generation 0 is the first best" '^generation 0: [0-9.]+ \+- [0-9.]+ \([0-9.]+ moves, leaf [0-9.]+:[0-9.]+\), first \(best: generation 0\)' "$T_TMP/out"
expect_grep "train_strong.sh: generation 1 promoted or kept" '^generation 1: [0-9.]+ \+- [0-9.]+ \([0-9.]+ moves, leaf [0-9.]+:[0-9.]+\), (promoted|kept) \(best: generation [01]\)' "$T_TMP/out"
# The budget: a generation that would pass it is not started; the rerun continues after the last one.
expect_exit "train_strong.sh: budget 0.01 s" 0 tiny 3 0.01
expect_grep "train_strong.sh: the budget stops before generation 2" 'budget: .* stopping before generation 2' "$T_TMP/out"
[ ! -e "$run/gen_002" ] && pass "train_strong.sh: nothing of generation 2 after the stop" "no gen_002/" || fail "train_strong.sh: budget" "gen_002/ exists"
expect_exit "train_strong.sh: resumed" 0 tiny 2
if grep -q '^generation 0:\|^generation 1:' "$T_TMP/out"; then fail "train_strong.sh: resume" "generations 0 or 1 played again"
else expect_grep "train_strong.sh: resume plays generation 2 only" '^generation 2: ' "$T_TMP/out"; fi
expect_exit "gpuvet report of the curve" 0 "$GPUVET" report "$run/curve.json" -o "$T_TMP/c.md"
rows=$(grep -c '^| [0-2] | ' "$T_TMP/c.md")
expect_grep "the report's verdict on the run" '^- training run: 3 generations \(0-2\), [0-9]+ promoted; the best, generation [0-2], scores [0-9]+ \+- [0-9]+ .*; random [0-9]+ \+- [0-9]+ \([0-9.]+x\)' "$T_TMP/c.md"
expect_grep "the report's header names the gpuvet and the start" '^gpuvet [0-9][^,]*, train_strong on [^?]*, started [0-9]{4}-' "$T_TMP/c.md"
expect_grep "the report's training-run section" '^## Drop7 training run: generations' "$T_TMP/c.md"
[ "$rows" = 3 ] && pass "the report shows every generation" "3 rows (generations 0, 1, 2) in the training-run table" ||
  fail "the report shows every generation" "$rows rows, expected 3"
summ=$(grep -c '^| [0-2] | [0-9]' "$run/summary.md")
[ "$summ" = 3 ] && pass "summary.md" "3 generation rows with scores" || fail "summary.md" "$summ generation rows, expected 3"
if command -v "${PYTHON:-python3}" >/dev/null 2>&1 && "${PYTHON:-python3}" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["drop7_run"]) == 3' "$run/curve.json" 2>"$T_TMP/pyerr"; then
  pass "curve.json parses" "json.load: 3 generations in drop7_run"
elif command -v "${PYTHON:-python3}" >/dev/null 2>&1; then fail "curve.json parses" "$(tail -n 1 "$T_TMP/pyerr")"
else skip "curve.json parses" "no python"; fi
expect_grep "the checkpoint keeps its value scale" '"value_scale":[[:space:]]*"100000"' "$run/best.st"
# ANCHOR: generation 0's games stay in the training data after they leave the window
# (WINDOW=1: generation 2 trains on generations 0 and 2 with ANCHOR=1, on 2 alone with 0)
for a in 1 0; do
  run=$T_TMP/anchor$a
  WINDOW=1 ANCHOR=$a expect_exit "train_strong.sh WINDOW=1 ANCHOR=$a: generations 0-2" 0 tiny 2
  want=$([ "$a" = 1 ] && echo "2 files" || echo "1 file")
  expect_grep "ANCHOR=$a: generation 2 trains on $want" "positions from $want " "$run/gen_002/train.txt"
done

# --net default
export GV_MODELS=$T_TMP/nomodels
expect_exit "play --net default without a shipped network" 3 "$GPUVET" play --net default --games 1
expect_grep "its line names the file and what to do" 'no shipped network drop7-default.st \(looked in .*nomodels/drop7-default.st.*train_strong.sh' "$T_TMP/err"
mkdir -p "$T_TMP/models" && cp "$run/best.st" "$T_TMP/models/drop7-default.st"
export GV_MODELS=$T_TMP/models
expect_exit "play --net default from GV_MODELS" 0 "$GPUVET" play --net default --search expectimax0 --games 2 --eval-batch 64 --baselines none
expect_exit "selfplay --net default" 0 "$GPUVET" selfplay --net default --search expectimax0 --games 1 --eval-batch 64 --out "$T_TMP/dd.st"

# the shipped network (models/drop7-default.st, models/README.md): found beside the source tree's
# binary without GV_MODELS, played with the player its checkpoint names (expectimax1, K 4, leaf
# 0.1:1; the depth is overridden to 0 here to keep the test short), and loaded by PyTorch's
# reference module with strict=True at the shape its metadata gives
unset GV_MODELS
shipped=$GV_ROOT/models/drop7-default.st
expect_exit "play --net default finds models/drop7-default.st" 0 "$GPUVET" play --net default --search expectimax0 --games 2 --baselines none
expect_grep "its player comes from the checkpoint (K 4, leaf 0.1:1)" '^net \(0 sims, expectimax0 K4, 0\.1v-1h, cpu\) +2 ' "$T_TMP/out"
if [ -n "${PYTHON:-}" ] && "$PYTHON" -c 'import torch' 2>/dev/null; then
  if "$PYTHON" - "$shipped" "$GV_ROOT/bench/torch" >"$T_TMP/py" 2>&1 <<'PY'
import sys, torch
sys.path.insert(0, sys.argv[2])
from drop7_reference import Drop7Net
from safetensors_io import load
tensors, meta = load(sys.argv[1])
c, b = int(meta['channels']), int(meta['blocks'])
net = Drop7Net(channels=c, blocks=b)
net.load_state_dict(tensors, strict=True)
n = sum(v.numel() for v in tensors.values())
p, v = net(torch.zeros(2, 12, 7, 7))
print('%d channels, %d blocks, %d tensors, %d parameters loaded strict=True; player %s K%s %s:%s; logits %s value %s'
      % (c, b, len(tensors), n, meta['player_search'], meta['player_samples'], meta['player_value_weight'],
         meta['player_heuristic_weight'], tuple(p.shape), tuple(v.shape)))
PY
  then pass "the shipped network loads in PyTorch" "$(cat "$T_TMP/py")"; else fail "the shipped network loads in PyTorch" "$(tail -n 3 "$T_TMP/py")"; fi
else
  skip "the shipped network loads in PyTorch" "no python with torch (\$PYTHON)"
fi

# selfplay --discount: written into the dataset, and a resume with another discount refused
expect_exit "selfplay --policy expectimax1 --discount 0.9" 0 "$GPUVET" selfplay --policy expectimax1 --mode hardcore --games 1 \
  --discount 0.9 --out "$T_TMP/disc.st" -q
expect_grep "the dataset says its discount" '"value_discount":[[:space:]]*"0.9' "$T_TMP/disc.st"
expect_exit "resume with another discount refused" 2 "$GPUVET" selfplay --policy expectimax1 --mode hardcore --games 2 \
  --out "$T_TMP/disc.st" --resume -q
expect_grep "the refusal names --discount" 'played with --discount 0.9, this run has 1' "$T_TMP/err"

# bench/drop7/acceptance.sh: the network with the player its checkpoint names, in chunks,
# resumable, against expectimax2 and random seed by seed (a tiny network's normal-mode games,
# 3 seeds in chunks of 2)
python3 "$GV_ROOT/bench/drop7/set_player.py" "$run/best.st" "$T_TMP/acc.st" --search expectimax0 --samples 1 \
  --value-weight 1 --heuristic-weight 0 >/dev/null
GPUVET=$GPUVET DEVICES=cpu THREADS=1 GAMES=3 CHUNK=2 EVAL_BATCH=64 \
  expect_exit "acceptance.sh: 3 seeds in chunks of 2" 0 sh "$GV_ROOT/bench/drop7/acceptance.sh" "$T_TMP/acc.st" "$T_TMP/acc"
expect_grep "acceptance.sh plays the checkpoint's player" '^chunk 1: net \(0 sims, expectimax0 K1, 1v-0h, cpu\) +1 ' "$T_TMP/out"
expect_grep "acceptance.sh: every seed" '^3 of 3 seeds played by the network$' "$T_TMP/acc/acceptance.txt"
expect_grep "acceptance.sh: the paired difference" '^network - expectimax2, seed by seed: [-+][0-9,]+ \+- [0-9,]+ \((better|worse|not distinguishable)' "$T_TMP/acc/acceptance.txt"
expect_grep "acceptance.sh: the ratio to random" '^network / random: [0-9.]+x' "$T_TMP/acc/acceptance.txt"
# resumed: nothing played again, the same figures
cp "$T_TMP/acc/acceptance.txt" "$T_TMP/acc1.txt"
GPUVET=$GPUVET DEVICES=cpu THREADS=1 GAMES=3 CHUNK=2 EVAL_BATCH=64 \
  expect_exit "acceptance.sh resumed" 0 sh "$GV_ROOT/bench/drop7/acceptance.sh" "$T_TMP/acc.st" "$T_TMP/acc"
if ! grep -q '^chunk' "$T_TMP/out" && diff -q "$T_TMP/acc1.txt" "$T_TMP/acc/acceptance.txt" >/dev/null; then
  pass "acceptance.sh resumed" "no chunk played again, the same figures"
else fail "acceptance.sh resumed" "a chunk played again or the figures changed"; fi
expect_exit "acceptance.sh: a missing network" 2 sh "$GV_ROOT/bench/drop7/acceptance.sh" "$T_TMP/none.st" "$T_TMP/acc2"
