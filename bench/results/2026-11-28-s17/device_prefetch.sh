#!/usr/bin/env bash
# On a lent GPU machine, its CPU only: AMPI_SHM_PREFETCH 0, 2, 4 and 8 against each other and the
# machine's Open MPI 4.1.6 (vader; OSU 7.4 and bwwin.c built there with its mpicc from STAGE/osusrc),
# 2 processes bound to cores 0 and 1, rounds interleaved: bwwin.c (8 B, 20,000 windows), real OSU
# osu_bw and osu_latency 1 B-1 KiB. Raw outputs only.
#   bench/results/2026-11-28-s17/device_prefetch.sh STAGE OUT ROUNDS   (STAGE from stage_host.sh)
set -u
S=${1:?}; O=${2:?}; R=${3:-3}
source "$S/env.sh"
mkdir -p "$O" /tmp/ompibin
{ lscpu; nproc; uname -r; mpirun --version 2>&1 | head -1; } > "$O/machine.txt" 2>&1
export CUDA_VISIBLE_DEVICES= # CPU only: no GPU-sharing warning from ampirun
U="osu_util.c osu_util_mpi.c osu_util_graph.c osu_util_papi.c"
(cd "$S/osusrc" && for p in osu_bw osu_latency; do mpicc -O2 -DHAVE_CONFIG_H -I. $p.c $U -o /tmp/ompibin/$p -lm; done &&
  mpicc -O2 bwwin.c -o /tmp/ompibin/bwwin) > "$O/ompi_build.log" 2>&1
# (Open MPI without the staged PMIx's plugin paths: its own PMIx crashed on them.)
OMPI="env -u PMIX_PKGLIBDIR -u PMIX_MCA_mca_base_component_path mpirun --bind-to core --map-by core -np 2 --mca btl self,vader"
for r in $(seq 1 "$R"); do
  for v in 0 2 4 8 ompi; do
    for t in "bwwin 8 20000 5000" "osu_bw -m 1:1024" "osu_latency -m 1:1024"; do
      set -- $t; p=$1; f="$O/${p}_$v.$r"
      if [[ $v == ompi ]]; then timeout 100 $OMPI /tmp/ompibin/"$@" > "$f" 2>&1
      else timeout 100 bash -c "source $S/env.sh; AMPI_SHM_PREFETCH=$v ampi after -np 2 $S/osu/ampi/$*" > "$f" 2>&1; fi
    done
  done
done
cd "$O" && tar czf ../prefetch_raw.tgz . && echo done
