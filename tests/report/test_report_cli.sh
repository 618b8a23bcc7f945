# gpuvet report and compare from the command line: files written, the records of bench
# drop7, bench infer, play, selfplay and train --data (run here on tiny configurations)
# rendered with their tables, verdicts and plots, bad input refused with one line and exit
# 2, and (where Chromium is installed) a screenshot of the HTML page.
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

# ---- records of the Drop7 commands, made by running tiny configurations of them ---------
# report_of NAME RECORD HEADER VERDICT PLOT: the Markdown of RECORD has the table header
# HEADER (a fixed string) and a verdict line matching VERDICT (not "no verdict"), and the
# HTML has an <svg> plot titled PLOT.
report_of() {
  if ! "$GPUVET" report -q "$2" -o "$T_TMP/$1.md" >"$T_TMP/rout" 2>&1 || ! "$GPUVET" report -q "$2" -o "$T_TMP/$1.html" >>"$T_TMP/rout" 2>&1; then
    fail "report of $1: files" "$(head -n 2 "$T_TMP/rout")"; return
  fi
  if grep -qF -- "$3" "$T_TMP/$1.md"; then pass "report of $1: table" "found '$3'"
  else fail "report of $1: table" "no '$3' in $T_TMP/$1.md: $(grep -m2 '^| ' "$T_TMP/$1.md" | tr '\n' ' ')"; fi
  if grep -Eq -- "^- $4" "$T_TMP/$1.md" && ! grep -q 'no verdict' "$T_TMP/$1.md"; then
    pass "report of $1: verdict" "$(grep -m1 -E -- "^- $4" "$T_TMP/$1.md" | cut -c1-160)"
  else fail "report of $1: verdict" "no line /^- $4/: $(sed -n '/^## Verdict/,/^## [^V]/p' "$T_TMP/$1.md" | sed -n 3p)"; fi
  n=$(grep -o '<svg' "$T_TMP/$1.html" | wc -l)
  if [ "$n" -ge 1 ] && grep -qF "<title>$5</title>" "$T_TMP/$1.html"; then pass "report of $1: plot" "$n <svg>, one titled '$5'"
  else fail "report of $1: plot" "$n <svg>, none titled '$5'"; fi
}
expect_exit "bench drop7 record" 0 "$GPUVET" bench drop7 --devices cpu --batches 1,4 --repeats 1 --min-time 0.01 --json "$T_TMP/d7.json"
expect_grep "bench drop7 prints its verdict" '^verdict: no GPU was measured: the CPU plays up to [0-9]+ random Drop7 games/s' "$T_TMP/out"
report_of "bench drop7" "$T_TMP/d7.json" '| device | player | mode | batch | threads | games/s best | games/s median | moves/s median |' \
  'no GPU was measured: the CPU plays up to [0-9]+ (random|greedy) Drop7 games/s \([0-9]+ moves/s\) at batch [0-9]+ on [0-9]+ threads$' \
  'Drop7 games per second'
expect_exit "bench infer record" 0 "$GPUVET" bench infer --devices cpu --channels 8 --blocks 1 --batches 1,2 --repeats 1 --min-time 0.01 --json "$T_TMP/inf.json"
expect_grep "bench infer prints its verdict" '^verdict: no GPU was measured: fp32 8-channel group-norm inference on the CPU' "$T_TMP/out"
report_of "bench infer" "$T_TMP/inf.json" '| device | dtype | norm | channels | blocks | batch | threads | latency ms median | p99 ms | samples/s median | memory |' \
  'no GPU was measured: fp32 8-channel group-norm inference on the CPU takes [0-9.e-]+ ms a call at batch 1 \(median; p99 [0-9.e-]+ ms\) and reaches [0-9]+ samples/s' \
  'Inference latency per call'
expect_exit "play record" 0 "$GPUVET" play --policy greedy --games 20 --json "$T_TMP/play.json"
report_of "play" "$T_TMP/play.json" '| policy | sims | games | mean score | 95% CI ± | median | moves mean | moves ± | seconds |' \
  'greedy scores [0-9]+ \+- [0-9]+ on average, random [0-9]+ \+- [0-9]+: (worse|better|not distinguishable) \(difference [-+][0-9]+ \+- [0-9]+, 95% CI' \
  'Mean score per policy (bars: 95% interval)'
expect_grep "report of play: the comparison table" '^\| policy \| baseline \| score difference \| 95% CI ± \| verdict \|$' "$T_TMP/play.md"
expect_exit "selfplay record" 0 "$GPUVET" selfplay --channels 8 --blocks 1 --games 4 --sims 2 --parallel 2 --out "$T_TMP/sp.st" --json "$T_TMP/sp.json"
report_of "selfplay" "$T_TMP/sp.json" '| device | games | sims | moves | positions evaluated | mean score | 95% CI ± | seconds | search | inference | game | positions/s |' \
  'self-play on cpu: 4 games of 2 simulations per move, mean score [0-9]+ \+- [0-9]+ \(95% CI\); of its [0-9.e-]+ s, inference took [0-9]+% \([0-9]+ positions, [0-9]+/s\), the search [0-9]+%, the game [0-9]+%: ' \
  'Self-play: where the time went'
expect_exit "train --data record" 0 "$GPUVET" train --data "$T_TMP/sp.st" --channels 8 --blocks 1 --epochs 2 --batch 32 --save "$T_TMP/n.st" -q --json "$T_TMP/tr.json"
report_of "train --data" "$T_TMP/tr.json" '| epoch | lr | train loss | validation policy CE | validation value MSE | validation loss | seconds |' \
  'training on [0-9]+ positions \([0-9]+ held out\) for 2 epochs: validation loss [0-9.]+ after epoch 1, [0-9.]+ after the last' \
  'Losses per epoch'

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
