#!/bin/sh
# bench/fortran_overhead.sh [BUILD] [ROUNDS] — what the Fortran binding costs on top of the C call:
# bench/pingpong.c (mpicc) and its twin bench/pingpong_f.f90 (mpifort, `use mpi`) built against
# BUILD (default build), 8-byte one-way latency between 2 ranks of one process (--vp 2) and of two
# processes (-np 2), ROUNDS rounds (default 7) with C and Fortran interleaved in each, medians
# printed; then the user-space instructions of 200,000 round trips of each program counted with
# perf stat (load does not change them) and their difference per MPI_Send+MPI_Recv pair. The same
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
if command -v perf >/dev/null 2>&1; then
  count() { # program args...: user instructions of the whole job
    perf stat -x, -e instructions:u -o "$tmp/perf" "$run" -np 1 --vp 2 "$@" >/dev/null
    awk -F, '/instructions/ {print $1}' "$tmp/perf"
  }
  ci=$(count "$tmp/pp_c" 8 8 1)
  fi_=$(count "$tmp/pp_f" 8 200000 1 1)
  fs=$(count "$tmp/pp_f" 8 200000 1 2)
  echo "instructions:u, 200000 round trips at --vp 2: C $ci  Fortran/ignore $fi_  Fortran/status $fs"
  awk -v c="$ci" -v i="$fi_" -v s="$fs" 'BEGIN {
    printf "per MPI_Send+MPI_Recv pair (2 per round trip): Fortran/ignore %+.1f, Fortran/status %+.1f instructions\n",
      (i - c) / 400000, (s - c) / 400000 }'
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
