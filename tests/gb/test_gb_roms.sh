# The Game Boy workload end to end with gpuvet's own test ROMs (tests/roms/gb, built here
# with SDCC): test-ROM verdicts in DMG and CGB modes (quirks_test: the documented hardware
# quirks; apu_pcm_test: the APU channels at the M-cycle; compat_test: a DMG cartridge, on
# the CGB in DMG compatibility mode; mbc2_test, mbc1m_test: MBC2 and the MBC1M wiring;
# boot_test, boot_map_test, boot_cgb_test: VRAM as the boot ROM leaves it; hdma_test: an
# HBlank DMA started with the LCD off or in mode 0; serial_test: the serial clock's phase;
# dma_test: the OAM DMA's timing and bus conflicts; timing_test: when a HALT ends (DMG and
# CGB); stat_test: the PPU's mode and STAT timing as the CPU sees it; rtc_test, mbc7_test,
# huc1_test, huc3_test, mmm01_test, mmm01m_test: the MBC3's clock, the MBC7, HuC1, HuC3,
# MMM01), the boards' battery files (written, read back and written again byte for byte,
# their layouts, wrong sizes refused) and their state in save states, the verdicts of the
# serial-bytes form of the LD B,B protocol (proto_pass, proto_fail), the PPU scene, the
# compatibility picture and the mode-3 register writes (m3_test, m3w_test) against the pictures
# scene.py, compat.py and m3.py compute independently, the APU ROM's WAV
# against apu_spec.py's description, identical hashes across renderers and instance counts
# (device when a GPU is usable), bad input, save-state round trips, the trace layout and
# battery RAM.
. "$GV_ROOT/tests/lib.sh"
export OMP_WAIT_POLICY=passive # a shared CI core must not spin in OpenMP barriers
G=$GPUVET
S=$GV_ROOT/tests/roms/gb
PY=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null 2>&1; then PY=$p; break; fi
done
for tool in sdcc sdasgb makebin; do
  if ! command -v $tool >/dev/null 2>&1; then
    skip "gb test roms" "$tool not found: install the Debian package sdcc to build the Game Boy test ROMs"
    exit 0
  fi
done
if [ -z "$PY" ]; then
  skip "gb test roms" "no python3: the ROM generators and checkers need it"
  exit 0
fi
R=$GV_BUILD/roms/gb
if PYTHON=$PY sh "$S/build.sh" "$R" >"$T_TMP/build.log" 2>&1; then
  pass "gb roms build" "$(ls "$R"/*.gb | wc -l) ROMs built with sdcc -msm83 into $R"
else
  fail "gb roms build" "build.sh failed: $(grep -i error "$T_TMP/build.log" | head -n 2 | tr '\n' ' ')"
  exit 1
fi

# ---- test-ROM verdicts ---------------------------------------------------------------
# movie: the input a ROM needs (mbc7_test tilts the cartridge)
movie() { [ "$1" = mbc7_test ] && echo "--input $GV_ROOT/tests/emu/input_mbc7.txt"; }
for rom in cpu_test apu_test apu_pcm_test battery_test quirks_test compat_test mbc2_test mbc1m_test boot_test \
  boot_map_test boot_cgb_test hdma_test serial_test dma_test timing_test stat_test rtc_test mbc7_test huc1_test \
  huc3_test mmm01_test mmm01m_test; do
  for m in dmg cgb; do
    "$G" run gb "$R/$rom.gb" --model $m --test-rom --no-battery $(movie $rom) >"$T_TMP/out" 2>&1
    rc=$?
    model_ok=1
    # compat_test names the model it found at boot (A = $11: CGB hardware)
    if [ $rom = compat_test ] && ! grep -q "serial: \"compat_test $(echo $m | tr a-z A-Z)" "$T_TMP/out"; then model_ok=0; fi
    if [ $rc = 0 ] && [ $model_ok = 1 ] && grep -q '^test ROM: passed' "$T_TMP/out"; then
      pass "gb $rom $m" "$(grep '^test ROM:' "$T_TMP/out") $(grep -o 'checks [0-9A-F]* failures [0-9A-F]*' "$T_TMP/out")"
    else
      fail "gb $rom $m" "exit $rc: $(grep -E '^(serial|test ROM)' "$T_TMP/out" | tr '\n' ' ')"
    fi
  done
done

# the protocol of older mooneye builds: the verdict only in the six serial bytes before LD B,B
for v in "proto_pass 0 passed" "proto_fail 1 failed"; do
  set -- $v
  "$G" run gb "$R/$1.gb" --test-rom --no-battery >"$T_TMP/out" 2>&1
  rc=$?
  line=$(grep '^test ROM:' "$T_TMP/out")
  if [ $rc = "$2" ] && [ "$line" = "test ROM: $3 (LD B,B signature: serial bytes)" ]; then
    pass "gb --test-rom $1" "exit $rc, $line"
  else
    fail "gb --test-rom $1" "exit $rc (want $2), '$line' (want $3 from the serial bytes)"
  fi
done

# ---- the PPU scene and the APU sequence against their independent descriptions -------
for m in dmg cgb; do
  "$G" run gb "$R/ppu_scene.gb" --model $m --frames 30 --png "$T_TMP/scene_$m.png" -q >/dev/null 2>&1
  if msg=$("$PY" "$S/scene.py" check $m "$T_TMP/scene_$m.png" 2>&1); then
    pass "gb ppu scene $m picture" "$msg"
  else
    fail "gb ppu scene $m picture" "$msg"
  fi
  "$G" run gb "$R/apu_test.gb" --model $m --frames 400 --wav "$T_TMP/apu_$m.wav" -q >/dev/null 2>&1
  "$PY" "$S/apu_spec.py" check "$T_TMP/apu_$m.wav" "gb apu $m"
  if [ $m = dmg ]; then # the dots of mode 3 are the DMG's (the CGB's differ: mealybug's pictures)
    "$G" run gb "$R/m3_test.gb" --model dmg --frames 30 --png "$T_TMP/m3.png" -q >/dev/null 2>&1
    if msg=$("$PY" "$S/m3.py" check "$T_TMP/m3.png" 2>&1); then
      pass "gb mode-3 writes picture dmg" "$msg"
    else
      fail "gb mode-3 writes picture dmg" "$msg"
    fi
    "$G" run gb "$R/m3w_test.gb" --model dmg --frames 30 --png "$T_TMP/m3w.png" -q >/dev/null 2>&1
    if msg=$("$PY" "$S/m3.py" check "$T_TMP/m3w.png" w 2>&1); then
      pass "gb mode-3 window fetch picture dmg" "$msg"
    else
      fail "gb mode-3 window fetch picture dmg" "$msg"
    fi
  fi
  "$G" run gb "$R/compat_test.gb" --model $m --frames 60 --png "$T_TMP/compat_$m.png" -q >/dev/null 2>&1
  if msg=$("$PY" "$S/compat.py" check $m "$T_TMP/compat_$m.png" 2>&1); then
    pass "gb compat picture $m" "$msg"
  else
    fail "gb compat picture $m" "$msg"
  fi
done

# ---- renderers agree: native, host (1 and 3 instances), device -------------------------
hashes() { # rom model frames renderer instances
  "$G" run gb "$R/$1.gb" --model "$2" --frames "$3" --video "$4" --audio "$4" --instances "$5" -q 2>"$T_TMP/err" |
    grep -E '^(video|audio)_hash' | tr '\n' ' '
}
device=0
if "$G" smoke >/dev/null 2>&1; then device=1; fi
for rom in cpu_test ppu_scene apu_test quirks_test compat_test m3_test m3w_test; do
  for m in dmg cgb; do
    ref=$(hashes $rom $m 240 native 1)
    for cfg in "host 1" "host 3"; do
      set -- $cfg
      got=$(hashes $rom $m 240 "$1" "$2")
      if [ -n "$ref" ] && [ "$got" = "$ref" ]; then
        pass "gb $rom $m $1 x$2 == native" "$got"
      else
        fail "gb $rom $m $1 x$2 == native" "native: $ref; $1: $got $(head -n 1 "$T_TMP/err")"
      fi
    done
    if [ $device = 1 ]; then
      for n in 1 8; do
        got=$(hashes $rom $m 240 device $n)
        if [ "$got" = "$ref" ]; then pass "gb $rom $m device x$n == native" "$got"
        else fail "gb $rom $m device x$n == native" "native: $ref; device: $got $(head -n 1 "$T_TMP/err")"; fi
      done
    fi
  done
done
if [ $device = 0 ]; then
  skip_gpu "gb device renderers" "no usable GPU here ('gpuvet smoke' fails): device hashes are checked by bench/gb/run_h200.sh"
  expect_exit "gb --video device without a GPU" 3 "$G" run gb "$R/cpu_test.gb" --frames 2 --video device
fi

# ---- bad input: one line on stderr, exit 2 ---------------------------------------------
head -c 300 "$R/cpu_test.gb" >"$T_TMP/trunc.gb"
expect_exit "gb truncated ROM" 2 "$G" run gb "$T_TMP/trunc.gb"
expect_exit "gb refuses --mmc3-rev (a NES chip)" 2 "$G" run gb "$R/cpu_test.gb" --mmc3-rev A --frames 1
cp "$R/cpu_test.gb" "$T_TMP/sum.gb"
printf '\125' | dd of="$T_TMP/sum.gb" bs=1 seek=$((0x14D)) conv=notrunc 2>/dev/null
expect_exit "gb bad header checksum" 2 "$G" run gb "$T_TMP/sum.gb"
cp "$R/cpu_test.gb" "$T_TMP/mbc6.gb"
"$PY" "$S/gbfix.py" "$T_TMP/mbc6.gb" --title MBC6 --type 0x20
expect_exit "gb unknown MBC" 2 "$G" run gb "$T_TMP/mbc6.gb"
# a DMG-only cartridge on the CGB runs in DMG compatibility mode, from the registers of
# Pan Docs' "CGB (DMG mode)" column (not a Nintendo licensee: B 0, HL $007C)
cp "$R/cpu_test.gb" "$T_TMP/dmgonly.gb"
"$PY" "$S/gbfix.py" "$T_TMP/dmgonly.gb" --title DMGONLY --cgb 0
"$G" run gb "$T_TMP/dmgonly.gb" --model cgb --frames 2 --trace "$T_TMP/compat.trace" -q >/dev/null 2>&1
first=$(head -n 1 "$T_TMP/compat.trace")
case $first in
"A:11 F:80 B:00 C:00 D:00 E:08 H:00 L:7C SP:FFFE PC:0100 "*) pass "gb DMG-only ROM on --model cgb" "runs in compatibility mode: $first" ;;
*) fail "gb DMG-only ROM on --model cgb" "first trace line: '$first'" ;;
esac
: >"$T_TMP/empty.gb"
expect_exit "gb empty ROM" 2 "$G" run gb "$T_TMP/empty.gb"
expect_exit "gb missing ROM" 2 "$G" run gb "$T_TMP/nonexistent.gb"
expect_exit "gb bad --video" 2 "$G" run gb "$R/cpu_test.gb" --video fancy
expect_exit "gb bad --frames" 2 "$G" run gb "$R/cpu_test.gb" --frames 0
expect_exit "gb bench bad --instances" 2 "$G" bench gb "$R/cpu_test.gb" --instances 1,x

# ---- save states ------------------------------------------------------------------------
for rm in "apu_test cgb" "ppu_scene dmg" "compat_test cgb" "quirks_test dmg"; do
  set -- $rm
  "$G" run gb "$R/$1.gb" --model $2 --frames 200 --save-state "$T_TMP/s3" --png "$T_TMP/p3.png" --wav "$T_TMP/w3.wav" -q >/dev/null
  "$G" run gb "$R/$1.gb" --model $2 --frames 120 --save-state "$T_TMP/s1" -q >/dev/null
  "$G" run gb "$R/$1.gb" --model $2 --load-state "$T_TMP/s1" --frames 80 --save-state "$T_TMP/s2" \
    --png "$T_TMP/p2.png" --wav "$T_TMP/w2.wav" -q >/dev/null
  n=$(($(wc -c <"$T_TMP/w2.wav") - 44))
  tail -c $n "$T_TMP/w3.wav" >"$T_TMP/t3"
  tail -c $n "$T_TMP/w2.wav" >"$T_TMP/t2"
  if cmp -s "$T_TMP/s2" "$T_TMP/s3" && cmp -s "$T_TMP/p2.png" "$T_TMP/p3.png" && cmp -s "$T_TMP/t2" "$T_TMP/t3"; then
    pass "gb save state $1 $2" "120 frames, save, load, 80 frames == 200 frames: state bytes, last PNG and $n audio bytes identical"
  else
    fail "gb save state $1 $2" "state $(cmp "$T_TMP/s2" "$T_TMP/s3" >/dev/null && echo same || echo differs), png $(cmp "$T_TMP/p2.png" "$T_TMP/p3.png" >/dev/null && echo same || echo differs), audio $(cmp "$T_TMP/t2" "$T_TMP/t3" >/dev/null && echo same || echo differs)"
  fi
done
cp "$T_TMP/s1" "$T_TMP/bad_state"
printf 'X' | dd of="$T_TMP/bad_state" bs=1 seek=5000 conv=notrunc 2>/dev/null
expect_exit "gb corrupt save state" 2 "$G" run gb "$R/ppu_scene.gb" --model dmg --load-state "$T_TMP/bad_state"
head -c 1000 "$T_TMP/s1" >"$T_TMP/short_state"
expect_exit "gb truncated save state" 2 "$G" run gb "$R/ppu_scene.gb" --model dmg --load-state "$T_TMP/short_state"
expect_exit "gb save state of another ROM" 2 "$G" run gb "$R/cpu_test.gb" --model dmg --load-state "$T_TMP/s1"

# ---- trace layout ----------------------------------------------------------------------
"$G" run gb "$R/cpu_test.gb" --model dmg --frames 2 --trace "$T_TMP/trace.txt" -q >/dev/null
lines=$(wc -l <"$T_TMP/trace.txt")
bad=$(grep -Evc '^A:[0-9A-F]{2} F:[0-9A-F]{2} B:[0-9A-F]{2} C:[0-9A-F]{2} D:[0-9A-F]{2} E:[0-9A-F]{2} H:[0-9A-F]{2} L:[0-9A-F]{2} SP:[0-9A-F]{4} PC:[0-9A-F]{4} PCMEM:[0-9A-F]{2},[0-9A-F]{2},[0-9A-F]{2},[0-9A-F]{2}$' "$T_TMP/trace.txt")
if [ "$lines" -gt 1000 ] && [ "$bad" = 0 ] && head -n 1 "$T_TMP/trace.txt" | grep -q '^A:01 F:B0 B:00 C:13 D:00 E:D8 H:01 L:4D SP:FFFE PC:0100'; then
  pass "gb trace" "$lines lines, all in the Gameboy Doctor layout, first = DMG post-boot registers"
else
  fail "gb trace" "$lines lines, $bad not in the layout; first: $(head -n 1 "$T_TMP/trace.txt")"
fi

# ---- battery RAM -----------------------------------------------------------------------
bat=$T_TMP/bat.sav
"$G" run gb "$R/battery_test.gb" --battery "$bat" --test-rom -q >"$T_TMP/b1" 2>&1
"$G" run gb "$R/battery_test.gb" --battery "$bat" --test-rom -q >"$T_TMP/b2" 2>&1
if grep -q 'boot 01' "$T_TMP/b1" && grep -q 'boot 02' "$T_TMP/b2" && [ "$(wc -c <"$bat")" = 32768 ]; then
  pass "gb battery" "boot counter 1 then 2 through a 32 KiB battery file"
else
  fail "gb battery" "$(grep serial "$T_TMP/b1") / $(grep serial "$T_TMP/b2"), file $(wc -c <"$bat" 2>/dev/null) bytes"
fi
head -c 100 "$bat" >"$T_TMP/bat_short"
expect_exit "gb battery file of the wrong size" 2 "$G" run gb "$R/battery_test.gb" --battery "$T_TMP/bat_short"

# ---- the boards' battery files: written, read back, written again byte for byte ----------
# Each ROM reports "new save" on a blank battery and "save restored" when it finds what it
# left; it always leaves the same contents, so the second run's file equals the first's.
for v in "rtc_test 32816" "mbc7_test 256" "huc1_test 32768" "huc3_test 32904" "mmm01_test 131072" \
  "mmm01m_test 131072"; do
  set -- $v
  sav=$T_TMP/$1.sav
  rm -f "$sav"
  "$G" run gb "$R/$1.gb" --test-rom --battery "$sav" $(movie $1) >"$T_TMP/r1" 2>&1
  rc1=$?
  cp "$sav" "$T_TMP/$1.first" 2>/dev/null
  "$G" run gb "$R/$1.gb" --test-rom --battery "$sav" $(movie $1) >"$T_TMP/r2" 2>&1
  rc2=$?
  if [ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q 'new save' "$T_TMP/r1" && grep -q 'save restored' "$T_TMP/r2" &&
    [ "$(wc -c <"$sav")" = "$2" ] && cmp -s "$sav" "$T_TMP/$1.first"; then
    pass "gb battery round trip $1" "$2-byte file: 'new save', then 'save restored' and the same $2 bytes written back"
  else
    fail "gb battery round trip $1" "exits $rc1 $rc2, $(wc -c <"$sav" 2>/dev/null) bytes (want $2), $(cmp "$sav" "$T_TMP/$1.first" 2>&1 | head -n 1); $(grep -h '^serial' "$T_TMP/r1" "$T_TMP/r2" | tr '\n' ' ')"
  fi
done
# what the files hold where docs/GB.md says: the MBC3 clock's 48-byte footer (12:34:56 on
# day $155, halted: S M H DL DH as 32-bit words, then the latched copy, then a timestamp of 0),
# the HuC3 MCU's minute 100 of day 200 at nibbles $10-$15, and the MMM01's markers in the RAM
# banks that its registers select: 6 and 7, and 13 when multiplexed
foot=$(tail -c 48 "$T_TMP/rtc_test.sav" | od -An -tu1 | tr -s ' \n' ' ')
huc=$(tail -c 136 "$T_TMP/huc3_test.sav" | od -An -tx1 -j 8 -N 3 | tr -d ' \n')
mk() { od -An -tx1 -j $(($2 * 8192)) -N 1 "$T_TMP/$1.sav" | tr -d ' \n'; }
if [ "$foot" = " 56 0 0 0 34 0 0 0 12 0 0 0 85 0 0 0 65 0 0 0 56 0 0 0 34 0 0 0 12 0 0 0 85 0 0 0 65 0 0 0 0 0 0 0 0 0 0 0 " ] &&
  [ "$huc" = 64800c ] && [ "$(mk mmm01_test 6)$(mk mmm01_test 7)$(mk mmm01m_test 13)$(mk mmm01m_test 6)" = 66775500 ]; then
  pass "gb battery file layouts" "MBC3 footer S M H DL DH 56 34 12 \$55 \$41 twice and timestamp 0; HuC3 nibbles \$10-\$15 $huc (minute 100, day 200); MMM01 markers in RAM banks 6, 7, 13"
else
  fail "gb battery file layouts" "MBC3 footer:$foot; HuC3 \$10-\$15: $huc; MMM01 banks 6 7 13: $(mk mmm01_test 6) $(mk mmm01_test 7) $(mk mmm01m_test 13)"
fi
# an MBC3 footer with a 32-bit timestamp (44 bytes) is read, and written back in 48
head -c 32812 "$T_TMP/rtc_test.sav" >"$T_TMP/rtc44.sav"
"$G" run gb "$R/rtc_test.gb" --test-rom --battery "$T_TMP/rtc44.sav" >"$T_TMP/r3" 2>&1
if [ $? = 0 ] && grep -q 'save restored' "$T_TMP/r3" && [ "$(wc -c <"$T_TMP/rtc44.sav")" = 32816 ]; then
  pass "gb MBC3 44-byte clock footer" "read ('save restored'), written back as the 48-byte form"
else
  fail "gb MBC3 44-byte clock footer" "$(grep -E '^(serial|gpuvet)' "$T_TMP/r3" | tr '\n' ' ') $(wc -c <"$T_TMP/rtc44.sav") bytes"
fi
head -c 32800 "$T_TMP/rtc_test.sav" >"$T_TMP/rtc_bad.sav"
cp "$T_TMP/rtc_bad.sav" "$T_TMP/rtc_bad.keep"
expect_exit "gb MBC3 clock file of the wrong size" 2 "$G" run gb "$R/rtc_test.gb" --battery "$T_TMP/rtc_bad.sav" --frames 2
if cmp -s "$T_TMP/rtc_bad.sav" "$T_TMP/rtc_bad.keep"; then pass "gb refused battery file kept" "32800 bytes, untouched"
else fail "gb refused battery file kept" "the refused file changed"; fi
head -c 255 "$T_TMP/mbc7_test.sav" >"$T_TMP/ee_bad.sav"
expect_exit "gb MBC7 EEPROM file of the wrong size" 2 "$G" run gb "$R/mbc7_test.gb" --battery "$T_TMP/ee_bad.sav" --frames 2
head -c 32900 "$T_TMP/huc3_test.sav" >"$T_TMP/huc_bad.sav"
expect_exit "gb HuC3 clock file of the wrong size" 2 "$G" run gb "$R/huc3_test.gb" --battery "$T_TMP/huc_bad.sav" --frames 2

# ---- the boards' state in save states: saved mid-test, loaded, the test goes on -----------
# (rtc_test waits on its clock for about 590 frames, huc3_test about 3650, mbc7_test tilts at
# frames 30 and 60: a state from the middle carries the clock, the MCU, the latches, the
# EEPROM's command in flight and the tilt)
for v in "rtc_test 300 100" "huc3_test 1800 1000" "mbc7_test 40 30" "mmm01m_test 3 2"; do
  set -- $v
  "$G" run gb "$R/$1.gb" --frames $(($2 + $3)) --no-battery $(movie $1) --save-state "$T_TMP/b3" -q >/dev/null 2>&1
  "$G" run gb "$R/$1.gb" --frames $2 --no-battery $(movie $1) --save-state "$T_TMP/b1" -q >/dev/null 2>&1
  "$G" run gb "$R/$1.gb" --frames $3 --no-battery $(movie $1) --load-state "$T_TMP/b1" --save-state "$T_TMP/b2" -q >/dev/null 2>&1
  "$G" run gb "$R/$1.gb" --test-rom --no-battery $(movie $1) --load-state "$T_TMP/b1" >"$T_TMP/out" 2>&1
  rc=$?
  if [ $rc = 0 ] && cmp -s "$T_TMP/b2" "$T_TMP/b3" && grep -q '^test ROM: passed' "$T_TMP/out"; then
    pass "gb save state $1" "$2 frames, save, load, $3 frames == $(($2 + $3)) frames (state bytes identical); from the state the ROM passes"
  else
    fail "gb save state $1" "exit $rc, states $(cmp -s "$T_TMP/b2" "$T_TMP/b3" && echo same || echo differ): $(grep '^test ROM' "$T_TMP/out")"
  fi
done

# ---- headers naming a board with sizes it cannot have: one line, exit 2 ----------------------
for v in "0xFE 4096 HuC3" "0x22 4096 MBC7" "0x10 8192 MBC3"; do
  set -- $v
  cp "$R/cpu_test.gb" "$T_TMP/big.gb"
  "$PY" "$S/gbfix.py" "$T_TMP/big.gb" --title BIG --type $1 --romsize $2
  expect_exit "gb $3 with $2 KiB of ROM" 2 "$G" run gb "$T_TMP/big.gb" --frames 1 --no-battery
done
# an MMM01 dumped menu first is loaded in the cartridge's order, and the ROM passes
tail -c 32768 "$R/mmm01_test.gb" >"$T_TMP/mmm01_menu_first.gb"
head -c $((8388608 - 32768)) "$R/mmm01_test.gb" >>"$T_TMP/mmm01_menu_first.gb"
"$G" run gb "$T_TMP/mmm01_menu_first.gb" --test-rom --no-battery >"$T_TMP/out" 2>&1
if [ $? = 0 ] && grep -q '^test ROM: passed' "$T_TMP/out"; then
  pass "gb MMM01 dumped menu first" "$(grep '^test ROM' "$T_TMP/out" | cut -c1-100)"
else
  fail "gb MMM01 dumped menu first" "$(grep -E '^(test ROM|gpuvet)' "$T_TMP/out")"
fi
tail -c 65536 "$R/mmm01_test.gb" >"$T_TMP/mmm01_small.gb"
expect_exit "gb MMM01 image smaller than its menu's header says" 2 "$G" run gb "$T_TMP/mmm01_small.gb" --frames 1
