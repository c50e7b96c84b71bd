#!/bin/sh
# bench/migrate_compare.sh — the figures of issue 22 (MPIX_Migrate) in one command:
#  1. that the message path did not slow down (a rank's PE is now looked up in a table that
#     migration rewrites, instead of computed): bench/compare_builds.sh OLD NEW, plus the 8 B
#     one-way latency between the two PEs of one process (--pes-per-process 2), old and new
#     interleaved round by round, medians;
#  2. what one MPIX_Migrate costs on NEW (bench/migrate_cost: median of 50 calls, the slowest rank
#     each), as a mere synchronisation point (none) and with ranks moving (rotate), for several
#     layouts; the median over the rounds.
# Usage: bench/migrate_compare.sh OLD_BUILD NEW_BUILD [rounds]   (e.g. /work/main/build build 7)
set -eu
OLD=${1:?usage: migrate_compare.sh OLD_BUILD NEW_BUILD [rounds]}
NEW=${2:?usage: migrate_compare.sh OLD_BUILD NEW_BUILD [rounds]}
ROUNDS=${3:-7}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

sh "$HERE/compare_builds.sh" "$OLD" "$NEW" "$ROUNDS"

smp() {
  "$1/bin/ampirun" -np 1 --pes-per-process 2 --vp 2 --bind-to none "$1/bench/pingpong" 8 8 9 2>/dev/null |
    awk '$1 == 8 { print $2 }'
}
for i in $(seq "$ROUNDS"); do
  smp "$OLD" >>"$T/old.smp"
  smp "$NEW" >>"$T/new.smp"
done
o=$(median "$T/old.smp") n=$(median "$T/new.smp")
printf '%-44s %10s %10s %9s\n' "pingpong 8 B, 2 PEs of one process" "$o" "$n" \
  "$(awk -v o="$o" -v n="$n" 'BEGIN { if (o > 0) printf "%.2f", n / o; else print "-" }')"

echo
printf '%-34s %12s %12s %14s\n' "MPIX_Migrate, us (median of $ROUNDS)" none rotate "moves per call"
for layout in 1:8:2 1:64:2 1:64:4 2:32:2; do
  np=${layout%%:*} rest=${layout#*:} vp=${rest%%:*} pes=${layout##*:}
  for i in $(seq "$ROUNDS"); do
    for s in none rotate; do
      "$NEW/bin/ampirun" -np "$np" --vp "$vp" --pes-per-process "$pes" --bind-to none \
        "$NEW/bench/migrate_cost" $s 50 2>/dev/null >"$T/out"
      awk '{ print $6 }' "$T/out" >>"$T/$layout.$s"
      [ $s = rotate ] && awk '{ print $8 }' "$T/out" >>"$T/$layout.moves"
    done
  done
  printf '%-34s %12s %12s %14s\n' "-np $np --vp $vp --pes-per-process $pes" \
    "$(median "$T/$layout.none")" "$(median "$T/$layout.rotate")" "$(median "$T/$layout.moves")"
done
echo "old: $OLD"
echo "new: $NEW"
