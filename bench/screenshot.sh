#!/bin/sh
# screenshot.sh FILE.html OUT.png: renders a gpuvet HTML report with headless Chromium
# (Debian's chromium, installed with apt-get when missing and running as root) and saves a
# 1280x2400 screenshot, so a report can be checked by eye and kept in bench/results/.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: bench/screenshot.sh FILE.html OUT.png" >&2
  exit 2
fi
html=$1 out=$2
if [ ! -f "$html" ]; then
  echo "screenshot.sh: '$html' does not exist" >&2
  exit 2
fi
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "screenshot.sh: installing chromium (Debian package)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null; }
    browser=$(command -v chromium)
  else
    echo "screenshot.sh: chromium is missing: run 'sudo apt-get install chromium' first" >&2
    exit 3
  fi
fi
abs_html=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")
case "$out" in /*) abs_out=$out ;; *) abs_out=$(pwd)/$out ;; esac
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT INT TERM
rm -f "$abs_out"
# The report loads nothing from the network; these flags keep Chromium itself offline too.
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --screenshot="$abs_out" --window-size=1280,2400 \
  "file://$abs_html" >"$profile/log" 2>&1 || true
if [ ! -s "$abs_out" ]; then
  echo "screenshot.sh: chromium wrote no screenshot; its output:" >&2
  tail -n 20 "$profile/log" >&2
  exit 3
fi
echo "screenshot.sh: wrote $out"
