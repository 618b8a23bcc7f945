# The command-line conventions every command keeps (docs/CLI conventions of issue 13):
#   --help prints "usage: gpuvet ..." on stdout, nothing on stderr, exit 0;
#   every command offers --json FILE and -q (--quiet), and the short options mean one thing
#   (-q quiet, -h help, -o output, -v verbose);
#   a bad flag is one line on stderr, "gpuvet <command>: ...", exit 2, nothing on stdout;
#   --json - puts the run record on stdout: after the command's own lines, one complete JSON
#   object whose "command" names the command.
# Each comparison prints what it compared.
. "$GV_ROOT/tests/lib.sh"
G=$GPUVET

# Every command word of gpuvet; a new command must be added here (the last check below
# compares this list with the one in `gpuvet --help`).
cmds="probe|smoke|check|soak|bench matmul|bench train|bench infer|bench drop7|bench nes|bench gb|play|selfplay|train|run|env|blas-race|report|compare|all"

IFS='|'
for c in $cmds; do
  unset IFS
  # shellcheck disable=SC2086
  $G $c --help >"$T_TMP/h.out" 2>"$T_TMP/h.err"; rc=$?
  if [ $rc = 0 ] && [ ! -s "$T_TMP/h.err" ] && head -n 1 "$T_TMP/h.out" | grep -q '^usage: gpuvet'; then
    pass "help on stdout: $c" "exit 0, $(grep -c '' "$T_TMP/h.out") lines on stdout, none on stderr: $(head -n 1 "$T_TMP/h.out")"
  else
    fail "help on stdout: $c" "exit $rc, stderr $(grep -c '' "$T_TMP/h.err") lines, first stdout line: $(head -n 1 "$T_TMP/h.out")"
  fi
  # the flags of the help text (lines "  --name[,-x] ...")
  flags=$(grep -E '^  --' "$T_TMP/h.out" | awk '{print $1}' | tr '\n' ' ')
  case " $flags " in
    *" --json "*) pass "--json offered: $c" "flags: $flags" ;;
    *) fail "--json offered: $c" "no --json among: $flags" ;;
  esac
  case " $flags " in
    *" --quiet,-q "*) pass "-q offered: $c" "--quiet,-q among the flags" ;;
    *) fail "-q offered: $c" "no --quiet,-q among: $flags" ;;
  esac
  # short options: each letter means one long option everywhere
  for s in $(printf '%s\n' $flags | grep -oE ',-[a-z]$' | cut -c2-); do
    long=$(printf '%s\n' $flags | grep -E ",$s\$" | cut -d, -f1)
    case "$s=$long" in
      -q=--quiet|-o=--output|-o=--out|-v=--verbose)
        pass "short option $s: $c" "$s is $long (-o: where output goes)" ;;
      *) fail "short option $s: $c" "$s is $long here, which no other command means by $s" ;;
    esac
  done
  # a bad flag: one line, the command's prefix, exit 2, stdout empty
  # shellcheck disable=SC2086
  $G $c --no-such-flag >"$T_TMP/b.out" 2>"$T_TMP/b.err"; rc=$?
  line=$(head -n 1 "$T_TMP/b.err")
  want="gpuvet $c: "
  if [ $rc = 2 ] && [ "$(grep -c '' "$T_TMP/b.err")" = 1 ] && [ ! -s "$T_TMP/b.out" ] &&
     [ "${line#"$want"}" != "$line" ]; then
    pass "bad flag error line: $c" "exit 2, stdout empty, stderr: $line"
  else
    fail "bad flag error line: $c" "exit $rc, stdout $(grep -c '' "$T_TMP/b.out") lines, stderr $(grep -c '' "$T_TMP/b.err") lines (want one starting '$want'): $line"
  fi
  IFS='|'
done
unset IFS

# Errors after parsing carry the command's prefix too (not "gpuvet: report: ...").
printf '{"not": "a record"}\n' >"$T_TMP/bad.json"
for c in report compare; do
  if [ $c = report ]; then set -- "$T_TMP/bad.json"; else set -- "$T_TMP/bad.json" "$T_TMP/bad.json"; fi
  "$G" $c "$@" >/dev/null 2>"$T_TMP/e"; rc=$?
  line=$(head -n 1 "$T_TMP/e")
  case "$line" in
    "gpuvet $c: "*) [ $rc = 2 ] && pass "error prefix: $c" "exit 2: $line" || fail "error prefix: $c" "exit $rc: $line" ;;
    *) fail "error prefix: $c" "exit $rc, stderr does not start with 'gpuvet $c: ': $line" ;;
  esac
done
"$G" blas-race --devices cpu,cpu >/dev/null 2>"$T_TMP/e"; rc=$?
line=$(head -n 1 "$T_TMP/e")
case "$line" in
  "gpuvet blas-race: "*) [ $rc = 2 ] && pass "error prefix: blas-race" "exit 2: $line" || fail "error prefix: blas-race" "exit $rc: $line" ;;
  *) fail "error prefix: blas-race" "exit $rc: $line" ;;
esac

# --json -: the record is the last thing on stdout. json_stdout NAME COMMAND-WORD ARGS...
PY=${PYTHON:-python3}
command -v "$PY" >/dev/null 2>&1 || PY=python3
json_stdout() {
  name=$1; word=$2; shift 2
  "$G" "$@" --json - >"$T_TMP/j.out" 2>"$T_TMP/j.err"; rc=$?
  got=$("$PY" - "$T_TMP/j.out" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().split("\n")
starts = [i for i, l in enumerate(lines) if l == "{"]
if not starts:
    print("no line '{' on stdout"); sys.exit(0)
try:
    rec = json.loads("\n".join(lines[starts[-1]:]))
except ValueError as e:
    print("the text from the last '{' is not one JSON object: %s" % e); sys.exit(0)
print("command=%s exit_code=%s schema=%s" % (rec.get("command"), rec.get("exit_code"), rec.get("schema")))
EOF
)
  case "$got" in
    "command=$word exit_code=$rc schema=gpuvet.run/"*) pass "--json - on stdout: $name" "exit $rc; the record after $(($(grep -c '' "$T_TMP/j.out"))) stdout lines parses: $got" ;;
    *) fail "--json - on stdout: $name" "exit $rc: $got; stderr: $(head -n 1 "$T_TMP/j.err")" ;;
  esac
}
json_stdout probe probe probe
json_stdout env env env
json_stdout "env --check" env env --check -q
json_stdout check check check --devices cpu --channels 8 --blocks 1 --batch 2 --gemm-size 0 --norm group --dtype fp32 -q
json_stdout soak soak soak --devices cpu --channels 8 --blocks 1 --batch 4 --steps 2 --min-drop 1 -q
json_stdout "bench matmul" "bench matmul" bench matmul --devices cpu --sizes 64 --repeats 1 --min-time 0 -q
json_stdout "bench train" "bench train" bench train --devices cpu --channels 8 --blocks 1 --batches 4 --repeats 1 --steps 1 -q
json_stdout "bench infer" "bench infer" bench infer --devices cpu --channels 8 --blocks 1 --batches 1 --repeats 1 --min-time 0.001 -q
json_stdout blas-race blas-race blas-race --sizes 16 --runs 2 --threads 2 -q
"$G" bench matmul --devices cpu --sizes 64 --repeats 1 --min-time 0 -q --json "$T_TMP/rec.json" >/dev/null 2>&1
json_stdout report report report "$T_TMP/rec.json" -o "$T_TMP/r.md" -q
json_stdout compare compare compare "$T_TMP/rec.json" "$T_TMP/rec.json" -q
if sh "$GV_ROOT/tests/nes/build_roms.sh" "$GV_BUILD/roms/nes" >/dev/null 2>&1; then
  rom=$GV_BUILD/roms/nes/ppu_scene.nes
  json_stdout run run run "$rom" --frames 2 -q
  json_stdout "bench ROM" bench bench "$rom" --frames 2 --repeats 1 --video native -q
else
  skip "--json - on stdout: run, bench ROM" "our NES ROMs could not be built here (ca65 from Debian's cc65 missing?)"
fi
"$G" smoke -q >/dev/null 2>&1; rc=$?
if [ $rc = 0 ] || [ $rc = 1 ]; then
  json_stdout smoke smoke smoke -q
else
  skip_gpu "--json - on stdout: smoke" "no GPU here (smoke exits 3 before any record)"
fi

# The command list above is every command of `gpuvet --help`.
"$G" --help >"$T_TMP/top" 2>&1
missing=""
for w in $(grep -E '^  [a-z][a-z-]+ ' "$T_TMP/top" | awk '{print $1}' | sort -u); do
  case "|$cmds|" in *"|$w|"*|*"|$w "*) ;; *) missing="$missing $w" ;; esac
done
if [ -z "$missing" ]; then
  pass "every command checked" "the command words of gpuvet --help are all in the list above"
else
  fail "every command checked" "commands of gpuvet --help not checked here:$missing"
fi
