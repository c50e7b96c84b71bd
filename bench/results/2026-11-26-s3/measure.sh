#!/usr/bin/env bash
# bench/results/2026-11-26-s3/measure.sh — the quiet-machine measurements of this session's merge,
# one after the other (each script interleaves its own variants): issue 17's small-message goals
# and Iallreduce, MPI_Allreduce among ranks of one process against Charm++'s AMPI and Open MPI,
# issue 19's launch of 1,000 ranks and start-up with per-rank copies.
#   bench/results/2026-11-26-s3/measure.sh BUILD [CHARM_DIR]   (run from the repository root)
set -u
B=${1:?usage: measure.sh BUILD [CHARM_DIR]}
CH=${2:-}
O=bench/results/2026-11-26-s3
uptime | tee "$O/load_before.txt"
bench/lat_goals.sh --rounds 3 --out "$O/lat" "$B" > "$O/lat_goals.txt" 2>&1
LAYOUTS="1:2 1:4 1:8 2:2 2:8" bench/nbc_compare.sh "$B" "$B" 3 1000 > "$O/nbc_compare.txt" 2>&1
bench/nbc_latency_compare.sh "$B" "$B" 8 2 > "$O/nbc_latency.txt" 2>&1
bench/launch_compare.sh "$B" "$B" 11 1000 ${CH:+"$CH/bin"} > "$O/launch.txt" 2>&1
bench/privatize_startup.sh "$B" "$B" 1 1000 2000 4000 > "$O/privatize_startup.txt" 2>&1
for v in on off; do
  "$B/bin/mpicc" -O2 -o /tmp/hello8k bench/results/limits/hello.c
  /usr/bin/time -f "8000 ranks AMPI_PRIVATIZE=$v: %e s wall, %U+%S s cpu" env AMPI_PRIVATIZE=$v \
    "$B/bin/ampirun" --vp 8000 /tmp/hello8k 2>>"$O/privatize_8000.txt" | tail -1 >> "$O/privatize_8000.txt"
done
RANKS="8 64" MIN=8 MAX=65536 RUNS=3 ROUNDS=3 ITERS=500 OMPI_ITERS=20 \
  bench/allreduce_ranks.sh "$B" $CH > "$O/allreduce_ranks.txt" 2>&1
uptime | tee "$O/load_after.txt"
