# Controller input through `gpuvet run --input MOVIE` (src/emu/common/input.h) on both
# consoles, with our own input test ROMs (tests/roms/nes/input_test.s, tests/roms/gb/
# input_test.c): the movie makes them pass, no movie leaves them without a verdict, a
# save state taken mid-movie continues the movie, bad movies (analog axes included) are
# one-line errors (exit 2), and --reset-at presses reset once at its frame.
. "$GV_ROOT/tests/lib.sh"
export OMP_WAIT_POLICY=passive
G=$GPUVET
PY=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null 2>&1; then PY=$p; break; fi
done
roms=
if sh "$GV_ROOT/tests/nes/build_roms.sh" "$GV_BUILD/roms/nes" >"$T_TMP/nes.log" 2>&1; then roms="$roms nes"
else skip "input nes" "the NES test ROMs did not build (ca65/ld65 from the Debian package cc65)"; fi
if [ -n "$PY" ] && command -v sdcc >/dev/null 2>&1 &&
   PYTHON=$PY sh "$GV_ROOT/tests/roms/gb/build.sh" "$GV_BUILD/roms/gb" >"$T_TMP/gb.log" 2>&1; then roms="$roms gb"
else skip "input gb" "the Game Boy test ROMs did not build (sdcc and python3)"; fi

for con in $roms; do
  rom=$GV_BUILD/roms/$con/input_test.$con
  movie=$GV_ROOT/tests/emu/input_$con.txt
  "$G" run "$rom" --test-rom --frames 300 --input "$movie" --json "$T_TMP/rec.json" >"$T_TMP/out" 2>&1
  rc=$?
  if [ $rc = 0 ] && grep -q '^test ROM: passed.*input ok' "$T_TMP/out" && grep -q '"movie_hash"' "$T_TMP/rec.json"; then
    pass "input $con movie" "$(grep '^test ROM' "$T_TMP/out"); the record names the movie and its hash"
  else
    fail "input $con movie" "exit $rc: $(grep -E '^(test ROM|gpuvet)' "$T_TMP/out" | head -n 2 | tr '\n' ' ')"
  fi
  "$G" run "$rom" --test-rom --frames 120 >"$T_TMP/out" 2>&1
  rc=$?
  if [ $rc = 1 ] && grep -q '^test ROM: no verdict' "$T_TMP/out"; then
    pass "input $con without a movie" "exit 1: $(grep '^test ROM' "$T_TMP/out" | cut -c1-80)"
  else
    fail "input $con without a movie" "exit $rc (expected 1, no verdict): $(grep '^test ROM' "$T_TMP/out")"
  fi
  # a save state taken at frame 36 (between Start and A+Right) continues the movie
  "$G" run "$rom" --frames 36 --input "$movie" --save-state "$T_TMP/s.state" -q >/dev/null 2>&1
  "$G" run "$rom" --load-state "$T_TMP/s.state" --test-rom --frames 100 --input "$movie" >"$T_TMP/out" 2>&1
  rc=$?
  if [ $rc = 0 ] && grep -q '^test ROM: passed' "$T_TMP/out"; then
    pass "input $con save state mid-movie" "36 frames, saved, loaded: the movie goes on from frame 36 and the ROM passes"
  else
    fail "input $con save state mid-movie" "exit $rc: $(grep -E '^(test ROM|gpuvet)' "$T_TMP/out" | tr '\n' ' ')"
  fi
  printf '10: Start\n20: Jump\n' >"$T_TMP/bad1.txt"
  expect_exit "input $con unknown button" 2 "$G" run "$rom" --input "$T_TMP/bad1.txt"
  printf '20: Start\n10: A\n' >"$T_TMP/bad2.txt"
  expect_exit "input $con frames out of order" 2 "$G" run "$rom" --input "$T_TMP/bad2.txt"
  printf 'Start\n' >"$T_TMP/bad3.txt"
  expect_exit "input $con no frame number" 2 "$G" run "$rom" --input "$T_TMP/bad3.txt"
  expect_exit "input $con missing movie" 2 "$G" run "$rom" --input "$T_TMP/none.txt"
  # analog axes (NAME=VALUE): the Game Boy's TiltX and TiltY, none on the NES
  printf '10: TiltZ=5\n' >"$T_TMP/bad4.txt"
  expect_exit "input $con unknown axis" 2 "$G" run "$rom" --input "$T_TMP/bad4.txt"
  printf '10: A TiltX=32768\n' >"$T_TMP/bad5.txt"
  expect_exit "input $con axis value out of range" 2 "$G" run "$rom" --input "$T_TMP/bad5.txt"
  printf '10: TiltY=-12x\n' >"$T_TMP/bad6.txt"
  expect_exit "input $con axis value not a number" 2 "$G" run "$rom" --input "$T_TMP/bad6.txt"
done

# --reset-at: one press at the given frame, counted in the record; the run differs from one without
if echo "$roms" | grep -q nes; then
  rom=$GV_BUILD/roms/nes/ppu_scene.nes
  a=$("$G" run "$rom" --frames 30 -q | tr '\n' ' ')
  b=$("$G" run "$rom" --frames 30 --reset-at 10 --json "$T_TMP/r.json" -q | tr '\n' ' ')
  n=$(grep -o '"resets":[[:space:]]*[0-9]*' "$T_TMP/r.json" | grep -o '[0-9]*$')
  if [ "$a" != "$b" ] && [ "$n" = 1 ]; then pass "reset-at nes" "one reset at frame 10 (record: resets $n); hashes differ from the run without"
  else fail "reset-at nes" "resets '$n', hashes without: $a with: $b"; fi
fi
