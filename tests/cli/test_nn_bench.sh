# gpuvet bench train, bench infer and bench matmul on small sizes: tables, skipped dtypes and
# the keys of the JSON record that join with bench/torch/torch_drop7.py's and torch_infer.py's
# output.
. "$GV_ROOT/tests/lib.sh"

expect_exit "bench train (small)" 0 "$GPUVET" bench train --devices cpu --channels 8,16 --blocks 1 --batches 4,8 --steps 2 --repeats 2 --json "$T_TMP/t.json"
expect_grep "bench train table row" '^cpu +fp32 +group +16 +8 +2 +[0-9.]+ +[0-9.]+ +[0-9.]+' "$T_TMP/out"
expect_grep "bench train load average before, during, after" '^load average [0-9.]+ before, [0-9.]+ at most during, [0-9.]+ after' "$T_TMP/out"
tr -d ' \t\n' < "$T_TMP/t.json" > "$T_TMP/t1"
missing=""
for k in device channels batch dtype samples_per_s_best samples_per_s_median samples_per_s_max samples_per_s_min cv seconds_median warmup_runs load_before load_after load_max blocks norm repeats steps; do
  grep -q "\"$k\":" "$T_TMP/t1" || missing="$missing $k"
done
[ -z "$missing" ] && pass "bench train record keys" "each entry has the keys torch_drop7.py prints and more" ||
  fail "bench train record keys" "missing:$missing"
rows=$(grep -o '"samples_per_s_median":' "$T_TMP/t1" | wc -l)
[ "$rows" = 4 ] && pass "bench train entries" "4 configurations (2 channels x 2 batches)" || fail "bench train entries" "$rows entries, expected 4"

expect_exit "bench train skips bf16 on the CPU" 0 "$GPUVET" bench train --devices cpu --dtype fp32,bf16 --channels 8 --blocks 0 --batches 2 --steps 1 --repeats 1
expect_grep "bench train says why bf16 is skipped" '^\(1 device/dtype pair skipped: the CPU trains fp32' "$T_TMP/out"
expect_exit "bench train with nothing to measure" 2 "$GPUVET" bench train --devices cpu --dtype bf16 --channels 8 --blocks 0 --batches 2 --steps 1 --repeats 1
expect_exit "bench train --warmup 0" 0 "$GPUVET" bench train --devices cpu --channels 8 --blocks 0 --batches 2 --steps 1 --repeats 1 --warmup 0

expect_exit "bench infer (small)" 0 "$GPUVET" bench infer --devices cpu --channels 8 --blocks 1 --batches 1,3 --norm group,batch --min-time 0.01 --repeats 2 --json "$T_TMP/i.json"
expect_grep "bench infer table row" '^cpu +fp32 +batch +8 +3 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ ' "$T_TMP/out"
tr -d ' \t\n' < "$T_TMP/i.json" > "$T_TMP/i1"
missing=""
for k in device channels batch dtype norm cpu_conv positions inference_only calls latency_ms_median latency_ms_p99 latency_ms_min latency_samples input_ms_median samples_per_s_median host_bytes load_before bench_infer_crossover; do
  grep -q "\"$k\":" "$T_TMP/i1" || missing="$missing $k"
done
[ -z "$missing" ] && pass "bench infer record keys" "each entry has latency median/p99/min, samples/s and memory" ||
  fail "bench infer record keys" "missing:$missing"
# the positions' way in is a part of each call: 0 < input median <= call median, per entry
inok=$(python3 -c 'import json, sys
es = json.load(open(sys.argv[1]))["bench_infer"]
bad = [e["batch"] for e in es if not 0 < e["input_ms_median"] <= e["latency_ms_median"]]
print("ok" if not bad else "batches %s" % bad, " ".join("%.4f/%.4f" % (e["input_ms_median"], e["latency_ms_median"]) for e in es))' "$T_TMP/i.json")
case $inok in
  ok*) pass "bench infer input time" "input_ms_median within (0, latency_ms_median] (input/call ms: ${inok#ok })" ;;
  *) fail "bench infer input time" "input_ms_median outside (0, latency_ms_median]: $inok" ;;
esac
rows=$(grep -o '"latency_ms_p99":' "$T_TMP/i1" | wc -l)
[ "$rows" = 4 ] && pass "bench infer entries" "4 configurations (2 norms x 2 batches)" || fail "bench infer entries" "$rows entries, expected 4"
expect_exit "bench infer with a bad --min-time" 2 "$GPUVET" bench infer --devices cpu --min-time 0
# the positions' form: cells by default (self-play's), planes on request, recorded per entry
forms=$(python3 -c 'import json, sys; print(sorted({e["positions"] for e in json.load(open(sys.argv[1]))["bench_infer"]}))' "$T_TMP/i.json")
[ "$forms" = "['cells']" ] && pass "bench infer positions default" "every entry has positions: cells" ||
  fail "bench infer positions default" "positions of the entries: $forms (want ['cells'])"
expect_exit "bench infer --positions planes" 0 "$GPUVET" bench infer --devices cpu --channels 8 --blocks 1 --batches 2 --min-time 0.01 --repeats 1 --positions planes --json "$T_TMP/ip.json"
forms=$(python3 -c 'import json, sys; print(sorted({e["positions"] for e in json.load(open(sys.argv[1]))["bench_infer"]}))' "$T_TMP/ip.json")
[ "$forms" = "['planes']" ] && pass "bench infer --positions planes recorded" "positions: planes" ||
  fail "bench infer --positions planes recorded" "positions of the entries: $forms (want ['planes'])"
expect_exit "bench infer --positions with a bad form" 2 "$GPUVET" bench infer --devices cpu --positions float64
expect_exit "bench infer with nothing to measure" 2 "$GPUVET" bench infer --devices cpu --dtype bf16 --channels 8 --blocks 0 --batches 2
expect_exit "bench train --cpu-conv im2col" 0 "$GPUVET" bench train --devices cpu --channels 8 --blocks 1 --batches 3 --steps 1 --repeats 1 --cpu-conv im2col --json "$T_TMP/c.json"
grep -q '"cpu_conv":[[:space:]]*"im2col"' "$T_TMP/c.json" && pass "bench train records the convolution path" "cpu_conv im2col" ||
  fail "bench train records the convolution path" "no cpu_conv im2col in the record"
# GV_CPU_PROFILE: the CPU trainer's table of where its time went, on stderr
GV_CPU_PROFILE=1 expect_exit "bench train with GV_CPU_PROFILE" 0 "$GPUVET" bench train --devices cpu --channels 8 --blocks 1 --batches 6 --steps 2 --repeats 1 --threads 2 --quiet
for ph in "wall" "3x3 forward" "3x3 weight gradient" "3x3 input gradient" "norm backward" "units (whole)" "gradient sum" "waiting"; do
  grep -q "^  $ph" "$T_TMP/err" || missing_ph="${missing_ph:-} '$ph'"
done
share=$(awk '/units \(whole\)/ { print $(NF) }' "$T_TMP/err" | tr -d '%')
if grep -q '^gpuvet: cpu-fp32 profile: 2 threads, 8 channels, batch 6' "$T_TMP/err" && [ -z "${missing_ph:-}" ] &&
  awk -v s="$share" 'BEGIN { exit !(s > 0 && s <= 100.5) }'; then
  pass "GV_CPU_PROFILE table" "header and every phase on stderr; the units' share ${share}% of the threads' time"
else
  fail "GV_CPU_PROFILE table" "header or phases${missing_ph:-} missing, or the units' share '${share}' not in (0, 100]"
fi

expect_exit "bench train --cpu-conv bad" 2 "$GPUVET" bench train --devices cpu --cpu-conv fft

expect_exit "bench matmul (small)" 0 "$GPUVET" bench matmul --devices cpu --sizes 64,256 --repeats 2 --min-time 0.01 --json "$T_TMP/m.json"
expect_grep "bench matmul skips tf32 and bf16 on the CPU" '^\(2 device/dtype pairs skipped: the CPU GEMM runs fp32 only\)' "$T_TMP/out"
expect_grep "bench matmul table row" '^cpu +fp32 +256 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.e+-]+ *$' "$T_TMP/out"
tr -d ' \t\n' < "$T_TMP/m.json" > "$T_TMP/m1"
missing=""
for k in device dtype m n k reps gflops_best gflops_median gflops_min cv seconds_median load_before load_after spot_check_pass; do
  grep -q "\"$k\":" "$T_TMP/m1" || missing="$missing $k"
done
[ -z "$missing" ] && pass "bench matmul record keys" "all present" || fail "bench matmul record keys" "missing:$missing"
expect_exit "bench matmul bf16 on the CPU measures nothing" 2 "$GPUVET" bench matmul --devices cpu --dtype bf16 --sizes 64 --repeats 1
