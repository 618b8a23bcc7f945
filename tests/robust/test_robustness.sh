# Robustness: bad input, kills during writes, full disks, concurrent writers and SIGINT,
# replayed on every command that reads or writes files. The rules (README, docs/EMU.md):
# bad input is one stderr line and exit 2; the environment (I/O, a full disk) exit 3; no
# crash (death by a signal, or exit codes above 4); an output is written atomically: a kill,
# a full disk or another writer leaves the old file or a complete new one, never a partial
# one, and the temporaries a killed writer leaves are removed by the next write. Ends with
# "N cases, N crashes, N hangs, N files lost" (the last three must be 0). Every invocation runs
# under a time limit: one that blocks (on a named pipe, a lock) counts as a hang.
. "$GV_ROOT/tests/lib.sh"
export OMP_WAIT_POLICY=passive
G=$GPUVET
cases=0 crashes=0 hangs=0 lost=0
W=$T_TMP/w
mkdir -p "$W"

# run_case NAME WANT CMD...: one invocation; WANT is the exit code expected (2 or 3: one
# stderr line too). Counts a crash for a signal death or an unknown exit code.
run_case() {
  name=$1; want=$2; shift 2
  cases=$((cases + 1))
  timeout -k 5 "${CASE_LIMIT:-120}" "$@" >"$T_TMP/o" 2>"$T_TMP/e" </dev/null
  rc=$?
  if [ $rc = 124 ] || [ $rc = 137 ]; then
    hangs=$((hangs + 1))
    echo "FAIL robust $name: did not finish within ${CASE_LIMIT:-120} s (a hang)"
    return 1
  fi
  if [ $rc -gt 4 ]; then
    crashes=$((crashes + 1))
    echo "FAIL robust $name: crashed (exit $rc): $(head -n 2 "$T_TMP/e" | tr '\n' ' ')"
    return 1
  fi
  if [ "$rc" != "$want" ]; then
    echo "FAIL robust $name: exit $rc, expected $want: $(head -n 1 "$T_TMP/e")"
    return 1
  fi
  if { [ $want = 2 ] || [ $want = 3 ]; } && [ "$(grep -c '' "$T_TMP/e")" != 1 ]; then
    echo "FAIL robust $name: exit $rc but $(grep -c '' "$T_TMP/e") stderr lines (one expected)"
    return 1
  fi
  return 0
}

# ---- our inputs -----------------------------------------------------------------------
nes=
if sh "$GV_ROOT/tests/nes/build_roms.sh" "$GV_BUILD/roms/nes" >/dev/null 2>&1; then nes=$GV_BUILD/roms/nes/ppu_scene.nes; fi
gb=$GV_ROOT/fuzz/seeds/gb_rom/ppu_scene.gb
"$G" run "$gb" --frames 5 --save-state "$W/gb.state" -q >/dev/null 2>&1
"$G" soak --channels 8 --blocks 1 --batch 4 --steps 2 --min-drop 1 --save "$W/ck.safetensors" -q >/dev/null 2>&1

# ---- 1. bad flags on every command ----------------------------------------------------
n0=$cases
fails=0
for cmd in "probe" "smoke" "check" "soak" "bench train" "bench matmul" "run $gb" "bench $gb" "env" "blas-race" \
           "report $GV_ROOT/tests/fixtures/records/synthetic.json" "all"; do
  for bad in "--frames" "--no-such-flag" "--json" "--steps ' 5'" "--steps 0x10" "--repeats 2 --repeats 3" \
             "--channels -8" "--batch 1e3" "--min-drop inf" "--seed=" "--threads 99999999999999999999" \
             "--devices tpu" "--dtype fp128" "--video gpu" "--instances 0" "--sysroot /no/such/dir"; do
    # shellcheck disable=SC2086
    eval "set -- $bad"
    # a flag the command does not take is an unknown flag: exit 2 all the same
    run_case "flags: $cmd $bad" 2 $G $cmd "$@" || fails=$((fails + 1))
  done
done
[ $fails = 0 ] && pass "robust bad flags" "$((cases - n0)) invocations on 12 commands: each exit 2 with one stderr line" ||
  fail "robust bad flags" "$fails of $((cases - n0)) invocations broke the rule (lines above)"

# ---- 2. bad files ---------------------------------------------------------------------
n0=$cases
fails=0
head -c 100 "$gb" >"$W/short.gb"
head -c 40000 /dev/urandom >"$W/random.gb"
: >"$W/empty.nes"
mkdir -p "$W/dir.nes"
printf 'NES\032\002\001\000\000' >"$W/header.nes"
head -c 3000 "$W/gb.state" >"$W/short.state"
printf 'GVNESST\032garbage' >"$W/nes.state"
printf '{"not": "a record"' >"$W/bad.json"
printf '10: Jump\n' >"$W/bad_movie.txt"
for f in short.gb random.gb empty.nes dir.nes header.nes; do
  run_case "rom $f" 2 "$G" run "$W/$f" || fails=$((fails + 1))
  run_case "bench rom $f" 2 "$G" bench "$W/$f" --frames 1 --repeats 1 || fails=$((fails + 1))
done
run_case "state short" 2 "$G" run "$gb" --load-state "$W/short.state" || fails=$((fails + 1))
run_case "state of another console" 2 "$G" run "$gb" --load-state "$W/nes.state" || fails=$((fails + 1))
run_case "state missing" 2 "$G" run "$gb" --load-state "$W/none.state" || fails=$((fails + 1))
run_case "input movie" 2 "$G" run "$gb" --input "$W/bad_movie.txt" || fails=$((fails + 1))
run_case "report garbage" 2 "$G" report "$W/bad.json" -o "$W/r.html" || fails=$((fails + 1))
run_case "compare garbage" 2 "$G" compare "$W/bad.json" "$W/bad.json" || fails=$((fails + 1))
if [ -s "$W/ck.safetensors" ]; then
  head -c 5000 "$W/ck.safetensors" >"$W/trunc.safetensors"
  run_case "checkpoint truncated" 2 "$G" soak --init "$W/trunc.safetensors" || fails=$((fails + 1))
  run_case "reference without reference tensors" 2 "$G" check --reference "$W/ck.safetensors" || fails=$((fails + 1))
fi
# a checkpoint that declares 4096 channels and 64 blocks in a few hundred bytes: refused
# before anything of that size is allocated (the address space is limited to 2 GiB)
python3 - "$W/bomb.safetensors" <<'PY' 2>/dev/null
import json, struct, sys
hdr = {"stem.weight": {"dtype": "F64", "shape": [4096, 12, 3, 3], "data_offsets": [0, 0]}}
for b in range(64):
    hdr["blocks.%d.c1.weight" % b] = {"dtype": "F64", "shape": [0], "data_offsets": [0, 0]}
h = json.dumps(hdr).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h)
PY
# Under AddressSanitizer (make asan) the shadow memory cannot be reserved within such a limit:
# there a 30 s guard stands in for it (allocating and filling the declared network takes minutes).
vlimit="ulimit -v 2097152; exec"
if ldd "$G" 2>/dev/null | grep -q 'libasan'; then vlimit="exec timeout -s KILL 30"; fi
if [ -s "$W/bomb.safetensors" ]; then
  run_case "checkpoint bomb (soak --init)" 2 sh -c "$vlimit '$G' soak --init '$W/bomb.safetensors'" || fails=$((fails + 1))
  run_case "checkpoint bomb (check --reference)" 2 sh -c "$vlimit '$G' check --reference '$W/bomb.safetensors'" || fails=$((fails + 1))
fi
# a battery file that exists but cannot be read stops the run and stays as it was
mkdir -p "$W/bat.sav"
if [ -n "$nes" ]; then
  { head -c 6 "$nes"; printf '\002'; tail -c +8 "$nes"; } >"$W/bat.nes"
  run_case "battery unreadable" 2 "$G" run "$W/bat.nes" --battery "$W/bat.sav" --frames 2 || fails=$((fails + 1))
  [ -d "$W/bat.sav" ] || { lost=$((lost + 1)); echo "FAIL robust battery unreadable: the battery path was replaced"; }
fi
# a battery file behind a link loop (open fails with ELOOP, not "does not exist"): the run
# stops and the link stays; the old code took it for "no save yet" and replaced it
ln -sfn loop.sav "$W/loop.sav"
if [ -n "$nes" ]; then
  run_case "battery unreadable (link loop, NES)" 2 "$G" run "$W/bat.nes" --battery "$W/loop.sav" --frames 2 || fails=$((fails + 1))
  [ -L "$W/loop.sav" ] || { lost=$((lost + 1)); echo "FAIL robust battery link loop: the NES run replaced the link"; }
fi
# a Game Boy cartridge with a battery (type $03, 8 KiB RAM, header checksum fixed)
python3 - "$gb" "$W/bat.gb" <<'PY' 2>/dev/null
import sys
r = bytearray(open(sys.argv[1], "rb").read())
r[0x147], r[0x149] = 0x03, 0x02
x = 0
for b in r[0x134:0x14D]:
    x = (x - b - 1) & 0xFF
r[0x14D] = x
open(sys.argv[2], "wb").write(r)
PY
if [ -s "$W/bat.gb" ]; then
  run_case "battery unreadable (link loop, GB)" 2 "$G" run "$W/bat.gb" --battery "$W/loop.sav" --frames 2 || fails=$((fails + 1))
  [ -L "$W/loop.sav" ] || { lost=$((lost + 1)); echo "FAIL robust battery link loop: the GB run replaced the link"; }
  run_case "battery unreadable (directory, GB)" 2 "$G" run "$W/bat.gb" --battery "$W/bat.sav" --frames 2 || fails=$((fails + 1))
fi
# --battery on a cartridge without one (the old GB code freed the cartridge, then read it)
run_case "battery on a cartridge without one" 2 "$G" run "$gb" --battery "$W/nobat.sav" --frames 2 || fails=$((fails + 1))
[ -e "$W/nobat.sav" ] && { lost=$((lost + 1)); echo "FAIL robust battery on a cartridge without one: $W/nobat.sav was written"; }
# a reference file whose values are not finite is bad input (exit 2), not a wrong CPU result
# (the file from $GV_REF_DIR, else generated with bench/torch/make_reference.py)
. "$GV_ROOT/tests/cli/nn_ref.sh"
ref=$(nn_ref_file drop7_c32_group_n8.safetensors) || ref=
for v in nan 1e308; do
  python3 - "$ref" "$W/poison_$v.safetensors" "$v" <<'PY' 2>/dev/null
import json, struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack("<Q", b[:8])[0]
t = json.loads(b[8:8 + n])["input"]
o = 8 + n + t["data_offsets"][0]
b[o:o + 8] = struct.pack("<d", float(sys.argv[3]))
open(sys.argv[2], "wb").write(b)
PY
  [ -s "$W/poison_$v.safetensors" ] &&
    { run_case "reference with a $v input" 2 "$G" check --devices cpu --gemm-size 0 --reference "$W/poison_$v.safetensors" || fails=$((fails + 1)); }
done
[ $fails = 0 ] && pass "robust bad files" "$((cases - n0)) invocations: ROMs, states, movies, records, checkpoints (incl. a 4096-channel bomb), battery: each exit 2, one line" ||
  fail "robust bad files" "$fails of $((cases - n0)) broke the rule (lines above)"

# ---- 3. kill -9 during writes ----------------------------------------------------------
# Each output starts as a known old file; a writer is killed at a random moment; the path
# must then hold the old file or a complete new one. Then a normal write must succeed and
# leave no temporary behind (stale ones from the killed writers are removed).
n0=$cases
kill_rounds() { # name path check-cmd writer-cmd...
  name=$1 path=$2 check=$3; shift 3
  printf 'OLD FILE\n' >"$path"
  old=$(cksum <"$path")
  for i in 1 2 3 4 5 6 7 8; do
    cases=$((cases + 1))
    "$@" >/dev/null 2>&1 &
    pid=$!
    sleep "0.0$(( (i * 37) % 9 + 1 ))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    if [ "$(cksum <"$path")" != "$old" ] && ! $check "$path" >/dev/null 2>&1; then
      lost=$((lost + 1))
      echo "FAIL robust kill: $name round $i left a partial file at $path"
    fi
    printf 'OLD FILE\n' >"$path"
  done
  "$@" >/dev/null 2>&1
  left=$(ls "$path".gvtmp.* 2>/dev/null | wc -l)
  if [ "$left" != 0 ]; then
    lost=$((lost + 1))
    echo "FAIL robust kill: $name: $left temporaries left after a later write"
  fi
}
# what a complete file of each kind looks like
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_trace() { [ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' \n')" = 0a ]; }
is_html() { grep -q '</html>' "$1"; }
is_ckpt() { "$G" soak --steps 1 --min-drop 1 --init "$1" -q; }
kill_rounds "run --png" "$W/k.png" is_png "$G" run "$gb" --frames 300 --png "$W/k.png" -q
kill_rounds "run --trace (Game Boy)" "$W/k.trace" is_trace "$G" run "$gb" --frames 20 --trace "$W/k.trace" -q
[ -n "$nes" ] && kill_rounds "run --trace (NES)" "$W/kn.trace" is_trace "$G" run "$nes" --frames 20 --trace "$W/kn.trace" -q
kill_rounds "report" "$W/k.html" is_html "$G" report "$GV_ROOT/tests/fixtures/records/synthetic.json" -o "$W/k.html"
kill_rounds "soak --save" "$W/k.safetensors" is_ckpt "$G" soak --channels 8 --blocks 1 --batch 4 --steps 30 --min-drop 1 --save "$W/k.safetensors" -q
[ "$lost" = 0 ] && pass "robust kill -9 during writes" "$((cases - n0)) kills of 5 writers (PNG, traces, report, checkpoint): old or complete file every time, no temporary left" ||
  fail "robust kill -9 during writes" "$lost files lost or partial (lines above)"

# ---- 4. a full disk (the file size limit: writes fail with EFBIG) ----------------------
n0=$cases
fails=0
# full CMD...: CMD under a one-block file size limit (a script, so that run_case's time
# limit can run it)
full=$T_TMP/full
printf '#!/bin/sh\ntrap "" XFSZ\nulimit -f 1\nexec "$@"\n' >"$full" && chmod +x "$full"
for out in "run $gb --frames 200 --png $W/f.png" "run $gb --frames 30 --trace $W/f.trace" \
           "report $GV_ROOT/tests/fixtures/records/synthetic.json -o $W/f.html" "probe --json $W/f.json"; do
  set -- $out
  path=$(eval "echo \${$#}")
  printf 'OLD\n' >"$path"
  # shellcheck disable=SC2086
  run_case "full disk: $out" 3 "$full" "$G" $out || fails=$((fails + 1))
  [ "$(cat "$path")" = OLD ] || { lost=$((lost + 1)); echo "FAIL robust full disk: $path was not kept"; }
  [ "$(ls "$path".gvtmp.* 2>/dev/null | wc -l)" = 0 ] || { lost=$((lost + 1)); echo "FAIL robust full disk: a temporary of $path is left"; }
done
# all stops at its first failed write (one line, exit 3), and an --out longer than 399
# characters is used whole (the old code cut it and wrote under the cut path)
long=$W/$(python3 -c "print('/'.join(['d' * 60] * 7))")
run_case "full disk: all --out (${#long} characters)" 3 "$full" "$G" all --devices cpu --out "$long" || fails=$((fails + 1))
if [ -d "$long" ] && [ "$(ls "$(dirname "$long")" | wc -l)" = 1 ]; then :; else
  fails=$((fails + 1)); echo "FAIL robust all --out: $long was not made, or a cut path beside it: $(ls "$(dirname "$long")" | tr '\n' ' ')"
fi
[ $fails = 0 ] && pass "robust full disk" "$((cases - n0)) writers over a one-block file size limit: exit 3, one line, old file kept, no temporary" ||
  fail "robust full disk" "$fails broke the rule (lines above)"

# ---- 5. concurrent writers ----------------------------------------------------------------
n0=$cases
bad=0
for round in 1 2 3 4 5; do
  for k in 1 2 3 4; do
    cases=$((cases + 1))
    "$G" run "$gb" --frames $((k * 7)) --png "$W/c.png" -q >/dev/null 2>&1 &
  done
  wait
  is_png "$W/c.png" || bad=$((bad + 1))
done
[ "$(ls "$W"/c.png.gvtmp.* 2>/dev/null | wc -l)" = 0 ] || bad=$((bad + 1))
# Game Boy traces too: 4 writers of 1-4 frames at once leave exactly one writer's whole trace
for k in 1 2 3 4; do "$G" run "$gb" --frames $k --trace "$W/ref$k.trace" -q >/dev/null 2>&1; done
for round in 1 2 3; do
  for k in 1 2 3 4; do
    cases=$((cases + 1))
    "$G" run "$gb" --frames $k --trace "$W/c.trace" -q >/dev/null 2>&1 &
  done
  wait
  whole=0
  for k in 1 2 3 4; do cmp -s "$W/c.trace" "$W/ref$k.trace" && whole=1; done
  [ $whole = 1 ] || { bad=$((bad + 1)); echo "FAIL robust concurrent traces: round $round left a trace equal to no writer's ($(wc -l <"$W/c.trace") lines)"; }
done
[ "$(ls "$W"/c.trace.gvtmp.* 2>/dev/null | wc -l)" = 0 ] || bad=$((bad + 1))

lost=$((lost + bad))
[ $bad = 0 ] && pass "robust concurrent writers" "$((cases - n0)) writers, 4 at a time on one PNG and on one Game Boy trace: a complete file every round, no temporary left" ||
  fail "robust concurrent writers" "$bad rounds left a broken file or a temporary"

# ---- 6. symbolic links, modes, stale temporaries ----------------------------------------
printf 'OLD\n' >"$W/target.json"
chmod 600 "$W/target.json"
ln -sf target.json "$W/link.json"
"$G" probe --json "$W/link.json" -q >/dev/null 2>&1
if [ -L "$W/link.json" ] && grep -q '"schema"' "$W/target.json" && [ "$(stat -c %a "$W/target.json")" = 600 ]; then
  pass "robust symlinked output" "written through the link into its target, which keeps mode 600; the link stays"
else
  lost=$((lost + 1)); fail "robust symlinked output" "link $( [ -L "$W/link.json" ] && echo kept || echo replaced), target mode $(stat -c %a "$W/target.json")"
fi
# A pipe or a device cannot be replaced by a rename: the record goes straight into it.
pipe_out=$("$G" probe --json /dev/stdout -q 2>"$W/pipe.err" | grep -c '"schema":[[:space:]]*"gpuvet.run/1"')
if [ "$pipe_out" = 1 ] && [ ! -s "$W/pipe.err" ]; then
  pass "robust output to a pipe" "probe --json /dev/stdout | grep: the record arrived, no error"
else
  fail "robust output to a pipe" "$pipe_out records through the pipe; stderr: $(head -c 200 "$W/pipe.err")"
fi
sleep 0 & dead=$!
wait $dead
printf 'stale' >"$W/s.json.gvtmp.$dead.0"
"$G" probe --json "$W/s.json" -q >/dev/null 2>&1
if [ ! -e "$W/s.json.gvtmp.$dead.0" ] && [ -s "$W/s.json" ]; then
  pass "robust stale temporaries" "a temporary of a writer no longer running was removed by the next write"
else
  fail "robust stale temporaries" "$W/s.json.gvtmp.$dead.0 is still there"
fi

# ---- 7. SIGINT ------------------------------------------------------------------------------
# A background job of a non-interactive shell starts with SIGINT ignored: restore the
# default, as a terminal's Ctrl-C finds it, before gpuvet starts (a guard kills it at 60 s).
# The interpreter itself, not a wrapper script (a pyenv shim is a shell that keeps the signal
# ignored and stands between this shell and timeout).
py=$(python3 -c 'import sys; print(sys.executable)')
"$py" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
  timeout -s KILL 60 "$G" bench "$gb" --frames 100000 --repeats 100 -q >/dev/null 2>&1 &
pid=$!
# wait until timeout has started gpuvet (a slow python3 start-up must not eat the signal)
i=0
while ! pgrep -P $pid >/dev/null 2>&1 && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
t0=$(date +%s%N)
pkill -INT -P $pid 2>/dev/null || kill -INT $pid
wait $pid
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
cases=$((cases + 1))
if [ $rc = 130 ]; then pass "robust SIGINT" "exit 130, $ms ms after the signal"
else fail "robust SIGINT" "exit $rc after SIGINT ($ms ms)"; crashes=$((crashes + 1)); fi

# ---- 8. a long telemetry series renders (the report is linear in it) --------------------------
python3 - "$W/long.json" <<'PY' 2>/dev/null
import json, sys
n = 500000
rec = {"schema": "gpuvet.run/1", "command": "bench train", "started_at": "2026-12-03T00:00:00Z",
       "finished_at": "2026-12-03T00:00:01Z", "exit_code": 0, "host": {"hostname": "h"},
       "telemetry": {"hz": 5, "achieved_hz": 5, "series": {"t": [i * 0.2 for i in range(n)],
                     "loadavg1": [1.0 + (i % 97) / 97 for i in range(n)]},
                     "phases": [{"label": "all of it", "t0": 0, "t1": n * 0.2, "samples": n}], "sources": {}}}
json.dump(rec, open(sys.argv[1], "w"))
PY
if [ -s "$W/long.json" ]; then
  cases=$((cases + 1))
  if timeout 120 "$G" report "$W/long.json" -o "$W/long.html" >/dev/null 2>&1 && grep -q '<svg' "$W/long.html"; then
    pass "robust long telemetry" "a record with 500,000 telemetry points renders (plotted as at most 2,000 points; the old report took minutes per 100,000)"
  else
    fail "robust long telemetry" "report did not finish within 120 s or drew no plot"
  fi
fi

# ---- 9. the Drop7 and emulation surfaces: hangs, lost files, concurrent runs, links --------
n0=$cases
fails=0
# unchanged NAME PATH SUM: the file at PATH still has checksum SUM (else a lost file)
unchanged() {
  [ "$(cksum <"$2" 2>/dev/null)" = "$3" ] || { lost=$((lost + 1)); fails=$((fails + 1)); echo "FAIL robust $1: $2 was changed"; }
}
# a named pipe given for every input: refused at once (one line, exit 2), never waited on
for f in fifo.gb fifo.state fifo.txt fifo.sav fifo.st fifo.json fifo.safetensors; do mkfifo "$W/$f"; done
CASE_LIMIT=20
run_case "fifo: run ROM" 2 "$G" run "$W/fifo.gb" || fails=$((fails + 1))
run_case "fifo: run --load-state" 2 "$G" run "$gb" --load-state "$W/fifo.state" || fails=$((fails + 1))
run_case "fifo: run --input" 2 "$G" run "$gb" --input "$W/fifo.txt" || fails=$((fails + 1))
[ -s "$W/bat.gb" ] && { run_case "fifo: run --battery" 2 "$G" run "$W/bat.gb" --battery "$W/fifo.sav" --frames 2 || fails=$((fails + 1)); }
run_case "fifo: bench ROM" 2 "$G" bench "$W/fifo.gb" --frames 1 --repeats 1 || fails=$((fails + 1))
run_case "fifo: train --data" 2 "$G" train --data "$W/fifo.st" --channels 8 --blocks 1 --epochs 1 || fails=$((fails + 1))
run_case "fifo: play --net" 2 "$G" play --net "$W/fifo.safetensors" --games 2 || fails=$((fails + 1))
run_case "fifo: selfplay --resume --out" 2 "$G" selfplay --channels 8 --blocks 1 --games 2 --sims 2 --resume --out "$W/fifo.st" || fails=$((fails + 1))
run_case "fifo: soak --init" 2 "$G" soak --init "$W/fifo.safetensors" || fails=$((fails + 1))
run_case "fifo: check --reference" 2 "$G" check --reference "$W/fifo.safetensors" || fails=$((fails + 1))
run_case "fifo: report" 2 "$G" report "$W/fifo.json" -o "$W/fifo_r.html" || fails=$((fails + 1))
run_case "fifo: compare" 2 "$G" compare "$W/fifo.json" "$W/fifo.json" || fails=$((fails + 1))
CASE_LIMIT=120

# self-play datasets: metadata that lies, resumes that must not mix players or lose files
sp="selfplay --channels 8 --blocks 1 --sims 2 --parallel 2"
# shellcheck disable=SC2086
"$G" $sp --games 4 --out "$W/d.st" -q >/dev/null 2>&1
# meta_edit IN OUT KEY VALUE: a copy of dataset IN whose __metadata__ KEY is VALUE
meta_edit() {
  python3 - "$@" <<'PY'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n])
h["__metadata__"][sys.argv[3]] = sys.argv[4]
t = json.dumps(h).encode()
t += b" " * (-len(t) % 8)
open(sys.argv[2], "wb").write(struct.pack("<Q", len(t)) + t + b[8 + n:])
PY
}
if [ -s "$W/d.st" ]; then
  for kv in "games -1000" "games abc" "games 99999999" "games 0" "seed -5" "seed 1e3" "mode weird" "sims -1" "net_id xyz"; do
    set -- $kv
    meta_edit "$W/d.st" "$W/m.st" "$1" "$2" 2>/dev/null || continue
    sum=$(cksum <"$W/m.st")
    # shellcheck disable=SC2086
    run_case "dataset metadata $1=$2 (selfplay --resume)" 2 "$G" $sp --games 8 --resume --out "$W/m.st" || fails=$((fails + 1))
    unchanged "dataset metadata $1=$2" "$W/m.st" "$sum"
    run_case "dataset metadata $1=$2 (train --data)" 2 "$G" train --data "$W/m.st" --channels 8 --blocks 1 --epochs 1 || fails=$((fails + 1))
  done
  # trailing bytes after the tensors
  { cat "$W/d.st"; printf 'GARBAGE!'; } >"$W/tail.st"
  run_case "dataset with trailing bytes (train --data)" 2 "$G" train --data "$W/tail.st" --channels 8 --blocks 1 --epochs 1 || fails=$((fails + 1))
  # an existing dataset is neither replaced without --force nor resumed by another player
  cp "$W/d.st" "$W/e.st"
  sum=$(cksum <"$W/e.st")
  # shellcheck disable=SC2086
  run_case "selfplay onto an existing dataset" 2 "$G" $sp --games 4 --out "$W/e.st" || fails=$((fails + 1))
  unchanged "selfplay onto an existing dataset" "$W/e.st" "$sum"
  for other in "--sims 3" "--channels 16" "--seed 9" "--temp-moves 5" "--noise 0.5" "--mode hardcore"; do
    # shellcheck disable=SC2086
    run_case "selfplay --resume with $other" 2 "$G" $sp --games 8 --resume --out "$W/e.st" $other || fails=$((fails + 1))
    unchanged "selfplay --resume with $other" "$W/e.st" "$sum"
  done
  # shellcheck disable=SC2086
  run_case "selfplay --resume --force" 2 "$G" $sp --games 8 --resume --force --out "$W/e.st" || fails=$((fails + 1))
  # shellcheck disable=SC2086
  run_case "selfplay --force replaces" 0 "$G" $sp --games 2 --force --out "$W/e.st" -q || fails=$((fails + 1))
  # a dataset that exists but cannot be read is an error, never "no dataset yet"
  mkdir -p "$W/dirset.st"
  # shellcheck disable=SC2086
  run_case "selfplay --resume on a folder" 2 "$G" $sp --games 4 --resume --out "$W/dirset.st" || fails=$((fails + 1))
  [ -d "$W/dirset.st" ] || { lost=$((lost + 1)); fails=$((fails + 1)); echo "FAIL robust selfplay --resume on a folder: it was replaced"; }
  ln -sfn loop.st "$W/loop.st"
  # shellcheck disable=SC2086
  run_case "selfplay --resume on a link loop" 2 "$G" $sp --games 4 --resume --out "$W/loop.st" || fails=$((fails + 1))
  [ -L "$W/loop.st" ] || { lost=$((lost + 1)); fails=$((fails + 1)); echo "FAIL robust selfplay --resume on a link loop: the link was replaced"; }
  # unreadable by the user who runs it (mode 600, another owner): as root, gpuvet runs as
  # nobody in a folder nobody may write, on root's file
  if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
    mkdir -p "$W/nob" && chown nobody "$W/nob" && chmod 755 "$T_TMP" "$W" "$W/nob"
    cp "$W/d.st" "$W/nob/root.st" && chmod 600 "$W/nob/root.st"
    sum=$(cksum <"$W/nob/root.st")
    # shellcheck disable=SC2086
    run_case "selfplay --resume on another user's mode-600 dataset" 2 \
      setpriv --reuid=nobody --regid=nogroup --clear-groups "$G" $sp --games 8 --resume --out "$W/nob/root.st" || fails=$((fails + 1))
    unchanged "selfplay --resume on another user's mode-600 dataset" "$W/nob/root.st" "$sum"
  elif [ "$(id -u)" != 0 ]; then
    cp "$W/d.st" "$W/own.st" && chmod 000 "$W/own.st"
    sum=$(cksum <"$W/d.st")
    # shellcheck disable=SC2086
    run_case "selfplay --resume on an unreadable dataset" 2 "$G" $sp --games 8 --resume --out "$W/own.st" || fails=$((fails + 1))
    chmod 600 "$W/own.st"
    unchanged "selfplay --resume on an unreadable dataset" "$W/own.st" "$sum"
  fi
  # two writers of one dataset: the second is refused (exit 3, one line) while the first
  # runs, and the first's games are all in the file at the end
  # shellcheck disable=SC2086
  "$G" $sp --games 40 --chunk 2 --out "$W/two.st" -q >"$T_TMP/first" 2>&1 &
  first=$!
  i=0
  while [ ! -e "$W/two.st.lock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  # shellcheck disable=SC2086
  run_case "a second selfplay on the same --out" 3 "$G" $sp --games 40 --force --out "$W/two.st" || fails=$((fails + 1))
  wait $first
  rc=$?
  cases=$((cases + 1))
  n=$("$G" train --data "$W/two.st" --channels 8 --blocks 1 --epochs 1 --batch 8 2>/dev/null | sed -n 's/^train: [0-9]* positions from 1 file (\([0-9]*\) games).*/\1/p')
  if [ $rc != 0 ] || [ "$n" != 40 ]; then
    lost=$((lost + 1)); fails=$((fails + 1))
    echo "FAIL robust two selfplays on one --out: the first exited $rc, the file holds '${n}' games of its 40"
  fi
  [ -e "$W/two.st.lock" ] && { fails=$((fails + 1)); echo "FAIL robust two selfplays on one --out: the lock file was left"; }
fi

# a symbolic link planted by another user in a sticky, world-writable folder is not
# followed: root's own mode-600 file behind it is kept
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  mkdir -p "$W/sticky" && chmod 1777 "$W/sticky"
  printf 'SECRET\n' >"$W/secret" && chmod 600 "$W/secret"
  sum=$(cksum <"$W/secret")
  ln -sfn "$W/secret" "$W/sticky/out.png" && chown -h nobody "$W/sticky/out.png"
  run_case "output through another user's link in a sticky folder" 2 "$G" run "$gb" --frames 2 --png "$W/sticky/out.png" || fails=$((fails + 1))
  unchanged "output through another user's link in a sticky folder" "$W/secret" "$sum"
  [ "$(stat -c %a "$W/secret")" = 600 ] || { fails=$((fails + 1)); echo "FAIL robust sticky link: the target's mode changed"; }
  # the user's own link there is written through
  ln -sfn "$W/mine.png" "$W/sticky/mine.png"
  run_case "output through the user's own link in a sticky folder" 0 "$G" run "$gb" --frames 2 --png "$W/sticky/mine.png" -q || fails=$((fails + 1))
  [ -L "$W/sticky/mine.png" ] && is_png "$W/mine.png" || { fails=$((fails + 1)); echo "FAIL robust own link in a sticky folder: not written through"; }
else
  skip "robust sticky link" "needs root and a user 'nobody' to plant a link owned by another user"
fi

# requests far beyond the machine: said before anything is allocated (exit 3, one line)
for c in "play --channels 4096 --blocks 64 --parallel 65536 --games 1" \
         "selfplay --channels 4096 --blocks 64 --parallel 65536 --games 1 --out $W/big.st" \
         "bench train --channels 4096 --blocks 64 --batches 65536" "bench infer --channels 4096 --blocks 64 --batches 65536" \
         "soak --channels 4096 --blocks 64 --batch 65536" "check --channels 4096 --blocks 64 --batch 65536"; do
  run_case "oversize: $c" 3 sh -c "$vlimit '$G' $c" || fails=$((fails + 1))
done
[ -e "$W/big.st" ] && { fails=$((fails + 1)); echo "FAIL robust oversize selfplay: it wrote $W/big.st"; }

# emulation flags and movies
snes=
if PYTHON=python3 sh "$GV_ROOT/tests/roms/snes/build.sh" "$GV_BUILD/roms/snes" >/dev/null 2>&1; then snes=$GV_BUILD/roms/snes/ppu_scene.sfc; fi
[ -n "$snes" ] && { run_case "SNES --audio device" 2 "$G" run "$snes" --frames 2 --audio device || fails=$((fails + 1)); }
printf '18446744073709551615: A\n' >"$W/far.txt"
printf '1: +\n' >"$W/plus.txt"
printf '1: A+\n' >"$W/plus2.txt"
run_case "movie frame 2^64-1" 2 "$G" run "$gb" --input "$W/far.txt" || fails=$((fails + 1))
grep -q "beyond the last frame" "$T_TMP/e" || { fails=$((fails + 1)); echo "FAIL robust movie frame 2^64-1: $(cat "$T_TMP/e")"; }
run_case "movie '1: +'" 2 "$G" run "$gb" --input "$W/plus.txt" || fails=$((fails + 1))
run_case "movie '1: A+'" 2 "$G" run "$gb" --input "$W/plus2.txt" || fails=$((fails + 1))
run_case "--reset-at 5,3" 2 "$G" run "$gb" --reset-at 5,3 --frames 10 || fails=$((fails + 1))
[ $fails = 0 ] && pass "robust new surfaces" "$((cases - n0)) invocations: named pipes for 12 inputs, lying dataset metadata, trailing bytes, resumes of another player, unreadable datasets, two writers of one dataset, a planted link in a sticky folder, oversize networks, SNES device audio, bad movies and reset lists: each refused as documented, no file lost" ||
  fail "robust new surfaces" "$fails of $((cases - n0)) broke the rule (lines above)"

echo "robustness: $cases cases, $crashes crashes, $hangs hangs, $lost files lost"
if [ $crashes = 0 ] && [ $hangs = 0 ] && [ $lost = 0 ]; then pass "robustness summary" "$cases cases, 0 crashes, 0 hangs, 0 files lost"
else fail "robustness summary" "$cases cases, $crashes crashes, $hangs hangs, $lost files lost"; fi
