#!/bin/sh
# h200_ab.sh OUT A_BIN B_BIN NES_ROMS GB_ROMS: an A/B of two gpuvet builds on one machine, in
# one command: the one-core FPS of both consoles (native video and audio, one instance, one
# thread) and the GPU training samples/s, the two binaries alternating (A, B, A, B, ...) for
# ROUNDS rounds (default 5), each run after its own warm-up (the harness's). Builds nothing.
# The Game Boy runs a fixed frame count (GB_FRAMES, default 6000): older builds have no --seconds.
# The emulator runs are pinned to one CPU (AB_CPU, default the last one; `taskset`, when the machine has
# it), so that the scheduler does not move the one thread between cores mid-run.
# Writes OUT/ab.tsv (one line per run) and OUT/ab.md (medians per binary and B/A).
set -u
out=${1:?usage: h200_ab.sh OUT A_BIN B_BIN NES_ROMS GB_ROMS}
A=$2 B=$3 nes=$4 gb=$5
rounds=${ROUNDS:-5}
mkdir -p "$out" || exit 2
for x in "$A" "$B"; do [ -x "$x" ] || { echo "h200_ab.sh: $x is not an executable" >&2; exit 2; }; done
tsv="$out/ab.tsv"
printf 'round\tbinary\tcase\tvalue\tunit\n' >"$tsv"

# value of KEY in a JSON record's first entry (python3 is on every machine this runs on)
val() { python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); k=sys.argv[2]
def find(o):
    if isinstance(o,dict):
        if k in o: return o[k]
        for v in o.values():
            x=find(v)
            if x is not None: return x
    if isinstance(o,list):
        for v in o:
            x=find(v)
            if x is not None: return x
print(find(r))' "$1" "$2"; }

pin=
if command -v taskset >/dev/null 2>&1; then pin="taskset -c ${AB_CPU:-$(($(nproc) - 1))}"; fi
echo "emulator runs pinned with: ${pin:-nothing (no taskset)}" >"$out/pin.txt"

one() { # round binary-name binary case
  r=$1 name=$2 bin=$3 c=$4 j="$out/run.json"
  rm -f "$j"
  case $c in
    nes_*) rom="$nes/${c#nes_}.nes"; $pin "$bin" bench nes "$rom" --threads 1 --seconds ${EMU_SECONDS:-1} --repeats 3 \
             --video native --audio native --instances 1 --json "$j" -q >/dev/null 2>>"$out/stderr.txt"; k=fps_median ;;
    gb_*)  rom="$gb/${c#gb_}.gb"; $pin "$bin" bench gb "$rom" --threads 1 --frames ${GB_FRAMES:-6000} --repeats 3 \
             --video native --audio native --instances 1 --json "$j" -q >/dev/null 2>>"$out/stderr.txt"; k=fps_median ;;
    train_*) set -- $(echo "${c#train_}" | tr _ ' ')
             "$bin" bench train --devices cuda --channels "$1" --batches "$2" --dtype "$3" --repeats 3 \
             --json "$j" -q >/dev/null 2>>"$out/stderr.txt"; k=samples_per_s_median ;;
  esac
  v=None
  [ -f "$j" ] && v=$(val "$j" "$k" 2>/dev/null)
  printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$name" "$c" "$v" "$k" >>"$tsv"
  echo "round $r $name $c $k=$v"
}

cases=${CASES:-"nes_ppu_scene nes_cpu_test gb_ppu_scene gb_cpu_test train_128_8192_bf16 train_128_1024_fp32 train_64_1024_bf16"}
r=1
while [ "$r" -le "$rounds" ]; do
  for c in $cases; do
    if [ $((r % 2)) -eq 1 ]; then one "$r" A "$A" "$c"; one "$r" B "$B" "$c"; else one "$r" B "$B" "$c"; one "$r" A "$A" "$c"; fi
  done
  r=$((r + 1))
done

python3 - "$tsv" >"$out/ab.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
cases = []
for r in rows:
    if r['case'] not in cases: cases.append(r['case'])
print('| case | unit | A median | B median | B / A | A runs | B runs |')
print('| --- | --- | ---: | ---: | ---: | --- | --- |')
for c in cases:
    v = {b: [float(r['value']) for r in rows if r['case'] == c and r['binary'] == b and r['value'] not in ('None', '')] for b in 'AB'}
    if not v['A'] or not v['B']:
        print(f"| {c} | | n/a | n/a | n/a | {v['A']} | {v['B']} |"); continue
    a, b = statistics.median(v['A']), statistics.median(v['B'])
    unit = [r['unit'] for r in rows if r['case'] == c][0]
    print(f"| {c} | {unit} | {a:,.0f} | {b:,.0f} | {b/a:.3f} | {', '.join(f'{x:,.0f}' for x in v['A'])} | {', '.join(f'{x:,.0f}' for x in v['B'])} |")
PY
cat "$out/ab.md"
