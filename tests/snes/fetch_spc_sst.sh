#!/bin/sh
# fetch_spc_sst.sh [SOURCE]: puts the SingleStepTests SPC700 set (256 JSON files, ~80 MB)
# into tests/data/spc700/v1/, which git ignores; test_snes_spc_sst reads it from there (or
# from the folder named by GV_SST_SPC700). SOURCE is a git URL or a local clone or bare
# mirror of github.com/SingleStepTests/spc700 (default: that URL). The data is never committed.
set -eu
src=${1:-https://github.com/SingleStepTests/spc700}
root=$(cd "$(dirname "$0")/../.." && pwd)
dest="$root/tests/data/spc700"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ -d "$src" ] && git --git-dir="$src" rev-parse HEAD >/dev/null 2>&1; then
  git --git-dir="$src" archive HEAD v1 | tar -x -C "$tmp"          # a bare mirror
elif [ -d "$src/.git" ]; then
  git -C "$src" archive HEAD v1 | tar -x -C "$tmp"                 # a clone
else
  git clone --depth 1 "$src" "$tmp/clone" && mv "$tmp/clone/v1" "$tmp/v1"
fi
n=$(ls "$tmp/v1"/*.json 2>/dev/null | wc -l)
if [ "$n" != 256 ]; then
  echo "fetch_spc_sst.sh: expected 256 JSON files in v1/, found $n" >&2
  exit 1
fi
if head -c 40 "$tmp/v1/00.json" | grep -q 'git-lfs'; then
  echo "fetch_spc_sst.sh: the files are Git LFS pointers; fetch the LFS objects first" >&2
  exit 1
fi
mkdir -p "$dest"
rm -rf "$dest/v1"
mv "$tmp/v1" "$dest/v1"
echo "fetch_spc_sst.sh: $n files in $dest/v1"
