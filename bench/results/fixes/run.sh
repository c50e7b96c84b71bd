#!/bin/sh
# bench/results/fixes/run.sh OLD_BUILD NEW_BUILD — the sleeping-rank check of branch `fixes`,
# old and new builds interleaved, 5 rounds each (the figures do not depend on load much: they are
# dominated by the 200 ms of sleep). Prints one line per run.
set -e
OLD=${1:-/work/main/build}
NEW=${2:-$(cd "$(dirname "$0")/../../.." && pwd)/build}
D=$(mktemp -d)
"$OLD/bin/mpicc" -O2 "$(dirname "$0")/sleep_stall.c" -o "$D/old"
"$NEW/bin/mpicc" -O2 "$(dirname "$0")/sleep_stall.c" -o "$D/new"
for i in 1 2 3 4 5; do
  for b in old new; do
    B=$OLD; [ $b = new ] && B=$NEW
    echo "$b: $("$B/bin/ampirun" --bind-to none -np 1 --vp 3 "$D/$b" | sort | tr '\n' ' ')"
  done
done
rm -rf "$D"
