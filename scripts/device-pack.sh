#!/bin/sh
# Builds gpuvet for an NVIDIA H100/H200 (sm_90) and packs what a bare machine needs to run
# its checks and benchmarks into .dist/ (git-ignored): build/cuda (the binary, the test
# programs), .dist/roms/{nes,gb} (our test ROMs), the shared libraries the target image may lack
# (cJSON, xxHash) and the reference vectors; .dist/roms/snes the SNES ROMs. On the GPU machine:
#   ln -sfn ../.dist/build/cuda build/cuda; export LD_LIBRARY_PATH=$PWD/.dist/lib
#   GV_REF_DIR=$PWD/.dist/ref sh tests/nn/gpu_check.sh OUT; sh bench/nes/run_h200.sh OUT ...
# or all of it at once: sh bench/ab/h200_run.sh OUT. BASE_BIN=path/to/gpuvet also packs an
# older build as .dist/base/gpuvet for the A/B (bench/ab/h200_ab.sh).
set -eu
cd "$(dirname "$0")/.."
arch=${CUDA_ARCH:-90}
b=build/cuda-sm"$arch"
make -j"$(nproc)" GPU=cuda CUDA_ARCH="$arch" BUILD="$b" build tests >/dev/null
rm -rf .dist
mkdir -p .dist/build/cuda/tests .dist/lib .dist/ref .dist/roms/gb .dist/roms/nes .dist/roms/snes
cp "$b"/gpuvet .dist/build/cuda/
# the test programs that the GPU scripts run (tests/sys/gpu_check.sh, the kernel self-tests)
for t in test_gpu_kernels test_gpu_refs test_gpu_train test_drop7_gpu test_emu_devsim test_dev test_harness test_probe_schema test_telemetry test_sysfs test_blas_race test_report; do
  cp "$b/tests/$t" .dist/build/cuda/tests/
done
strip .dist/build/cuda/gpuvet .dist/build/cuda/tests/*
tmp=$(mktemp -d)
sh tests/nes/build_roms.sh "$tmp/nes" >/dev/null
sh tests/roms/gb/build.sh "$tmp/gb" >/dev/null 2>&1
sh tests/roms/snes/build.sh "$tmp/snes" >/dev/null 2>&1
mkdir -p .dist/build/cuda/roms/nes
cp "$tmp"/nes/*.nes .dist/roms/nes/
cp "$tmp"/nes/*.nes .dist/build/cuda/roms/nes/ # where bench/nes/run_h200.sh looks
cp "$tmp"/gb/*.gb .dist/roms/gb/
cp "$tmp"/snes/*.sfc "$tmp"/snes/*.msu "$tmp"/snes/*.pcm .dist/roms/snes/ # the MSU-1 media beside their ROM
rm -rf "$tmp"
for l in libcjson.so.1 libxxhash.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$l" .dist/lib/
done
# the PyTorch reference vectors: from $GV_REF_DIR when set, else written by
# bench/torch/make_reference.py (needs a python3 with torch here)
. tests/cli/nn_ref.sh
for f in drop7_c32_group_n8.safetensors drop7_c32_batch_n8.safetensors; do
  if p=$(GV_ROOT=$PWD GV_BUILD=$PWD/$b PYTHON=$(scripts/find-python || true) nn_ref_file "$f"); then cp "$p" .dist/ref/
  else echo "device-pack: .dist/ref/$f left out: $p" >&2; fi
done
if [ -n "${BASE_BIN:-}" ]; then mkdir -p .dist/base && cp "$BASE_BIN" .dist/base/gpuvet && strip .dist/base/gpuvet; fi
du -sh .dist
