#!/bin/sh
# Installs the Debian packages gpuvet needs, when they are missing.
#   scripts/bootstrap.sh build   what building and running gpuvet needs
#   scripts/bootstrap.sh test    that, plus what the test suite needs (ROM assemblers, PyTorch,
#                                what the Python package builds with)
#   scripts/bootstrap.sh python  build's packages, plus what the Python package (python/) builds
#                                and runs with: Debian's python3-dev, -venv, -setuptools, -wheel, numpy
# As root it runs apt-get and prints one line per stage; apt's own output goes to
# build/logs/bootstrap.log (V=1: to the terminal instead). Otherwise it prints the exact
# command to run and exits 1. Prints nothing when every package is installed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-build}
build_pkgs="gcc make pkg-config libopenblas-dev libcjson-dev libxxhash-dev libpng-dev zlib1g-dev"
py_pkgs="python3 python3-dev python3-venv python3-setuptools python3-wheel python3-numpy"
test_pkgs="cc65 sdcc $py_pkgs python3-torch chromium retroarch-dev retroarch"
case "$mode" in
  build) want="$build_pkgs" ;;
  test)  want="$build_pkgs $test_pkgs" ;;
  python) want="$build_pkgs $py_pkgs" ;;
  *) echo "bootstrap.sh: unknown mode '$mode' (use build, test or python)" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  # Not a Debian system: say what is needed and let the build find it with pkg-config.
  if ! pkg-config --exists openblas libcjson libxxhash libpng zlib 2>/dev/null; then
    echo "bootstrap: this is not a Debian system; install OpenBLAS, cJSON, xxHash and libpng" >&2
    echo "bootstrap: development files (found with pkg-config: openblas libcjson libxxhash libpng)" >&2
    exit 1
  fi
  exit 0
fi

missing=""
for p in $want; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
  case "$st" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
  echo "bootstrap: missing Debian packages:$missing" >&2
  echo "bootstrap: run this, then the make command again:" >&2
  if command -v sudo >/dev/null 2>&1; then
    echo "  sudo apt-get update && sudo $cmd" >&2
  else
    echo "  su -c 'apt-get update && $cmd'" >&2
    echo "  (sudo is not installed here; su asks for root's password)" >&2
  fi
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
log=$root/build/logs/bootstrap.log
n=$(echo $missing | wc -w)
if [ -z "${V:-}" ]; then
  mkdir -p "$(dirname "$log")" && : >"$log" || { echo "bootstrap: cannot write $log" >&2; exit 1; }
  echo "bootstrap: $n Debian package$( [ "$n" = 1 ] || echo s) to install; apt-get's output goes to ${log#"$root"/}"
fi
# apt_stage WHAT CMD...: runs CMD with its output in the log (V=1: on the terminal), in one
# line "bootstrap: WHAT ... done in N s" (with how many packages apt installed); on failure
# the log's last lines, and exit 1.
apt_stage() {
  what=$1; shift
  t0=$(date +%s)
  if [ -n "${V:-}" ]; then
    echo "bootstrap: $what"
    "$@" >&2 && return 0
    echo "bootstrap: '$*' failed; check the network or the apt sources" >&2; exit 1
  fi
  printf 'bootstrap: %s ... ' "$what"
  echo "== $*" >>"$log"
  if "$@" >>"$log" 2>&1; then
    deps=$(sed -n 's/.* \([0-9][0-9]*\) newly installed.*/\1/p' "$log" | tail -n 1)
    echo "done in $(( $(date +%s) - t0 )) s${deps:+ ($deps packages with their dependencies)}"
    return 0
  fi
  echo "failed after $(( $(date +%s) - t0 )) s"
  echo "bootstrap: '$*' failed; check the network or the apt sources. The last lines of $log:" >&2
  tail -n 15 "$log" | sed 's/^/    /' >&2
  exit 1
}
apt_stage "apt-get update" apt-get update -q
# shellcheck disable=SC2086
apt_stage "installing$missing" apt-get install -y -q --no-install-recommends $missing
