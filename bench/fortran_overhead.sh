#!/bin/sh
# bench/fortran_overhead.sh [BUILD] [ROUNDS] — what the Fortran binding costs on top of the C call:
# bench/pingpong.c (mpicc) and its twin bench/pingpong_f.f90 (mpifort, `use mpi`) built against
# BUILD (default build), 8-byte one-way latency between 2 ranks of one process (--vp 2) and of two
# processes (-np 2), ROUNDS rounds (default 7) with C and Fortran interleaved in each, medians
# printed; then the instructions of a round trip of each program counted with callgrind (load does
# not change them) and the Fortran binding's cost per call. The same
# for Debian's Open MPI (mpicc.openmpi, mpifort.openmpi) when it is installed, as a reference.
# Results: bench/results/fortran/.
set -eu
build=$(cd "${1:-build}" && pwd)
rounds=${2:-7}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 "$here/pingpong.c" -o "$tmp/pp_c"
"$build/bin/mpifort" -O2 -J "$tmp" "$here/pingpong_f.f90" -o "$tmp/pp_f"
run="$build/bin/ampirun"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for layout in "-np 1 --vp 2" "-np 2 --vp 2"; do
  : >"$tmp/c" && : >"$tmp/fi" && : >"$tmp/fs"
  r=0
  while [ "$r" -lt "$rounds" ]; do
    # shellcheck disable=SC2086
    "$run" $layout "$tmp/pp_c" 8 8 5 | awk '$1 == 8 {print $2}' >>"$tmp/c"
    # shellcheck disable=SC2086
    "$run" $layout "$tmp/pp_f" 8 200000 5 >"$tmp/out"
    awk '$1 == "ignore" {print $NF}' "$tmp/out" >>"$tmp/fi"
    awk '$1 == "status" {print $NF}' "$tmp/out" >>"$tmp/fs"
    r=$((r + 1))
  done
  printf 'ampirun %s, 8 B one-way latency (us), median of %d rounds: C %s  Fortran (MPI_STATUS_IGNORE) %s  Fortran (status array) %s\n' \
    "$layout" "$rounds" "$(median <"$tmp/c")" "$(median <"$tmp/fi")" "$(median <"$tmp/fs")"
done
# Instructions (load-independent): valgrind's callgrind counts every instruction of the job (the
# VM has no hardware counters for perf); each program runs once with N round trips and once with
# (almost) none, and the difference is divided by N, so start-up does not count.
if command -v valgrind >/dev/null 2>&1; then
  ir() { # program args...: instructions of the whole job, 2 ranks in this process
    AMPI_VP=2 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
      awk '/Collected/ {print $NF; exit}'
  }
  c1=$(ir "$tmp/pp_c" 8 8 1)  # 200,000 round trips (pingpong.c's count at 8 bytes)
  c0=$(ir "$tmp/pp_c" 16 8 1) # no size in range: none
  f1=$(ir "$tmp/pp_f" 8 20010 1 1)
  f0=$(ir "$tmp/pp_f" 8 0 1 1) # 10 round trips
  s1=$(ir "$tmp/pp_f" 8 20010 1 2)
  s0=$(ir "$tmp/pp_f" 8 0 1 2)
  awk -v c1="$c1" -v c0="$c0" -v f1="$f1" -v f0="$f0" -v s1="$s1" -v s0="$s0" 'BEGIN {
    c = (c1 - c0) / 200000; f = (f1 - f0) / 20000; s = (s1 - s0) / 20000
    printf "instructions per 8-byte round trip (4 calls: 2 MPI_Send, 2 MPI_Recv), 2 ranks of one process:\n"
    printf "  C %.0f  Fortran/MPI_STATUS_IGNORE %.0f (%+.0f per call)  Fortran/status array %.0f (%+.0f per call)\n",
      c, f, (f - c) / 4, s, (s - c) / 4 }'
fi
if command -v mpifort.openmpi >/dev/null 2>&1; then
  mpicc.openmpi -O2 "$here/pingpong.c" -o "$tmp/ompi_c"
  mpifort.openmpi -O2 -J "$tmp" "$here/pingpong_f.f90" -o "$tmp/ompi_f"
  : >"$tmp/c" && : >"$tmp/fi"
  r=0
  while [ "$r" -lt "$rounds" ]; do
    mpirun.openmpi --allow-run-as-root -np 2 "$tmp/ompi_c" 8 8 5 | awk '$1 == 8 {print $2}' >>"$tmp/c"
    mpirun.openmpi --allow-run-as-root -np 2 "$tmp/ompi_f" 8 200000 5 1 |
      awk '$1 == "ignore" {print $NF}' >>"$tmp/fi"
    r=$((r + 1))
  done
  printf 'Open MPI -np 2, 8 B one-way latency (us), median of %d rounds: C %s  Fortran (MPI_STATUS_IGNORE) %s\n' \
    "$rounds" "$(median <"$tmp/c")" "$(median <"$tmp/fi")"
fi
