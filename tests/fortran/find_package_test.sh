#!/bin/sh
# tests/fortran/find_package_test.sh BUILDDIR SRCDIR WORKDIR CMAKE GENERATOR FC
# Configures and builds tests/fortran/find_package (find_package(MPI COMPONENTS Fortran) with
# MPI_Fortran_COMPILER set to the build tree's mpifort), then runs both programs under
# ampirun --vp 3 and checks one line per rank (`use mpi`, mpif.h, `use mpi_f08`).
set -u
[ $# -eq 6 ] || { echo "usage: $0 BUILDDIR SRCDIR WORKDIR CMAKE GENERATOR FC" >&2; exit 2; }
build=$1 src=$2 work=$3 cmake=$4 generator=$5 fc=$6
unset AMPI_VP AMPI_FC OMPI_FC MPICH_FC LD_LIBRARY_PATH
rm -rf "$work" && mkdir -p "$work" || exit 1
bin=$build/bin
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
echo "\$ $cmake -S $src/find_package -B $work/project ... -DMPI_Fortran_COMPILER=$bin/mpifort"
"$cmake" -S "$src/find_package" -B "$work/project" -G "$generator" -DCMAKE_Fortran_COMPILER="$fc" \
  -DCMAKE_BUILD_TYPE=Release -DMPI_Fortran_COMPILER="$bin/mpifort" ||
  { echo "FAIL: configuring the find_package(MPI COMPONENTS Fortran) project failed"; exit 1; }
"$cmake" --build "$work/project" || { echo "FAIL: building it failed"; exit 1; }
for kind in module header f08; do
  out=$("$bin/ampirun" --vp 3 "$work/project/fp_fortran_$kind" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed 's/^/| /'
  [ "$rc" = 0 ] || fail "fp_fortran_$kind exited with status $rc"
  for r in 0 1 2; do
    n=$(printf '%s\n' "$out" | grep -c "^fortran $kind hello from rank $r of 3\$")
    [ "$n" = 1 ] || fail "fp_fortran_$kind: expected one line from rank $r, found $n"
  done
done
[ "$failed" = 0 ] && echo PASS
exit "$failed"
