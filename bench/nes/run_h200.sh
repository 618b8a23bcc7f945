#!/bin/sh
# run_h200.sh RESULTS_DIR [ROM_DIR]: the NES device checks and instance sweep, for a GPU
# machine. Builds nothing: it uses a prebuilt CUDA binary ($GPUVET, default
# build/cuda/gpuvet) and our prebuilt test ROMs (ROM_DIR, default the binary's
# build folder's roms/nes). Prepare them on a build machine with
#   make GPU=cuda CUDA_ARCH=90 && sh tests/nes/build_roms.sh build/cuda/roms/nes
# and carry build/cuda (binary and ROMs) and this script along.
#
# It writes into RESULTS_DIR: machine.txt (GPU, CPU, binary), checks.txt (one PASS/FAIL
# line per device check: every own ROM, every renderer pair, hashes equal to native's;
# instance agreement; the test ROMs' own status with device renderers), bench_*.json and
# bench_*.txt (the instance sweeps, native against device), and summary.md. Exit 1 when
# a check failed, 2 on bad arguments, 3 when there is no usable GPU. NES_SWEEP and
# NES_SECONDS override the sweep's instance counts (1,16,64,256,1024) and run length (2 s).
set -u
out=${1:?usage: run_h200.sh RESULTS_DIR [ROM_DIR]}
GPUVET=${GPUVET:-build/cuda/gpuvet}
roms=${2:-$(dirname "$GPUVET")/roms/nes}
[ -x "$GPUVET" ] || { echo "run_h200.sh: no gpuvet binary at $GPUVET (set GPUVET)" >&2; exit 2; }
for r in cpu_test ppu_scene apu_test mmc3_irq; do
  [ -f "$roms/$r.nes" ] || { echo "run_h200.sh: $roms/$r.nes is missing (build the ROMs first)" >&2; exit 2; }
done
mkdir -p "$out" || exit 2

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "binary: $GPUVET ($("$GPUVET" --version 2>&1))"
  echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
cat "$out/machine.txt"

checks="$out/checks.txt"
: >"$checks"
failed=0
ok() { echo "PASS $1: $2" | tee -a "$checks"; }
bad() { echo "FAIL $1: $2" | tee -a "$checks"; failed=1; }

frames_of() { case $1 in cpu_test) echo 620 ;; apu_test) echo 245 ;; *) echo 60 ;; esac; }
hashes() { # rom frames video audio [flags]
  rom=$1; n=$2; v=$3; a=$4; shift 4
  "$GPUVET" run nes "$roms/$rom.nes" --frames "$n" --video "$v" --audio "$a" -q "$@" >"$out/.h.out" 2>"$out/.h.err"
  r=$?
  if [ $r != 0 ]; then echo "rc=$r $(head -n 1 "$out/.h.err")"; return; fi
  echo "$(awk '/^video_hash/ {print $2}' "$out/.h.out") $(awk '/^audio_hash/ {print $2}' "$out/.h.out")"
}

# The device must be there at all.
probe=$(hashes ppu_scene 2 device device)
case "$probe" in
  rc=3*) echo "run_h200.sh: the device renderer cannot run here: ${probe#rc=3 }" >&2; exit 3 ;;
esac

for rom in cpu_test ppu_scene apu_test mmc3_irq; do
  n=$(frames_of $rom)
  ref=$(hashes $rom "$n" native native)
  for combo in "device device" "device native" "native device" "host host" "device host"; do
    set -- $combo
    got=$(hashes $rom "$n" "$1" "$2")
    if [ "$got" = "$ref" ]; then ok "$rom video $1 audio $2" "equal to native over $n frames ($ref)"
    else bad "$rom video $1 audio $2" "got '$got', native gave '$ref'"; fi
  done
  got=$(hashes $rom "$n" device device --instances 64)
  if [ "$got" = "$ref" ]; then ok "$rom 64 instances on the device" "all instances agree with native"
  else bad "$rom 64 instances on the device" "got '$got', native gave '$ref'"; fi
  "$GPUVET" run nes "$roms/$rom.nes" --test-rom --video device --audio device -q >"$out/.t.out" 2>&1
  r=$?
  msg=$(grep '^test ROM' "$out/.t.out")
  if [ $r = 0 ]; then ok "$rom status, device renderers" "$msg"; else bad "$rom status, device renderers" "exit $r: $msg"; fi
done

# The sweeps: native against device, all host cores, 1 to 1024 instances. bench nes
# itself checks every run's and instance's hashes against the native renderer's.
for rom in ppu_scene cpu_test; do
  for audio in native device; do
    name="bench_${rom}_audio_$audio"
    "$GPUVET" bench nes "$roms/$rom.nes" --seconds "${NES_SECONDS:-2}" --repeats 5 --video native,device \
      --audio $audio --instances "${NES_SWEEP:-1,16,64,256,1024}" --json "$out/$name.json" >"$out/$name.txt" 2>&1
    r=$?
    cat "$out/$name.txt"
    if [ $r = 0 ]; then ok "$name" "$(grep '^verdict' "$out/$name.txt")"
    else bad "$name" "exit $r: $(tail -n 1 "$out/$name.txt")"; fi
  done
done

{
  echo "# NES on $(sed -n 's/^gpu: //p' "$out/machine.txt")"
  echo
  sed 's/^/    /' "$out/machine.txt"
  echo
  echo "## Device checks"
  echo
  sed 's/^/    /' "$checks"
  for f in "$out"/bench_*.txt; do
    echo
    echo "## $(basename "$f" .txt)"
    echo
    sed 's/^/    /' "$f"
  done
} >"$out/summary.md"
rm -f "$out/.h.out" "$out/.h.err" "$out/.t.out"
echo "results in $out (summary.md)"
exit $failed
