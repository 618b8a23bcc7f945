# gpuvet all: the whole job on this machine (the one `make run` runs). It must exit 0, write
# the merged record with how and when it ended, and a report that says the same, with the
# verdict section; each step's heading must appear in order.
. "$GV_ROOT/tests/lib.sh"

start=$(date +%s)
"$GPUVET" all -o "$T_TMP/all" >"$T_TMP/out" 2>&1
rc=$?
secs=$(($(date +%s) - start))
if [ $rc = 0 ]; then pass "all: exit 0" "finished in $secs s"
else fail "all: exit 0" "exit $rc after $secs s: $(tail -n 3 "$T_TMP/out" | tr '\n' ' ')"; fi
expect_grep "all: steps in order" '^== 7/7 report' "$T_TMP/out"
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
