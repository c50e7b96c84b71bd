#!/usr/bin/env bash
# On a lent GPU machine, its CPU only: the ring prefetch (AFTER) against the build before it
# (BEFORE) and the machine's Open MPI 4.1.6 (vader), 2 processes bound to cores 0 and 1, rounds
# interleaved: real OSU 7.4 osu_bw and osu_latency 1 B-16 KiB, osu_bw 64 KiB-4 MiB, and bwwin.c;
# raw outputs only (summarised on the build machine).
#   bench/results/2026-11-28-s17/device_host.sh STAGE OUT ROUNDS   (STAGE from stage_host.sh)
set -u
S=${1:?}; O=${2:?}; R=${3:-3}
source "$S/env.sh"
mkdir -p "$O"
{ lscpu; nproc; uname -r; mpirun --version 2>&1 | head -1; } > "$O/machine.txt" 2>&1
OMPI="mpirun --bind-to core --map-by core -np 2 --mca btl self,vader"
for r in $(seq 1 "$R"); do
  for v in before after ompi; do
    for t in "osu_latency -m 1:16384" "osu_bw -m 1:16384" "osu_bw -m 65536:4194304"; do
      set -- $t; p=$1; shift
      f="$O/${p}_${2/:/-}_$v.$r"
      if [[ $v == ompi ]]; then timeout 120 $OMPI "$S/osu/ompi/$p" "$@" > "$f" 2>&1
      else timeout 120 bash -c "source $S/env.sh; ampi $v -np 2 $S/osu/ampi/$p $*" > "$f" 2>&1; fi
    done
    f="$O/bwwin_$v.$r"
    if [[ $v == ompi ]]; then timeout 60 $OMPI "$S/osu/ompi/bwwin" 8 20000 5000 > "$f" 2>&1
    else timeout 60 bash -c "source $S/env.sh; ampi $v -np 2 $S/osu/ampi/bwwin 8 20000 5000" > "$f" 2>&1; fi
  done
done
echo done
