#!/usr/bin/env bash
# On a lent GPU machine, its CPU only: the ring prefetch (AFTER) against the build before it
# (BEFORE) and the machine's Open MPI 4.1.6 (vader), 2 processes bound to cores 0 and 1, rounds
# interleaved: real OSU 7.4 osu_bw and osu_latency 1 B-16 KiB, osu_bw 64 KiB-4 MiB, and bwwin.c.
#   bench/results/2026-11-28-s17/device_host.sh STAGE OUT ROUNDS   (STAGE from stage_host.sh)
set -u
S=${1:?}; O=${2:?}; R=${3:-3}
source "$S/env.sh"
mkdir -p "$O"
{ lscpu; nproc; uname -r; mpirun --version 2>&1 | head -1; } > "$O/machine.txt" 2>&1
ompi() { mpirun --bind-to core --map-by core -np 2 --mca btl self,vader "$@"; }
for r in $(seq 1 "$R"); do
  for v in before after ompi; do
    for t in "osu_latency -m 1:16384" "osu_bw -m 1:16384" "osu_bw -m 65536:4194304"; do
      set -- $t; p=$1; shift
      f="$O/${p}_${1#-m }_$v.$r"; f=${f//:/-}
      if [[ $v == ompi ]]; then timeout 120 ompi "$S/osu/ompi/$p" "$@" > "$f" 2>&1
      else timeout 120 bash -c "source $S/env.sh; ampi $v -np 2 $S/osu/ampi/$p $*" > "$f" 2>&1; fi
    done
    f="$O/bwwin_$v.$r"
    if [[ $v == ompi ]]; then timeout 60 ompi "$S/osu/ompi/bwwin" 8 20000 5000 > "$f" 2>&1
    else timeout 60 bash -c "source $S/env.sh; ampi $v -np 2 $S/osu/ampi/bwwin 8 20000 5000" > "$f" 2>&1; fi
  done
done
# Medians over the rounds, by size: latency (us) and bandwidth (MB/s).
for p in osu_latency_1-16384 osu_bw_1-16384 osu_bw_65536-4194304; do
  echo "== $p: size before after ompi (medians of $R)"
  for v in before after ompi; do cat "$O/${p}_$v".* | awk -v v=$v '$1 ~ /^[0-9]+$/ {print v, $1, $2}'; done |
    sort -k1,1 -k2,2n -k3,3g | awk '{k=$1" "$2; a[k]=a[k]" "$3; n[k]++} END {for (k in a) print k, a[k]}' |
    awk '{split($0,x," "); m=""; c=NF-2; split("",v); for(i=3;i<=NF;i++) v[i-2]=$i; print $1, $2, v[int((c+1)/2)]}' |
    awk '{m[$2]=m[$2]" "$1"="$3} END {for (s in m) print s, m[s]}' | sort -n
done
echo "== bwwin mean ns/msg per block of 5000 windows"
for v in before after ompi; do for f in "$O"/bwwin_$v.*; do echo "$v $(awk '{printf "%s ", $8}' "$f")"; done; done
