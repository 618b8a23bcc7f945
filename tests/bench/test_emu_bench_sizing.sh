# test_emu_bench_sizing.sh: how long an emulation benchmark's runs are (docs/EMU.md, "How
# long a run is"). Without --frames, the warm-up sizes each configuration's runs: at least
# 30 frames, and long enough that a warm run takes --seconds; the timed frames are all but
# a run's first tenth (power-on, that preroll and the hash checks are not timed). Checked on our NES test ROM at 1 and 16 instances with a short
# --seconds (before the sizing, the 16-instance runs were sized from one cold 60-frame
# run and clamped at 10 frames).
. "$GV_ROOT/tests/lib.sh"
G=$GPUVET
nes_roms "emulation bench sizing"
rom=$romdir/ppu_scene.nes
S=0.05
if ! "$G" bench "$rom" --video native --audio native --instances 1,16 --seconds $S --repeats 3 -q --json "$T_TMP/b.json" >/dev/null 2>"$T_TMP/err"; then
  fail "emulation bench sizing" "bench exited non-zero: $(head -n 2 "$T_TMP/err")"
  exit 0
fi
# one line per entry: instances frames seconds_median repeats frames_timed (-1: absent)
python3 - "$T_TMP/b.json" >"$T_TMP/rows" <<'PY' 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
for e in r["bench_nes"]:
    print(int(e["instances"]), int(e["frames"]), e["seconds_median"], int(e["repeats"]), int(e.get("frames_timed", -1)))
PY
while read -r inst frames secs reps timed; do
  ok=$(awk -v f="$frames" -v s="$secs" -v S=$S -v t="$timed" 'BEGIN { print (f >= 30 && s >= 0.5 * S && t == f - int(f / 10)) ? 1 : 0 }')
  if [ "$ok" = 1 ]; then
    pass "emulation bench sizing: $inst instances" "$frames frames per run (>= 30), $timed of them timed (all but the first tenth), median run $secs s (>= half of --seconds $S), $reps repeats"
  else
    fail "emulation bench sizing: $inst instances" "$frames frames per run (want >= 30), $timed timed (want all but the first tenth), median run $secs s (want >= half of --seconds $S)"
  fi
done <"$T_TMP/rows"
[ -s "$T_TMP/rows" ] || fail "emulation bench sizing" "no bench_nes entries in the record: $(head -c 300 "$T_TMP/b.json")"
