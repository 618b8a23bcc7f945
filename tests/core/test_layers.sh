# test_layers.sh: the layers of src/ only point down. Reads every #include "..." of every .c, .h
# and .cu file under a source tree (the first argument, default $GV_ROOT/src) and fails once per
# include that points up or sideways, naming file:line and both layers (docs/DESIGN.md).
set -u
src=${1:-${GV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/src}
src=$(cd "$src" 2>/dev/null && pwd) || { echo "FAIL layers: no source tree at ${1:-\$GV_ROOT/src}"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The layer order, lowest first: the one table of it (docs/DESIGN.md says the same in words).
# A file's layer is its folder under src/ (src/nn/gpu/ is nn). An include may point to its own
# layer or to one of a lower rank. Layers of one rank are beside each other: an include between
# them is allowed only inside one family and towards a lower order (drop7 uses nn; a console
# uses emu/common; the files directly under src/emu/, the console registry and what runs any
# console through it, use the consoles). emu/* is each console's folder, a layer of its own, so
# one console never includes another's headers.
cat >"$tmp/table" <<'EOF'
# layer      rank family   order
core         1    core     0
dev          2    dev      0
sys          3    sys      0
bench        4    bench    0
nn           5    nn       0
drop7        5    nn       1
emu/common   5    emu      0
emu/*        5    emu      1
emu          5    emu      2
report       6    report   0
app          7    app      0
cli          8    cli      0
libretro     8    libretro 0
EOF

# check ROOT NAME: prints a FAIL line for each include under ROOT that points up or sideways, a
# FAIL line for a folder with no layer and for a quoted include that is no file of the tree, then
# the line "checked N F" (N includes in F files). NAME prefixes the paths shown ("src").
check() {
  (cd "$1" && find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sed 's|^\./||' | sort) >"$tmp/files"
  awk -v root="$1" -v name="$2" '
    function layer(p,   n, a) {
      n = split(p, a, "/")
      if (n < 2) return ""
      if (a[1] != "emu") return a[1]
      if (n == 2) return "emu"
      if (a[2] == "common") return "emu/common"
      return "emu/" a[2]
    }
    function row(l) { return (l in rank) ? l : (l ~ /^emu\/./ ? "emu/*" : "") }
    function show(l,   r) {
      r = row(l)
      return l " (layer " rank[r] (nord[fam[r]] > 1 ? ", " fam[r] " " ord[r] : "") ")"
    }
    FILENAME == ARGV[1] {
      if ($0 ~ /^#/ || NF < 4) next
      rank[$1] = $2; fam[$1] = $3; ord[$1] = $4
      if (!(($3 SUBSEP $4) in seenord)) { seenord[$3, $4] = 1; nord[$3]++ }
      next
    }
    { files[$0] = 1; list[++nf] = $0 }
    END {
      for (i = 1; i <= nf; i++) {
        f = list[i]; lf = layer(f); rf = row(lf)
        if (rf == "") { printf "FAIL layers: %s/%s is in a folder with no layer (add it to the table in tests/core/test_layers.sh and to docs/DESIGN.md)\n", name, f; bad++; continue }
        dir = f; sub(/\/[^\/]*$/, "", dir)
        ln = 0
        while ((getline line < (root "/" f)) > 0) {
          ln++
          if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
          inc = line; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
          if (inc in files) h = inc
          else if ((dir "/" inc) in files) h = dir "/" inc
          else { printf "FAIL layers: %s/%s:%d includes \"%s\", which is no file under %s/\n", name, f, ln, inc, name; bad++; continue }
          n++
          lh = layer(h); rh = row(lh)
          if (rh == "") continue  # its folder is reported once, as a file with no layer
          if (lh == lf || rank[rh] < rank[rf]) continue
          if (rank[rh] == rank[rf] && fam[rh] == fam[rf] && ord[rh] < ord[rf]) continue
          way = (rank[rh] > rank[rf] || (fam[rh] == fam[rf] && ord[rh] > ord[rf])) ? "up" : "sideways"
          printf "FAIL layers: %s/%s:%d includes \"%s\": %s -> %s points %s\n", name, f, ln, inc, show(lf), show(lh), way
          bad++
        }
        close(root "/" f)
      }
      printf "checked %d %d %d\n", n, nf, bad
    }' "$tmp/table" "$tmp/files"
}

# The rules themselves, on a planted tree: every kind of wrong arrow is found, once, and the
# allowed ones are not.
p=$tmp/plant
for f in core/gv.h dev/dev.h bench/harness.h nn/nn.h nn/gpu/k.cu drop7/game.h emu/common/console.h \
  emu/nes/nes.h emu/gb/gb.h emu/snes/snes_gpu.cu emu/registry.c report/report.h app/all.c cli/main.c \
  libretro/core.c sys/probe.c misc/x.c; do
  mkdir -p "$p/$(dirname "$f")"; : >"$p/$f"
done
inc() { f=$1; shift; for h in "$@"; do printf '#include "%s"\n' "$h" >>"$p/$f"; done; }
inc dev/dev.h core/gv.h bench/harness.h                      # line 2: up
inc sys/probe.c dev/dev.h report/report.h                     # line 2: up
inc nn/gpu/k.cu nn/nn.h dev/dev.h drop7/game.h                # line 3: up inside the family
inc drop7/game.h nn/nn.h emu/common/console.h                 # line 2: sideways between families
inc emu/common/console.h core/gv.h emu/nes/nes.h emu/registry.c  # lines 2, 3: up inside emu
inc emu/snes/snes_gpu.cu emu/common/console.h emu/gb/gb.h     # line 2: sideways, console to console
inc emu/registry.c emu/nes/nes.h emu/gb/gb.h emu/common/console.h
inc report/report.h emu/registry.c nn/nn.h bench/harness.h app/all.c  # line 4: up
inc app/all.c report/report.h drop7/game.h emu/registry.c sys/probe.c
inc cli/main.c app/all.c libretro/core.c                      # line 2: sideways
inc libretro/core.c emu/nes/nes.h cli/main.c nonesuch.h       # line 2: sideways; 3: no file
check "$p" src >"$tmp/planted"
cat >"$tmp/want" <<'EOF'
src/cli/main.c:2
src/dev/dev.h:2
src/drop7/game.h:2
src/emu/common/console.h:2
src/emu/common/console.h:3
src/emu/snes/snes_gpu.cu:2
src/libretro/core.c:2
src/libretro/core.c:3
src/misc/x.c
src/nn/gpu/k.cu:3
src/report/report.h:4
src/sys/probe.c:2
EOF
grep '^FAIL' "$tmp/planted" | sed 's/^FAIL layers: \([^ ]*\).*/\1/' | sort >"$tmp/got"
set -- $(tail -n 1 "$tmp/planted")
if cmp -s "$tmp/want" "$tmp/got" && [ "$2" = 29 ] && [ "$3" = 17 ] && [ "$4" = 12 ] && grep -q 'emu/common (layer 5, emu 0) -> emu/nes (layer 5, emu 1) points up' "$tmp/planted" &&
  grep -q 'emu/snes (layer 5, emu 1) -> emu/gb (layer 5, emu 1) points sideways' "$tmp/planted" &&
  grep -q 'dev (layer 2) -> bench (layer 4) points up' "$tmp/planted"; then
  echo "PASS layers rules: a planted tree of 17 files gives exactly the 12 expected FAIL lines (up, sideways between families, between consoles and between cli and libretro, up inside nn and emu, a folder with no layer, an include of no file) and accepts its other $(( $2 - 10 )) includes"
else
  echo "FAIL layers rules: the planted tree gave other lines than expected; expected at: $(tr '\n' ' ' <"$tmp/want")got: $(cat "$tmp/planted" | tr '\n' '|')"
fi

check "$src" "$(basename "$src")" >"$tmp/out"
grep '^FAIL' "$tmp/out"
set -- $(tail -n 1 "$tmp/out")
if [ "$4" = 0 ] && [ "$2" -gt 0 ]; then
  echo "PASS layers: $2 includes in $3 files under $src point down the layers (core < dev < sys < bench < nn, emu, drop7 < report < app < cli, libretro)"
elif [ "$4" = 0 ]; then
  echo "FAIL layers: no include found in the $3 files under $src"
else
  echo "FAIL layers: $4 FAIL lines above for the $3 files under $src ($2 includes): includes that point up or sideways or to no file, files in a folder with no layer"
fi
