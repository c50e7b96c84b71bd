#!/usr/bin/env bash
# ab.sh — interleaved osu_bw rounds for several ampi builds and Open MPI (issue 17, goal 3).
#   ab.sh OUTDIR ROUNDS "OSU_BW_ARGS" BUILD... ; each run's output: OUTDIR/bw.<i>.<round>
#   (i = index of the build; "ompi" for Open MPI), the load before each run in OUTDIR/load.txt.
set -uo pipefail
out=$1 rounds=$2 args=$3; shift 3
mkdir -p "$out"
BW=c/mpi/pt2pt/standard/osu_bw
for r in $(seq 1 "$rounds"); do
  i=0
  for b in "$@"; do
    echo "$r ampi$i $(cut -d' ' -f1 /proc/loadavg)" >> "$out/load.txt"
    LD_LIBRARY_PATH=$b/lib timeout 300 "$b/bin/ampirun" -np 2 /work/ext/osu-host/$BW $args > "$out/bw.ampi$i.$r" 2>&1
    i=$((i + 1))
  done
  echo "$r ompi $(cut -d' ' -f1 /proc/loadavg)" >> "$out/load.txt"
  timeout 300 mpirun.openmpi --allow-run-as-root --bind-to core -np 2 /work/ext/osu-ompi/$BW $args > "$out/bw.ompi.$r" 2>&1
done
