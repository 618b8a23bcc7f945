#!/bin/sh
# libretro_peers.sh [RESULTS_DIR]: one-core speed of gpuvet's libretro cores beside the
# emulators people use, through the same headless frontend (tests/libretro/test_libretro.c
# in its --bench mode: load the core, 60 warm-up frames, then FRAMES frames timed, video
# and audio callbacks taken as a frontend takes them, nothing drawn):
#   NES       gpuvet_nes_libretro.so  against Debian's Nestopia UE (libretro-nestopia)
#   Game Boy  gpuvet_gb_libretro.so   against Debian's Gambatte and mGBA (libretro-gambatte,
#             libretro-mgba)
#   SNES      gpuvet_snes_libretro.so against Debian's bsnes-mercury, balanced profile
#             (libretro-bsnes-mercury-balanced)
# and `gpuvet run ROM --frames FRAMES` itself (its record's frames/s), to show what the API
# costs. Our own ROMs (ppu_scene and apu_test of the NES and the Game Boy, ppu_scene and
# bench_scene of the SNES, which has no audio test ROM; built by the suite's scripts),
# one core at a time, alternating, ROUNDS rounds; the median of each is kept. Every run
# gives two speeds: frames per second of wall time and per second of the process's CPU
# time (cpu_fps). On a shared machine other work takes the CPU from a run at random, which
# the wall-time figure shows and the CPU-time figure mostly does not: compare with the latter
# when the recorded load average is above the core count.
#
# Needs: make libretro, make tests (build/<variant>/tests/test_libretro), the ROM toolchains
# (cc65, sdcc) or prebuilt ROMs, and the Debian cores (apt-get install libretro-nestopia
# libretro-gambatte libretro-mgba libretro-bsnes-mercury-balanced). Writes RESULTS_DIR (default
# bench/results/<date>-libretro-peers): machine.txt, raw.tsv (every run), summary.md.
# FRAMES (default 3000) and ROUNDS (default 5) override; CONSOLES (default "nes gb snes") picks
# the consoles measured (CONSOLES=nes: the NES core and Nestopia only). SNES_ROMS (default
# "ppu_scene bench_scene") names the SNES ROMs (a name without a slash is our built ROM, else a
# path: gsu_bench, the Super FX benchmark, or a PeterLemon GSU demo) and SNES_PEER (default
# bsnes_mercury_balanced) the bsnes-mercury profile (bsnes_mercury_performance: Debian's
# libretro-bsnes-mercury-performance). Run it on a quiet machine: the
# load average before and after is recorded, and a busy machine's figures vary.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
GPUVET=${GPUVET:-$root/gpuvet}
GV_BUILD=${GV_BUILD:-$(dirname "$(readlink -f "$GPUVET")")}
host=$GV_BUILD/tests/test_libretro
cores=${GV_LIBRETRO:-$root/build/libretro}
peers=${LIBRETRO_PEERS:-/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/libretro}
FRAMES=${FRAMES:-3000}
ROUNDS=${ROUNDS:-5}
CONSOLES=${CONSOLES:-nes gb snes}
SNES_ROMS=${SNES_ROMS:-ppu_scene bench_scene}
SNES_PEER=${SNES_PEER:-bsnes_mercury_balanced}
snes_label=bsnes-mercury
[ "$SNES_PEER" = bsnes_mercury_balanced ] || snes_label="bsnes-mercury ${SNES_PEER#bsnes_mercury_}"
want() { case " $CONSOLES " in *" $1 "*) return 0 ;; esac; return 1; }
out=${1:-bench/results/$(date -u +%Y-%m-%d)-libretro-peers}
for f in "$GPUVET" "$host" $(for c in $CONSOLES; do echo "$cores/gpuvet_${c}_libretro.so"; done); do
  [ -e "$f" ] || { echo "libretro_peers.sh: $f is missing (make, make tests, make libretro)" >&2; exit 2; }
done
# A peer that is not installed is left out and named (a machine without Debian's cores, such
# as a GPU host, still measures what the API costs against `gpuvet run`).
missing=
peer_list=
want nes && peer_list="$peer_list nestopia"
want gb && peer_list="$peer_list gambatte mgba"
want snes && peer_list="$peer_list $SNES_PEER"
for p in $peer_list; do
  [ -f "$peers/${p}_libretro.so" ] || missing="$missing $p"
done
[ -n "$missing" ] && echo "libretro_peers.sh: not installed, left out:$missing (apt-get install libretro-<name>)" >&2
have() { [ -f "$peers/${1}_libretro.so" ]; }
! want nes || sh tests/nes/build_roms.sh "$GV_BUILD/roms/nes" >/dev/null 2>&1 || [ -f "$GV_BUILD/roms/nes/apu_test.nes" ] ||
  { echo "libretro_peers.sh: the NES ROMs did not build (cc65)" >&2; exit 2; }
! want gb || PYTHON=${PYTHON:-python3} sh tests/roms/gb/build.sh "$GV_BUILD/roms/gb" >/dev/null 2>&1 || [ -f "$GV_BUILD/roms/gb/apu_test.gb" ] ||
  { echo "libretro_peers.sh: the Game Boy ROMs did not build (sdcc, python3)" >&2; exit 2; }
! want snes || PYTHON=${PYTHON:-python3} sh tests/roms/snes/build.sh "$GV_BUILD/roms/snes" >/dev/null 2>&1 || [ -f "$GV_BUILD/roms/snes/bench_scene.sfc" ] ||
  { echo "libretro_peers.sh: the SNES ROMs did not build (cc65, python3)" >&2; exit 2; }
mkdir -p "$out" || exit 2
export OMP_WAIT_POLICY=passive
# mGBA loads only Game Boy ROMs that carry the boot logo at $0104, which ours leave blank:
# it is measured where it takes them, else named in the summary as refusing them.
mgba=1
{ want gb && have mgba; } || mgba=0
[ $mgba = 0 ] || "$host" --bench "$peers/mgba_libretro.so" "$GV_BUILD/roms/gb/ppu_scene.gb" 1 >/dev/null 2>&1 || mgba=0

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) usable cores"
  echo "memory: $(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(uname -r)"
  echo "gpuvet: $("$GPUVET" --version 2>&1 | head -n 1), cores from $cores"
  echo "consoles: $CONSOLES"
  for p in $peer_list; do
    pkg=libretro-$(echo "$p" | tr _ -)
    echo "peer: ${p}_libretro.so, Debian package $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)"
  done
  echo "frames: $FRAMES timed per run (after 60 warm-up), rounds: $ROUNDS, one core at a time, alternating"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"

printf 'round\tconsole\trom\temulator\tfps\tcpu_fps\n' >"$out/raw.tsv"
one() { # round console rom label command...
  r=$1 con=$2 rom=$3 label=$4; shift 4
  line=$("$@" 2>/dev/null | awk '{f = c = ""; for (i = 1; i < NF; i++) { if ($i == "fps") f = $(i + 1); if ($i == "cpu_fps") c = $(i + 1) }
    if (f != "") { print f "\t" (c == "" ? "failed" : c); exit } }')
  printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$con" "$rom" "$label" "${line:-failed	failed}" >>"$out/raw.tsv"
}
runfps() { # rom: `gpuvet run`'s frames per second (wall and CPU time) from its record
  "$GPUVET" run "$1" --frames "$((FRAMES + 60))" --no-battery --json "$out/.run.json" -q >/dev/null 2>&1 &&
    awk -F'[:,]' '{ gsub(/[ \t"]/, "") } $1 == "fps" { f = $2 } $1 == "seconds" { s = $2 } $1 == "cpu_seconds" { c = $2 }
      END { if (f != "") print "fps " f " cpu_fps " (c > 0 ? f * s / c : "failed") }' "$out/.run.json"
}
r=1
while [ $r -le "$ROUNDS" ]; do
  for rom in ppu_scene apu_test; do
    n=$GV_BUILD/roms/nes/$rom.nes g=$GV_BUILD/roms/gb/$rom.gb
    if want nes; then
      one $r nes $rom "gpuvet core" "$host" --bench "$cores/gpuvet_nes_libretro.so" "$n" "$FRAMES"
      have nestopia && one $r nes $rom "Nestopia" "$host" --bench "$peers/nestopia_libretro.so" "$n" "$FRAMES"
      one $r nes $rom "gpuvet run" runfps "$n"
    fi
    if want gb; then
      one $r gb $rom "gpuvet core" "$host" --bench "$cores/gpuvet_gb_libretro.so" "$g" "$FRAMES"
      have gambatte && one $r gb $rom "Gambatte" "$host" --bench "$peers/gambatte_libretro.so" "$g" "$FRAMES"
      [ $mgba = 1 ] && one $r gb $rom "mGBA" "$host" --bench "$peers/mgba_libretro.so" "$g" "$FRAMES"
      one $r gb $rom "gpuvet run" runfps "$g"
    fi
  done
  want snes || { r=$((r + 1)); continue; }
  for rom in $SNES_ROMS; do
    case $rom in */*) s=$rom rom=$(basename "$rom" .sfc) ;; *) s=$GV_BUILD/roms/snes/$rom.sfc ;; esac
    one $r snes $rom "gpuvet core" "$host" --bench "$cores/gpuvet_snes_libretro.so" "$s" "$FRAMES"
    have $SNES_PEER && one $r snes $rom "$snes_label" "$host" --bench "$peers/${SNES_PEER}_libretro.so" "$s" "$FRAMES"
    one $r snes $rom "gpuvet run" runfps "$s"
  done
  r=$((r + 1))
done
rm -f "$out/.run.json"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"

# medians and ratios
awk -F'\t' 'NR > 1 && $5 != "failed" { k = $2 "\t" $3 "\t" $4; v[k, ++n[k]] = $5; cv[k, n[k]] = $6; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
  NR > 1 && $5 == "failed" { bad[$2 "\t" $3 "\t" $4]++ }
  function median(k, v,   i, j, t, c) { c = n[k]; for (i = 1; i <= c; i++) a[i] = v[k, i] + 0
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2 }
  END {
    print "| console | ROM | emulator | median frames/s | gpuvet core / this | median frames per CPU-second | gpuvet core / this (CPU time) | runs |"
    print "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
    for (i = 1; i <= m; i++) { k = order[i]; med[k] = median(k, v); cmed[k] = median(k, cv) }
    for (i = 1; i <= m; i++) { k = order[i]; split(k, f, "\t"); o = f[1] "\t" f[2] "\tgpuvet core"; us = f[3] == "gpuvet core"
      printf "| %s | %s | %s | %.0f | %s | %.0f | %s | %d%s |\n", f[1], f[2], f[3], med[k], us ? "" : sprintf("%.2fx", med[o] / med[k]),
        cmed[k], us ? "" : sprintf("%.2fx", cmed[o] / cmed[k]), n[k], bad[k] ? sprintf(" (%d failed)", bad[k]) : "" }
  }' "$out/raw.tsv" >"$out/table.md"
{
  echo "# gpuvet's libretro cores beside Debian's (bench/libretro_peers.sh)"
  echo
  sed 's/^/    /' "$out/machine.txt"
  echo
  echo "One core at a time in the same headless frontend (tests/libretro/test_libretro.c --bench), our own ROMs."
  echo "\"gpuvet core / this\" above 1 means gpuvet's core is faster; against \`gpuvet run\` it is what the"
  echo "libretro API costs (1.00x: nothing)."
  [ -n "$missing" ] && { echo; echo "Not installed here, left out:$missing."; }
  busy=$(awk -v n="$(nproc)" '{ print ($1 > n) ? 1 : 0 }' /proc/loadavg)
  [ "$busy" = 1 ] && { echo; echo "The machine was busy (load average above its $(nproc) cores): other work took the CPU from every run at random, so the wall-time figures vary and only the CPU-time columns compare the emulators."; }
  want gb && have mgba && [ $mgba = 0 ] && { echo; echo "mGBA (Debian's libretro-mgba) refused our Game Boy ROMs: it loads only ROMs with Nintendo's boot logo at \$0104, which ours leave blank."; }
  echo
  cat "$out/table.md"
} >"$out/summary.md"
rm -f "$out/table.md"
cat "$out/summary.md"
