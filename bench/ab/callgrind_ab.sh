#!/bin/sh
# callgrind_ab.sh OUTDIR BASE NEW ROM[@FRAMES[@ARGS]]...: one-core emulation of two gpuvet
# builds compared by instruction count, in one command. Each ROM runs under valgrind's
# callgrind with both binaries (`gpuvet run ROM --frames FRAMES --threads 1 --no-battery -q`,
# native video and audio, ARGS appended with spaces for '@'-separated words: `cpu_instrs.gb@600@--model@dmg`);
# the count is the whole process's Ir ("Collected" in callgrind's output), a figure that does
# not depend on the machine's load, so a 1% difference is a real one. Writes OUTDIR/ab.md (a
# table: ROM, frames, base Ir, new Ir, new/base) and OUTDIR/ab.tsv, and prints the table.
# FRAMES defaults to 240. Exit 2 on bad arguments or a missing valgrind; 1 when a run fails.
set -u
usage="usage: callgrind_ab.sh OUTDIR BASE_GPUVET NEW_GPUVET ROM[@FRAMES[@ARG...]]..."
[ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
out=$1 base=$2 new=$3; shift 3
command -v valgrind >/dev/null || { echo "callgrind_ab.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
for b in "$base" "$new"; do
  [ -x "$b" ] || { echo "callgrind_ab.sh: $b: no such gpuvet binary" >&2; exit 2; }
done
mkdir -p "$out" || exit 2
# ir BINARY ROM FRAMES ARGS...: the instruction count of one run (empty when it failed)
ir() {
  bin=$1 rom=$2 frames=$3; shift 3
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" run "$rom" --frames "$frames" \
    --threads 1 --no-battery -q "$@" >"$out/run.log" 2>&1 || { sed 's/^/  /' "$out/run.log" | tail -n 5 >&2; return 1; }
  sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$out/run.log"
}
printf 'rom\tframes\targs\tbase_ir\tnew_ir\tratio\n' >"$out/ab.tsv"
{
  echo "| ROM | frames | base Ir | new Ir | new/base |"
  echo "| --- | ---: | ---: | ---: | ---: |"
} >"$out/ab.md"
rc=0
for spec in "$@"; do
  rom=${spec%%@*} rest=${spec#"$rom"} frames=240 args=
  case $rest in @*) rest=${rest#@}; frames=${rest%%@*}; case $rest in *@*) args=$(printf '%s' "${rest#*@}" | tr @ ' ') ;; esac ;; esac
  [ -f "$rom" ] || { echo "callgrind_ab.sh: $rom: no such ROM" >&2; rc=1; continue; }
  # shellcheck disable=SC2086 # ARGS are words by design
  b=$(ir "$base" "$rom" "$frames" $args) && n=$(ir "$new" "$rom" "$frames" $args) && [ -n "$b" ] && [ -n "$n" ] || {
    echo "callgrind_ab.sh: $rom: a run failed (above)" >&2; rc=1; continue; }
  r=$(awk -v b="$b" -v n="$n" 'BEGIN { printf "%.4f", n / b }')
  name=$(basename "$rom")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$frames" "$args" "$b" "$n" "$r" >>"$out/ab.tsv"
  echo "| $name${args:+ ($args)} | $frames | $b | $n | $r |" >>"$out/ab.md"
done
rm -f "$out/run.log"
cat "$out/ab.md"
exit $rc
