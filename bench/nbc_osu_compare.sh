#!/bin/sh
# bench/nbc_osu_compare.sh — each non-blocking collective's OSU "pure communication" time against
# its blocking call's latency (the real OSU 7.4 built with our mpicc, pointed at each build's
# libampi through LD_LIBRARY_PATH), 8 B, for two builds side by side, interleaved run by run so
# that both see the same load, in the layouts 1 process x 2/4/8 virtual ranks and 2 processes x 1
# and x 4 ranks (LAYOUTS="NP:VP ..."; VP counts all ranks), for OPS="allreduce barrier bcast
# reduce allgather" (any subset).
#
# OSU prints the mean over its timed loop; with few iterations (-i 1000: about a millisecond on
# one PE) a single preemption of the PE's thread by the OS adds 2-9 us to that mean (measured with
# getrusage's involuntary context switches: bench/results/nbc-s4/preemption.txt), which made the
# earlier 1 x 4 figures bimodal. Hence many iterations per run (default 20000) and the median over
# rounds.
#   bench/nbc_osu_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]
set -eu
OLD=${1:?usage: nbc_osu_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]}
NEW=${2:?usage: nbc_osu_compare.sh OLD_BUILD NEW_BUILD [rounds] [iterations]}
ROUNDS=${3:-5}
ITERS=${4:-20000}
OSU=${OSU:-/work/ext/osu-host/c/mpi/collective}
LAYOUTS=${LAYOUTS:-"1:2 1:4 1:8 2:2 2:8"}
OPS=${OPS:-"allreduce barrier bcast reduce allgather"}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# run <build> <np> <vp> <program> <column>: the 8 B line's value in that column (barrier: the
# only figure line)
run() {
  LD_LIBRARY_PATH="$1/lib" timeout 300 "$1/bin/ampirun" -np "$2" --vp "$3" "$OSU/$4" -m 8:8 \
    -i "$ITERS" -x 200 2>/dev/null |
    awk -v c="$5" '$1 == 8 || ($1 ~ /^[0-9.]+$/ && NF <= 4 && !/^#/) { v = $c } END { print v }'
}
for i in $(seq "$ROUNDS"); do
  for op in $OPS; do
    for l in $LAYOUTS; do
      np=${l%%:*} vp=${l#*:}
      for which in old new; do
        [ $which = old ] && B=$OLD || B=$NEW
        if [ "$op" = barrier ]; then
          run "$B" "$np" "$vp" non_blocking/osu_ibarrier 3 >>"$T/$which.$op.i.$np.$vp"
          run "$B" "$np" "$vp" blocking/osu_barrier 1 >>"$T/$which.$op.b.$np.$vp"
        else
          run "$B" "$np" "$vp" non_blocking/osu_i$op 4 >>"$T/$which.$op.i.$np.$vp"
          run "$B" "$np" "$vp" blocking/osu_$op 2 >>"$T/$which.$op.b.$np.$vp"
        fi
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
