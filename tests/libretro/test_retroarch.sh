# RetroArch itself (Debian's retroarch, 1.14) runs gpuvet's libretro cores headless: no
# video output (the null driver), sound into a WAV through ALSA's file plugin, and a
# screenshot at the end (--max-frames-ss). For our own scene ROM of each console (picture
# and sound), 300 frames:
# the screenshot must have gpuvet run's last-frame pixels and the sound gpuvet run's samples
# (RetroArch's resampler holds back the first couple; at the core's own rate it changes no
# sample). Skips, saying why, when retroarch or the cores are missing.
. "$GV_ROOT/tests/lib.sh"
export OMP_WAIT_POLICY=passive
G=$GPUVET
cores=${GV_LIBRETRO:-$GV_ROOT/build/libretro}
PY=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null 2>&1; then PY=$p; break; fi
done
if ! command -v retroarch >/dev/null 2>&1; then
  skip "retroarch" "retroarch is not installed (Debian package retroarch; make bootstrap-test installs it)"; exit 0
fi
if [ -z "$PY" ]; then skip "retroarch" "no python3 to read RetroArch's screenshot and WAV"; exit 0; fi
ver=$(retroarch --version 2>&1 | grep -o 'v[0-9][0-9.]*' | head -n 1)

# RetroArch's home: its config, and ALSA's (a PCM that writes a WAV file).
H=$T_TMP/home
mkdir -p "$H/saves" "$H/states" "$H/sys" "$H/info"
cat >"$H/.asoundrc" <<EOT
pcm.gvfile {
  type file
  slave.pcm "null"
  file "$T_TMP/ra.wav"
  format "wav"
}
EOT
cat >"$H/ra.cfg" <<EOT
video_driver = "null"
input_driver = "null"
joypad_driver = "null"
menu_driver = "null"
audio_driver = "alsa"
audio_device = "gvfile"
audio_out_rate = "48000"
audio_rate_control = "false"
audio_max_timing_skew = "0.0"
audio_resampler = "nearest"
video_vsync = "false"
video_threaded = "false"
config_save_on_exit = "false"
savefile_directory = "$H/saves"
savestate_directory = "$H/states"
system_directory = "$H/sys"
libretro_info_path = "$cores"
EOT

roms=
if sh "$GV_ROOT/tests/nes/build_roms.sh" "$GV_BUILD/roms/nes" >"$T_TMP/nes.log" 2>&1; then roms="nes/ppu_scene.nes"
else skip "retroarch nes" "the NES test ROMs did not build (ca65/ld65 from the Debian package cc65)"; fi
if PYTHON=$PY sh "$GV_ROOT/tests/roms/gb/build.sh" "$GV_BUILD/roms/gb" >"$T_TMP/gb.log" 2>&1; then roms="$roms gb/ppu_scene.gb"
else skip "retroarch gb" "the Game Boy test ROMs did not build (sdcc and python3)"; fi
if PYTHON=$PY sh "$GV_ROOT/tests/roms/snes/build.sh" "$GV_BUILD/roms/snes" >"$T_TMP/snes.log" 2>&1; then roms="$roms snes/ppu_scene.sfc"
else skip "retroarch snes" "the SNES test ROMs did not build (ca65/ld65 from the Debian package cc65, python3)"; fi

for r in $roms; do
  con=${r%%/*}; rom=$GV_BUILD/roms/$r; name="retroarch $con $(basename "$r")"
  core=$cores/gpuvet_${con}_libretro.so
  if [ ! -f "$core" ]; then skip "$name" "$core is not built (make libretro)"; continue; fi
  rm -f "$T_TMP/ra.wav" "$T_TMP/ra.png"
  HOME=$H XDG_CONFIG_HOME=$H/.config timeout 120 retroarch -c "$H/ra.cfg" -v -L "$core" "$rom" --max-frames=300 \
    --max-frames-ss --max-frames-ss-path="$T_TMP/ra.png" >"$T_TMP/ra.log" 2>&1
  rc=$?
  loaded=$(grep -o "gpuvet $con core: [^;]*" "$T_TMP/ra.log" | head -n 1)
  if [ $rc != 0 ] || [ -z "$loaded" ] || [ ! -s "$T_TMP/ra.png" ] || [ ! -s "$T_TMP/ra.wav" ]; then
    fail "$name" "RetroArch $ver exit $rc, core loaded: ${loaded:-no}, screenshot $( [ -s "$T_TMP/ra.png" ] && echo yes || echo no), WAV $( [ -s "$T_TMP/ra.wav" ] && echo yes || echo no): $(grep -E 'ERROR' "$T_TMP/ra.log" | grep -v -E 'MIDI|snd_seq' | head -n 2 | tr '\n' ' ')"
    continue
  fi
  "$G" run "$rom" --frames 300 --png "$T_TMP/gv.png" --wav "$T_TMP/gv.wav" --no-battery -q >/dev/null 2>"$T_TMP/err" ||
    { fail "$name" "gpuvet run failed: $(head -n 1 "$T_TMP/err")"; continue; }
  if out=$("$PY" "$GV_ROOT/tests/libretro/ra_compare.py" png "$T_TMP/ra.png" "$T_TMP/gv.png" 2>&1); then
    pass "$name picture" "RetroArch $ver, 300 frames ($loaded): $out"
  else
    fail "$name picture" "RetroArch $ver, 300 frames: $out"
  fi
  if out=$("$PY" "$GV_ROOT/tests/libretro/ra_compare.py" wav "$T_TMP/ra.wav" "$T_TMP/gv.wav" 2>&1); then
    pass "$name sound" "$out"
  else
    fail "$name sound" "$out"
  fi
done
