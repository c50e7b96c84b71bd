#!/bin/sh
# bench/results/api41/run.sh [BUILD] — MPI 4's calls against their MPI 3 counterparts, in one
# command: bench/mpi4_latency (pairs interleaved round by round, medians of 9 rounds) with two
# ranks in one process (--vp 2) and over two processes (-np 2 --vp 2), at 8 bytes and 64 KiB.
# Writes bench/results/api41/mpi4_latency.txt.
set -eu
cd "$(dirname "$0")/../../.."
b=${1:-build}
out=bench/results/api41/mpi4_latency.txt
: >"$out"
for layout in "-np 1 --vp 2" "-np 2 --vp 2"; do
  for bytes in 8 65536; do
    echo "## ampirun $layout, $bytes bytes ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out"
    # shellcheck disable=SC2086
    "$b/bin/ampirun" $layout "$b/bench/mpi4_latency" "$bytes" 20000 9 | tee -a "$out"
  done
done
