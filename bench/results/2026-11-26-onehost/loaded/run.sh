#!/usr/bin/env bash
# osu_bibw and osu_mbw_mr (real OSU 7.4, default runs), 2 processes, ours vs Open MPI 4.1.4,
# wall time of each whole run, on a loaded machine (run while CI's ASan build and tests ran).
B=$(realpath "$1"); OA=$2; OO=$3
export LD_LIBRARY_PATH=$B/lib
for prog in osu_bibw osu_mbw_mr; do
  uptime
  s=$(date +%s.%N); timeout 600 $B/bin/ampirun -np 2 $OA/c/mpi/pt2pt/standard/$prog > /tmp/l.ours 2>&1; e=$(date +%s.%N)
  echo "$prog ours $(echo "$e - $s" | bc) s"; cat /tmp/l.ours | tail -4
  s=$(date +%s.%N); timeout 600 mpirun.openmpi --allow-run-as-root --bind-to core -np 2 $OO/c/mpi/pt2pt/standard/$prog > /tmp/l.ompi 2>&1; e=$(date +%s.%N)
  echo "$prog ompi $(echo "$e - $s" | bc) s"; cat /tmp/l.ompi | tail -4
done
