#!/bin/sh
# bench/nbc_compare.sh — osu_iallreduce's "pure communication" time against osu_allreduce's
# latency, 8 B, for two builds of ampi side by side (the real OSU 7.4 built with our mpicc,
# pointed at each build's libampi through LD_LIBRARY_PATH), interleaved round by round so that
# both see the same load, in the layouts 1 process x 2/4/8 virtual ranks and 2 processes x 1 and
# x 4 ranks (LAYOUTS="NP:VP ..." to choose; VP counts all ranks).
# Prints the median over the rounds of each figure and the ratio iallreduce / allreduce per build.
#   bench/nbc_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]
set -eu
OLD=${1:?usage: nbc_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]}
NEW=${2:?usage: nbc_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]}
ROUNDS=${3:-5}
ITERS=${4:-1000}
OSU=${OSU:-/work/ext/osu-host/c/mpi/collective}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# run <build> <np> <vp> <program> <column>: the 8 B line's value in that column
run() {
  LD_LIBRARY_PATH="$1/lib" timeout 300 "$1/bin/ampirun" -np "$2" --vp "$3" "$OSU/$4" -m 8:8 \
    -i "$ITERS" -x 100 2>/dev/null | awk -v c="$5" '$1 == 8 { print $c }'
}
LAYOUTS=${LAYOUTS:-"1:2 1:4 1:8 2:2 2:8"}
for i in $(seq "$ROUNDS"); do
  for l in $LAYOUTS; do
    np=${l%%:*} vp=${l#*:}
    for which in old new; do
      [ $which = old ] && B=$OLD || B=$NEW
      run "$B" "$np" "$vp" non_blocking/osu_iallreduce 4 >>"$T/$which.i.$np.$vp"
      run "$B" "$np" "$vp" blocking/osu_allreduce 2 >>"$T/$which.b.$np.$vp"
    done
  done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-22s | %10s %10s %6s | %10s %10s %6s\n' "8 B, us (median of $ROUNDS)" "old allred" \
  "old iallr" "ratio" "new allred" "new iallr" "ratio"
for l in $LAYOUTS; do
  np=${l%%:*} vp=${l#*:}
  ob=$(median "$T/old.b.$np.$vp") oi=$(median "$T/old.i.$np.$vp")
  nb=$(median "$T/new.b.$np.$vp") ni=$(median "$T/new.i.$np.$vp")
  printf '%-22s | %10s %10s %6s | %10s %10s %6s\n' "-np $np --vp $vp" "$ob" "$oi" \
    "$(awk -v a="$oi" -v b="$ob" 'BEGIN { printf "%.2f", a / b }')" "$nb" "$ni" \
    "$(awk -v a="$ni" -v b="$nb" 'BEGIN { printf "%.2f", a / b }')"
done
echo "old: $OLD"
echo "new: $NEW"
