# test_drift.sh: names and docs that cannot drift from the tree. Runs tests/core/drift.py (its
# opening comment lists the rules: file headers that start with their own name, paths and file
# names in the docs and in source comments that exist, the README's map of the tree and table of
# commands) first on a planted tree, where it must find exactly the planted breaks, then on the
# checkout ($GV_ROOT, with $GPUVET for `gpuvet --help`), whose FAIL lines are this test's.
set -u
root=${GV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
py=
for p in "${PYTHON:-}" python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null 2>&1; then py=$p; break; fi
done
if [ -z "$py" ]; then echo "SKIP drift: no python3 found (set PYTHON): tests/core/drift.py cannot run"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The planted tree: one break of each kind, beside what must pass (a system header, a quoted
# name, a file of another project, a glob, a placeholder, a git-ignored path, a suffix).
p=$tmp/plant
mkdir -p "$p/src/core" "$p/src/emu/toy" "$p/docs" "$p/scripts" "$p/tests/core" "$p/tests/extra"
printf '/tests/data/\n' >"$p/.gitignore"
printf '/* a.h: fine; see b.c, core/a.h and src/emu/toy/. */\n#ifndef GV_CORE_A_H\n#define GV_CORE_A_H\n#include <stdio.h>\n#endif\n' >"$p/src/core/a.h"
printf '/* c.h: a guard of another name */\n#ifndef GV_CORE_OLD_H\n#define GV_CORE_OLD_H\n#define MY_INLINE static inline\n#endif\n' >"$p/src/core/c.h"
printf '/* hd.h: the qualifiers */\n#ifndef GV_CORE_HD_H\n#define GV_CORE_HD_H\n#define GV_HD\n#define GV_INLINE static inline\n#endif\n' >"$p/src/core/hd.h"
printf '/* old.c: named\n * after core/gone.h; <stdio.h>, "x.y.c", ggml-backend.h, every `.cu` file */\n' >"$p/src/core/b.c"
printf '/* toy_console.c: a console */\n' >"$p/src/emu/toy/toy_console.c"
printf '/* toy_gpu.cu: its device renderer */\n' >"$p/src/emu/toy/toy_gpu.cu"
printf '/* test_x.c: a test */\n' >"$p/tests/core/test_x.c"
: >"$p/tests/extra/x.txt"
: >"$p/scripts/tool.sh"
printf '# A\n\n`src/core/missing.c`, `tests/data/v1` (fetched),\n`src/emu/<console>/<console>_console.c`, `tests/*/test_*.c`, `gone.py`, `<c>_console.c`, `_gpu.cu`\n' >"$p/docs/A.md"
printf '# B\n' >"$p/docs/B.md"
printf '# t\n\n| `core/` | the core |\n' >"$p/tests/README.md"
printf '#!/bin/sh\nprintf "usage: toy\\n\\ncommands:\\n  probe         p\\n  bench matmul  m\\n\\nexit codes\\n"\n' >"$tmp/toy"
chmod +x "$tmp/toy"
cat >"$p/README.md" <<'EOF'
# toy

| command | what it does |
| --- | --- |
| `gpuvet probe`, `make x` | probes |
| `gpuvet gone FILE` | gone |

## The tree

```
src/core/        the core (a.h, b.c, c.h, hd.h)
src/emu/         the consoles
src/emu/toy/     the toy: toy_console.c
docs/            A
scripts/         tool.sh
tests/           tests
```
EOF
"$py" "$root/tests/core/drift.py" "$p" "$tmp/toy" >"$tmp/planted" 2>&1
grep '^FAIL' "$tmp/planted" | grep -v -E 'places? above$' >"$tmp/got"
cat >"$tmp/want" <<'EOF'
FAIL drift headers: src/core/b.c:1 opens with "old.c:", not "/* b.c: ..."
FAIL drift guards: src/core/c.h is guarded by GV_CORE_OLD_H / GV_CORE_OLD_H, not GV_CORE_C_H
FAIL drift qualifiers: src/core/c.h:4 defines MY_INLINE: the host/device and inlining macros live in src/core/hd.h
FAIL drift doc paths: docs/A.md:3 names src/core/missing.c, which is no file or folder of the tree
FAIL drift doc paths: docs/A.md:4 names gone.py, which is the name of no file of the tree
FAIL drift comments: src/core/b.c:2: a comment names core/gone.h, which is no file or folder of the tree
FAIL drift readme: README.md's map line of src/emu/toy/ does not name toy_gpu.cu (its device renderer)
FAIL drift readme: README.md's map line of docs/ does not name docs/B.md
FAIL drift readme: tests/README.md does not name the folder tests/extra/
FAIL drift readme: README.md's table of commands has no row for `gpuvet bench matmul`, which `gpuvet --help` lists
FAIL drift readme: README.md's table of commands shows `gpuvet gone FILE`, which `gpuvet --help` does not list
EOF
if cmp -s "$tmp/want" "$tmp/got"; then
  echo "PASS drift rules: a planted tree gives exactly the $(grep -c '' "$tmp/want") planted FAIL lines (a header with an old name, a guard with an old name, an inlining macro outside core/hd.h, a missing path and name in a doc, a missing path in a comment, a console's device renderer, a doc and a tests/ folder the maps leave out, a command missing from the table and one gone from gpuvet) and accepts its system header, quoted name, other project's file, globs, placeholders, suffixes and git-ignored path"
else
  echo "FAIL drift rules: the planted tree gave other FAIL lines than expected; expected: $(tr '\n' '|' <"$tmp/want") got: $(tr '\n' '|' <"$tmp/got")"
fi

"$py" "$root/tests/core/drift.py" "$root" "${GPUVET:-}"
