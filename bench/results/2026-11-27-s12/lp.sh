#!/usr/bin/env bash
# lp.sh ROUNDS spec...   spec = build[:ENV=VAL,...] | ompi ; prints P50 per round (ns)
R=$1; shift
declare -A res
for r in $(seq 1 $R); do
  for s in "$@"; do
    if [ "$s" = ompi ]; then
      out=$(timeout 120 mpirun.openmpi --allow-run-as-root --bind-to core -np 2 /tmp/latp50_ompi 2>&1 | awk '{print $4}')
    else
      b=${s%%:*}; envs=""; [ "$s" != "$b" ] && envs=${s#*:}
      out=$(env ${envs//,/ } LD_LIBRARY_PATH=$b/lib timeout 120 $b/bin/ampirun -np 2 /tmp/latp50_ampi 2>&1 | awk '{print $4}')
    fi
    res[$s]+="$out "
  done
done
for s in "$@"; do echo "$s: ${res[$s]}"; done
