#!/bin/sh
# call.sh: self-play with the pinned trainer and one convolution split for every padded size
# (issue 43), one call on an H100, about 5 minutes. scripts/device-pack.sh packed .dist/ with
# BASE_BIN=<the sm_90 build of e04a365, before the self-play change> (.dist/base/gpuvet);
# results under /tmp/gv/r, packed into $OUT/a.tgz (bench/device_env.sh).
#   1. test_gpu_train (the pinned-batch case: every size 1..P gives the full batch's rows bit
#      for bit) and test_drop7_gpu
#   2. the issue's run (128 channels, 6 blocks, 256 games, 256 side by side, 32 simulations):
#      the default (pinned, the split of a quarter batch), GV_PIN_SPLITS=2, 4, 8 (one split
#      fixed for every size), and GV_SELFPLAY_PIN=0 (each size its own choice, as before the pin)
#   3. 512 games in chunks of 256: the default against GV_SELFPLAY_PAD=full (pinned too) byte
#      for byte (the padding changes nothing), and the old binary against the new one unpinned
#      with full batches (the search's arithmetic unchanged)
#   4. bench/drop7/selfplay_vs_infer.sh on cuda
set -u
. bench/device_env.sh
export GV_EXPECT_GPU=1 GV_ROOT=$root
OLD=$root/.dist/base/gpuvet
st tests
for t in test_gpu_train test_drop7_gpu; do
  build/cuda/tests/$t >"$R/$t.txt" 2>&1; echo "$t rc=$?: $(grep -c '^PASS' "$R/$t.txt") PASS, $(grep -c '^FAIL' "$R/$t.txt") FAIL, $(grep -c '^SKIP' "$R/$t.txt") SKIP"
  grep -E '^FAIL|^PASS.*pinned to' "$R/$t.txt" | cut -c1-300
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
st "splits 256"
sp pin256 "$B" 256
for k in 2 4 8; do sp k${k}_256 "$B" 256 GV_PIN_SPLITS=$k; done
sp nopin256 "$B" 256 GV_SELFPLAY_PIN=0
rm -f "$R"/*.st
st "identity 512"
sp old512 "$OLD" 512
sp new512 "$B" 512
sp full512 "$B" 512 GV_SELFPLAY_PAD=full
same new512 full512
sp fullnopin512 "$B" 512 GV_SELFPLAY_PAD=full GV_SELFPLAY_PIN=0
same old512 fullnopin512
same old512 new512
rm -f "$R"/*.st
st side-by-side
DEVICES=cuda sh bench/drop7/selfplay_vs_infer.sh "$R/svi" >"$R/svi.txt" 2>&1; echo "selfplay_vs_infer rc=$?"
cat "$R/svi/summary.md"
st end
