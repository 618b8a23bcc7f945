#!/bin/sh
# call2.sh: issue 40: what moves the network player's score (the curve2 run's generation 0,
# .dist/best.st) on 200 tuning seeds (3,000,100 + i: past the 100 evaluation seeds; neither
# training nor acceptance seeds): reveal samples K and the leaf's weights of the expectimax1
# search, beside expectimax1/expectimax2/random on the same seeds.
set -u
. bench/device_env.sh
S=3000100 NG=${NG:-200}
net=$root/.dist/best.st
v() { # name, flags
  n=$1; shift
  /usr/bin/time -f %e -o "$R/$n.time" "$B" play --net "$net" --search expectimax1 "$@" --eval-batch 8192 --parallel 200 \
    --devices cuda --threads 16 --games $NG --seed $S --baselines none -q --json "$R/$n.json" >"$R/$n.txt" 2>&1
  echo "$n: $(grep '^net ' "$R/$n.txt" | cut -c1-150) [$(cat "$R/$n.time") s]"; st "$n"
}
st start
"$B" play --policy expectimax2 --baselines random,expectimax1 --games $NG --seed $S --threads 16 -q --json "$R/base.json" >"$R/base.txt" 2>&1
grep -E '^(expectimax2|expectimax1|random) ' "$R/base.txt"; st base
v k1_01 --samples 1 --value-weight 0.1 --heuristic-weight 1
v k1_003 --samples 1 --value-weight 0.03 --heuristic-weight 1
v k1_03 --samples 1 --value-weight 0.3 --heuristic-weight 1
v k4_01 --samples 4 --value-weight 0.1 --heuristic-weight 1
v k2_01 --samples 2 --value-weight 0.1 --heuristic-weight 1
st end
