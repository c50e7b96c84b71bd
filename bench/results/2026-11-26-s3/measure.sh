#!/usr/bin/env bash
# bench/results/2026-11-26-s3/measure.sh — the quiet-machine measurements of this session's merge,
# one after the other (each script interleaves its own variants), most important first, each
# under a time limit: issue 17's small-message goals, issue 19's launch of 1,000 ranks against
# Charm++'s AMPI, MPI_Allreduce among ranks of one process against AMPI and Open MPI, Iallreduce
# against Allreduce, start-up with per-rank copies.
#   bench/results/2026-11-26-s3/measure.sh BUILD [CHARM_DIR]   (run from the repository root)
set -u
B=${1:?usage: measure.sh BUILD [CHARM_DIR]}
CH=${2:-}
O=bench/results/2026-11-26-s3
uptime | tee "$O/load_before.txt"
timeout 420 bench/lat_goals.sh --rounds 3 --out "$O/lat" "$B" > "$O/lat_goals.txt" 2>&1
timeout 120 bench/launch_compare.sh "$B" "$B" 11 1000 ${CH:+"$CH/bin"} > "$O/launch.txt" 2>&1
RANKS="8 64" MIN=8 MAX=65536 RUNS=3 ROUNDS=3 ITERS=500 OMPI_ITERS=20 \
  timeout 300 bench/allreduce_ranks.sh "$B" $CH > "$O/allreduce_ranks.txt" 2>&1
LAYOUTS="1:2 1:8 2:2 2:8" timeout 100 bench/nbc_latency_compare.sh "$B" "$B" 8 1 > "$O/nbc_latency.txt" 2>&1
timeout 150 bench/privatize_startup.sh "$B" "$B" 1 1000 2000 4000 > "$O/privatize_startup.txt" 2>&1
"$B/bin/mpicc" -O2 -o /tmp/hello8k bench/results/limits/hello.c
for v in on off; do
  /usr/bin/time -f "8000 ranks AMPI_PRIVATIZE=$v: %e s wall, %U+%S s cpu" -a -o "$O/privatize_8000.txt" \
    env AMPI_PRIVATIZE=$v "$B/bin/ampirun" --vp 8000 /tmp/hello8k > /dev/null
done
uptime | tee "$O/load_after.txt"
