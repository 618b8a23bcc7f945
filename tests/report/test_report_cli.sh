# gpuvet report and compare from the command line: files written, bad input refused with
# one line and exit 2, and (where Chromium is installed) a screenshot of the HTML page.
. "$GV_ROOT/tests/lib.sh"
a="$GV_ROOT/tests/fixtures/records/synthetic.json"
b="$GV_ROOT/tests/fixtures/records/synthetic_b.json"

expect_exit "report: HTML file" 0 "$GPUVET" report "$a" -o "$T_TMP/r.html"
n=$(grep -o '<svg' "$T_TMP/r.html" | wc -l)
if [ "$n" -ge 8 ] && ! grep -q '<script' "$T_TMP/r.html" && grep -q 'verdict: use the GPU for 128-channel' "$T_TMP/out"; then
  pass "report: HTML has the plots and the verdicts are printed" "$n plots"
else
  fail "report: HTML has the plots and the verdicts are printed" "$n plots; $(head -n 2 "$T_TMP/out")"
fi
expect_exit "report: Markdown file" 0 "$GPUVET" report -q "$a" -o "$T_TMP/r.md"
expect_grep "report: Markdown has the verdict" '^- use the GPU for fp32 GEMM on cuda at size ≥ 1024' "$T_TMP/r.md"
expect_grep "report: the sampling rate leaves out the edge samples" '^telemetry sampled at 5 Hz \(the sampler achieved 5, not counting the samples at phase edges\); GPU from nvml' "$T_TMP/r.md"
expect_grep "report: the GEMM table says how many GEMMs a timed run holds" '\| GEMMs per run \| s median \(a run\) \|' "$T_TMP/r.md"
if grep -q 'from nowhere' "$T_TMP/r.md"; then fail "report: no 'GPU from nowhere'" "$(grep -m1 'from nowhere' "$T_TMP/r.md")"
else pass "report: no 'GPU from nowhere'" "the footer names the telemetry sources"; fi
"$GPUVET" report "$a" >"$T_TMP/stdout.md"
expect_grep "report: Markdown on stdout by default" '^## Training throughput \(bench train\)$' "$T_TMP/stdout.md"

echo '{"not": "a record"}' >"$T_TMP/bad.json"
printf 'garbage' >"$T_TMP/garbage.json"
expect_exit "report: missing file" 2 "$GPUVET" report "$T_TMP/none.json"
expect_exit "report: not JSON" 2 "$GPUVET" report "$T_TMP/garbage.json"
expect_exit "report: JSON that is not a record" 2 "$GPUVET" report "$T_TMP/bad.json"
expect_exit "report: no argument" 2 "$GPUVET" report
expect_exit "report: bad --format" 2 "$GPUVET" report "$a" --format pdf
expect_exit "report: unwritable output" 3 "$GPUVET" report "$a" -o "$T_TMP/no/such/dir/r.html"

expect_exit "compare: two records" 0 "$GPUVET" compare "$a" "$b" --json "$T_TMP/cmp.json"
expect_grep "compare: summary line" '^2 changes beyond the noise$' "$T_TMP/out"
expect_grep "compare: JSON record written" '"marked":[[:space:]]*2' "$T_TMP/cmp.json"
expect_exit "compare: one argument" 2 "$GPUVET" compare "$a"
expect_exit "compare: bad second file" 2 "$GPUVET" compare "$a" "$T_TMP/garbage.json"

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  if sh "$GV_ROOT/bench/screenshot.sh" "$T_TMP/r.html" "$T_TMP/r.png" >"$T_TMP/shot" 2>&1; then
    size=$(wc -c <"$T_TMP/r.png")
    if [ "$(head -c 8 "$T_TMP/r.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$size" -gt 50000 ]; then
      pass "screenshot of the HTML report" "PNG, $size bytes"
    else
      fail "screenshot of the HTML report" "not a PNG or too small ($size bytes)"
    fi
  else
    fail "screenshot of the HTML report" "$(cat "$T_TMP/shot")"
  fi
else
  skip "screenshot of the HTML report" "chromium is not installed (bench/screenshot.sh installs it as root)"
fi
expect_exit "screenshot: missing file" 2 sh "$GV_ROOT/bench/screenshot.sh" "$T_TMP/none.html" "$T_TMP/x.png"
