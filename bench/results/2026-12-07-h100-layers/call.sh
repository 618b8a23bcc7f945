#!/bin/sh
# device call after the layering work (docs/DESIGN.md) and the one device identity: what only
# a GPU can show. scripts/device-pack.sh packed .dist/ (BASE_BIN: the build of 7070210, the
# tree before it, as .dist/base/gpuvet); results under /tmp/gv/r, packed into $OUT/a.tgz.
#   sh call.sh check   the kernel self-test with the new references (and its break switch),
#                      the GPU trainer, the Drop7 GPU games, the emulators' device renderers
#                      (golden hashes, --devices), check against float64, the inference-only trainer
#   sh call.sh perf    the A/B of this tree against 7070210 (bench/ab/h200_ab.sh: one-core
#                      emulation FPS, GPU training samples/s, alternating), gpuvet all's
#                      throttle lines, bench cpu_instrs.gb at 1/64/1024 instances, self-play
#                      on the GPU beside bench infer at the same batch
set -u
mode=${1:-check}
. bench/device_env.sh
export GV_EXPECT_GPU=1 GV_ROMS=$root/.dist/roms
if [ "$mode" = check ]; then
  st kernels
  build/cuda/tests/test_gpu_kernels >"$R/kernels.txt" 2>&1; echo "test_gpu_kernels rc=$?"
  echo "kernels: $(grep -c '^PASS' "$R/kernels.txt") PASS, $(grep -c '^FAIL' "$R/kernels.txt") FAIL; new references: $(grep -cE '^PASS gpu (BatchNorm|loss|AdamW|policy head|value head|heads)' "$R/kernels.txt") PASS"
  grep '^FAIL' "$R/kernels.txt" | head -20
  GV_SELFTEST_BREAK=1 build/cuda/tests/test_gpu_kernels >"$R/kernels_break.txt" 2>&1; echo "break switch rc=$? (want 1)"
  echo "broken: $(grep -cE '^FAIL gpu (BatchNorm|loss|AdamW|policy head|value head|heads)' "$R/kernels_break.txt") FAIL (want 117), fault hook $(grep -c '^PASS gpu .*fault hook' "$R/kernels_break.txt") PASS (want 2)"
  st programs
  for t in test_gpu_refs test_gpu_train test_drop7_gpu test_emu_devsim test_dev test_harness; do
    build/cuda/tests/$t >"$R/$t.txt" 2>&1; echo "$t rc=$?: $(grep -c '^PASS' "$R/$t.txt") PASS, $(grep -c '^FAIL' "$R/$t.txt") FAIL, $(grep -c '^SKIP' "$R/$t.txt") SKIP"
    grep '^FAIL' "$R/$t.txt" | head -5
  done
  st shell
  for t in golden devices; do
    sh tests/run.sh $t >"$R/run_$t.txt" 2>&1; echo "tests/run.sh $t: $(tail -n 1 "$R/run_$t.txt")"; grep '^FAIL' "$R/run_$t.txt" | head -5
  done
  st check
  sh tests/nn/gpu_check.sh "$R/nncheck" >"$R/nncheck.txt" 2>&1; echo "gpu_check.sh rc=$?: $(grep -c '^PASS' "$R/nncheck.txt") PASS, $(grep -c '^FAIL' "$R/nncheck.txt") FAIL"
  grep '^FAIL' "$R/nncheck.txt" | head -5
  $B check --devices cpu,cuda --dtype fp32,bf16 --norm group,batch --channels 128 >"$R/check128.txt" 2>&1; echo "check 128 rc=$?: $(tail -n 1 "$R/check128.txt")"
  st end
else
  st ab
  CASES="nes_ppu_scene gb_ppu_scene train_128_8192_bf16 train_128_1024_fp32 train_64_1024_bf16" ROUNDS=3 \
    sh bench/ab/h200_ab.sh "$R/ab" .dist/base/gpuvet "$B" .dist/roms/nes .dist/roms/gb >"$R/ab.txt" 2>&1
  cat "$R/ab/ab.md"
  st all
  $B all --out "$R/all" >"$R/all.txt" 2>&1; echo "all rc=$?: $(grep -c 'throttled' "$R/all.txt") throttle lines"; grep -E 'warning|verdict' "$R/all.txt" | cut -c1-220
  st cpu_instrs
  $B bench .dist/roms/gb/cpu_instrs.gb --instances 1,64,1024 --json "$R/cpu_instrs.json" >"$R/cpu_instrs.txt" 2>&1; tail -n 12 "$R/cpu_instrs.txt" | cut -c1-220
  st selfplay
  $B selfplay --devices cuda --channels 128 --blocks 6 --games 256 --parallel 256 --sims 32 --out "$R/sp.st" --force -q --json "$R/sp.json" >"$R/sp.txt" 2>&1; grep -E '^(time|selfplay|verdict)' "$R/sp.txt" | cut -c1-220
  $B bench infer --devices cuda --channels 128 --blocks 6 --batches 64,256 --json "$R/infer.json" >"$R/infer.txt" 2>&1; grep -E '^cuda' "$R/infer.txt"
  st end
fi
