#!/bin/sh
# One stage of `make run` / `make test` in one line: "WHAT ... done in N s", the command's
# output appended to LOG. When the command fails: where LOG is and its first errors, exit 2.
# With V set (make V=1) the command's output goes to the terminal instead.
#   scripts/make-stage.sh LOG WHAT CMD...
set -u
log=$1 what=$2
shift 2
if [ -n "${V:-}" ]; then
  echo "$what"
  "$@" || exit 2
  exit 0
fi
mkdir -p "$(dirname "$log")" || exit 2
start=$(grep -c '' "$log" 2>/dev/null) || start=0
printf '%s ... ' "$what"
t0=$(date +%s)
if "$@" >>"$log" 2>&1; then
  # the build's one line per file it compiles or links (the Makefile's say)
  n=$(tail -n +"$((start + 1))" "$log" | grep -c -E '^  (CC|CC-PIC|NVCC|HIPCC|LINK|CORE) ')
  echo "done in $(( $(date +%s) - t0 )) s$( [ "$n" != 0 ] || echo ' (up to date)')"
  exit 0
fi
echo "failed after $(( $(date +%s) - t0 )) s"
tail -n +"$((start + 1))" "$log" >"$log.stage"
# the compiler's and the linker's errors with the lines that follow them, else the last lines
errs=$(grep -E -A 3 ': (fatal )?error:|undefined reference to|ld returned' "$log.stage" | head -n 15)
if [ -n "$errs" ]; then
  echo "make: the build failed; the compiler's full output is in $log. Its first errors:" >&2
  echo "$errs" | sed 's/^/    /' >&2
else
  echo "make: the build failed; its full output is in $log. Its last lines:" >&2
  tail -n 15 "$log.stage" | sed 's/^/    /' >&2
fi
rm -f "$log.stage"
exit 2
