# A clone of the repository has nothing beside it: the build and the tests take what they
# need from the repository or generate it. Fails for each line of a tracked file under src/,
# tests/, scripts/, .ci/ or the Makefile that names ../shared (a folder that exists beside
# the developers' checkouts only) or an absolute /work/ path. Allowed: .ci/run's test of
# whether that folder exists (it then runs in a fresh clone without it) and its comments.
. "$GV_ROOT/tests/lib.sh"
if ! command -v git >/dev/null 2>&1; then skip "self-contained" "git is not installed"; exit 0; fi
g() { git -c safe.directory="$GV_ROOT" -C "$GV_ROOT" "$@"; }
if ! g rev-parse --git-dir >/dev/null 2>&1; then skip "self-contained" "$GV_ROOT is not a git checkout"; exit 0; fi

# ../shared as a path in shell, C or Python (os.path.join(root, "..", "shared")), or /work/...
pat='\.\./shared|["'\''][.][.]["'\''], *["'\'']shared["'\'']|(^|[^A-Za-z0-9_.~/-])/work/'
allowed='^\.ci/run:[0-9]+:(#|if \[ -d \.\./shared \];)'
# hits DIR: the file names on stdin (relative to DIR); prints file:line:text of each line
# that names such a path, less the allowed ones
hits() { (cd "$1" && tr '\n' '\0' | xargs -0 grep -n -E -- "$pat" /dev/null) | grep -v -E "$allowed"; }

# the pattern itself: each planted form is found, the allowed lines are not
mkdir -p "$T_TMP/plant/.ci"
printf '%s\n' 'ref=${GV_REF_DIR:-$GV_ROOT/../shared/ref}' 'd = os.path.join(root, "..", "shared", "ref")' \
  'cp /work/shared/ref/x .' 'see https://example.org/work/ (not a path here)' >"$T_TMP/plant/a.sh"
printf '%s\n' '# when ../shared exists beside the checkout' 'if [ -d ../shared ]; then' >"$T_TMP/plant/.ci/run"
printf 'a.sh\n.ci/run\n' | hits "$T_TMP/plant" >"$T_TMP/planted"
n=$(grep -c '' "$T_TMP/planted")
if [ "$n" = 3 ] && ! grep -q '^\.ci/run' "$T_TMP/planted"; then
  pass "self-contained pattern" "finds the 3 planted forms, passes .ci/run's existence test and a URL"
else
  fail "self-contained pattern" "$n lines found, expected a.sh lines 1-3: $(tr '\n' ' ' <"$T_TMP/planted")"
fi

if ! g ls-files -- src tests scripts .ci Makefile >"$T_TMP/files"; then fail "self-contained" "git ls-files failed in $GV_ROOT"; exit 0; fi
grep -v -x 'tests/cli/test_self_contained.sh' "$T_TMP/files" | hits "$GV_ROOT" >"$T_TMP/hits"
if [ -s "$T_TMP/hits" ]; then
  while IFS= read -r l; do fail "self-contained" "$l"; done <"$T_TMP/hits"
else
  pass "self-contained" "none of the $(grep -c '' "$T_TMP/files") tracked files under src/ tests/ scripts/ .ci/ and the Makefile names ../shared or /work/"
fi
