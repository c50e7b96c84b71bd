#!/usr/bin/env bash
# Issue 17's figures on this machine after the merge (one script, quiet machine): our
# OSU-compatible latency/bandwidth beside Open MPI and MPICH (bench/compare.sh), the real OSU 7.4
# osu_iallreduce/osu_allreduce, latency tails, alltoall with virtual ranks, and MPI_Allreduce among
# ranks of one process. Usage: measure.sh BUILD OSU_AMPI OSU_OMPI OUT
set -uo pipefail
B=$(realpath "$1"); OA=$2; OO=$3; OUT=$4; mkdir -p "$OUT"
R=$B/bin/ampirun
M="mpirun.openmpi --allow-run-as-root --bind-to core"
export LD_LIBRARY_PATH=$B/lib
{ date; uptime; lscpu | grep -E "Model name|^CPU\(s\)"; } > "$OUT/machine.txt"
# A. latency and bandwidth, 2 processes, beside the peers (medians of 5 rounds)
bench/compare.sh --build "$B" --quick --rounds 5 --out "$OUT/compare" > "$OUT/compare.txt" 2>&1
# B. non-blocking against blocking allreduce, 8 B (OSU's "pure communication" time)
for round in 1 2 3; do
  for lay in "-np 2" "-np 1 --vp 2" "-np 1 --vp 4" "-np 1 --vp 8"; do
    a=$(timeout 120 $R $lay $OA/c/mpi/collective/blocking/osu_allreduce -m 8:8 -i 2000 -x 200 | awk '$1==8{print $2}')
    n=$(timeout 120 $R $lay $OA/c/mpi/collective/non_blocking/osu_iallreduce -m 8:8 -i 2000 -x 200 | awk '$1==8{print $3}')
    echo "round $round [$lay] allreduce ${a}us iallreduce_pure_comm ${n}us"
  done
done > "$OUT/iallreduce.txt" 2>&1
# C. latency tails (p50/p90/p99), 2 processes, ours and Open MPI
for round in 1 2; do
  echo "## ours round $round"; timeout 300 $R -np 2 $OA/c/mpi/pt2pt/standard/osu_latency -z -m 1:4194304 -i 1000
  echo "## Open MPI round $round"; timeout 300 $M -np 2 $OO/c/mpi/pt2pt/standard/osu_latency -z -m 1:4194304 -i 1000
done > "$OUT/latency_tails.txt" 2>&1
# D. alltoall with 8 virtual ranks in each of 2 processes; Open MPI with 16 processes
{ echo "## ours -np 2 --vp 8"; timeout 300 $R -np 2 --vp 8 $OA/c/mpi/collective/blocking/osu_alltoall -m 1024:65536 -i 200
  echo "## Open MPI -np 16 (oversubscribed)"; timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np 16 $OO/c/mpi/collective/blocking/osu_alltoall -m 1024:65536 -i 200
} > "$OUT/alltoall.txt" 2>&1
# E. MPI_Allreduce among ranks of one process
for vp in 8 64; do
  echo "## --vp $vp"; timeout 300 $R -np 1 --vp $vp $OA/c/mpi/collective/blocking/osu_allreduce -m 8:65536 -i 500 -x 50
done > "$OUT/allreduce_vp.txt" 2>&1
date >> "$OUT/machine.txt"
