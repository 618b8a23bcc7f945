# NES: our test ROMs (the console's and one per cartridge board) through `gpuvet run nes`:
# each passes its own checks; the native, host
# and device renderers give identical video and audio hashes (device only where a GPU
# build and a GPU are present); instances agree; save states round-trip; the trace follows
# the nestest layout; bad input gets one line and exit 2; battery RAM is saved.
. "$GV_ROOT/tests/lib.sh"

roms="$GV_BUILD/roms/nes"
sh "$GV_ROOT/tests/nes/build_roms.sh" "$roms" 2>"$T_TMP/build.err"
rc=$?
if [ $rc = 3 ]; then
  skip "NES test ROMs" "ca65/ld65 are not installed (Debian package cc65)"
  exit 0
elif [ $rc != 0 ]; then
  fail "NES test ROMs" "build_roms.sh failed: $(head -n 3 "$T_TMP/build.err")"
  exit 1
fi
pass "NES test ROMs" "built with ca65/ld65 into $roms"

# The device renderer must work where a GPU comes up (gpuvet smoke passes); elsewhere its
# checks are skipped with the reason the device run gives.
if "$GPUVET" smoke -q >/dev/null 2>&1; then gpu=1; else gpu=0; fi

# frames to run each ROM for: the CPU test's whole run, the MMC5 sound ROM's screen and sound, the
# others past their first splits
frames_of() {
  case $1 in cpu_test) echo 620 ;; apu_test) echo 245 ;; mmc5x) echo 300 ;; *) echo 30 ;; esac
}

# hashes ROM FRAMES VIDEO AUDIO [more flags]: prints "video audio" hashes, or "rc=N"
hashes() {
  rom=$1; n=$2; v=$3; a=$4; shift 4
  "$GPUVET" run nes "$roms/$rom.nes" --frames "$n" --video "$v" --audio "$a" -q "$@" >"$T_TMP/h.out" 2>"$T_TMP/h.err"
  r=$?
  if [ $r != 0 ]; then echo "rc=$r $(head -n 1 "$T_TMP/h.err")"; return; fi
  echo "$(awk '/^video_hash/ {print $2}' "$T_TMP/h.out") $(awk '/^audio_hash/ {print $2}' "$T_TMP/h.out")"
}

# judge_device NAME GOT REF FRAMES: hashes of a run with a device renderer against native's
# (a skip, with the reason, only where no GPU comes up)
judge_device() {
  case "$2" in
    "$3") pass "$1" "hashes equal native's over $4 frames" ;;
    "rc=3 "*) if [ $gpu = 0 ]; then skip_gpu "$1" "no GPU (gpuvet smoke fails): ${2#rc=3 }"
              else fail "$1" "gpuvet smoke passes but the device renderer cannot run: ${2#rc=3 }"; fi ;;
    *) fail "$1" "got '$2', native/native gave '$3'" ;;
  esac
}

# the board test ROMs (tests/roms/nes/*_test.s, one per board): NROM-368 and the boards whose
# register fills $6000-$7FFF (j87 jf11 jf13 sunsoft1) have no PRG-RAM for a status block
# (test_nes_carts.c reads their result from CPU RAM)
nostatus="nrom368 j87 jf11 jf13 sunsoft1"
nostatus="$nostatus x1005 x1005b" # the X1-005: nothing at $6000 (its RAM is at $7F00)
nostatus="$nostatus fcg4 fcg5 fcg159 namco340"
boards="colordreams cprom bnrom nina001 gxrom camerica sxrom txsrom tqrom namco108 mmc2 mmc4 vrc4a vrc2a vrc4e vrc4b fme7
  uxrom cnrom axrom bandai70 bandai152 irem78a irem78b sunsoft89 sunsoft93 un1rom unrom180 tams1 quattro jf17 jf19 nina03 vrc6a vrc6b mmc5
  mmc5x vrc7a vrc7b
  g101 g101ml h3001
  tc0190 tc0690 x1017
  sunsoft3 sunsoft4
  vrc1 vrc3
  namco3446 namco3443 namco3453 namco3425
  cnrom185 cnrom185s4 cnrom185s5 cnrom185s6 cnrom185s7
  $nostatus"
boards="$boards fcg153 ss88006 rambo1 namco175 n163"
# flags a ROM's verdict run needs: acc2_test runs its last check after a reset
verdict_flags() {
  case $1 in acc2_test) echo "--reset-at 20" ;; *) echo "" ;; esac
}
for rom in cpu_test ppu_scene apu_test mmc3_irq acc_test acc2_test acc3_test acc4_test $boards; do
  if ! echo " $nostatus " | grep -q " $rom "; then
    # shellcheck disable=SC2046
    "$GPUVET" run nes "$roms/$rom.nes" --test-rom $(verdict_flags $rom) -q >"$T_TMP/t.out" 2>&1
    rc=$?
    msg=$(grep '^test ROM' "$T_TMP/t.out")
    if [ $rc = 0 ] && echo "$msg" | grep -q 'passed'; then pass "$rom status" "$msg"; else fail "$rom status" "exit $rc: $msg"; fi
  fi

  n=$(frames_of $rom)
  ref=$(hashes $rom "$n" native native)
  for combo in "host host" "host native" "native host"; do
    set -- $combo
    got=$(hashes $rom "$n" "$1" "$2")
    if [ "$got" = "$ref" ]; then
      pass "$rom video $1 audio $2" "hashes equal native's over $n frames ($ref)"
    else
      fail "$rom video $1 audio $2" "got '$got', native/native gave '$ref'"
    fi
  done
  got=$(hashes $rom "$n" native native --verify)
  if [ "$got" = "$ref" ]; then
    pass "$rom log renderer per frame" "--verify drew each of $n frames from its log: identical to the native renderer"
  else
    fail "$rom log renderer per frame" "$got"
  fi
  for combo in "device device" "device native" "native device"; do
    set -- $combo
    judge_device "$rom video $1 audio $2" "$(hashes $rom "$n" "$1" "$2")" "$ref" "$n"
  done
done

# Instances: identical input, identical hashes; the same as one instance.
ref=$(hashes ppu_scene 30 native native)
got=$(hashes ppu_scene 30 host host --instances 5)
if [ "$got" = "$ref" ]; then pass "5 instances" "all agree and equal the single native instance ($got)"; else fail "5 instances" "got '$got', expected '$ref'"; fi

# An older save state still loads: tests/fixtures/nes/cpu_test_v2.state is version 2 (the
# format before the open-bus and length-halt fields of version 3), saved by gpuvet cd62d80
# after 60 frames of cpu_test.nes; it must load and resume at frame 60 (its frames differ
# from today's: the NMI timing has changed since). A rebuilt cpu_test.nes with other bytes
# makes it "a different ROM": then regenerate the fixture with an older gpuvet.
v2="$GV_ROOT/tests/fixtures/nes/cpu_test_v2.state"
"$GPUVET" run nes "$roms/cpu_test.nes" --load-state "$v2" --frames 40 --no-battery \
  --frame-hashes "$T_TMP/v2.fh" -q >/dev/null 2>"$T_TMP/v2.err"
rc=$?
first=$(head -n 1 "$T_TMP/v2.fh" 2>/dev/null | cut -d' ' -f1)
last=$(tail -n 1 "$T_TMP/v2.fh" 2>/dev/null | cut -d' ' -f1)
if [ $rc = 0 ] && [ "$first" = 60 ] && [ "$last" = 99 ]; then
  pass "save state version 2 loads" "exit 0, frames $first-$last after the state of frame 60"
else
  fail "save state version 2 loads" "exit $rc, frames '$first'-'$last': $(head -n 1 "$T_TMP/v2.err")"
fi

# Save states: save after 60 frames, load, run 40 more: the frames and samples equal
# frames 60-99 of an uninterrupted run (the APU ROM; the FME-7's, whose cycle counter, IRQ
# and 5B sound run through the state; the VRC4's scanline IRQ; the MMC2's latches; the VRC6's sound;
# the MMC5's scanline event, whose line travels in the state; its sound, split and 240 Hz clock;
# the VRC7's FM synthesiser; the PAL and Dendy machines, frame 60 of their region ROM's frame count;
# the H3001's, Sunsoft-3's and VRC3's cycle counters, the TC0690's scanline counter, the X1-017's RAM keys;
# the Bandai FCG's cycle counter and EEPROM; the SS 88006's counter; the RAMBO-1's A12 counter
# and reload flag; the Namco 163's IRQ counter and sound, its phases saved beside the chip RAM).
pairs="apu_test:native apu_test:host fme7:native fme7:host vrc4e:host mmc2:host vrc6b:native vrc6b:host mmc5:native mmc5:host"
pairs="$pairs mmc5x:native mmc5x:host vrc7a:native vrc7a:host region_pal:native region_pal:host region_dendy:host"
pairs="$pairs h3001:native sunsoft3:host vrc3:native tc0690:host x1017:host"
pairs="$pairs fcg4:host fcg5:native fcg153:host ss88006:native rambo1:host rambo1:native n163:native n163:host"
for pair in $pairs; do
  rom=${pair%%:*} r=${pair#*:}
  a="$T_TMP/all.fh"; b="$T_TMP/resumed.fh"; st="$T_TMP/s.state"
  "$GPUVET" run nes "$roms/$rom.nes" --frames 100 --video $r --audio $r --frame-hashes "$a" -q >/dev/null 2>&1 &&
  "$GPUVET" run nes "$roms/$rom.nes" --frames 60 --video $r --audio $r --save-state "$st" -q >/dev/null 2>&1 &&
  "$GPUVET" run nes "$roms/$rom.nes" --frames 40 --video $r --audio $r --load-state "$st" --frame-hashes "$b" -q >/dev/null 2>&1
  if [ $? = 0 ] && tail -n 40 "$a" | cmp -s - "$b"; then
    pass "save state round trip ($rom, $r)" "frames 60-99 after load equal the uninterrupted run (video and audio per frame)"
  else
    fail "save state round trip ($rom, $r)" "$(tail -n 40 "$a" | diff - "$b" | head -n 2 | tr '\n' ' ')"
  fi
done

# A state saved by a run without audio (--audio none) loads into a run with audio: the
# pictures of frames 60-99 equal the uninterrupted run's (the sound starts from the state: its
# first sample and the filters differ, so only the video hashes are compared).
a="$T_TMP/all.fh"; b="$T_TMP/resumed.fh"; st="$T_TMP/quiet.state"
"$GPUVET" run nes "$roms/apu_test.nes" --frames 100 --frame-hashes "$a" -q >/dev/null 2>&1 &&
"$GPUVET" run nes "$roms/apu_test.nes" --frames 60 --audio none --save-state "$st" -q >/dev/null 2>&1 &&
"$GPUVET" run nes "$roms/apu_test.nes" --frames 40 --load-state "$st" --frame-hashes "$b" -q >"$T_TMP/quiet.out" 2>&1
rc=$?
va=$(tail -n 40 "$a" | cut -d' ' -f2 | md5sum | cut -c1-12) vb=$(tail -n 40 "$b" 2>/dev/null | cut -d' ' -f2 | md5sum | cut -c1-12)
if [ $rc = 0 ] && [ "$va" = "$vb" ] && [ "$(wc -l <"$b")" -ge 40 ]; then
  pass "state of a run without audio loads with audio" "saved with --audio none at frame 60, loaded with native audio: the 40 frames' video hashes equal the uninterrupted run's (digest $va)"
else
  fail "state of a run without audio loads with audio" "exit $rc ($(head -n 1 "$T_TMP/quiet.out")), video hashes $va vs $vb"
fi

# Trace: nestest layout. The first line is the reset vector's instruction at cycle 7, PPU
# dot 21 of line 0, like nestest.log's first line; every line has the fixed columns.
"$GPUVET" run nes "$roms/cpu_test.nes" --frames 10 --trace "$T_TMP/trace.log" -q >/dev/null
first=$(head -n 1 "$T_TMP/trace.log")
# the reset vector (file offset 16 + $7FFC) points at the ROM's first instruction, SEI ($78)
reset=$(od -An -tx1 -j $((16 + 0x7FFC)) -N 2 "$roms/cpu_test.nes" | awk '{print toupper($2 $1)}')
want="$reset  78        SEI                             A:00 X:00 Y:00 P:24 SP:FD PPU:  0, 21 CYC:7"
if [ "$first" = "$want" ]; then pass "trace first line" "$first"; else fail "trace first line" "got '$first', expected '$want'"; fi
bad=$(grep -cvE '^[0-9A-F]{4}  [0-9A-F]{2}( [0-9A-F]{2}){0,2} +[ *][A-Z]{3}[ A-Z0-9$#(),@=*]*A:[0-9A-F]{2} X:[0-9A-F]{2} Y:[0-9A-F]{2} P:[0-9A-F]{2} SP:[0-9A-F]{2} PPU:[ 0-9]{3},[ 0-9]{3} CYC:[0-9]+$' "$T_TMP/trace.log")
cols=$(awk 'index($0, "A:") != 49' "$T_TMP/trace.log" | wc -l)
lines=$(wc -l < "$T_TMP/trace.log")
if [ "$bad" = 0 ] && [ "$cols" = 0 ] && [ "$lines" -gt 10000 ]; then
  pass "trace layout" "$lines lines, all with the nestest fields and A: in column 49"
else
  fail "trace layout" "$bad lines break the pattern, $cols have A: elsewhere than column 49 (of $lines)"
fi
expect_grep "trace (zp),Y operand" '^[0-9A-F]{4}  B1 [0-9A-F]{2}     LDA \(\$[0-9A-F]{2}\),Y = [0-9A-F]{4} @ [0-9A-F]{4} = [0-9A-F]{2} ' "$T_TMP/trace.log"
expect_grep "trace store operand" '^[0-9A-F]{4}  8D 00 20  STA \$2000 = [0-9A-F]{2} +A:' "$T_TMP/trace.log"

# Bad input: one line on stderr, exit 2.
head -c 1000 "$roms/cpu_test.nes" >"$T_TMP/truncated.nes"
expect_exit "truncated ROM" 2 "$GPUVET" run nes "$T_TMP/truncated.nes" --frames 1
printf 'NES\033\002\001\000\000\000\000\000\000\000\000\000\000' >"$T_TMP/badmagic.nes"
expect_exit "bad iNES header" 2 "$GPUVET" run nes "$T_TMP/badmagic.nes" --frames 1
{ printf 'NES\032\002\001\140\000\000\000\000\000\000\000\000\000'; tail -c +17 "$roms/cpu_test.nes"; } >"$T_TMP/mapper6.nes"
expect_exit "unsupported mapper" 2 "$GPUVET" run nes "$T_TMP/mapper6.nes" --frames 1
expect_exit "missing ROM file" 2 "$GPUVET" run nes "$T_TMP/none.nes" --frames 1
expect_exit "bad renderer name" 2 "$GPUVET" run nes "$roms/cpu_test.nes" --video gpu
# acc_test's check 9 reports the MMC3 revision it measured: B by default, A with --mmc3-rev A
for rev in B A; do
  flag=; [ $rev = A ] && flag="--mmc3-rev A"
  # shellcheck disable=SC2086
  msg=$("$GPUVET" run nes "$roms/acc_test.nes" --test-rom $flag -q 2>&1 | grep '^test ROM')
  case $msg in
  *"passed"*"MMC3 rev $rev") pass "acc_test MMC3 revision ${flag:-default}" "$msg" ;;
  *) fail "acc_test MMC3 revision ${flag:-default}" "expected 'MMC3 rev $rev': $msg" ;;
  esac
done
# acc_test's whole run (its verdict comes at frame 1691; check 12 renders two frames with the
# background on, checks 13-14 run DMAs) gives the native renderers' hashes on the others
ref=$(hashes acc_test 1750 native native)
got=$(hashes acc_test 1750 host host)
if [ "$got" = "$ref" ]; then pass "acc_test whole run video host audio host" "hashes equal native's over 1750 frames ($ref)"
else fail "acc_test whole run video host audio host" "got '$got', native/native gave '$ref'"; fi
judge_device "acc_test whole run video device audio device" "$(hashes acc_test 1750 device device)" "$ref" 1750
expect_exit "bad MMC3 revision" 2 "$GPUVET" run nes "$roms/mmc3_irq.nes" --mmc3-rev C --frames 1
"$GPUVET" run nes "$roms/apu_test.nes" --frames 5 --save-state "$T_TMP/good.state" -q >/dev/null
size=$(wc -c < "$T_TMP/good.state")
{ head -c 2000 "$T_TMP/good.state"; printf '\377'; tail -c +2002 "$T_TMP/good.state"; } >"$T_TMP/corrupt.state"
expect_exit "corrupt save state" 2 "$GPUVET" run nes "$roms/apu_test.nes" --load-state "$T_TMP/corrupt.state" --frames 1
head -c $((size / 2)) "$T_TMP/good.state" >"$T_TMP/short.state"
expect_exit "truncated save state" 2 "$GPUVET" run nes "$roms/apu_test.nes" --load-state "$T_TMP/short.state" --frames 1
expect_exit "save state of another ROM" 2 "$GPUVET" run nes "$roms/cpu_test.nes" --load-state "$T_TMP/good.state" --frames 1
expect_exit "not a save state" 2 "$GPUVET" run nes "$roms/apu_test.nes" --load-state "$roms/apu_test.nes" --frames 1

# Battery RAM: the same ROM with the battery bit set keeps $6000-$7FFF in ROM.sav.
{ head -c 6 "$roms/apu_test.nes"; printf '\002'; tail -c +8 "$roms/apu_test.nes"; } >"$T_TMP/battery.nes"
rm -f "$T_TMP/battery.sav"
"$GPUVET" run nes "$T_TMP/battery.nes" --frames 250 -q >/dev/null 2>&1
if [ -f "$T_TMP/battery.sav" ] && [ "$(wc -c < "$T_TMP/battery.sav")" = 8192 ] &&
   [ "$(od -An -tx1 -j1 -N3 "$T_TMP/battery.sav" | tr -d ' ')" = "deb061" ] && ! ls "$T_TMP"/battery.sav.tmp* >/dev/null 2>&1; then
  pass "battery RAM" "battery.sav has the 8 KiB of PRG-RAM (test signature at \$6001), no temporary file left"
else
  fail "battery RAM" "battery.sav missing, wrong size or content"
fi
printf 'short' >"$T_TMP/battery.sav"
expect_exit "battery file of the wrong size" 2 "$GPUVET" run nes "$T_TMP/battery.nes" --frames 1

# Regions (docs/NES.md "Regions"): the region ROMs (tests/roms/nes/region_test.s, one build per
# header timing) pass their timing checks on the region their header names and fail on
# another (--region overrides the header); every renderer gives the native hashes over the
# 400 frames that reach their verdict and the picture after it; a state keeps its region and
# another region's machine refuses it; a bad --region is one line and exit 2.
for r in ntsc pal dendy; do
  rom=region_$r
  "$GPUVET" run nes "$roms/$rom.nes" --test-rom -q >"$T_TMP/t.out" 2>&1
  rc=$?
  msg=$(grep '^test ROM' "$T_TMP/t.out")
  if [ $rc = 0 ] && echo "$msg" | grep -q 'passed'; then pass "$rom status" "$msg"; else fail "$rom status" "exit $rc: $msg"; fi
  other=pal; [ $r = pal ] && other=dendy
  "$GPUVET" run nes "$roms/$rom.nes" --region $other --test-rom -q >"$T_TMP/t.out" 2>&1
  rc=$?
  msg=$(grep '^test ROM' "$T_TMP/t.out")
  if [ $rc = 1 ] && echo "$msg" | grep -q 'failed'; then pass "$rom as $other fails" "$msg"
  else fail "$rom as $other fails" "exit $rc (1 expected): $msg"; fi
  ref=$(hashes $rom 400 native native)
  for combo in "host host" "host native" "native host"; do
    set -- $combo
    got=$(hashes $rom 400 "$1" "$2")
    if [ "$got" = "$ref" ]; then pass "$rom video $1 audio $2" "hashes equal native's over 400 frames ($ref)"
    else fail "$rom video $1 audio $2" "got '$got', native/native gave '$ref'"; fi
  done
  got=$(hashes $rom 400 native native --verify)
  if [ "$got" = "$ref" ]; then pass "$rom log renderer per frame" "--verify drew each of 400 frames from its log: identical to the native renderer"
  else fail "$rom log renderer per frame" "$got"; fi
  for combo in "device device" "device native" "native device"; do
    set -- $combo
    judge_device "$rom video $1 audio $2" "$(hashes $rom 400 "$1" "$2")" "$ref" 400
  done
done
# a PAL machine's state (the round trip: region_pal in the loop of states above) is refused by
# an NTSC one
"$GPUVET" run nes "$roms/region_pal.nes" --frames 60 --save-state "$T_TMP/pal.state" -q >/dev/null 2>&1
expect_exit "PAL state on an NTSC machine" 2 "$GPUVET" run nes "$roms/region_pal.nes" --region ntsc --load-state "$T_TMP/pal.state" --frames 1
if grep -q 'saved with PAL timing, this machine has NTSC timing' "$T_TMP/err"; then pass "PAL state refused: the message" "$(cat "$T_TMP/err")"
else fail "PAL state refused: the message" "$(cat "$T_TMP/err")"; fi
expect_exit "version 2 state (NTSC) on a Dendy machine" 2 "$GPUVET" run nes "$roms/cpu_test.nes" --region dendy --load-state "$v2" --frames 1
expect_exit "bad --region" 2 "$GPUVET" run nes "$roms/region_pal.nes" --region secam --frames 1
expect_exit "bad --region (bench)" 2 "$GPUVET" bench nes "$roms/region_pal.nes" --region secam --frames 1
