# The device of the emulation commands (`gpuvet run ROM`, `gpuvet bench ROM`): the GPU of
# the device renderers comes from --devices, as for every command, or from its older spelling
# --gpu N. A bad list, --gpu against --devices, two GPUs, or a device renderer with
# --devices cpu is one line and exit 2; a GPU this build or machine does not have is one
# line and exit 3 (even with host renderers only); --devices cpu runs, and bench's default
# renderers are then native and host. Where a GPU comes up (gpuvet smoke passes), the
# device renderers on the GPU named either way give the native hashes.
. "$GV_ROOT/tests/lib.sh"
export OMP_WAIT_POLICY=passive
G=$GPUVET

# our NES test ROM (tests/lib.sh)
nes_roms "emulation devices"
rom=$romdir/ppu_scene.nes
bench() { "$G" bench "$rom" --frames 2 --repeats 1 --warmup 1 -q "$@"; }
# bench_defaults DEVICES WANT: bench ROM --devices DEVICES without --video measures the video
# renderers WANT (sorted, separated by spaces)
bench_defaults() {
  bench --devices "$1" --json "$T_TMP/b.json" >/dev/null 2>"$T_TMP/err"; rc=$?
  v=$(grep -o '"video":[[:space:]]*"[a-z]*"' "$T_TMP/b.json" 2>/dev/null | sed 's/.*"\([a-z]*\)"$/\1/' | sort -u | tr '\n' ' ')
  if [ $rc = 0 ] && [ "$v" = "$2 " ]; then
    pass "bench ROM --devices $1" "exit 0, default video renderers: $v"
  else
    fail "bench ROM --devices $1" "exit $rc, video renderers '$v' (expected $2): $(head -n 1 "$T_TMP/err")"
  fi
}

# usage errors, whatever the build
expect_exit "run --devices tpu" 2 "$G" run "$rom" --frames 2 --devices tpu
expect_exit "bench ROM --devices tpu" 2 bench --devices tpu
expect_exit "run --gpu 1 --devices cuda:0" 2 "$G" run "$rom" --frames 2 --gpu 1 --devices cuda:0
expect_exit "bench ROM --gpu 1 --devices cuda:0" 2 bench --gpu 1 --devices cuda:0
expect_exit "run --gpu 0 --devices cpu" 2 "$G" run "$rom" --frames 2 --gpu 0 --devices cpu
expect_exit "run --devices cuda,cuda:1 (one GPU at most)" 2 "$G" run "$rom" --frames 2 --devices cuda,cuda:1
expect_exit "run --video device --devices cpu" 2 "$G" run "$rom" --frames 2 --video device --devices cpu
expect_exit "bench ROM --audio device --devices cpu" 2 bench --audio device --devices cpu
expect_exit "run --gpu 64 (out of range)" 2 "$G" run "$rom" --frames 2 --gpu 64

# the CPU named: the run is the plain run; bench measures native and host
"$G" run "$rom" --frames 30 -q >"$T_TMP/plain" 2>&1
"$G" run "$rom" --frames 30 -q --devices cpu >"$T_TMP/cpu" 2>&1; rc=$?
if [ $rc = 0 ] && cmp -s "$T_TMP/plain" "$T_TMP/cpu"; then
  pass "run --devices cpu" "exit 0, the hashes of the run without --devices: $(tr '\n' ' ' <"$T_TMP/cpu")"
else
  fail "run --devices cpu" "exit $rc: $(tr '\n' ' ' <"$T_TMP/cpu") against $(tr '\n' ' ' <"$T_TMP/plain")"
fi
bench_defaults cpu "host native"

"$G" smoke -q >/dev/null 2>"$T_TMP/smoke"; smoke=$?
if [ $smoke = 3 ] && grep -q 'without a GPU backend' "$T_TMP/smoke"; then
  # a build without a GPU backend: every GPU named is refused at once, naming the build
  for spec in "run --devices cuda" "run --devices cpu,cuda" "run --gpu 0" "run --gpu 0 --devices cuda"; do
    set -- $spec
    cmd=$1; shift
    expect_exit "$cmd $* (no GPU backend)" 3 "$G" "$cmd" "$rom" --frames 2 "$@"
    grep -q 'without a GPU backend' "$T_TMP/err" ||
      fail "$cmd $* says why" "the line does not name the build: $(head -n 1 "$T_TMP/err")"
  done
  expect_exit "bench ROM --devices cuda (no GPU backend)" 3 bench --devices cuda
  expect_exit "bench ROM --gpu 1 (no GPU backend)" 3 bench --gpu 1
  expect_exit "run --video device, no --devices (no GPU backend)" 3 "$G" run "$rom" --frames 2 --video device
  skip_gpu "emulation devices on a GPU" "this gpuvet has no GPU backend"
  exit 0
fi
expect_exit "run --devices cuda:63 (no such GPU)" 3 "$G" run "$rom" --frames 2 --devices cuda:63
expect_exit "bench ROM --gpu 63 (no such GPU)" 3 bench --gpu 63
if [ $smoke != 0 ]; then
  skip_gpu "emulation devices on a GPU" "no usable GPU here (gpuvet smoke exits $smoke)"
  exit 0
fi
ref=$("$G" run "$rom" --frames 30 -q | tr '\n' ' ')
for spec in "--devices cuda" "--devices cpu,cuda:0" "--gpu 0" "--gpu 0 --devices cuda:0"; do
  # shellcheck disable=SC2086
  got=$("$G" run "$rom" --frames 30 -q --video device --audio device $spec 2>"$T_TMP/err" | tr '\n' ' ')
  if [ "$got" = "$ref" ]; then pass "run --video device $spec" "hashes equal native's: $got"
  else fail "run --video device $spec" "got '$got', native gave '$ref': $(head -n 1 "$T_TMP/err")"; fi
done
bench_defaults cuda "device native"
