#!/bin/sh
# peterlemon.sh: gpuvet on PeterLemon/SNES's ROMs: how many load (0 refusals is the aim),
# and how many show the author's reference screenshot pixel for pixel (peterlemon.py).
# The ROMs are test material, not part of the tree: fetch github.com/PeterLemon/SNES and
# export it (git archive) to a folder.
#   usage: sh bench/snes/peterlemon.sh GPUVET ROOT OUTDIR [FRAMES]
set -eu
[ $# -ge 3 ] || { echo "usage: $0 GPUVET ROOT OUTDIR [FRAMES]" >&2; exit 2; }
exec python3 "$(dirname "$0")/peterlemon.py" "$@"
