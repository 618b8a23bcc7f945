# Golden hashes: every own ROM (NES, Game Boy and SNES, built here with ca65 and sdcc) run 400
# frames from power-on through `gpuvet run ROM` (the console picked from the file) must give
# the video and audio hashes pinned in tests/emu/golden.txt, on the native and the host
# renderers and on the device renderers where a GPU is usable (the SNES: video only, its
# sound is made in the core; GV_EXPECT_GPU=1 makes a missing GPU a failure). A change that alters a frame or a sample must update the pin on
# purpose; a ROM whose bytes differ from the pinned build is reported as such, not as an
# emulator change.
. "$GV_ROOT/tests/lib.sh"
export OMP_WAIT_POLICY=passive
G=$GPUVET
PY=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null 2>&1; then PY=$p; break; fi
done
have_nes=1 have_gb=1 have_snes=1
nesdir=$GV_BUILD/roms/nes gbdir=$GV_BUILD/roms/gb snesdir=$GV_BUILD/roms/snes
if [ -n "${GV_ROMS:-}" ]; then
  # prebuilt ROMs (a GPU machine without ca65/sdcc): GV_ROMS/nes, GV_ROMS/gb; the sha256 pins
  # below still say whether they are the pinned builds
  nesdir=$GV_ROMS/nes gbdir=$GV_ROMS/gb snesdir=$GV_ROMS/snes
elif ! sh "$GV_ROOT/tests/nes/build_roms.sh" "$nesdir" >"$T_TMP/nes.log" 2>&1; then
  have_nes=0; skip "golden nes" "the NES test ROMs did not build: $(head -n 1 "$T_TMP/nes.log")"
fi
if [ -z "${GV_ROMS:-}" ] && { [ -z "$PY" ] || ! command -v sdcc >/dev/null 2>&1 ||
   ! PYTHON=$PY sh "$GV_ROOT/tests/roms/gb/build.sh" "$gbdir" >"$T_TMP/gb.log" 2>&1; }; then
  have_gb=0; skip "golden gb" "the Game Boy test ROMs did not build (sdcc and python3 needed): $(grep -i error "$T_TMP/gb.log" | head -n 1)"
fi
if [ -z "${GV_ROMS:-}" ] && ! sh "$GV_ROOT/tests/roms/snes/build.sh" "$snesdir" >"$T_TMP/snes.log" 2>&1; then
  have_snes=0; skip "golden snes" "the SNES test ROMs did not build (cc65 and python3 needed): $(grep -i error "$T_TMP/snes.log" | head -n 1)"
fi
device=0
if "$G" smoke >/dev/null 2>&1; then device=1
else skip_gpu "golden device" "no usable GPU here (gpuvet smoke fails): the device renderers are checked on a GPU machine"
fi

hashes() { # rom model renderer [audio renderer]
  mflag=; [ "$2" != - ] && mflag="--model $2"
  "$G" run "$1" $mflag --frames 400 --video "$3" --audio "${4:-$3}" --no-battery -q 2>"$T_TMP/err" |
    awk '/^(video|audio)_hash/ {printf "%s ", $2}'
}

grep -v '^#' "$GV_ROOT/tests/emu/golden.txt" | while read -r con rom model vh ah sha; do
  case $con in nes) [ $have_nes = 1 ] || continue; f=$nesdir/$rom.nes ;;
               gb) [ $have_gb = 1 ] || continue; f=$gbdir/$rom.gb ;;
               snes) [ $have_snes = 1 ] || continue; f=$snesdir/$rom.sfc ;; esac
  name="golden $con $rom"; [ "$model" != - ] && name="$name $model"
  got_sha=$(sha256sum "$f" | cut -c1-16)
  if [ "$got_sha" != "$sha" ]; then
    fail "$name" "the ROM built differently from the pinned one (sha256 $got_sha, pinned $sha): the toolchain or the ROM source changed; rebuild the pins"
    continue
  fi
  want="$vh $ah "
  renderers="native host"
  [ $device = 1 ] && renderers="$renderers device"
  for r in $renderers; do
    aud=$r; [ $con = snes ] && aud=native
    got=$(hashes "$f" "$model" $r $aud)
    if [ "$got" = "$want" ]; then pass "$name $r" "video $vh audio $ah == pinned"
    else fail "$name $r" "got '$got', pinned '$want' $(head -n 1 "$T_TMP/err")"; fi
  done
done
