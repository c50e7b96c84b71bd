#!/bin/sh
# bench/compare_builds.sh — two builds of ampi side by side on this machine, interleaved round by
# round so that both see the same load: bench/pingpong's one-way latency for 8 B and 1 MiB between
# two virtual ranks of one process (--vp 2) and for 8 B between two processes (-np 2), and
# bench/rma_pingpong's 8 B put latency in both layouts. Prints the median of the rounds for each
# build and the ratio new / old (below 1: the new build is faster). For a change that must not
# slow anything down (e.g. a refactoring), run it with the commit before and after:
#
#   git worktree add /tmp/before <commit> && cmake -S /tmp/before -B /tmp/before/build -G Ninja \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && ninja -C /tmp/before/build
#   bench/compare_builds.sh /tmp/before/build build [rounds]
#
# Each figure of one round is itself bench/pingpong's median of 9 timed batches.
set -eu
OLD=${1:?usage: compare_builds.sh OLD_BUILD NEW_BUILD [rounds]}
NEW=${2:?usage: compare_builds.sh OLD_BUILD NEW_BUILD [rounds]}
ROUNDS=${3:-7}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# one <build> <np> <bytes> (2 ranks in all) -> the latency in us of that size (pingpong's own median)
one() {
  "$1/bin/ampirun" -np "$2" --vp 2 "$1/bench/pingpong" "$3" "$3" 9 2>/dev/null |
    awk -v b="$3" '$1 == b { print $2 }'
}
# rma <build> <np> -> 8 B put latency in us (bench/rma_pingpong's first put line)
rma() {
  "$1/bin/ampirun" -np "$2" --vp 2 "$1/bench/rma_pingpong" 8 1000 2>/dev/null |
    awk '$1 == 8 { print $2; exit }'
}
for i in $(seq "$ROUNDS"); do
  for which in old new; do
    [ $which = old ] && B=$OLD || B=$NEW
    one "$B" 1 8 >>"$T/$which.vp2_8"
    one "$B" 1 1048576 >>"$T/$which.vp2_1m"
    one "$B" 2 8 >>"$T/$which.np2_8"
    rma "$B" 1 >>"$T/$which.rma_vp2"
    rma "$B" 2 >>"$T/$which.rma_np2"
  done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-44s %10s %10s %9s\n' "one-way latency, us (median of $ROUNDS rounds)" old new new/old
for k in vp2_8:"pingpong 8 B, 2 ranks of one process" vp2_1m:"pingpong 1 MiB, 2 ranks of one process" \
  np2_8:"pingpong 8 B, 2 processes" rma_vp2:"rma put 8 B, 2 ranks of one process" \
  rma_np2:"rma put 8 B, 2 processes"; do
  key=${k%%:*}
  o=$(median "$T/old.$key") n=$(median "$T/new.$key")
  printf '%-44s %10s %10s %9s\n' "${k#*:}" "$o" "$n" "$(awk -v o="$o" -v n="$n" 'BEGIN { if (o > 0) printf "%.2f", n / o; else print "-" }')"
done
echo "old: $OLD"
echo "new: $NEW"
