# gpuvet soak: the acceptance run (channels 64, batch 256: the loss falls at least 10x, all
# finite), a BatchNorm run, and --save/--init continuing exactly where a run stopped.
. "$GV_ROOT/tests/lib.sh"

expect_exit "soak --channels 64 --batch 256" 0 "$GPUVET" soak --devices cpu --channels 64 --batch 256 --json "$T_TMP/s.json"
expect_grep "soak prints first and last loss" '^soak cpu fp32: 200 steps in .* loss [0-9.]+ -> [0-9.]+ \(fell [0-9.]+x, need 10x\), all finite: PASS' "$T_TMP/out"
if grep -q '"curve":' "$T_TMP/s.json" && grep -q '"finite":	true' "$T_TMP/s.json"; then
  pass "soak record" "curve and finite in $T_TMP/s.json"
else
  fail "soak record" "no curve or finite key in the JSON record"
fi
expect_exit "soak BatchNorm (channels 32, batch 64, 150 steps)" 0 "$GPUVET" soak --devices cpu --norm batch --channels 32 --batch 64 --steps 150
expect_exit "soak fails when the loss cannot fall 1e6x in 5 steps" 1 "$GPUVET" soak --devices cpu --channels 8 --blocks 0 --batch 8 --steps 5 --min-drop 1e6

# three steps in one run == two steps, save, then one step from the checkpoint
"$GPUVET" soak --devices cpu --channels 16 --blocks 1 --batch 16 --steps 3 --min-drop 1 --json "$T_TMP/a.json" > "$T_TMP/a" 2>&1
"$GPUVET" soak --devices cpu --channels 16 --blocks 1 --batch 16 --steps 2 --min-drop 1 --save "$T_TMP/ck.safetensors" > "$T_TMP/b" 2>&1
expect_exit "soak --init continues from --save" 0 "$GPUVET" soak --devices cpu --init "$T_TMP/ck.safetensors" --batch 16 --steps 1 --min-drop 1
third=$(tr -d ' \t\n' < "$T_TMP/a.json" | sed -n 's/.*"curve":\[\([^]]*\)\].*/\1/p' | cut -d, -f3)
resumed=$(sed -n 's/.*loss \([0-9.]*\) ->.*/\1/p' "$T_TMP/out")
third4=$(printf '%.4f' "$third" 2>/dev/null)
if [ -n "$resumed" ] && [ "$third4" = "$resumed" ]; then
  pass "resumed loss" "step 3 of one run $third4 = first loss after --save/--init $resumed"
else
  fail "resumed loss" "step 3 of one run '$third' vs first loss after --save/--init '$resumed'"
fi
