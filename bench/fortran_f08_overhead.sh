#!/bin/sh
# bench/fortran_f08_overhead.sh [BUILD] [ROUNDS] — what `use mpi_f08` costs over `use mpi`:
# bench/pingpong_f.f90 and its twin bench/pingpong_f08.f90 built with BUILD's mpifort (default
# build). First the instructions of an 8-byte round trip (2 MPI_Send + 2 MPI_Recv) of each, counted
# with callgrind (load does not change them: N round trips minus 10, divided); then the 8-byte
# one-way latency between 2 ranks of one process, ROUNDS rounds (default 5) with both programs
# interleaved in each round, medians printed. Results: bench/results/fortran/f08-overhead.txt.
set -eu
build=$(cd "${1:-build}" && pwd)
rounds=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpifort" -O2 -J "$tmp" "$here/pingpong_f.f90" -o "$tmp/pp_f"
"$build/bin/mpifort" -O2 -J "$tmp" "$here/pingpong_f08.f90" -o "$tmp/pp_f08"
run="$build/bin/ampirun"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
if command -v valgrind >/dev/null 2>&1; then
  ir() { # program args...: instructions of the whole job, 2 ranks in this process
    AMPI_VP=2 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
      awk '/Collected/ {print $NF; exit}'
  }
  for mode in 1 2; do
    f1=$(ir "$tmp/pp_f" 8 20010 1 $mode)
    f0=$(ir "$tmp/pp_f" 8 0 1 $mode) # 10 round trips
    g1=$(ir "$tmp/pp_f08" 8 20010 1 $mode)
    g0=$(ir "$tmp/pp_f08" 8 0 1 $mode)
    awk -v f1="$f1" -v f0="$f0" -v g1="$g1" -v g0="$g0" -v mode="$mode" 'BEGIN {
      f = (f1 - f0) / 20000; g = (g1 - g0) / 20000
      printf "instructions per 8-byte round trip (%s), 2 ranks of one process: mpi %.0f  mpi_f08 %.0f (%+.1f per call)\n",
        mode == 1 ? "MPI_STATUS_IGNORE" : "status kept", f, g, (g - f) / 4 }'
  done
fi
: >"$tmp/f" && : >"$tmp/g"
r=0
while [ "$r" -lt "$rounds" ]; do
  "$run" -np 1 --vp 2 "$tmp/pp_f" 8 200000 5 1 | awk '$1 == "ignore" {print $NF}' >>"$tmp/f"
  "$run" -np 1 --vp 2 "$tmp/pp_f08" 8 200000 5 1 | awk '$1 == "ignore" {print $NF}' >>"$tmp/g"
  r=$((r + 1))
done
printf 'ampirun --vp 2, 8 B one-way latency (us), MPI_STATUS_IGNORE, median of %d interleaved rounds: mpi %s  mpi_f08 %s\n' \
  "$rounds" "$(median <"$tmp/f")" "$(median <"$tmp/g")"
