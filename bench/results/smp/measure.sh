#!/bin/sh
# bench/results/smp/measure.sh OLD_BUILD NEW_BUILD [rounds] — the figures of the SMP-mode report
# (issue 22), in one command, old and new builds interleaved:
#  1. T=1 must run as before: bench/compare_builds.sh OLD NEW (ping-pong and RMA latencies, medians
#     of interleaved rounds, ratio new/old);
#  2. instructions per message at T=1, independent of load: perf stat -e instructions:u (or, on a
#     machine without hardware counters, callgrind's count of the one-process case) of
#     bench/pingpong at --vp 2 (one process) and -np 2, sizes 8..8 (200,000 round trips) and
#     8..16 (twice that): (difference of the counts) / 400,000 messages, so start-up cancels out;
#  3. the inter-PE path of the new build: pingpong 8 B and 1 MiB between two ranks on two PEs of one
#     process (--pes-per-process 2) against two processes of one PE each (the same-host rings and
#     a single copy both ways; CMA between processes, a plain copy between PEs).
set -eu
OLD=${1:?usage: measure.sh OLD_BUILD NEW_BUILD [rounds]}
NEW=${2:?usage: measure.sh OLD_BUILD NEW_BUILD [rounds]}
ROUNDS=${3:-7}
HERE=$(cd "$(dirname "$0")/../../.." && pwd)
echo "== 1. compare_builds (T=1), $ROUNDS rounds"
sh "$HERE/bench/compare_builds.sh" "$OLD" "$NEW" "$ROUNDS"

echo "== 2. instructions per 8 B message (T=1)"
# perf's hardware counter where the machine has one; else callgrind's instruction count (Ir) of the
# one-process case, run without ampirun (AMPI_VP=2: no PMIx, no UCX, as scripts/valgrind.sh).
if perf stat -x, -e instructions:u true 2>&1 | grep -q "^[0-9]"; then
  count() { # build np max_bytes -> instructions:u of the whole job (ampirun's children included)
    perf stat -x, -e instructions:u "$1/bin/ampirun" -np "$2" --vp 2 "$1/bench/pingpong" 8 "$3" 1 \
      2>&1 >/dev/null | awk -F, '/instructions/ { print $1 }'
  }
  NPS="1 2"
else
  echo "(no hardware counters here: callgrind, one process of 2 ranks only)"
  count() {
    AMPI_VP=2 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1/bench/pingpong" 8 "$3" 1 \
      2>&1 >/dev/null | awk '/Collected :/ { print $NF }'
  }
  NPS="1"
fi
for np in $NPS; do
  for which in old new; do
    [ $which = old ] && B=$OLD || B=$NEW
    a=$(count "$B" $np 8)
    b=$(count "$B" $np 16)
    echo "$which np$np: $(( (b - a) / 400000 )) instructions per message ($a, $b)"
  done
done

echo "== 3. inter-PE (one process, 2 PEs) vs inter-process (2 processes), new build, $ROUNDS rounds"
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for i in $(seq "$ROUNDS"); do
  for size in 8 1048576; do
    "$NEW/bin/ampirun" -np 1 --pes-per-process 2 --vp 2 "$NEW/bench/pingpong" $size $size 9 \
      2>/dev/null | awk -v b=$size '$1 == b { print $2 }' >>"$T/pes.$size"
    "$NEW/bin/ampirun" -np 2 --vp 2 "$NEW/bench/pingpong" $size $size 9 2>/dev/null |
      awk -v b=$size '$1 == b { print $2 }' >>"$T/procs.$size"
  done
done
for size in 8 1048576; do
  echo "$size B: 2 PEs of one process $(med <"$T/pes.$size") us, 2 processes $(med <"$T/procs.$size") us (one-way, median)"
done
