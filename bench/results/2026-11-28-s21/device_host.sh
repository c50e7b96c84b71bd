#!/usr/bin/env bash
# On a lent GPU machine, its CPU only (session 21, issue 17): this session's change (the look
# past a record taken after the reply) against the build before it and the machine's Open MPI
# 4.1.6 (vader), real OSU 7.4 osu_latency -z and osu_bw 1 B-4 MiB, 2 processes bound to cores,
# rounds interleaved; files named as bench/lat_goals.sh writes them (summarise here with
# `bench/lat_goals.sh --report-only`). Then tick.c: the machine's own P99/P50 for a fixed piece
# of work of osu_latency's iteration times.
#   device_host.sh STAGE OUT ROUNDS   (STAGE from bench/results/2026-11-28-s17/stage_host.sh,
#                                      plus STAGE/osusrc and STAGE/tick.c)
set -u
S=${1:?}; O=${2:?}; R=${3:-4}
source "$S/env.sh"
mkdir -p "$O/raw" /tmp/ompibin
{ date -u; uptime; lscpu | grep -E "Model name|^CPU\(s\)"; mpirun --version 2>&1 | head -1; } > "$O/machine.txt" 2>&1
export CUDA_VISIBLE_DEVICES= # CPU only: no GPU-sharing warning from ampirun
U="osu_util.c osu_util_mpi.c osu_util_graph.c osu_util_papi.c"
(cd "$S/osusrc" && for p in osu_bw osu_latency; do mpicc -O2 -DHAVE_CONFIG_H -I. $p.c $U -o /tmp/ompibin/$p -lm; done) > "$O/ompi_build.log" 2>&1
OMPI="env -u PMIX_PKGLIBDIR -u PMIX_MCA_mca_base_component_path mpirun --bind-to core --map-by core -np 2 --mca btl self,vader"
for r in $(seq 1 "$R"); do
  for v in before after; do
    i=0; [[ $v == after ]] && i=1
    timeout 200 bash -c "source $S/env.sh; ampi $v -np 2 $S/osu/ampi/osu_latency -z -m 1:4194304 -i 1000" > "$O/raw/lat.ampi$i.$r" 2>&1
    timeout 200 bash -c "source $S/env.sh; ampi $v -np 2 $S/osu/ampi/osu_bw -m 1:4194304" > "$O/raw/bw.ampi$i.$r" 2>&1
  done
  timeout 200 $OMPI /tmp/ompibin/osu_latency -z -m 1:4194304 -i 1000 > "$O/raw/lat.ompi.$r" 2>&1
  timeout 200 $OMPI /tmp/ompibin/osu_bw -m 1:4194304 > "$O/raw/bw.ompi.$r" 2>&1
done
gcc -O2 -o /tmp/tick "$S/tick.c" && for k in 1 4 8 16 32 64; do /tmp/tick 32768 $k; done > "$O/tick.txt" 2>&1
echo done
