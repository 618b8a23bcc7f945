#!/bin/sh
# call.sh: the device call for issue 40's learning curve: bench/drop7/train_strong.sh on an
# H100 (or H200) for at least 10 generations within one call (TRAIN_BUDGET seconds, 520),
# with the value target of the discounted points at 0.99 per move (scale 20,000) instead of
# the first run's 0.95 (whose generations did not improve on generation 0), and three leaves
# tried at each evaluation (1:0, 0.3:1, 0.1:1); 128 self-play games a generation, 100
# evaluation seeds. scripts/device-pack.sh packed .dist/ (bench/device_env.sh: $B, $R, st).
# The run's records, curve (curve.md, curve.json, curve.html) and the best network come
# back in $OUT/a.tgz; the datasets stay on the machine.
set -u
. bench/device_env.sh
export GV_ROOT=$root
TRAIN_BUDGET=${TRAIN_BUDGET:-520} DEV=${DEV:-cuda} TH=${TH:-16}
export GAMES=${GAMES:-128} PARALLEL=${PARALLEL:-128} EVAL_BATCH=${EVAL_BATCH:-8192} EVAL_GAMES=${EVAL_GAMES:-100}
export CHANNELS=${CHANNELS:-64} BLOCKS=${BLOCKS:-2} SEARCH=expectimax1 SAMPLES=1 GENS=${GENS:-30}
export DISCOUNT=${DISCOUNT:-0.99} VALUE_SCALE=${VALUE_SCALE:-20000} LEAVES=${LEAVES:-1:0 0.3:1 0.1:1}
run=${WORK:-/tmp/gv}/run
st train
GPUVET=$B DEVICES=$DEV THREADS=$TH BUDGET=$TRAIN_BUDGET sh bench/drop7/train_strong.sh "$run" >"$R/train_strong.txt" 2>&1
echo "train_strong.sh rc=$?"
grep -E '^generation|budget' "$R/train_strong.txt"
mkdir -p "$R/run"
(cd "$run" && find . -type f ! -name '*.st' | while read -r f; do mkdir -p "$R/run/$(dirname "$f")"; cp "$f" "$R/run/$f"; done)
cp "$run/best.st" "$R/run/best.st" 2>/dev/null
"$B" report "$run/curve.json" -o "$R/run/curve.html" >/dev/null 2>&1
cat "$run/summary.md"
st end
