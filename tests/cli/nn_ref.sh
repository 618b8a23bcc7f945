# nn_ref.sh: sourced by the network's shell tests. nn_ref_file NAME prints the path of the
# PyTorch reference file NAME (drop7_c<C>_<norm>_n<N>.safetensors, 6 blocks): from
# $GV_REF_DIR, else generated into $GV_BUILD/ref with $PYTHON; else prints why not and fails.
nn_ref_file() {
  if [ -n "${GV_REF_DIR:-}" ] && [ -r "$GV_REF_DIR/$1" ]; then echo "$GV_REF_DIR/$1"; return 0; fi
  if [ -z "${PYTHON:-}" ]; then echo "no reference file (GV_REF_DIR=${GV_REF_DIR:-unset}) and no python3 with torch"; return 1; fi
  out="$GV_BUILD/ref/$1"
  if [ ! -r "$out" ]; then
    c=$(echo "$1" | sed -n 's/^drop7_c\([0-9]*\)_.*/\1/p')
    norm=$(echo "$1" | sed -n 's/^drop7_c[0-9]*_\([a-z]*\)_.*/\1/p')
    n=$(echo "$1" | sed -n 's/.*_n\([0-9]*\)\.safetensors$/\1/p')
    seed=1; [ "$norm" = batch ] && seed=2
    mkdir -p "$GV_BUILD/ref" && "$PYTHON" "$GV_ROOT/bench/torch/make_reference.py" --out "$out" --channels "$c" \
      --blocks 6 --norm "$norm" --batch "$n" --seed "$seed" >/dev/null 2>&1 || { echo "generating $1 with $PYTHON failed"; return 1; }
  fi
  echo "$out"
}
