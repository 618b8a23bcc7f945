# device_env.sh: sourced by a device call script (bench/results/*/call.sh) after
# scripts/device-pack.sh packed .dist/: links build/cuda to the packed binaries, sets the
# library path and the variables the bench scripts read, and defines
#   R      where results go (/tmp/gv/r; $R/machine.txt describes the machine)
#   B      the gpuvet binary
#   st X   records step X with the time and load in $R/steps.txt and packs $R into
#          $OUT/a.tgz, so that what a call finished comes back even if it is cut off.
root=$(pwd)
R=/tmp/gv/r
mkdir -p "$R"
export LD_LIBRARY_PATH=$root/.dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p build && ln -sfn ../.dist/build/cuda build/cuda
B=$root/build/cuda/gpuvet
export GPUVET=$B GV_BUILD=$root/build/cuda GV_REF_DIR=$root/.dist/ref PYTHON=python3
st() { echo "$1 $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$R/steps.txt"; (cd /tmp/gv && tar -czf "$OUT/a.tgz" r); }
{ date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  lscpu | sed -n 's/^Model name: *//p'; free -g | sed -n 2p; python3 -c 'import torch; print("torch", torch.__version__)'
  $B --version; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"
