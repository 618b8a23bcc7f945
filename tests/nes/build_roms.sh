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
build() { # name linker-config source defines (comma-separated NAME=VALUE)
  rom="$out/$1.nes"
  if [ -f "$rom" ] && [ -z "$(find "$src" -newer "$rom" \( -name '*.s' -o -name '*.inc' -o -name '*.cfg' \) | head -n 1)" ] &&
     ! [ "$0" -nt "$rom" ]; then
    return 0
  fi
  defs=
  if [ -n "$4" ]; then
    for d in $(echo "$4" | tr ',' ' '); do defs="$defs -D $d"; done
  fi
  # shellcheck disable=SC2086
  ca65 -g -I "$src" $defs "$src/$3.s" -o "$out/$1.o" || return 1
  ld65 -C "$src/$2" "$out/$1.o" -o "$rom.tmp" -Ln "$out/$1.labels" || return 1
  mv "$rom.tmp" "$rom"
}
status=0
# name:linker-config[:source:defines] (the source is name.s unless given)
for r in cpu_test:nrom.cfg ppu_scene:nrom.cfg apu_test:nrom.cfg mmc3_irq:mmc3.cfg input_test:nrom.cfg acc_test:mmc3.cfg acc2_test:nrom.cfg acc3_test:nrom.cfg acc4_test:nrom.cfg \
  cnrom:cnrom.cfg:latch_test:BOARD=3 axrom:latch32.cfg:latch_test:BOARD=7 uxrom:disc16.cfg:disc_test:BOARD=2 \
  colordreams:latch32c.cfg:latch_test:BOARD=11 cprom:cprom.cfg:latch_test:BOARD=13 bnrom:latch32.cfg:latch_test:BOARD=34 \
  nina001:latch32c.cfg:latch_test:BOARD=134 gxrom:latch32c.cfg:latch_test:BOARD=66 camerica:latch16.cfg:latch_test:BOARD=71 \
  txsrom:mmc3x.cfg:mmc3x_test:BOARD=118 tqrom:mmc3x.cfg:mmc3x_test:BOARD=119 namco108:mmc3x.cfg:mmc3x_test:BOARD=206 \
  sxrom:mmc1x.cfg:sxrom_test mmc2:mmc3x.cfg:mmc2_test:BOARD=9 mmc4:mmc4.cfg:mmc2_test:BOARD=10 \
  vrc4a:mmc3x.cfg:vrc_test:BOARD=211 vrc2a:mmc3x.cfg:vrc_test:BOARD=22 vrc4e:mmc3x.cfg:vrc_test:BOARD=232 vrc4b:mmc3x.cfg:vrc_test:BOARD=251 fme7:mmc3x.cfg:fme7_test nrom368:nrom368.cfg:nrom368_test \
  bandai70:disc16.cfg:disc_test:BOARD=70 bandai152:disc16.cfg:disc_test:BOARD=152 irem78a:disc16.cfg:disc_test:BOARD=781 \
  irem78b:disc16.cfg:disc_test:BOARD=783 sunsoft89:disc16.cfg:disc_test:BOARD=89 sunsoft93:disc16.cfg:disc_test:BOARD=93 \
  un1rom:disc16.cfg:disc_test:BOARD=94 unrom180:disc16f.cfg:disc_test:BOARD=180 tams1:disc16l.cfg:disc_test:BOARD=97 \
  quattro:disc16q.cfg:disc_test:BOARD=232 jf17:disc16.cfg:disc_test:BOARD=72 jf19:disc16f.cfg:disc_test:BOARD=92 \
  j87:disc32.cfg:disc_test:BOARD=87 jf11:disc32.cfg:disc_test:BOARD=140 jf13:disc32.cfg:disc_test:BOARD=86 \
  sunsoft1:disc32.cfg:disc_test:BOARD=184 nina03:disc32.cfg:disc_test:BOARD=79 \
  g101:mmc3x.cfg:irem_test:BOARD=32 g101ml:mmc3x.cfg:irem_test:BOARD=321 h3001:mmc3x.cfg:irem_test:BOARD=65 \
  tc0190:mmc3x.cfg:taito_test:BOARD=33 tc0690:mmc3x.cfg:taito_test:BOARD=48 x1005:mmc3x.cfg:taito_test:BOARD=80 \
  x1005b:mmc3x.cfg:taito_test:BOARD=207 x1017:mmc3x.cfg:taito_test:BOARD=82 \
  sunsoft3:mmc3x.cfg:sunsoft_test:BOARD=67 sunsoft4:mmc3x.cfg:sunsoft_test:BOARD=68 \
  vrc1:prg128.cfg:vrc13_test:BOARD=75 vrc3:prg128.cfg:vrc13_test:BOARD=73 \
  namco3446:prg128.cfg:mmc3x_test:BOARD=76 namco3443:prg128.cfg:mmc3x_test:BOARD=88 namco3453:prg128.cfg:mmc3x_test:BOARD=154 \
  namco3425:mmc3x.cfg:mmc3x_test:BOARD=95 \
  cnrom185:nrom.cfg:cnrom185_test:BOARD=1850 cnrom185s4:nrom.cfg:cnrom185_test:BOARD=1854 \
  cnrom185s5:nrom.cfg:cnrom185_test:BOARD=1855 cnrom185s6:nrom.cfg:cnrom185_test:BOARD=1856 \
  cnrom185s7:nrom.cfg:cnrom185_test:BOARD=1857 \
  region_ntsc:nrom.cfg:region_test:REGION=0 region_pal:nrom.cfg:region_test:REGION=1 region_dendy:nrom.cfg:region_test:REGION=3 \
  vrc6a:mmc3x.cfg:vrc6_test:BOARD=24 vrc6b:mmc3x.cfg:vrc6_test:BOARD=26 mmc5:mmc3x.cfg:mmc5_test \
  mmc5x:mmc3x.cfg:mmc5x_test vrc7a:mmc3x.cfg:vrc7_test:BOARD=852 vrc7b:mmc3x.cfg:vrc7_test:BOARD=851 \
  fcg4:disc16.cfg:fcg_test:BOARD=164 fcg5:disc16.cfg:fcg_test:BOARD=165 fcg159:disc16.cfg:fcg_test:BOARD=159 \
  fcg153:fcg512.cfg:fcg_test:BOARD=153 \
  ss88006:mmc3x.cfg:ss88006_test rambo1:mmc3x.cfg:rambo_test \
  namco175:mmc3x.cfg:namco_test:BOARD=175 namco340:mmc3x.cfg:namco_test:BOARD=340 n163:mmc3x.cfg:n163_test; do
  name=$(echo "$r" | cut -d: -f1)
  cfg=$(echo "$r" | cut -d: -f2)
  source=$(echo "$r" | cut -d: -f3)
  defs=$(echo "$r" | cut -d: -f4)
  [ -n "$source" ] || source=$name
  [ -f "$src/$source.s" ] || continue
  build "$name" "$cfg" "$source" "$defs" || { echo "building $name failed" >&2; status=1; }
done
exit $status
