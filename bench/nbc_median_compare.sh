#!/bin/sh
# bench/nbc_median_compare.sh — each non-blocking collective (call + MPI_Wait) against its blocking
# call, 8 B, by the median window per rank (bench/nbc_median.c: OSU's pure-communication loop,
# robust to the OS preemptions that dominate OSU's mean on a loaded machine), for two builds side
# by side, interleaved run by run, in the layouts 1 process x 2/4/8 virtual ranks and 2 processes
# x 1 and x 4 ranks (LAYOUTS="NP:VP ..."), OPS="allreduce barrier bcast reduce allgather".
# Prints the median over rounds of each figure, and the ratio non-blocking / blocking per build.
#   bench/nbc_median_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]
set -eu
OLD=${1:?usage: nbc_median_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]}
NEW=${2:?usage: nbc_median_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]}
ROUNDS=${3:-5}
ITERS=${4:-5000}
LAYOUTS=${LAYOUTS:-"1:2 1:4 1:8 2:2 2:8"}
OPS=${OPS:-"allreduce barrier bcast reduce allgather"}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SRC=$(dirname "$0")/nbc_median.c
"$OLD/bin/mpicc" -O2 "$SRC" -o "$T/probe.old"
"$NEW/bin/mpicc" -O2 "$SRC" -o "$T/probe.new"
run() { # run <which> <build> <np> <vp> <op> <nb>: the mean of the ranks' median windows
  LD_LIBRARY_PATH="$2/lib" timeout 300 "$2/bin/ampirun" -np "$3" --vp "$4" "$T/probe.$1" "$5" \
    "$6" "$ITERS" 2>/dev/null | awk '{ print $1 }'
}
for i in $(seq "$ROUNDS"); do
  for op in $OPS; do
    for l in $LAYOUTS; do
      np=${l%%:*} vp=${l#*:}
      for which in old new; do
        [ $which = old ] && B=$OLD || B=$NEW
        run $which "$B" "$np" "$vp" "$op" 1 >>"$T/$which.$op.i.$np.$vp"
        run $which "$B" "$np" "$vp" "$op" 0 >>"$T/$which.$op.b.$np.$vp"
      done
    done
  done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
printf '%-10s %-14s | %9s %9s %6s | %9s %9s %6s\n' "8 B, us" "(median of $ROUNDS)" "old block" \
  "old nonbl" "ratio" "new block" "new nonbl" "ratio"
for op in $OPS; do
  for l in $LAYOUTS; do
    np=${l%%:*} vp=${l#*:}
    ob=$(median "$T/old.$op.b.$np.$vp") oi=$(median "$T/old.$op.i.$np.$vp")
    nb=$(median "$T/new.$op.b.$np.$vp") ni=$(median "$T/new.$op.i.$np.$vp")
    printf '%-10s %-14s | %9s %9s %6s | %9s %9s %6s\n' "$op" "-np $np --vp $vp" "$ob" "$oi" \
      "$(ratio "$oi" "$ob")" "$nb" "$ni" "$(ratio "$ni" "$nb")"
  done
done
echo "old: $OLD"
echo "new: $NEW"
echo "rounds: $ROUNDS, iterations per run: $ITERS; load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
