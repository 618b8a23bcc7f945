#!/bin/sh
# call.sh: the device call for issue 43's last item (self-play's datasets the same whatever the
# padding) and the Game Boy pins on the device, one call on an H100 or H200, about 6 minutes.
# scripts/device-pack.sh packed .dist/ with BASE_BIN=<the sm_90 build of e04a365, before the
# self-play change> (.dist/base/gpuvet); results under /tmp/gv/r, packed into $OUT/a.tgz
# (bench/device_env.sh).
#   1. the emulators' device renderers against the pins (tests/run.sh golden: m3_test's new
#      pins among them) and the simulated pipeline (test_emu_devsim)
#   2. the GPU trainer and games: test_gpu_train (with the pinned-batch case: every batch size
#      1..P gives the full batch's rows bit for bit) and test_drop7_gpu
#   3. self-play of the issue's network (128 channels, 6 blocks, 256 side by side, 32
#      simulations, chunks of 256), 512 and 1024 games: the old binary against the new as it
#      runs (padding steps, pinned) and with GV_SELFPLAY_PAD=full, byte for byte
#   4. bench/drop7/selfplay_vs_infer.sh on cuda: the efficiency with the pin
set -u
. bench/device_env.sh
export GV_EXPECT_GPU=1 GV_ROMS=$root/.dist/roms GV_ROOT=$root
OLD=$root/.dist/base/gpuvet
st emulators
sh tests/run.sh golden >"$R/run_golden.txt" 2>&1; echo "tests/run.sh golden: $(tail -n 1 "$R/run_golden.txt")"; grep '^FAIL' "$R/run_golden.txt" | head -5
build/cuda/tests/test_emu_devsim >"$R/devsim.txt" 2>&1; echo "test_emu_devsim rc=$?: $(grep -c '^PASS' "$R/devsim.txt") PASS, $(grep -c '^FAIL' "$R/devsim.txt") FAIL"
grep '^FAIL' "$R/devsim.txt" | head -5
st tests
for t in test_gpu_train test_drop7_gpu; do
  build/cuda/tests/$t >"$R/$t.txt" 2>&1; echo "$t rc=$?: $(grep -c '^PASS' "$R/$t.txt") PASS, $(grep -c '^FAIL' "$R/$t.txt") FAIL, $(grep -c '^SKIP' "$R/$t.txt") SKIP"
  grep -E '^FAIL|pinned' "$R/$t.txt" | cut -c1-400
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
for g in 512 1024; do
  st "selfplay $g"
  sp old$g "$OLD" $g
  sp new$g "$B" $g
  same old$g new$g
  sp full$g "$B" $g GV_SELFPLAY_PAD=full
  same old$g full$g
  rm -f "$R"/*.st # (100-230 MB each: not packed)
done
st side-by-side
DEVICES=cuda sh bench/drop7/selfplay_vs_infer.sh "$R/svi" >"$R/svi.txt" 2>&1; echo "selfplay_vs_infer rc=$?"
cat "$R/svi/summary.md"
st end
