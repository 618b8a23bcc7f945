# The SNES end to end with gpuvet's own test ROMs (tests/roms/snes, built here with ca65
# --cpu 65816 from Debian's cc65): the machine test's verdict, the PPU scene's picture and
# sound against their pinned hashes (tests/emu/golden.txt holds them with the other
# consoles'), the log (host) renderer against the native one, bad ROMs and states (one
# line, exit 2), save-state round trips, battery RAM and the trace layout.
. "$GV_ROOT/tests/lib.sh"
export OMP_WAIT_POLICY=passive
G=$GPUVET
S=$GV_ROOT/tests/roms/snes
for tool in ca65 ld65 python3; do
  if ! command -v $tool >/dev/null 2>&1; then
    skip "snes test roms" "$tool not found: install the Debian packages cc65 and python3 to build the SNES test ROMs"
    exit 0
  fi
done
R=$GV_BUILD/roms/snes
if sh "$S/build.sh" "$R" >"$T_TMP/build.log" 2>&1; then
  pass "snes roms build" "$(ls "$R"/*.sfc | wc -l) ROMs built with ca65 --cpu 65816 into $R"
else
  fail "snes roms build" "build.sh failed: $(grep -i error "$T_TMP/build.log" | head -n 2 | tr '\n' ' ')"
  exit 1
fi

# ---- the test ROMs' verdicts (status block at $70:0000) -----------------------------------
verdict() { # NAME [BLOCK]: NAME.sfc run with --test-rom must pass (status block at BLOCK, $70:0000 unless given)
  "$G" run "$R/$1.sfc" --test-rom --no-battery >"$T_TMP/out" 2>&1
  rc=$?
  if [ $rc = 0 ] && grep -qF "test ROM: passed (status block at ${2:-\$70:0000})" "$T_TMP/out"; then
    pass "snes $1" "$(grep '^test ROM:' "$T_TMP/out")"
  else
    fail "snes $1" "exit $rc: $(grep -E '^test ROM' "$T_TMP/out")"
  fi
}
verdict cpu_test
# the H/V counter latch: 20,000 latches on every phase of the line, H 0-339 (long dots 323
# and 327), V 0-261, latched at the access's own clock
verdict hv_test
# the multiplier/divider count CPU cycles: 8 for a product, 16 for a quotient; an early
# read gives an intermediate value ($01 * $FF read 3 cycles in: not $FF but 2^k - 1)
verdict alu_test
# an H/V IRQ set mid-line for a later position on the same line fires on that line
verdict irq_late
# HTIME 339: the IRQ comes early on the next line (long dots 323/327 counted)
verdict irq_wrap
# emulation mode: (d,X), (d), (d),Y read their pointer's high byte within the page when DL = 0
verdict cpu_dpwrap
# the VRAM port: VMAIN's increment byte, steps 1/32/128/128, the three address translations,
# the read prefetch before the increment
verdict vram_test
# open bus: write-only $21x4-6/$21x8-A give PPU1's latch, the others and $4000/$4016 the CPU's
# last bus byte (the operand's high byte, not a byte from before the instruction)
verdict mdr_test
# the H/V IRQ at HTIME 0 comes 10 clocks into the line (as a V-IRQ), 8 before HTIME 1's
verdict irq_h0
# HDMA's set-up at V=0 pauses the CPU 18 clocks + 8 a direct channel + 24 an indirect one
verdict hdma_init
# a general DMA: 2-8 clocks to a multiple of 8, 8 + 8 a channel + 8 a byte, 1-S to a whole CPU cycle
verdict dma_time
# DMA between WRAM and its own port $2180 moves nothing (open bus into WRAM, WMADD stays);
# an A-bus address on the B-bus registers reads open bus: the opcode fetched before the DMA
verdict dma_wram
# a general DMA on a channel HDMA is using ends where HDMA needs the channel
verdict dma_hdma
# no H/V IRQ for dot 153 on the frame's last line: 261 H-IRQs a frame at HTIME 153
verdict irq_153
# joypad auto-read: HVBJOY bit 0 for 4224 clocks from dots 32.5-95.5 of vertical blank's first line
verdict joy_busy
# the DRAM refresh pauses the CPU mid-instruction: no $2137 latch reads H 135-142
verdict refresh_test
# interlace's frame length: 263 lines in field 0 (V latched up to 262 only in field 0, a
# V-IRQ at VTIME 262 every other frame), 262 again with interlace off
verdict il_timing
# the sound CPU's TEST register: its wait bits slow the SPC700 (RAM and I/O waits, counted
# against timer 0), its timer bits hold the timers' clock (the next tick comes later)
verdict spc_test
# the Super FX: GSU programs (gsu_asm.py) over every opcode family, prefixes, the byte after
# a jump, PLOT/RPIX in each depth/height/option, the code cache, against gsu_model.py
verdict gsu_test
# the MSU-1 (msu_test.sfc with msu_test.msu and two tracks beside it, gen_msu.py): the ID
# string, the status, the data port after seeks, a missing track, a track that ends
verdict msu_test
# its audio: every 48 kHz sample of 120 frames equals the independent model's (msu_model.py:
# the documented 44.1 -> 32 kHz resampling, volume, repeat from the loop point, the mix and
# the DSP's 48 kHz resampler)
"$G" run "$R/msu_test.sfc" --frames 120 --wav "$T_TMP/msu.wav" --no-battery -q >/dev/null 2>"$T_TMP/err"
if python3 "$GV_ROOT/tests/snes/msu_model.py" "$T_TMP/msu.wav" "$R/msu_test-1.pcm" "$R/msu_test-2.pcm" >"$T_TMP/out" 2>&1; then
  pass "snes msu audio == model" "$(cat "$T_TMP/out")"
else
  fail "snes msu audio == model" "$(tail -n 1 "$T_TMP/out") $(head -n 1 "$T_TMP/err")"
fi
# without its data file the cartridge has no MSU-1: $2002 reads open bus, check 1 fails
mkdir -p "$T_TMP/nomsu"
cp "$R/msu_test.sfc" "$T_TMP/nomsu/"
"$G" run "$T_TMP/nomsu/msu_test.sfc" --test-rom --no-battery >"$T_TMP/out" 2>&1
expect_grep "snes msu needs its data file" 'failed .*\[status \$01\]' "$T_TMP/out"
# a malformed track: one line naming the file, exit 2
mkdir -p "$T_TMP/badmsu"
cp "$R/msu_test.sfc" "$R/msu_test.msu" "$T_TMP/badmsu/"
printf 'MSU2\000\000\000\000' >"$T_TMP/badmsu/msu_test-3.pcm"
expect_exit "snes msu malformed track" 2 "$G" run "$T_TMP/badmsu/msu_test.sfc" --frames 1 --no-battery
"$G" run "$T_TMP/badmsu/msu_test.sfc" --frames 1 --no-battery >"$T_TMP/out" 2>&1
expect_grep "snes msu malformed track names it" 'msu_test-3.pcm: not an MSU-1 audio track' "$T_TMP/out"
# the SA-1: its CPU started by the SNES, the arithmetic unit and the bit reader against
# sa1_model.py, BW-RAM through bank $40 and BMAP/BMAPS, ROM through the Super MMC, IRQs and
# NMI both ways with the messages, the SNES's IRQ through SIV (status block at $40:0000)
verdict sa1_test '$40:0000'

# the same ROM with A+Start held from frame 0: check 11 (joypad auto-read gives 0) must
# fail, and only it: the movie reaches $4218
printf '0: a+start\n' >"$T_TMP/held.txt"
"$G" run "$R/cpu_test.sfc" --test-rom --no-battery --input "$T_TMP/held.txt" >"$T_TMP/out" 2>&1
expect_grep "snes input reaches the joypad registers" 'failed .*\[status \$0B\]' "$T_TMP/out"

# ---- the log (host) renderer against the native one ------------------------------------
hashes() { # rom frames video instances
  "$G" run snes "$R/$1.sfc" --frames "$2" --video "$3" --instances "$4" --no-battery -q 2>"$T_TMP/err" |
    grep -E '^(video|audio)_hash' | tr '\n' ' '
}
for rom in cpu_test ppu_scene bench_scene ppu_direct ppu_bright ppu_scroll obj_wrap opt_test gsu_scene gsu_test \
           hires_m5 hires_pseudo hires_il overscan sa1_test midline_test; do
  ref=$(hashes $rom 120 native 1)
  for cfg in "host 1" "host 3"; do
    set -- $cfg
    got=$(hashes $rom 120 "$1" "$2")
    if [ -n "$ref" ] && [ "$got" = "$ref" ]; then
      pass "snes $rom $1 x$2 == native" "$got"
    else
      fail "snes $rom $1 x$2 == native" "native: $ref; $1: $got $(head -n 1 "$T_TMP/err")"
    fi
  done
  if "$G" run snes "$R/$rom.sfc" --frames 120 --verify --no-battery -q >"$T_TMP/out" 2>"$T_TMP/err"; then
    pass "snes $rom --verify" "120 frames drawn natively and from their logs, every pixel equal"
  else
    fail "snes $rom --verify" "$(head -n 1 "$T_TMP/err")"
  fi
done
expect_exit "snes --audio host" 2 "$G" run snes "$R/cpu_test.sfc" --frames 2 --audio host --no-battery

# ---- PPU feature scenes against a model of their picture (tests/snes/ppu_model.py) --------
# (and the frame sizes: hires_test.s four ways, checked at their size)
for scene in ppu_direct ppu_bright ppu_scroll obj_wrap opt_test hires_m5 hires_pseudo hires_il overscan; do
  "$G" run snes "$R/$scene.sfc" --frames 60 --png "$T_TMP/$scene.png" --no-battery -q >/dev/null 2>"$T_TMP/err"
  if python3 "$GV_ROOT/tests/snes/ppu_model.py" "$T_TMP/$scene.png" $scene >"$T_TMP/model" 2>&1; then
    pass "snes $scene == model" "$(head -n 1 "$T_TMP/model")"
  else
    fail "snes $scene == model" "$(head -n 3 "$T_TMP/model" | tr '\n' ' ') $(head -n 1 "$T_TMP/err")"
  fi
done

# ---- register writes inside a line (midline_test.s) at their pixel (host == native above) ----
"$G" run snes "$R/midline_test.sfc" --frames 60 --png "$T_TMP/midline.png" --no-battery -q >/dev/null 2>"$T_TMP/err"
if python3 "$GV_ROOT/tests/snes/ppu_model.py" "$T_TMP/midline.png" midline >"$T_TMP/model" 2>&1; then
  pass "snes midline_test == model" "$(head -n 1 "$T_TMP/model")"
else
  fail "snes midline_test == model" "$(head -n 3 "$T_TMP/model" | tr '\n' ' ') $(head -n 1 "$T_TMP/err")"
fi
# ---- mosaic on mode 5's hi-res BGs (hires_test.s -D MOSAIC, without and with interlace):
# the model's picture, and the log renderer equal to the native one
for scene in hires_mosaic hires_il_mosaic; do
  "$G" run snes "$R/$scene.sfc" --frames 60 --png "$T_TMP/$scene.png" --no-battery -q >/dev/null 2>"$T_TMP/err"
  if python3 "$GV_ROOT/tests/snes/ppu_model.py" "$T_TMP/$scene.png" $scene >"$T_TMP/model" 2>&1; then
    pass "snes $scene == model" "$(head -n 1 "$T_TMP/model")"
  else
    fail "snes $scene == model" "$(head -n 3 "$T_TMP/model" | tr '\n' ' ') $(head -n 1 "$T_TMP/err")"
  fi
  ref=$(hashes $scene 120 native 1)
  got=$(hashes $scene 120 host 3)
  if [ -n "$ref" ] && [ "$got" = "$ref" ]; then
    pass "snes $scene host x3 == native" "$got"
  else
    fail "snes $scene host x3 == native" "native: $ref; host: $got $(head -n 1 "$T_TMP/err")"
  fi
  if "$G" run snes "$R/$scene.sfc" --frames 120 --verify --no-battery -q >"$T_TMP/out" 2>"$T_TMP/err"; then
    pass "snes $scene --verify" "120 frames drawn natively and from their logs, every pixel equal"
  else
    fail "snes $scene --verify" "$(head -n 1 "$T_TMP/err")"
  fi
done

# ---- the reset button clears no memory: warm_boot loads its colours on a cold boot only ----
for at in 30 59; do
  "$G" run snes "$R/warm_boot.sfc" --frames 60 --reset-at $at --png "$T_TMP/warm.png" --no-battery -q >/dev/null 2>"$T_TMP/err"
  if python3 "$GV_ROOT/tests/snes/ppu_model.py" "$T_TMP/warm.png" warm_boot >"$T_TMP/model" 2>&1; then
    pass "snes reset keeps video memory (--reset-at $at)" "$(head -n 1 "$T_TMP/model")"
  else
    fail "snes reset keeps video memory (--reset-at $at)" "$(head -n 3 "$T_TMP/model" | tr '\n' ' ') $(head -n 1 "$T_TMP/err")"
  fi
done

# ---- bad input: one line on stderr, exit 2 ---------------------------------------------
head -c 20000 "$R/cpu_test.sfc" >"$T_TMP/trunc.sfc"
expect_exit "snes truncated ROM" 2 "$G" run snes "$T_TMP/trunc.sfc"
expect_exit "snes refuses --mmc3-rev (a NES chip)" 2 "$G" run snes "$R/cpu_test.sfc" --mmc3-rev B --frames 1 --no-battery
# ---- header fields the console never reads: the ROM runs, with one warning line --------
# (the checksum pair, the ROM size code; cpu_test never reads its header, so it passes)
loose() { # NAME FILE WANT: exit 0, the test ROM passes, exactly one stderr line, a warning with WANT
  "$G" run snes "$2" --test-rom --no-battery -q >"$T_TMP/out" 2>"$T_TMP/err"
  rc=$?
  n=$(wc -l <"$T_TMP/err")
  if [ $rc = 0 ] && [ "$n" = 1 ] && grep -q '^test ROM: passed' "$T_TMP/out" &&
     grep -q "^gpuvet run snes: warning: $2: .*$3" "$T_TMP/err"; then
    pass "snes $1" "exit 0, test ROM passed, $(cat "$T_TMP/err")"
  else
    fail "snes $1" "exit $rc, $n stderr lines (want 1 warning with '$3'): $(head -n 2 "$T_TMP/err" | tr '\n' ' ') $(cat "$T_TMP/out")"
  fi
}
cp "$R/cpu_test.sfc" "$T_TMP/sum.sfc"
printf '\125' | dd of="$T_TMP/sum.sfc" bs=1 seek=$((0x7FDE)) conv=notrunc 2>/dev/null
loose "bad checksum pair" "$T_TMP/sum.sfc" 'complement'
cp "$R/cpu_test.sfc" "$T_TMP/data.sfc"
printf '\125' | dd of="$T_TMP/data.sfc" bs=1 seek=$((0xF000)) conv=notrunc 2>/dev/null
loose "ROM checksum mismatch" "$T_TMP/data.sfc" 'header checksum \$.*, the ROM sums to'
cp "$R/cpu_test.sfc" "$T_TMP/size.sfc"
printf '\001' | dd of="$T_TMP/size.sfc" bs=1 seek=$((0x7FD7)) conv=notrunc 2>/dev/null
loose "ROM size code too small" "$T_TMP/size.sfc" 'ROM size code \$01'
{ head -c 512 /dev/zero; cat "$T_TMP/size.sfc"; } >"$T_TMP/both.smc"
loose "copier header and size code" "$T_TMP/both.smc" 'ROM size code \$01'
expect_exit "snes --model" 2 "$G" run snes "$R/cpu_test.sfc" --model cgb
{ head -c 512 /dev/zero; cat "$R/cpu_test.sfc"; } >"$T_TMP/copier.smc"
"$G" run "$T_TMP/copier.smc" --test-rom --no-battery >"$T_TMP/out" 2>&1
expect_grep "snes copier header" '^test ROM: passed' "$T_TMP/out"

# ---- save states ------------------------------------------------------------------------
for rom in cpu_test ppu_scene gsu_test gsu_scene msu_test sa1_test; do
  "$G" run snes "$R/$rom.sfc" --frames 200 --save-state "$T_TMP/s3" --png "$T_TMP/p3.png" --wav "$T_TMP/w3.wav" --no-battery -q >/dev/null
  "$G" run snes "$R/$rom.sfc" --frames 120 --save-state "$T_TMP/s1" --no-battery -q >/dev/null
  "$G" run snes "$R/$rom.sfc" --load-state "$T_TMP/s1" --frames 80 --save-state "$T_TMP/s2" \
    --png "$T_TMP/p2.png" --wav "$T_TMP/w2.wav" --no-battery -q >/dev/null
  n=$(($(wc -c <"$T_TMP/w2.wav") - 44))
  tail -c $n "$T_TMP/w3.wav" >"$T_TMP/t3"
  tail -c $n "$T_TMP/w2.wav" >"$T_TMP/t2"
  if [ $n -gt 0 ] && cmp -s "$T_TMP/s2" "$T_TMP/s3" && cmp -s "$T_TMP/p2.png" "$T_TMP/p3.png" && cmp -s "$T_TMP/t2" "$T_TMP/t3"; then
    pass "snes save state $rom" "120 frames, save, load, 80 frames == 200 frames: state bytes, last PNG and $n audio bytes identical"
  else
    fail "snes save state $rom" "state $(cmp "$T_TMP/s2" "$T_TMP/s3" >/dev/null && echo same || echo differs), png $(cmp "$T_TMP/p2.png" "$T_TMP/p3.png" >/dev/null && echo same || echo differs), audio $(cmp "$T_TMP/t2" "$T_TMP/t3" >/dev/null && echo same || echo differs) ($n bytes)"
  fi
done
cp "$T_TMP/s1" "$T_TMP/bad.state"
printf '\125\125' | dd of="$T_TMP/bad.state" bs=1 seek=5000 conv=notrunc 2>/dev/null
expect_exit "snes corrupt state" 2 "$G" run snes "$R/ppu_scene.sfc" --load-state "$T_TMP/bad.state" --frames 1 --no-battery
head -c 3000 "$T_TMP/s1" >"$T_TMP/short.state"
expect_exit "snes truncated state" 2 "$G" run snes "$R/ppu_scene.sfc" --load-state "$T_TMP/short.state" --frames 1 --no-battery
expect_exit "snes state of another cartridge" 2 "$G" run snes "$R/cpu_test.sfc" --load-state "$T_TMP/s1" --frames 1 --no-battery
printf 'GVGBSTAT\002\000\000\000' >"$T_TMP/gb.state"
head -c 5000 /dev/zero >>"$T_TMP/gb.state"
expect_exit "snes Game Boy state" 2 "$G" run snes "$R/cpu_test.sfc" --load-state "$T_TMP/gb.state" --frames 1 --no-battery

# ---- battery RAM: the status block survives in the .sav file (a Super FX cartridge's: its
# 128 KiB Game Pak RAM, the size of the expansion RAM byte) ---------------------------------
for b in bat:cpu_test:8192 gbat:gsu_test:131072; do
  f=${b%%:*} rom=${b#*:} size=${b##*:}
  rom=${rom%%:*}
  cp "$R/$rom.sfc" "$T_TMP/$f.sfc"
  "$G" run "$T_TMP/$f.sfc" --frames 60 -q >/dev/null 2>&1
  if [ "$(wc -c <"$T_TMP/$f.sav" 2>/dev/null)" = $size ] && [ "$(od -An -tx1 -j1 -N3 "$T_TMP/$f.sav" | tr -d ' ')" = deb061 ]; then
    pass "snes battery $rom" "$f.sav: $size bytes, the status block's signature DE B0 61 at +1"
  else
    fail "snes battery $rom" "$f.sav: $(wc -c <"$T_TMP/$f.sav" 2>/dev/null) bytes, +1: $(od -An -tx1 -j1 -N3 "$T_TMP/$f.sav" 2>/dev/null)"
  fi
done
head -c 100 /dev/zero >"$T_TMP/bat.sav"
expect_exit "snes battery of the wrong size" 2 "$G" run "$T_TMP/bat.sfc" --frames 1

# ---- trace ------------------------------------------------------------------------------
"$G" run snes "$R/cpu_test.sfc" --frames 1 --trace "$T_TMP/trace" --no-battery -q >/dev/null 2>&1
first=$(head -n 1 "$T_TMP/trace")
case $first in
"008000 78 18 FB C2 A:0000 X:0000 Y:0000 S:0100 D:0000 DB:00 P:34 E:1 CLK:"*)
  pass "snes trace" "$(wc -l <"$T_TMP/trace") lines; the first: $first" ;;
*) fail "snes trace" "first line: '$first'" ;;
esac
# an MSU-1 state taken while track 1 plays: loaded on the cartridge without its media
# (no MSU-1) it is refused with one line
"$G" run snes "$R/msu_test.sfc" --frames 60 --save-state "$T_TMP/msu.state" --no-battery -q >/dev/null 2>&1
expect_exit "snes msu state without the msu" 2 "$G" run snes "$T_TMP/nomsu/msu_test.sfc" --load-state "$T_TMP/msu.state" --frames 1 --no-battery
