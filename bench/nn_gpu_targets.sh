# nn_gpu_targets.sh: sourced by a device call script (bench/results/*/call.sh) after
# bench/device_env.sh: the network's GPU targets of issue 15 on the packed binary, in one
# run, checks first (so that a call cut short keeps what matters most):
#   gpuvet check --devices cpu,cuda --dtype fp32,bf16 --norm group,batch at 64 and 128
#   channels, and with --inject-fault (must fail); bf16 training against PyTorch eager and
#   torch.compile at 128 and 64 channels, batches 256/1024/8192; fp32 and --tf32 training
#   at 128/8192. (Inference: bench/infer_gpu_vs_torch.sh, run by the call itself.)
# Writes under $R; prints each summary table.
st checks
for c in 64 128; do
  $B check --devices cpu,cuda --dtype fp32,bf16 --norm group,batch --channels $c >"$R/check_c$c.txt" 2>&1
  echo "check c$c rc=$?"; tail -2 "$R/check_c$c.txt"
done
$B check --devices cpu,cuda --dtype fp32,bf16 --norm group,batch --channels 128 --inject-fault >"$R/check_fault.txt" 2>&1
echo "fault rc=$? (must be 1)"; tail -1 "$R/check_fault.txt"
for c in 128 64; do
  st t$c
  sh bench/train_gpu_vs_torch.sh "$R/t$c" --channels $c --batches 256,1024,8192 --dtypes bf16 \
    --compile bf16:256,bf16:1024,bf16:8192 --steps 8 --repeats 3 >"$R/t$c.log" 2>&1
  grep -E "^\|" "$R/t$c/summary.md" | head -12
done
for v in fp32 tf32; do
  st $v
  tf=""; [ $v = tf32 ] && tf=--tf32
  sh bench/train_gpu_vs_torch.sh "$R/t128$v" --channels 128 --batches 8192 --dtypes fp32 $tf --compile "" --steps 6 \
    --repeats 3 >"$R/t128$v.log" 2>&1
  grep -E "^\|" "$R/t128$v/summary.md" | head -6
done
