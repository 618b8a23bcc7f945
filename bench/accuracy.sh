#!/bin/sh
# accuracy.sh [--nes DIR] [--gb DIR] [--out FILE] [GPUVET]: runs blargg's public test ROM
# suites through `gpuvet run ROM --test-rom` and writes a Markdown table per console:
# suite, ROM, model (with the options a ROM needs, rom_flags below), the result, the ROM's
# own message and the protocol that gave it (status block at $6000/$A000, serial output,
# the LD B,B signature, or the screen).
# accuracy.sh --shootout DIR [--results DIR] [--out FILE] [GPUVET]: the Game Boy suites of
# the GB Emulator Shootout judged its way (the screenshot after each test's run time
# against the picture the suite ships), for gpuvet and Debian's Gambatte and mGBA cores
# side by side (run_shootout below).
#
# DIR is a copy of the suites fetched by whoever runs this, nothing of it committed here:
# --nes the christopherpow/nes-test-roms collection, --gb the retrio/gb-test-roms one,
# --shootout a checkout of gbdev/GBEmulatorShootout (testroms/ with its acid, blargg,
# mooneye, samesuite and mealybug-tearoom-tests folders and their .py test lists).
# --out FILE writes the page (docs/ACCURACY.md) instead of standard output: each mode
# rewrites its own part of it (the Shootout's section is the one after $SO_MARK) and keeps
# the other's. GPUVET defaults to ./gpuvet of this tree.
#
# ROMs that report only on the screen (blargg's NES suites of 2005, Game Boy halt_bug and
# interrupt_time) get no verdict from `--test-rom`, rightly. For those the script reads
# the ROM's own text off a frame: the PNG of `--png` cut into 8x8 cells and matched
# against the suite's console font (bench/screen_text.py; needs python3); the result is
# the "Passed"/"PASSED" line it prints, and the protocol column says "screen text".
#
# ROMs the suite's readme marks as hardware variants, or behaviour documented as out of
# scope, are "n/a" with the reason (limitation() below) when they end without a pass.
# Knobs: ACC_FRAMES (frame limit per ROM, default 6000 = 100 s of machine time),
# ACC_SCREEN_FRAMES (frames before the screen is read, default 1200),
# ACC_NES_SUITES, ACC_GB_SUITES (space-separated subsets of the suite names).
# Exit status: 0 when every ROM passed (n/a aside), 1 otherwise, 2 on bad arguments.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
nesdir=
gbdir=
sodir=
resdir=
out=
G=$here/gpuvet
SO_MARK="<!-- bench/accuracy.sh --shootout writes from here to the end -->"
while [ $# -gt 0 ]; do
  case $1 in
  --nes) nesdir=${2:-}; shift 2 || exit 2 ;;
  --gb) gbdir=${2:-}; shift 2 || exit 2 ;;
  --shootout) sodir=${2:-}; shift 2 || exit 2 ;;
  --results) resdir=${2:-}; shift 2 || exit 2 ;;
  --out) out=${2:-}; shift 2 || exit 2 ;;
  -*) echo "accuracy.sh: unknown option '$1'" >&2; exit 2 ;;
  *) G=$1; shift ;;
  esac
done
usage="usage: accuracy.sh [--nes DIR] [--gb DIR] [--out FILE] [GPUVET] | --shootout DIR [--results DIR] [--out FILE] [GPUVET]"
if [ -z "$nesdir$gbdir$sodir" ]; then echo "$usage (at least one suite folder)" >&2; exit 2; fi
if [ -n "$sodir" ] && [ -n "$nesdir$gbdir" ]; then echo "$usage (--shootout is a mode of its own)" >&2; exit 2; fi
for d in "$nesdir" "$gbdir" "$sodir"; do
  if [ -n "$d" ] && [ ! -d "$d" ]; then echo "accuracy.sh: $d is not a folder" >&2; exit 2; fi
done
if [ ! -x "$G" ]; then
  echo "accuracy.sh: $G is not an executable gpuvet (build it: make GPU=cpu build)" >&2
  exit 2
fi
FR=${ACC_FRAMES:-6000}
SFR=${ACC_SCREEN_FRAMES:-1200}
NES_SUITES=${ACC_NES_SUITES:-"instr_test-v5 instr_misc instr_timing cpu_interrupts_v2 ppu_vbl_nmi vbl_nmi_timing blargg_apu_2005.07.30 apu_test dmc_dma_during_read4 sprdma_and_dmc_dma mmc3_test_2 mmc3_irq_tests ppu_open_bus read_joy3 cpu_reset sprite_hit_tests sprite_overflow_tests pal_apu_tests"}
GB_SUITES=${ACC_GB_SUITES:-"cpu_instrs instr_timing mem_timing mem_timing-2 halt_bug interrupt_time dmg_sound cgb_sound oam_bug"}
PY=
for p in "${PYTHON:-}" python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null 2>&1; then PY=$p; break; fi
done

# suite_roms CONSOLE SUITE -> "models|files" (files relative to the suite folder, the
# combined ROM first; model "-" for the NES)
suite_roms() {
  case $1:$2 in
  nes:instr_test-v5) echo "-|instr_test-v5/all_instrs.nes instr_test-v5/official_only.nes instr_test-v5/rom_singles/*.nes" ;;
  nes:instr_misc) echo "-|instr_misc/instr_misc.nes instr_misc/rom_singles/*.nes" ;;
  nes:instr_timing) echo "-|instr_timing/instr_timing.nes instr_timing/rom_singles/*.nes" ;;
  nes:cpu_interrupts_v2) echo "-|cpu_interrupts_v2/cpu_interrupts.nes cpu_interrupts_v2/rom_singles/*.nes" ;;
  nes:ppu_vbl_nmi) echo "-|ppu_vbl_nmi/ppu_vbl_nmi.nes ppu_vbl_nmi/rom_singles/*.nes" ;;
  nes:vbl_nmi_timing) echo "-|vbl_nmi_timing/*.nes" ;;
  nes:blargg_apu_2005.07.30) echo "-|blargg_apu_2005.07.30/*.nes" ;;
  nes:apu_test) echo "-|apu_test/apu_test.nes apu_test/rom_singles/*.nes" ;;
  nes:dmc_dma_during_read4) echo "-|dmc_dma_during_read4/*.nes" ;;
  nes:sprdma_and_dmc_dma) echo "-|sprdma_and_dmc_dma/*.nes" ;;
  nes:mmc3_test_2) echo "-|mmc3_test_2/rom_singles/*.nes" ;;
  nes:mmc3_irq_tests) echo "-|mmc3_irq_tests/*.nes" ;;
  nes:ppu_open_bus) echo "-|ppu_open_bus/ppu_open_bus.nes" ;;
  nes:read_joy3) echo "-|read_joy3/*.nes" ;;
  nes:cpu_reset) echo "-|cpu_reset/*.nes" ;;
  nes:sprite_hit_tests) echo "-|sprite_hit_tests_2005.10.05/*.nes" ;;
  nes:sprite_overflow_tests) echo "-|sprite_overflow_tests/*.nes" ;;
  nes:pal_apu_tests) echo "-|pal_apu_tests/*.nes" ;;
  gb:cpu_instrs) echo "dmg cgb|cpu_instrs/cpu_instrs.gb cpu_instrs/individual/*.gb" ;;
  gb:instr_timing) echo "dmg cgb|instr_timing/instr_timing.gb" ;;
  gb:mem_timing) echo "dmg cgb|mem_timing/mem_timing.gb mem_timing/individual/*.gb" ;;
  gb:mem_timing-2) echo "dmg cgb|mem_timing-2/mem_timing.gb mem_timing-2/rom_singles/*.gb" ;;
  gb:halt_bug) echo "dmg cgb|halt_bug.gb" ;;
  gb:interrupt_time) echo "cgb|interrupt_time/interrupt_time.gb" ;;
  gb:dmg_sound) echo "dmg|dmg_sound/dmg_sound.gb dmg_sound/rom_singles/*.gb" ;;
  gb:cgb_sound) echo "cgb|cgb_sound/cgb_sound.gb cgb_sound/rom_singles/*.gb" ;;
  gb:oam_bug) echo "dmg|oam_bug/oam_bug.gb oam_bug/rom_singles/*.gb" ;;
  *) echo "" ;;
  esac
}

# font CONSOLE ROM: the console font the ROM draws its text with (in the suite folder).
font() {
  case $1:$2 in
  gb:*) echo "cpu_instrs/source/common/console.bin" ;;
  # blargg's NES ROMs of 2005 share one 1-bit font (glyphs from ' ')
  nes:vbl_nmi_timing/* | nes:blargg_apu_2005* | nes:sprite_* | nes:mmc3_irq_tests/* | nes:pal_apu_tests/*) echo "vbl_nmi_timing/source/support/chr.bin" ;;
  nes:*) echo "read_joy3/source/common/ascii.chr" ;;
  esac
}

# Hardware variants and known limitations: ROM -> the reason.
limitation() {
  case $1 in
  oam_bug/rom_singles/7-timing_effect.gb)
    echo "limitation of the ROM: its OAM dumps outgrow the 8 KiB of cartridge RAM at \$A004 and overwrite the test in WRAM; the same test is oam_bug.gb's 07" ;;
  read_joy3/count_errors.nes | read_joy3/count_errors_fast.nes)
    echo "a measurement, not a test: it counts DMC/controller read conflicts and prints no verdict" ;;
  read_joy3/test_buttons.nes)
    echo "interactive: it asks a person to press the buttons it shows and prints no verdict" ;;
  *) echo "" ;;
  esac
}

# rom_flags ROM: options a ROM needs beyond the console's defaults.
rom_flags() {
  case $1 in
  # the suites' readmes: these pass only on the MMC3 of revision A (Crystalis's); 5-MMC3 and
  # 6.MMC3_rev_B test the common revision B, gpuvet's default
  mmc3_test_2/rom_singles/6-MMC3_alt.nes | mmc3_irq_tests/5.MMC3_rev_A.nes) echo "--mmc3-rev A" ;;
  # the PAL APU's frame counter; their iNES 1.0 headers name no region (docs/NES.md "Regions")
  pal_apu_tests/*) echo "--region pal" ;;
  *) echo "" ;;
  esac
}

# crcs ROM: the outputs the ROM's own source lists as correct, for the ROMs that print a
# CRC of their results and no verdict (several are right: it depends on the CPU-PPU
# alignment at power-on).
crcs() {
  case $1 in
  dmc_dma_during_read4/dma_2007_read.nes) echo "159A7A8F 5E3DF9C4" ;;
  dmc_dma_during_read4/double_2007_read.nes) echo "85CFD627 F018C287 440EF923 E52F41A5" ;;
  *) echo "" ;;
  esac
}

# one_line TEXT: the message cell: blanks collapsed, pipes escaped, long ones shortened
# in the middle (the end holds the verdict).
one_line() {
  printf '%s' "$1" | tr '\n' ' ' | tr -s ' ' | sed 's/|/\\|/g; s/^ //; s/ $//' |
    awk '{ if (length($0) > 160) print substr($0, 1, 70) " ... " substr($0, length($0) - 79); else print }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# page_put MODE PAGE: writes the file PAGE into $out as MODE's part of it (blargg: the part
# before the line $SO_MARK; shootout: that line and what follows), keeping the other part.
page_put() {
  : >"$tmp/keep"
  if [ -f "$out" ]; then
    awk -v m="$SO_MARK" -v want="$1" '$0 == m { after = 1 } (want == "blargg") == (after == 1) { print }' "$out" >"$tmp/keep"
  fi
  {
    if [ "$1" = blargg ]; then
      cat "$2"
      [ -s "$tmp/keep" ] && { echo; cat "$tmp/keep"; }
    else
      cat "$tmp/keep"
      [ ! -s "$tmp/keep" ] || [ -z "$(tail -n 1 "$tmp/keep")" ] || echo
      echo "$SO_MARK"
      cat "$2"
    fi
  } >"$out.tmp" && mv "$out.tmp" "$out" || { echo "accuracy.sh: cannot write $out" >&2; exit 3; }
}

# ---- the GB Emulator Shootout's way ------------------------------------------------------
# Each test of the Shootout's lists (bench/gb_shootout.py reads them from its .py files)
# runs on each emulator on its model for its run time plus the 5 s the Shootout's runner
# waits beyond it, in frames of 70224 dots (1.5 s: 389 frames); the last frame, as a PNG,
# is judged against the suite's picture by gb_shootout.py (8-bit luma, no pixel more than
# 50 apart; no picture: "INFO", a pass in the Shootout's tally). The emulators: gpuvet (`gpuvet run gb ROM --model M --frames N
# --png`), and Debian's Gambatte and mGBA libretro cores through the tree's headless
# frontend (build/<variant>/tests/test_libretro --screenshot, core options for the model;
# apt-get install libretro-gambatte libretro-mgba), each left out with a message when
# absent. A test an emulator cannot run is skipped with the reason and not counted, as
# the Shootout does: the Super Game Boy on gpuvet and Gambatte, and on Gambatte a DMG
# cartridge as a CGB (this core's hardware option offers Auto, GB and GBA: Auto picks the
# CGB only for cartridges marked for it). Writes RESULTS (--results; default
# bench/results/<date>-gb-accuracy): machine.txt, results.tsv (every test, every
# emulator's verdict) and summary.md, the counts per suite beside the published ones,
# which --out also puts into the page. ACC_SHOTS=DIR keeps the screenshots there;
# ACC_PEERS (default "gambatte mgba") names the peers to run, "" none; ACC_SHOOTOUT_REV
# names the Shootout's commit where DIR is a copy, not a checkout.

# published NAME: the counts per suite (acid blargg mooneye samesuite mealybug total) of an
# emulator on the Shootout's published results page, gbdev.io/GBEmulatorShootout ("-": not
# known here; DocBoy's per suite only for mealybug).
published() {
  case $1 in
  SameBoy) echo "5 51 95 66 15 232" ;;
  DocBoy) echo "- - - - 24 237" ;;
  esac
}

# so_shot EMULATOR ROM MODEL FRAMES BASE: the emulator's last frame as BASE.png; else
# BASE.skip, why the test cannot run there (not counted), or BASE.error, the emulator's last
# words when it refused the ROM or drew nothing (a failure).
so_shot() {
  e=$1 rom=$2 model=$3 frames=$4 base=$5
  if [ "$rom" = - ]; then
    echo "the ROM is not in the Shootout copy (a large file it lacks)" >"$base.skip"
    return
  fi
  case $e:$model in
  gpuvet:SGB | gambatte:SGB)
    echo "no Super Game Boy" >"$base.skip"
    return ;;
  gambatte:CGB)
    if [ "$(od -An -tu1 -j323 -N1 "$rom" | tr -d ' ')" -lt 128 ]; then
      echo "the core runs a DMG cartridge only as a DMG" >"$base.skip"
      return
    fi ;;
  esac
  case $e:$model in
  gpuvet:*) "$G" run gb "$rom" --model "$(echo "$model" | tr A-Z a-z)" --frames "$frames" --png "$base.png" \
    --audio none --no-battery -q ;;
  gambatte:*) "$host" --screenshot "$peers/gambatte_libretro.so" "$rom" "$frames" "$base.png" \
    "gambatte_gb_hwmode=$([ "$model" = DMG ] && echo GB || echo Auto)" gambatte_gbc_color_correction=disabled ;;
  mgba:*) "$host" --screenshot "$peers/mgba_libretro.so" "$rom" "$frames" "$base.png" \
    "mgba_gb_model=$(case $model in DMG) echo Game Boy ;; CGB) echo Game Boy Color ;; *) echo Super Game Boy ;; esac)" \
    mgba_sgb_borders=OFF ;;
  esac >"$tmp/log" 2>&1
  if [ ! -s "$base.png" ]; then # refused or stopped: a failure, as a blank window would be
    tail -n 1 "$tmp/log" >"$base.error"
    rm -f "$base.png"
  fi
}

run_shootout() {
  [ -n "$PY" ] || { echo "accuracy.sh: --shootout needs python3" >&2; exit 2; }
  gbuild=${GV_BUILD:-$(dirname "$(readlink -f "$G")")}
  host=$gbuild/tests/test_libretro
  peers=${LIBRETRO_PEERS:-/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/libretro}
  res=${resdir:-$here/bench/results/$(date -u +%Y-%m-%d)-gb-accuracy}
  emus=gpuvet
  for p in ${ACC_PEERS-gambatte mgba}; do
    if [ ! -x "$host" ]; then
      echo "accuracy.sh: $host is missing (make tests): $p left out" >&2
    elif [ ! -f "$peers/${p}_libretro.so" ]; then
      echo "accuracy.sh: $peers/${p}_libretro.so is missing (apt-get install libretro-$p): left out" >&2
    else
      emus="$emus $p"
    fi
  done
  "$PY" "$here/bench/gb_shootout.py" list "$sodir" >"$tmp/tests" || exit 2
  shots=${ACC_SHOTS:-$tmp/shots}
  for e in $emus; do mkdir -p "$shots/$e" || exit 2; done
  mkdir -p "$res" || exit 2
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) usable cores"
    echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(uname -r)"
    echo "gpuvet: $("$G" --version 2>&1 | head -n 1), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
    for p in gambatte mgba; do
      echo "peer: ${p}_libretro.so, Debian package libretro-$p $(dpkg-query -W -f='${Version}' "libretro-$p" 2>/dev/null || echo 'not installed')"
    done
    rev=$(git -C "$sodir" rev-parse --short HEAD 2>/dev/null || echo "${ACC_SHOOTOUT_REV:-not a git checkout}")
    echo "shootout: gbdev/GBEmulatorShootout at commit $rev (read from a copy named $(basename "$sodir"))"
  } >"$res/machine.txt"
  tab=$(printf '\t')
  while IFS=$tab read -r _suite _name key rom model frames _feat; do
    for e in $emus; do so_shot "$e" "$rom" "$model" "$frames" "$shots/$e/$key"; done
  done <"$tmp/tests"
  # shellcheck disable=SC2086
  "$PY" "$here/bench/gb_shootout.py" judge "$sodir" "$shots" "$res" $emus >"$tmp/counts" || exit 2
  when="$(date -u +%Y-%m-%d), gpuvet $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
  rel=${res#"$here"/}
  {
    echo
    echo "## Game Boy: the GB Emulator Shootout's suites"
    echo
    peers_text=$(sed -n 's/^peer: [a-z]*_libretro.so, Debian package //p' "$res/machine.txt" | paste -sd ';' | sed 's/;/; /g')
    cat <<EOF
Written by \`bench/accuracy.sh --shootout\` ($when). The five suites of the GB
Emulator Shootout (gbdev/GBEmulatorShootout: acid, blargg, mooneye, samesuite,
mealybug-tearoom-tests) judged its way: each test runs on its model (DMG, CGB) for its run
time plus the 5 s the Shootout's runner waits beyond it (in frames of the machine), and
its last frame passes when its 8-bit luma is nowhere more than 50 from the picture the
suite ships; a test without a picture counts as passed, as in the Shootout's tally. Cells
are passed / run: a test an emulator cannot run (the Super Game Boy; on Gambatte a DMG
cartridge as a CGB; a ROM missing from the copy of the suites) is skipped, as the
Shootout skips it, and a ROM an emulator refuses is a failure. Gambatte and mGBA are
Debian's libretro cores ($peers_text), run here through the tree's headless frontend.
SameBoy's and DocBoy's columns are the counts of the Shootout's published results page
(gbdev.io/GBEmulatorShootout), not measured here; the Shootout's repository (its README)
publishes no counts to check them against. Every test's verdict for each emulator:
\`$rel/results.tsv\`; the machine: \`$rel/machine.txt\`.

EOF
    printf '| suite | tests listed |'
    for e in $emus; do
      case $e in gambatte) printf ' Gambatte (Debian) |' ;; mgba) printf ' mGBA (Debian) |' ;; *) printf ' %s |' "$e" ;; esac
    done
    echo " SameBoy (published) | DocBoy (published) |"
    printf '| --- | ---: |'
    for e in $emus; do printf ' ---: |'; done
    echo " ---: | ---: |"
    i=1
    for suite in acid blargg mooneye samesuite mealybug total; do
      listed=$(awk -F'\t' -v s="$suite" 's == "total" || $1 == s' "$tmp/tests" | wc -l)
      printf '| %s | %d |' "$suite" "$listed"
      for e in $emus; do
        awk -F'\t' -v s="$suite" -v e="$e" '$1 == s && $2 == e { printf " %d / %d |", $3, $4 }' "$tmp/counts"
      done
      echo " $(published SameBoy | cut -d' ' -f$i) | $(published DocBoy | cut -d' ' -f$i) |"
      i=$((i + 1))
    done
  } >"$tmp/section"
  cp "$tmp/section" "$res/summary.md" || exit 3
  if [ -n "$out" ]; then page_put shootout "$tmp/section"; else cat "$tmp/section"; fi
  awk -F'\t' '$1 == "total" { print $2 ": " $3 " of " $4 " passed" }' "$tmp/counts" >&2
  exit 0
}
[ -z "$sodir" ] || run_shootout
npass=0
nfail=0
nlim=0

# run_console CONSOLE DIR SUITES: one table, counts added to npass/nfail/nlim.
run_console() {
  con=$1
  dir=$2
  echo "| suite | ROM | model | result | message | protocol |"
  echo "| --- | --- | --- | --- | --- | --- |"
  for suite in $3; do
    spec=$(suite_roms "$con" "$suite")
    if [ -z "$spec" ]; then
      echo "accuracy.sh: unknown $con suite '$suite'" >&2
      exit 2
    fi
    models=${spec%%|*}
    pats=${spec#*|}
    found=0
    # The file names have spaces: expand the patterns inside DIR, one name a line.
    (cd "$dir" && for p in $pats; do [ -f "$p" ] && printf '%s\n' "$p"; done) >"$tmp/list"
    while IFS= read -r rom; do
      found=1
      for m in $models; do
        mflag=
        [ "$m" = - ] || mflag="--model $m"
        xflag=$(rom_flags "$rom")
        # --no-battery: nothing is written beside the ROMs; the verdict line is the last
        # "test ROM:" line of the output.
        # shellcheck disable=SC2086
        "$G" run "$dir/$rom" $mflag $xflag --test-rom --frames "$FR" --video none --audio none \
          --no-battery -q >"$tmp/out" 2>&1
        rc=$?
        line=$(grep '^test ROM: ' "$tmp/out" | tail -n 1 | sed 's/^test ROM: //')
        [ -n "$line" ] || line="error: $(tail -n 1 "$tmp/out")"
        verdict=FAIL
        proto=none
        msg=$line
        fnt=$dir/$(font "$con" "$rom")
        case $line in
        "passed ("* | "failed ("*)
          [ "${line%% *}" = passed ] && [ "$rc" -eq 0 ] && verdict=pass
          # "passed (serial output): text" -> protocol and message apart
          proto=$(printf '%s' "$line" | sed -n 's/^[a-z]* (\([^)]*\)).*/\1/p')
          msg=$(printf '%s' "$line" | sed 's/^[a-z]* ([^)]*)//; s/^: //')
          ;;
        "no verdict after"*)
          # no status block, serial verdict or signature: read the ROM's own screen
          # shellcheck disable=SC2086
          if [ -n "$PY" ] && [ -f "$fnt" ] &&
            "$G" run "$dir/$rom" $mflag $xflag --frames "$SFR" --png "$tmp/last.png" --audio none \
              --no-battery -q >/dev/null 2>&1 &&
            "$PY" "$here/bench/screen_text.py" "$tmp/last.png" "$fnt" >"$tmp/screen" 2>/dev/null; then
            proto="screen text"
            msg=$(cat "$tmp/screen")
            if grep -qiE '^ *Passed *$' "$tmp/screen" && ! grep -qi 'Failed' "$tmp/screen"; then
              verdict=pass
            fi
            known=$(crcs "$rom")
            case $rom in
            blargg_apu_2005*)
              # these print only a result code; "1 always indicates that all tests were
              # passed" (tests.txt)
              grep -qE '^ *[$]01 *$' "$tmp/screen" && verdict=pass
              msg="result code $msg" ;;
            pal_apu_tests/*)
              # "reports the result on screen and by beeping a number of times" (its
              # readme; 1 = passed). Its console set-up runs inside the PPU's write lock
              # after power-on on a PAL console (docs/NES.md "Regions"), so when the screen
              # shows no verdict the beeps are the ROM's report.
              if ! grep -qiE 'Passed|Failed' "$tmp/screen"; then
                # shellcheck disable=SC2086
                if "$G" run "$dir/$rom" $mflag $xflag --frames "$SFR" --video none --wav "$tmp/last.wav" \
                  --no-battery -q >/dev/null 2>&1 &&
                  "$PY" "$here/bench/beeps.py" "$tmp/last.wav" >"$tmp/beeps" 2>&1; then
                  proto="beeps"
                  msg="$(cat "$tmp/beeps") (the screen: ${msg:-no text})"
                  grep -qx '1 beeps' "$tmp/beeps" && verdict=pass
                else
                  msg="no Passed/Failed on the screen and the beeps could not be counted: $msg"
                fi
              fi ;;
            *)
              if [ -n "$known" ]; then
                for c in $known; do grep -q "$c" "$tmp/screen" && verdict=pass; done
                msg="$msg (the source lists as right: $known)"
              else
                grep -qiE 'Passed|Failed' "$tmp/screen" || msg="no Passed/Failed on the screen: $msg"
              fi ;;
            esac
          else
            msg="$line (and the screen could not be read: python3 and $fnt are needed)"
          fi
          ;;
        esac
        why=$(limitation "$rom")
        if [ "$verdict" = pass ]; then
          npass=$((npass + 1))
        elif [ -n "$why" ]; then
          verdict=n/a
          msg="$why; gpuvet: $msg"
          nlim=$((nlim + 1))
        else
          nfail=$((nfail + 1))
        fi
        mcol=${m#-}
        [ -z "$xflag" ] || mcol=$(printf '%s %s' "$mcol" "$xflag" | sed 's/^ //')
        echo "| $suite | $rom | $mcol | $verdict | $(one_line "$msg") | $proto |"
      done
    done <"$tmp/list"
    if [ "$found" -eq 0 ]; then
      echo "| $suite | (no ROM found under $dir) | - | FAIL | missing | none |"
      nfail=$((nfail + 1))
    fi
  done
}

{
  echo "# Emulation accuracy"
  echo
  echo "Game Boy against other emulators: the last section, the GB Emulator Shootout's suites"
  echo "(\`bench/accuracy.sh --shootout\`). First, blargg's test ROMs by their own verdicts."
  echo
  echo "Written by \`bench/accuracy.sh\` ($(date -u +%Y-%m-%d), gpuvet $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))."
  echo "Each ROM runs through \`gpuvet run ROM --test-rom\`; the result is the ROM's own verdict,"
  echo "read the way the ROM reports it (the protocol column). ROMs that report only on the"
  echo "screen are read off the picture with the suite's own font (\"screen text\"). \"n/a\" is a"
  echo "hardware variant or a documented limitation, with the reason. The suites are public"
  echo "(christopherpow/nes-test-roms, retrio/gb-test-roms) and not part of this tree."
  if [ -n "$nesdir" ]; then
    echo
    echo "## NES"
    echo
    run_console nes "$nesdir" "$NES_SUITES"
  fi
  if [ -n "$gbdir" ]; then
    echo
    echo "## Game Boy"
    echo
    run_console gb "$gbdir" "$GB_SUITES"
  fi
  echo
  echo "$npass passed, $nfail failed, $nlim n/a (hardware variants and limitations)"
  [ "$nfail" -eq 0 ] && echo 0 >"$tmp/rc" || echo 1 >"$tmp/rc"
} >"$tmp/page"
if [ -n "$out" ]; then
  page_put blargg "$tmp/page"
else
  cat "$tmp/page"
fi
[ -z "$out" ] || tail -n 1 "$tmp/page" >&2
exit "$(cat "$tmp/rc")"
