# gpuvet all: the whole job on this machine (the one `make run` runs). It must exit 0, print
# one line per step, in order (probe, smoke, check, soak, train, matmul, emulation), in at
# most 40 lines with a verdict per workload (training, GEMM, NES, Game Boy), write the merged
# record (with how and when it ended), each step's own record, and a report that says the
# same. With GV_EXPECT_GPU=1 (a GPU machine) a GPU step that does not run is a failure.
. "$GV_ROOT/tests/lib.sh"

start=$(date +%s)
"$GPUVET" all -o "$T_TMP/all" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
secs=$(($(date +%s) - start))
if [ $rc = 0 ]; then pass "all: exit 0" "finished in $secs s"
else fail "all: exit 0" "exit $rc after $secs s: $(tail -n 3 "$T_TMP/out" "$T_TMP/err" | tr '\n' ' ')"; fi
order=$(awk '{print $1}' "$T_TMP/out" | grep -E '^(probe|smoke|check|soak|train|matmul|emulation)$' | tr '\n' ' ')
want="probe smoke check soak train matmul emulation "
if [ "$order" = "$want" ]; then pass "all: every step in order" "$order"
else fail "all: every step in order" "got '$order', want '$want'"; fi
lines=$(cat "$T_TMP/out" "$T_TMP/err" | grep -c '')
if [ "$lines" -le 40 ]; then pass "all: short output" "$lines lines on the terminal (at most 40)"
else fail "all: short output" "$lines lines (at most 40)"; fi
for w in 'training' 'GEMM' 'NES' 'Game Boy'; do
  if grep -q "^verdict: .*$w" "$T_TMP/out"; then pass "all: verdict for $w" "$(grep -m1 "^verdict: .*$w" "$T_TMP/out" | cut -c1-120)"
  else fail "all: verdict for $w" "no verdict line mentions $w"; fi
done
# without a GPU the training verdict says why none was measured and what to do next: look with
# gpuvet probe, or (a build without a GPU backend: make asan, GPU=cpu) rebuild with one
if [ "${GV_EXPECT_GPU:-0}" != 1 ] && grep -q '^verdict: no GPU was measured' "$T_TMP/out"; then
  expect_grep "all: CPU-only verdict says why and what next" '^verdict: no GPU was measured \(.+\): training on the CPU reaches [0-9]+ samples/s.*; to see whether a GPU is worth it, .*(gpuvet probe|make GPU=cuda)' "$T_TMP/out"
fi
expect_grep "all: check summary" '^check +[0-9]+ comparisons against float64, 0 failed' "$T_TMP/out"
expect_grep "all: emulation renderers agree" '^emulation .*renderers agree.*renderers agree' "$T_TMP/out"
for s in probe check soak train matmul emulation; do
  if [ -s "$T_TMP/all/$s.json" ]; then pass "all: $s record" "$T_TMP/all/$s.json"; else fail "all: $s record" "missing"; fi
done
if [ "${GV_EXPECT_GPU:-0}" = 1 ]; then
  expect_grep "all: smoke passes on the GPU" '^smoke +[a-z]+ GPU [0-9]+.*5/5 stages passed' "$T_TMP/out"
  expect_grep "all: a GPU verdict" '^verdict: .*(GPU|cuda|hip)' "$T_TMP/out"
else
  expect_grep "all: smoke line" '^smoke +(skipped: no GPU|[a-z]+ GPU)' "$T_TMP/out"
fi
expect_grep "all: record has its exit code" '"exit_code":[[:space:]]*0' "$T_TMP/all/all.json"
expect_grep "all: record has its end time" '"finished_at":[[:space:]]*"20' "$T_TMP/all/all.json"
expect_grep "all: report states how the run ended" 'finished 20[0-9-]+T[0-9:]+Z, exit code 0' "$T_TMP/all/report.md"
expect_grep "all: report has the verdict section" '^## Verdict' "$T_TMP/all/report.md"
if grep -qi 'nan\b\|finished ?' "$T_TMP/all/report.md"; then
  fail "all: report has no unset fields" "$(grep -i -m1 'nan\b\|finished ?' "$T_TMP/all/report.md")"
else
  pass "all: report has no unset fields" "no 'nan' or 'finished ?' in report.md"
fi
if [ -s "$T_TMP/all/report.html" ] && grep -q '<svg' "$T_TMP/all/report.html"; then
  pass "all: HTML report with plots" "$(wc -c <"$T_TMP/all/report.html") bytes, SVG present"
else
  fail "all: HTML report with plots" "report.html missing, empty or without SVG"
fi
