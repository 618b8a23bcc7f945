#!/bin/sh
# accuracy.sh SUITE_DIR [GPUVET]: runs blargg's public Game Boy test ROMs through
# `gpuvet run ROM --test-rom` and prints a Markdown table: suite, ROM, model, the verdict,
# the ROM's own message and the protocol that gave it (serial output, the status block at
# $A000, the LD B,B signature).
#
# Two ROMs of these suites (halt_bug, interrupt_time) report only on the screen, where
# `--test-rom` rightly finds no verdict. For those the script reads the ROM's own text off
# the last frame: the PNG of `--png` cut into 8x8 cells at every alignment and matched
# against the suites' console font (cpu_instrs/source/common/console.bin in SUITE_DIR, 96
# glyphs from ' ', one byte per row, bit 7 leftmost); the verdict is the line "Passed" or
# "Failed" it prints, and the protocol column says "screen text". Needs python3.
#
# SUITE_DIR is a copy of the suites fetched by whoever runs this (the layout of the
# gb-test-roms collection: cpu_instrs/, instr_timing/, mem_timing/, mem_timing-2/,
# halt_bug.gb, interrupt_time/, dmg_sound/, cgb_sound/, oam_bug/); nothing of them is
# committed here. GPUVET defaults to ./gpuvet of this tree.
#
# Each ROM runs on the models it is meant for: the CPU suites on both (they do not
# depend on the model), interrupt_time and cgb_sound on the CGB, dmg_sound and oam_bug on
# the DMG. One ROM is a known limitation of the suite, reported as "n/a" with the reason
# and counted apart when it ends without a verdict (a verdict, passed or failed, counts): oam_bug's single 7-timing_effect prints an OAM dump per corrupting
# iteration, and that text outgrows the 8 KiB of cartridge RAM it is written to ($A004
# on) and overwrites the test's own code in WRAM before it can report; the same test runs
# inside oam_bug/oam_bug.gb (its "07"), whose verdict covers it.
# Knobs: GB_ACC_FRAMES (frame limit per ROM, default 6000 = 100 s of machine time),
# GB_ACC_SCREEN_FRAMES (frames before the screen is read, default 1200),
# GB_ACC_SUITES (space-separated subset of the suite names).
# Exit status: 0 when every ROM passed (limitations aside), 1 otherwise, 2 on bad arguments.
set -u
dir=${1:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "usage: accuracy.sh SUITE_DIR [GPUVET] (SUITE_DIR: the blargg Game Boy test ROMs)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/../.." && pwd)
G=${2:-$here/gpuvet}
if [ ! -x "$G" ]; then
  echo "accuracy.sh: $G is not an executable gpuvet (build it: make GPU=cpu build)" >&2
  exit 2
fi
FR=${GB_ACC_FRAMES:-6000}
SFR=${GB_ACC_SCREEN_FRAMES:-1200}
SUITES=${GB_ACC_SUITES:-"cpu_instrs instr_timing mem_timing mem_timing-2 halt_bug interrupt_time dmg_sound cgb_sound oam_bug"}
FONT=$dir/cpu_instrs/source/common/console.bin
PY=
for p in "${PYTHON:-}" python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null 2>&1; then PY=$p; break; fi
done

# suite -> "models|files" (files relative to SUITE_DIR, the combined ROM first)
suite_roms() {
  case $1 in
  cpu_instrs) echo "dmg cgb|cpu_instrs/cpu_instrs.gb cpu_instrs/individual/*.gb" ;;
  instr_timing) echo "dmg cgb|instr_timing/instr_timing.gb" ;;
  mem_timing) echo "dmg cgb|mem_timing/mem_timing.gb mem_timing/individual/*.gb" ;;
  mem_timing-2) echo "dmg cgb|mem_timing-2/mem_timing.gb mem_timing-2/rom_singles/*.gb" ;;
  halt_bug) echo "dmg cgb|halt_bug.gb" ;;
  interrupt_time) echo "cgb|interrupt_time/interrupt_time.gb" ;;
  dmg_sound) echo "dmg|dmg_sound/dmg_sound.gb dmg_sound/rom_singles/*.gb" ;;
  cgb_sound) echo "cgb|cgb_sound/cgb_sound.gb cgb_sound/rom_singles/*.gb" ;;
  oam_bug) echo "dmg|oam_bug/oam_bug.gb oam_bug/rom_singles/*.gb" ;;
  *) echo "" ;;
  esac
}

# Known limitations of the suites themselves: ROM -> the reason (see the header).
limitation() {
  case $1 in
  oam_bug/rom_singles/7-timing_effect.gb)
    echo "limitation of the ROM: its OAM dumps outgrow the 8 KiB of cartridge RAM at \$A004 and overwrite the test in WRAM; the same test is oam_bug.gb's 07" ;;
  *) echo "" ;;
  esac
}

# screen_text PNG FONT: the text on the screen, one line per row of cells, at the
# alignment of the 8x8 grid that recognises the most glyphs.
screen_text() {
  "$PY" - "$1" "$2" <<'EOF'
import struct, sys, zlib

def read_png(path):
    data = open(path, "rb").read()
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
            if body[8] != 8 or body[9] != 2 or body[12]:
                raise SystemExit("expected an 8-bit RGB PNG")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * 3
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows

w, h, rows = read_png(sys.argv[1])
font = open(sys.argv[2], "rb").read()
glyphs = {}
for i in range(len(font) // 8):  # the first glyph of a shape wins (' ' over a blank $7F)
    glyphs.setdefault(tuple(font[i * 8:i * 8 + 8]), chr(32 + i))
dark = [[1 if rows[y][3 * x] + rows[y][3 * x + 1] + rows[y][3 * x + 2] < 3 * 128 else 0 for x in range(w)] for y in range(h)]
best = (-1, [])
for oy in range(8):
    for ox in range(8):
        lines, hits = [], 0
        for cy in range(oy, h - 7, 8):
            s = ""
            for cx in range(ox, w - 7, 8):
                cell = tuple(sum(dark[cy + r][cx + k] << (7 - k) for k in range(8)) for r in range(8))
                ch = glyphs.get(cell, "?")
                hits += ch not in " ?"
                s += ch
            lines.append(s.rstrip())
        if hits > best[0]:
            best = (hits, lines)
print("\n".join(l for l in best[1] if l))
EOF
}

# one_line TEXT: the message cell: blanks collapsed, pipes escaped, long ones shortened
# in the middle (the end holds the verdict).
one_line() {
  printf '%s' "$1" | tr '\n' ' ' | tr -s ' ' | sed 's/|/\\|/g' |
    awk '{ if (length($0) > 160) print substr($0, 1, 70) " ... " substr($0, length($0) - 79); else print }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
npass=0
nfail=0
nlim=0
echo "| suite | ROM | model | result | message | protocol |"
echo "| --- | --- | --- | --- | --- | --- |"
for suite in $SUITES; do
  spec=$(suite_roms "$suite")
  if [ -z "$spec" ]; then
    echo "accuracy.sh: unknown suite '$suite'" >&2
    exit 2
  fi
  models=${spec%%|*}
  pats=${spec#*|}
  found=0
  # The file names have spaces: expand the patterns inside SUITE_DIR, one name a line.
  (cd "$dir" && for p in $pats; do [ -f "$p" ] && printf '%s\n' "$p"; done) >"$tmp/list"
  while IFS= read -r rom; do
    found=1
    for m in $models; do
      # --no-battery: nothing is written beside the ROMs; the verdict line is the last
      # "test ROM:" line of the output.
      "$G" run "$dir/$rom" --model "$m" --test-rom --frames "$FR" --video none --audio none \
        --no-battery -q >"$tmp/out" 2>&1
      rc=$?
      line=$(grep '^test ROM: ' "$tmp/out" | tail -n 1 | sed 's/^test ROM: //')
      [ -n "$line" ] || line="error: $(tail -n 1 "$tmp/out")"
      verdict=FAIL
      proto=none
      msg=$line
      case $line in
      "passed ("* | "failed ("*)
        [ "${line%% *}" = passed ] && [ "$rc" -eq 0 ] && verdict=pass
        # "passed (serial output): text" -> protocol and message apart
        proto=$(printf '%s' "$line" | sed -n 's/^[a-z]* (\([^)]*\)).*/\1/p')
        msg=$(printf '%s' "$line" | sed 's/^[a-z]* ([^)]*)//; s/^: //')
        ;;
      "no verdict after"*)
        # no status block, serial verdict or signature: read the ROM's own screen
        if [ -n "$PY" ] && [ -f "$FONT" ] &&
          "$G" run "$dir/$rom" --model "$m" --frames "$SFR" --png "$tmp/last.png" --audio none \
            --no-battery -q >/dev/null 2>&1 &&
          screen_text "$tmp/last.png" "$FONT" >"$tmp/screen" 2>/dev/null; then
          proto="screen text"
          msg=$(cat "$tmp/screen")
          if grep -qE '^ *Passed *$' "$tmp/screen" && ! grep -q 'Failed' "$tmp/screen"; then
            verdict=pass
          fi
          grep -qE 'Passed|Failed' "$tmp/screen" || msg="no Passed/Failed on the screen: $msg"
        else
          msg="$line (and the screen could not be read: python3 and $FONT are needed)"
        fi
        ;;
      esac
      why=$(limitation "$rom")
      if [ "$verdict" = pass ]; then
        npass=$((npass + 1))
      elif [ -n "$why" ] && [ "$proto" = none ]; then # a known limitation: no verdict at all
        verdict=n/a
        msg="$why; gpuvet: $msg"
        nlim=$((nlim + 1))
      else
        nfail=$((nfail + 1))
      fi
      echo "| $suite | $rom | $m | $verdict | $(one_line "$msg") | $proto |"
    done
  done <"$tmp/list"
  if [ "$found" -eq 0 ]; then
    echo "| $suite | (no ROM found under $dir) | - | FAIL | missing | none |"
    nfail=$((nfail + 1))
  fi
done
echo
echo "$npass passed, $nfail failed, $nlim known limitations of the suites (n/a)"
[ "$nfail" -eq 0 ]
