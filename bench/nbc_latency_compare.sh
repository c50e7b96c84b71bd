#!/bin/sh
# bench/nbc_latency_compare.sh — bench/nbc_latency (MPI_Allreduce vs MPI_Iallreduce + MPI_Wait vs
# MPI_Allreduce_init's MPI_Start + MPI_Wait, medians of short batches in one run) for two builds,
# alternating old and new per layout so both see the same load.
#   bench/nbc_latency_compare.sh OLD_BUILD NEW_BUILD [bytes] [rounds]
#   (LAYOUTS="NP:VP ..." to choose; VP counts all ranks)
set -eu
OLD=${1:?usage: nbc_latency_compare.sh OLD_BUILD NEW_BUILD [bytes] [rounds]}
NEW=${2:?usage: nbc_latency_compare.sh OLD_BUILD NEW_BUILD [bytes] [rounds]}
BYTES=${3:-8}
ROUNDS=${4:-1}
LAYOUTS=${LAYOUTS:-"1:2 1:4 1:8 2:2 2:8"}
for i in $(seq "$ROUNDS"); do
  for l in $LAYOUTS; do
    np=${l%%:*} vp=${l#*:}
    for B in "$OLD" "$NEW"; do
      printf '%-5s -np %s --vp %s: ' "$([ "$B" = "$OLD" ] && echo old || echo new)" "$np" "$vp"
      LD_LIBRARY_PATH="$B/lib" timeout 300 "$B/bin/ampirun" -np "$np" --vp "$vp" \
        "$B/bench/nbc_latency" "$BYTES" 2>/dev/null | tail -1
    done
  done
done
echo "old: $OLD"
echo "new: $NEW"
