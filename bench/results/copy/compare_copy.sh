#!/bin/sh
# bench/results/copy/compare_copy.sh OLD_BUILD NEW_BUILD [rounds] — the in-process copy figures of
# the copy work, two builds interleaved round by round (the machine is shared): bench/pingpong
# between two virtual ranks of one process (-np 1 --vp 2), 4 KiB-4 MiB, and the real OSU 7.4
# osu_allreduce (/work/ext/osu-host, run on each build's libampi) at 64 KiB with 8 ranks of one
# process. NEW's pingpong runs on both libraries (LD_LIBRARY_PATH), so PINGPONG_SKEW=N (the
# receive buffer N bytes past the send buffer mod 4 KiB) works for the old build too.
# Prints the median over rounds of each figure (pingpong's own figure is itself its median of 9
# batches; osu_allreduce's is its average latency) and new/old.
set -eu
OLD=${1:?usage: compare_copy.sh OLD_BUILD NEW_BUILD [rounds]}
NEW=${2:?usage}
ROUNDS=${3:-5}
OSU=${OSU:-/work/ext/osu-host/c/mpi/collective/blocking/osu_allreduce}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for i in $(seq "$ROUNDS"); do
  for which in old new; do
    [ $which = old ] && B=$OLD || B=$NEW
    LD_LIBRARY_PATH=$B/lib "$B/bin/ampirun" -np 1 --vp 2 "$NEW/bench/pingpong" 4096 4194304 9 2>/dev/null |
      awk -v d="$T" -v w=$which '$1 ~ /^[0-9]+$/ { print $3 >> (d "/" w ".pp" $1) }'
    for vp in 8; do
      LD_LIBRARY_PATH=$B/lib "$B/bin/ampirun" -np 1 --vp $vp "$OSU" -m 65536:65536 -i 2000 2>/dev/null |
        awk '$1 == 65536 { print $2 }' >>"$T/$which.ar$vp"
    done
  done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-48s %10s %10s %8s\n' "median of $ROUNDS rounds" old new new/old
for f in $(ls "$T" | grep '^old\.pp' | sort -t p -k3 -g); do
  k=${f#old.}
  o=$(median "$T/old.$k") n=$(median "$T/new.$k")
  printf '%-48s %10s %10s %8s\n' "pingpong --vp 2, ${k#pp} B, MB/s" "$o" "$n" "$(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.2f", n / o }')"
done
o=$(median "$T/old.ar8") n=$(median "$T/new.ar8")
printf '%-48s %10s %10s %8s\n' "osu_allreduce 64 KiB, --vp 8, avg us" "$o" "$n" "$(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.2f", n / o }')"
echo "old: $OLD"
echo "new: $NEW"
