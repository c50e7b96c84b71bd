#!/usr/bin/env bash
# lp.sh ROUNDS spec... : latp50 (8-byte ping-pong, each iteration timed on its own) per round,
# interleaved; spec = BUILD[:ENV=VAL,...] or ompi; prints P10/P50 (ns) per round. Needs
# /tmp/latp50_ampi (BUILD/bin/mpicc -O2 latp50.c) and /tmp/latp50_ompi (mpicc.openmpi -O2 latp50.c).
R=$1; shift
declare -A res
for r in $(seq 1 $R); do
  for s in "$@"; do
    if [ "$s" = ompi ]; then
      out=$(timeout 120 mpirun.openmpi --allow-run-as-root --bind-to core -np 2 /tmp/latp50_ompi 2>&1 | awk '{print $2"/"$4}')
    else
      b=${s%%:*}; envs=""; [ "$s" != "$b" ] && envs=${s#*:}
      out=$(env ${envs//,/ } LD_LIBRARY_PATH=$b/lib timeout 120 $b/bin/ampirun -np 2 /tmp/latp50_ampi 2>&1 | awk '{print $2"/"$4}')
    fi
    res[$s]+="$out "
  done
done
for s in "$@"; do echo "$s: ${res[$s]}"; done
