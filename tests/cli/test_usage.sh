# Command-line behaviour common to every subcommand: help, unknown commands and flags.
. "$GV_ROOT/tests/lib.sh"

expect_exit "no arguments gives usage" 2 "$GPUVET"
expect_exit "--help" 0 "$GPUVET" --help
expect_exit "--version" 0 "$GPUVET" --version
expect_exit "unknown command" 2 "$GPUVET" frobnicate
expect_exit "bench without workload" 2 "$GPUVET" bench
expect_exit "bench unknown workload" 2 "$GPUVET" bench nothing
for c in probe smoke check soak "bench matmul" "bench train" "bench nes" "bench gb" "run nes" "run gb" env blas-race report compare all; do
  # shellcheck disable=SC2086
  "$GPUVET" $c --help >"$T_TMP/h" 2>&1; rc=$?
  if [ $rc = 0 ] && grep -q '^usage: gpuvet' "$T_TMP/h"; then
    pass "help of '$c'" "$(head -n 1 "$T_TMP/h")"
  else
    fail "help of '$c'" "exit $rc: $(head -n 1 "$T_TMP/h")"
  fi
done
