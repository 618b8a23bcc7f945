# The Drop7 game commands end to end on small sizes: bench drop7 (table, record keys, bad
# flags; the GPU's records against the CPU's where a GPU is present).
. "$GV_ROOT/tests/lib.sh"

expect_exit "bench drop7 (small)" 0 "$GPUVET" bench drop7 --devices cpu --batches 1,8 --repeats 2 --min-time 0.01 --json "$T_TMP/b.json"
expect_grep "bench drop7 table row (random)" '^cpu +random +8 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +- +-$' "$T_TMP/out"
expect_grep "bench drop7 table row (greedy)" '^cpu +greedy +1 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +- +-$' "$T_TMP/out"
tr -d ' \t\n' < "$T_TMP/b.json" > "$T_TMP/b1"
missing=""
for k in device player mode batch threads calls moves games_per_s_best games_per_s_median moves_per_s_median records_match_cpu load_before bench_drop7_crossover; do
  grep -q "\"$k\":" "$T_TMP/b1" || missing="$missing $k"
done
[ -z "$missing" ] && pass "bench drop7 record keys" "every key present" || fail "bench drop7 record keys" "missing:$missing"
rows=$(grep -o '"games_per_s_median":' "$T_TMP/b1" | wc -l)
[ "$rows" = 4 ] && pass "bench drop7 entries" "4 configurations (2 players x 2 batches)" || fail "bench drop7 entries" "$rows entries, expected 4"
expect_exit "bench drop7 bad player" 2 "$GPUVET" bench drop7 --devices cpu --players smart
expect_exit "bench drop7 bad batch" 2 "$GPUVET" bench drop7 --devices cpu --batches 0
expect_exit "bench drop7 bad mode" 2 "$GPUVET" bench drop7 --devices cpu --mode easy

# The GPU: its records against the CPU's for the same seeds (exit 3: no usable GPU here).
"$GPUVET" bench drop7 --devices cpu,cuda --batches 1,256 --repeats 1 --min-time 0.01 >"$T_TMP/g" 2>"$T_TMP/gerr"
rc=$?
if [ "$rc" = 3 ]; then
  skip_gpu "bench drop7 on the GPU" "$(head -n 1 "$T_TMP/gerr")"
else
  n=$(grep -c '= cpu$' "$T_TMP/g")
  [ "$rc" = 0 ] && [ "$n" = 4 ] && pass "bench drop7 on the GPU, records = CPU" "4 GPU configurations (2 players x batches 1, 256), every record equal to the CPU's" ||
    fail "bench drop7 on the GPU, records = CPU" "exit $rc, $n of 4 GPU rows say = cpu: $(head -n 1 "$T_TMP/gerr")"
fi

# ---- selfplay -> train -> play on a tiny network ----------------------------------------
expect_exit "selfplay (small)" 0 "$GPUVET" selfplay --channels 8 --blocks 1 --games 6 --sims 4 --parallel 3 --out "$T_TMP/d.st" --json "$T_TMP/s.json"
expect_grep "selfplay says where the time went" '^time: [0-9.]+ s: search [0-9.]+ s \([0-9]+%\), inference [0-9.]+ s \([0-9]+%, [0-9]+ positions' "$T_TMP/out"
expect_grep "selfplay writes every chunk" '^6 of 6 games written to .* \([0-9]+ positions\)' "$T_TMP/out"
expect_grep "selfplay's evaluation against its own bench" '^evaluation: [0-9]+ calls of [0-9.]+ positions on average \([0-9]+ batch sizes?, [0-9]+% .*\); [0-9]+ positions/s = [0-9]+% of the network.s own [0-9]+/s at batch 3 \([0-9.]+ ms a call' "$T_TMP/out"
cp "$T_TMP/d.st" "$T_TMP/d_all.st"
# resume: the first 3 games again, then the rest on top: the same file as in one go
expect_exit "selfplay first chunk" 0 "$GPUVET" selfplay --channels 8 --blocks 1 --games 3 --sims 4 --parallel 3 --out "$T_TMP/r.st" -q
expect_exit "selfplay --resume" 0 "$GPUVET" selfplay --channels 8 --blocks 1 --games 6 --sims 4 --parallel 3 --out "$T_TMP/r.st" --resume
if cmp -s "$T_TMP/r.st" "$T_TMP/d_all.st"; then pass "selfplay --resume" "3 + 3 games resumed == 6 games in one run, byte for byte"
else fail "selfplay --resume" "the resumed dataset differs from the one-run dataset"; fi
# the slots refilled across chunks (games 4.. start while 0..3 still play): 12 games in chunks of
# 4 with 3 side by side, against the three chunks played one run each (--resume), byte for byte;
# and the chunk no longer changes the calls: --chunk 12 makes exactly as many
sp12="selfplay --channels 8 --blocks 1 --sims 4 --parallel 3 -q"
expect_exit "selfplay 12 games in chunks of 4" 0 "$GPUVET" $sp12 --games 12 --chunk 4 --out "$T_TMP/c4.st" --json "$T_TMP/c4.json"
expect_exit "selfplay 12 games in one chunk" 0 "$GPUVET" $sp12 --games 12 --chunk 12 --out "$T_TMP/c12.st" --json "$T_TMP/c12.json"
calls=0
for g in 4 8 12; do
  expect_exit "selfplay chunk to $g alone" 0 "$GPUVET" $sp12 --games $g --chunk 4 --out "$T_TMP/cr.st" --resume --json "$T_TMP/cr.json"
  calls=$((calls + $(tr -d ' \t\n' <"$T_TMP/cr.json" | grep -o '"eval_calls":[0-9]*' | cut -d: -f2)))
done
if cmp -s "$T_TMP/c4.st" "$T_TMP/cr.st"; then pass "selfplay chunks refilled" "12 games in chunks of 4 in one run == the 3 chunks in 3 runs, byte for byte"
else fail "selfplay chunks refilled" "the one-run dataset differs from the chunk-by-chunk one"; fi
c4=$(tr -d ' \t\n' <"$T_TMP/c4.json" | grep -o '"eval_calls":[0-9]*' | cut -d: -f2)
c12=$(tr -d ' \t\n' <"$T_TMP/c12.json" | grep -o '"eval_calls":[0-9]*' | cut -d: -f2)
if [ -n "$c4" ] && [ "$c4" = "$c12" ] && [ "$c4" -lt "$calls" ]; then
  pass "selfplay chunks do not drain the batch" "evaluation calls: $c4 with --chunk 4, $c12 with --chunk 12, $calls for the 3 chunks run apart"
else fail "selfplay chunks do not drain the batch" "evaluation calls: '$c4' with --chunk 4, '$c12' with --chunk 12, $calls apart"; fi
expect_exit "selfplay --resume from another seed" 2 "$GPUVET" selfplay --channels 8 --blocks 1 --games 9 --sims 4 --parallel 3 --out "$T_TMP/r.st" --resume --seed 7

expect_exit "train --data (small)" 0 "$GPUVET" train --data "$T_TMP/d.st" "$T_TMP/r.st" --channels 8 --blocks 1 --epochs 2 --batch 32 --save "$T_TMP/n.st" --json "$T_TMP/t.json"
expect_grep "train prints each epoch" '^epoch 2: train loss [0-9.]+, validation: policy cross-entropy [0-9.]+, value MSE [0-9.]+' "$T_TMP/out"
n=$(tr -d ' \t\n' < "$T_TMP/t.json" | grep -o '"val_loss":[0-9.e+-]*' | wc -l)
[ "$n" = 2 ] && pass "train record" "2 epochs with finite validation losses" || fail "train record" "$n finite val_loss entries, expected 2"
expect_exit "train continues from its checkpoint" 0 "$GPUVET" train --data "$T_TMP/d.st" --net "$T_TMP/n.st" --epochs 1 --batch 32 --lr 3e-4
expect_exit "play --net (small)" 0 "$GPUVET" play --net "$T_TMP/n.st" --games 4 --sims 2 --parallel 2 --json "$T_TMP/p.json"
expect_grep "play compares with greedy" '^verdict: net \(2 sims, cpu\) scores [0-9]+ \+- [0-9]+ on average, greedy [0-9]+ \+- [0-9]+: ' "$T_TMP/out"
expect_exit "play a baseline alone" 0 "$GPUVET" play --policy greedy --games 20 --baselines random
expect_grep "play table row" '^greedy +20 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' "$T_TMP/out"
# the same seeds every time: greedy scores below random, which the verdict calls expected
expect_grep "play: greedy below random is expected" '^verdict: greedy scores [0-9]+ \+- [0-9]+ on average, random [0-9]+ \+- [0-9]+: worse .*; as expected of a one-move lookahead in normal-mode Drop7' "$T_TMP/out"
expect_exit "play needs one policy" 2 "$GPUVET" play --policy greedy --channels 8
# the expectimax baselines (hardcore: short games)
expect_exit "play --policy expectimax1" 0 "$GPUVET" play --policy expectimax1 --mode hardcore --games 4 --baselines greedy,expectimax2 --json "$T_TMP/e.json"
expect_grep "play: expectimax1 row" '^expectimax1 +4 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' "$T_TMP/out"
expect_grep "play: expectimax2 as a baseline" '^verdict: expectimax1 scores [0-9]+ \+- [0-9]+ on average, expectimax2 [0-9]+ \+- [0-9]+: ' "$T_TMP/out"
n=$(tr -d ' \t\n' < "$T_TMP/e.json" | grep -o '"policy":"expectimax[12]","sims":0,"games":4' | wc -l)
[ "$n" = 2 ] && pass "play record: expectimax entries" "expectimax1 and expectimax2, 4 games each" || fail "play record: expectimax entries" "$n of 2 entries"
s1=$(tr -d ' \t\n' < "$T_TMP/e.json" | grep -o '"policy":"expectimax1","sims":0,"games":4,"score_mean":[0-9.]*')
expect_exit "play --policy expectimax1 --threads 1" 0 "$GPUVET" play --policy expectimax1 --mode hardcore --games 4 --baselines none --threads 1 --parallel 3 --json "$T_TMP/e1.json"
s2=$(tr -d ' \t\n' < "$T_TMP/e1.json" | grep -o '"policy":"expectimax1","sims":0,"games":4,"score_mean":[0-9.]*')
[ -n "$s1" ] && [ "$s1" = "$s2" ] && pass "play: expectimax games are their seeds" "2 threads x 64 side by side and 1 thread x 3: $s1" ||
  fail "play: expectimax games are their seeds" "'$s1' against '$s2'"
expect_exit "play: default baselines" 0 "$GPUVET" play --policy random --mode hardcore --games 3
expect_grep "play: expectimax1 is a default baseline" '^expectimax1 +3 +[0-9]+' "$T_TMP/out"
expect_exit "play: unknown policy" 2 "$GPUVET" play --policy expectimax3 --games 1
expect_exit "play: unknown baseline" 2 "$GPUVET" play --policy random --games 1 --baselines greedy,expectimax
# the player a checkpoint names (bench/drop7/set_player.py): taken for the flags not given
expect_exit "set_player.py" 0 python3 "$GV_ROOT/bench/drop7/set_player.py" "$T_TMP/n.st" "$T_TMP/np.st" --search expectimax1 \
  --samples 2 --value-weight 0.5 --heuristic-weight 1
expect_exit "play: the checkpoint's player" 0 "$GPUVET" play --net "$T_TMP/np.st" --games 2 --parallel 2 --baselines none --mode hardcore
expect_grep "play: the checkpoint's player" '^net \(0 sims, expectimax1 K2, 0.5v-1h, cpu\) +2 ' "$T_TMP/out"
expect_exit "play: flags over the checkpoint's player" 0 "$GPUVET" play --net "$T_TMP/np.st" --games 2 --parallel 2 --baselines none --mode hardcore --samples 1 --value-weight 1
expect_grep "play: flags over the checkpoint's player" '^net \(0 sims, expectimax1 K1, 1v-1h, cpu\) +2 ' "$T_TMP/out"
expect_exit "play: a checkpoint without a player plays puct" 0 "$GPUVET" play --net "$T_TMP/n.st" --games 2 --parallel 2 --baselines none --mode hardcore
expect_grep "play: a checkpoint without a player plays puct" '^net \(0 sims, cpu\) +2 ' "$T_TMP/out"
python3 - "$T_TMP/np.st" "$T_TMP/nbad.st" <<'PY'
import sys, json, struct
raw = open(sys.argv[1], 'rb').read(); n = struct.unpack('<Q', raw[:8])[0]; h = json.loads(raw[8:8 + n])
h['__metadata__']['player_samples'] = '99'
hb = json.dumps(h).encode(); hb += b' ' * (-len(hb) % 8)
open(sys.argv[2], 'wb').write(struct.pack('<Q', len(hb)) + hb + raw[8 + n:])
PY
expect_exit "play: a checkpoint with a bad player" 2 "$GPUVET" play --net "$T_TMP/nbad.st" --games 1 --baselines none
expect_grep "play: a bad player names the key" 'nbad.st: __metadata__ player_samples is "99", not a count of reveal samples' "$T_TMP/err"

if [ -n "${PYTHON:-}" ] && "$PYTHON" -c 'import torch' 2>/dev/null; then
  if "$PYTHON" - "$T_TMP/n.st" "$GV_ROOT/bench/torch" >"$T_TMP/py" 2>&1 <<'PY'
import sys, json, struct, torch
sys.path.insert(0, sys.argv[2])
from drop7_reference import Drop7Net
raw = open(sys.argv[1], 'rb').read()
h = struct.unpack('<Q', raw[:8])[0]
hdr = json.loads(raw[8:8 + h])
meta = hdr.pop('__metadata__', {})
sd = {}
for k, v in hdr.items():
    assert v['dtype'] in ('F32', 'I64'), v['dtype']
    a, b = v['data_offsets']
    t = torch.frombuffer(bytearray(raw[8 + h + a:8 + h + b]), dtype=torch.float32 if v['dtype'] == 'F32' else torch.int64)
    sd[k] = t.reshape(v['shape'])
net = Drop7Net(channels=8, blocks=1)
net.load_state_dict(sd, strict=True)
p, v = net(torch.zeros(2, 12, 7, 7))
print('loaded %d tensors strict=True, logits %s value %s' % (len(sd), tuple(p.shape), tuple(v.shape)))
PY
  then pass "train checkpoint loads in PyTorch" "$(cat "$T_TMP/py")"; else fail "train checkpoint loads in PyTorch" "$(tail -n 3 "$T_TMP/py")"; fi
else
  skip "train checkpoint loads in PyTorch" "no python with torch (\$PYTHON)"
fi

# ---- bad input: one line, exit 2 ---------------------------------------------------------
head -c 300 "$T_TMP/d.st" > "$T_TMP/cut.st"
expect_exit "train: a truncated dataset" 2 "$GPUVET" train --data "$T_TMP/cut.st" --channels 8
expect_exit "train: a checkpoint given as dataset" 2 "$GPUVET" train --data "$T_TMP/n.st" --channels 8
expect_exit "train: a missing dataset" 2 "$GPUVET" train --data "$T_TMP/none.st" --channels 8
expect_exit "train: a dataset given as checkpoint" 2 "$GPUVET" train --data "$T_TMP/d.st" --net "$T_TMP/d.st"
expect_exit "play: a dataset given as network" 2 "$GPUVET" play --net "$T_TMP/d.st" --games 1
# hand-made safetensors files: wrong planes, a bad distribution, a checkpoint of the wrong shape
mk() { # out, then python tensors: name=dtype:shape:fill ...; metadata is the dataset's
  python3 - "$@" <<'PY'
import sys, json, struct
out = sys.argv[1]; meta = json.loads(sys.argv[2]); hdr = {'__metadata__': meta}; data = b''
for spec in sys.argv[3:]:
    name, rest = spec.split('=', 1); shape, fill = rest.split(':')
    shape = [int(x) for x in shape.split(',')]; n = 1
    for d in shape: n *= d
    vals = [float(x) for x in fill.split(',')]
    buf = struct.pack('<%df' % n, *[vals[i % len(vals)] for i in range(n)])
    hdr[name] = {'dtype': 'F32', 'shape': shape, 'data_offsets': [len(data), len(data) + len(buf)]}; data += buf
h = json.dumps(hdr).encode(); h += b' ' * (-len(h) % 8)
open(out, 'wb').write(struct.pack('<Q', len(h)) + h + data)
PY
}
M='{"format":"gpuvet.drop7.selfplay","version":"1","value_scale":"10000","games":"1"}'
empty=$(python3 -c "print(','.join(['1'] * 49 + ['0'] * 539))") # every cell empty
mk "$T_TMP/w11.st" "$M" planes=2,11,7,7:0 policy=2,7:1,0,0,0,0,0,0 value=2:0.5
expect_exit "train: a dataset of 11 planes" 2 "$GPUVET" train --data "$T_TMP/w11.st" --channels 8
expect_grep "train: the planes error names the shape" "tensor 'planes' has shape \(2, 11, 7, 7\)" "$T_TMP/err"
mk "$T_TMP/wpol.st" "$M" planes=1,12,7,7:0 policy=1,7:0.5 value=1:0.5
expect_exit "train: planes that are not one-hot" 2 "$GPUVET" train --data "$T_TMP/wpol.st" --channels 8
mk "$T_TMP/wsum.st" "$M" planes=1,12,7,7:$empty policy=1,7:0.5 value=1:0.5
expect_exit "train: a policy that does not sum to 1" 2 "$GPUVET" train --data "$T_TMP/wsum.st" --channels 8
mk "$T_TMP/wval.st" "$M" planes=1,12,7,7:$empty policy=1,7:1,0,0,0,0,0,0 value=1:inf
expect_exit "train: a value that is not finite" 2 "$GPUVET" train --data "$T_TMP/wval.st" --channels 8
mk "$T_TMP/wmeta.st" '{"format":"other"}' planes=1,12,7,7:0 policy=1,7:0.5 value=1:0.5
expect_exit "train: a safetensors file of another format" 2 "$GPUVET" train --data "$T_TMP/wmeta.st" --channels 8
mk "$T_TMP/wck.st" '{}' stem.weight=16,12,3,3:0.1 sn.weight=8:1 sn.bias=8:0
expect_exit "train: a checkpoint of the wrong shape" 2 "$GPUVET" train --data "$T_TMP/d.st" --net "$T_TMP/wck.st"
expect_exit "play: a checkpoint of the wrong shape" 2 "$GPUVET" play --net "$T_TMP/wck.st" --games 1

# ---- help and bad flags of every Drop7 command -------------------------------------------
for c in "bench drop7" play selfplay train; do
  # shellcheck disable=SC2086
  "$GPUVET" $c --help >"$T_TMP/h" 2>&1; rc=$?
  if [ $rc = 0 ] && grep -q '^usage: gpuvet' "$T_TMP/h"; then pass "help of '$c'" "$(head -n 1 "$T_TMP/h")"
  else fail "help of '$c'" "exit $rc: $(head -n 1 "$T_TMP/h")"; fi
  # shellcheck disable=SC2086
  expect_exit "'$c' with an unknown flag" 2 "$GPUVET" $c --frobnicate
done
expect_exit "train without --data" 2 "$GPUVET" train --channels 8
expect_exit "selfplay without --out" 2 "$GPUVET" selfplay --channels 8
expect_exit "selfplay --sims out of range" 2 "$GPUVET" selfplay --channels 8 --out "$T_TMP/x.st" --sims -1
