#!/bin/sh
# call.sh: the device call of issue 43 (self-play's evaluations at the inference path's speed),
# one call on an H100, about 4 minutes. scripts/device-pack.sh packed .dist/ with
# BASE_BIN=<the build of main before the change> (.dist/base/gpuvet); results under /tmp/gv/r,
# packed into $OUT/a.tgz (bench/device_env.sh).
#   1. the GPU trainer and games still pass: test_gpu_train, test_drop7_gpu (GV_EXPECT_GPU=1)
#   2. the same seeds, old binary against new, the issue's run (128 channels, 6 blocks, 256 games,
#      256 side by side, 32 simulations) and 512 games in chunks of 256 (the new binary refills
#      the slots across the chunks): datasets compared byte for byte
#        - new with GV_SELFPLAY_PAD=full (full batches, as the old binary): must be identical
#          (the search and the interleaving changed nothing);
#        - new as it runs (the padding steps: batches of 8..256 positions): identical when the
#          network's answer for a position does not depend on the batch size it came in
#      with the time lines and the evaluation lines of each run
#   3. bench/drop7/selfplay_vs_infer.sh on cuda: self-play beside bench infer, the efficiency
set -u
. bench/device_env.sh
export GV_EXPECT_GPU=1
OLD=$root/.dist/base/gpuvet
st tests
for t in test_gpu_train test_drop7_gpu; do
  build/cuda/tests/$t >"$R/$t.txt" 2>&1; echo "$t rc=$?: $(grep -c '^PASS' "$R/$t.txt") PASS, $(grep -c '^FAIL' "$R/$t.txt") FAIL, $(grep -c '^SKIP' "$R/$t.txt") SKIP"
  grep '^FAIL' "$R/$t.txt" | head -5
done
sp() { # name binary games [env...]: one self-play run of the issue's network
  n=$1 b=$2 g=$3; shift 3
  env "$@" "$b" selfplay --devices cuda --channels 128 --blocks 6 --games "$g" --parallel 256 --sims 32 --chunk 256 \
    --out "$R/$n.st" --force -q --json "$R/$n.json" >"$R/$n.txt" 2>&1
  echo "$n rc=$?: $(grep -E '^time' "$R/$n.txt" | cut -c1-160)"
  grep -E '^evaluation' "$R/$n.txt" | cut -c1-300
}
same() { # a b: byte for byte
  if cmp -s "$R/$1.st" "$R/$2.st"; then echo "  $1 == $2: identical ($(wc -c <"$R/$1.st") bytes)"
  else echo "  $1 != $2: DIFFER ($(cmp "$R/$1.st" "$R/$2.st" 2>&1 | head -n 1)); $(cmp -l "$R/$1.st" "$R/$2.st" 2>/dev/null | wc -l) bytes differ"; fi
}
for g in 256 512; do
  st "selfplay $g"
  sp old$g "$OLD" $g
  sp full$g "$B" $g GV_SELFPLAY_PAD=full
  sp new$g "$B" $g
  same old$g full$g
  same old$g new$g
  sp new${g}b "$B" $g
  same new$g new${g}b
  rm -f "$R"/*.st # (50-100 MB each: not packed)
done
st side-by-side
DEVICES=cuda sh bench/drop7/selfplay_vs_infer.sh "$R/svi" >"$R/svi.txt" 2>&1; echo "selfplay_vs_infer rc=$?"
cat "$R/svi/summary.md"
st end
