#!/usr/bin/env bash
# lat8.sh ROUNDS spec... : osu_latency -z -m 8:8 -i 50000 -x 2000 P50 (us) per round, interleaved;
# spec = BUILD[:ENV=VAL,...] (bin/ampirun, lib/) or ompi. Prints "avg P50;" per round.
R=$1; shift
OA=/work/ext/osu-host/c/mpi/pt2pt/standard/osu_latency
OO=/work/ext/osu-ompi/c/mpi/pt2pt/standard/osu_latency
declare -A res
for r in $(seq 1 $R); do
  for s in "$@"; do
    if [ "$s" = ompi ]; then
      out=$(timeout 120 mpirun.openmpi --allow-run-as-root --bind-to core -np 2 $OO -z -m 8:8 -i 50000 -x 2000 2>&1 | awk '$1=="8"{print $2, $3}')
    else
      b=${s%%:*}; envs=""; [ "$s" != "$b" ] && envs=${s#*:}
      out=$(env ${envs//,/ } LD_LIBRARY_PATH=$b/lib timeout 120 $b/bin/ampirun -np 2 $OA -z -m 8:8 -i 50000 -x 2000 2>&1 | awk '$1=="8"{print $2, $3}')
    fi
    res[$s]+="$out;"
  done
done
for s in "$@"; do echo "$s: ${res[$s]}"; done
