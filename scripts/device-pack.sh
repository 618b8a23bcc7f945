#!/bin/sh
# Builds gpuvet for an NVIDIA H100/H200 (sm_90) and packs what a bare machine needs to run
# it into .dist/ (git-ignored): the binary, the test programs, the shared libraries the
# target image may lack (cJSON, xxHash), the reference vectors and the PyTorch benchmark.
# Used to run the GPU checks and benchmarks on a machine that cannot build or install.
set -eu
cd "$(dirname "$0")/.."
arch=${CUDA_ARCH:-90}
make -j"$(nproc)" GPU=cuda CUDA_ARCH="$arch" BUILD=build/cuda-sm"$arch" build tests >/dev/null
rm -rf .dist
mkdir -p .dist/bin .dist/lib .dist/ref .dist/torch
cp build/cuda-sm"$arch"/gpuvet .dist/bin/
cp build/cuda-sm"$arch"/tests/test_* .dist/bin/
for l in libcjson.so.1 libxxhash.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$l" .dist/lib/
done
if [ -d ../shared/ref ]; then cp ../shared/ref/*.safetensors ../shared/ref/*.py .dist/ref/; fi
if [ -d ../shared/bench ]; then cp ../shared/bench/*.py .dist/torch/; fi
[ -d bench/torch ] && cp bench/torch/*.py .dist/torch/ 2>/dev/null || true
du -sh .dist
