#!/bin/sh
# build_roms.sh OUTDIR: assembles gpuvet's own NES test ROMs (tests/roms/nes/*.s) with
# cc65's ca65 and ld65 into OUTDIR, rebuilding a ROM only when one of its sources is
# newer. Exits 3 (and says so) when ca65 or ld65 is missing; 1 when a ROM does not build.
set -u
out=${1:?usage: build_roms.sh OUTDIR}
src=$(cd "$(dirname "$0")/../roms/nes" && pwd)
if ! command -v ca65 >/dev/null 2>&1 || ! command -v ld65 >/dev/null 2>&1; then
  echo "ca65/ld65 not found (Debian package cc65)" >&2
  exit 3
fi
mkdir -p "$out" || exit 1
build() { # name linker-config
  rom="$out/$1.nes"
  if [ -f "$rom" ] && [ -z "$(find "$src" -newer "$rom" \( -name '*.s' -o -name '*.inc' -o -name '*.cfg' \) | head -n 1)" ]; then
    return 0
  fi
  ca65 -g -I "$src" "$src/$1.s" -o "$out/$1.o" || return 1
  ld65 -C "$src/$2" "$out/$1.o" -o "$rom.tmp" -Ln "$out/$1.labels" || return 1
  mv "$rom.tmp" "$rom"
}
status=0
for r in cpu_test:nrom.cfg ppu_scene:nrom.cfg apu_test:nrom.cfg mmc3_irq:mmc3.cfg input_test:nrom.cfg acc_test:mmc3.cfg; do
  name=${r%%:*}
  [ -f "$src/$name.s" ] || continue
  build "$name" "${r#*:}" || { echo "building $name failed" >&2; status=1; }
done
exit $status
