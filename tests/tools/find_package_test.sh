#!/bin/sh
# tests/tools/find_package_test.sh MODE BUILDDIR SRCDIR WORKDIR CMAKE GENERATOR CC CXX
# Configures and builds tests/tools/find_package (find_package(MPI) with MPI_C_COMPILER and
# MPI_CXX_COMPILER set to ampi's wrappers), then runs it under ampirun --vp 4.
#   MODE build:   the wrappers and ampirun of the build tree BUILDDIR/bin.
#   MODE install: `cmake --install BUILDDIR --prefix WORKDIR/stage`, then the stage is moved to
#                 WORKDIR/moved (the install must be relocatable) and its wrappers are used.
# CC/CXX: the compilers for the test project (those that built ampi).
set -u
[ $# -eq 8 ] || { echo "usage: $0 MODE BUILDDIR SRCDIR WORKDIR CMAKE GENERATOR CC CXX" >&2; exit 2; }
mode=$1 build=$2 src=$3 work=$4 cmake=$5 generator=$6 cc=$7 cxx=$8
unset AMPI_VP AMPI_CC AMPI_CXX OMPI_CC OMPI_CXX MPICH_CC MPICH_CXX LD_LIBRARY_PATH

rm -rf "$work" && mkdir -p "$work" || exit 1
work=$(cd -P -- "$work" && pwd -P)

failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
step() {
  printf '$'
  printf ' %s' "$@"
  printf '\n'
  "$@"
}

case $mode in
  build) bin=$build/bin ;;
  install)
    step "$cmake" --install "$build" --prefix "$work/stage" || { echo "FAIL: install failed"; exit 1; }
    step mv "$work/stage" "$work/moved" || exit 1
    bin=$work/moved/bin
    for f in bin/mpicc bin/mpicxx bin/mpic++ bin/ampirun; do
      [ -x "$work/moved/$f" ] || fail "$f is not installed"
    done
    libdir=$("$bin/mpicc" --showme:libdirs)
    incdir=$("$bin/mpicc" --showme:incdirs)
    case $libdir in "$work/moved"/*) ;; *) fail "the installed mpicc points to $libdir" ;; esac
    for f in "$libdir/libampi.so" "$libdir/libampi_start.a" "$incdir/mpi.h"; do
      [ -f "$f" ] || fail "$f is not installed"
    done
    # The installed wrapper builds a program that runs from the moved prefix.
    step "$bin/mpicc" "$src/hello_mpi.c" -o "$work/hello" || fail "mpicc (installed) failed"
    out=$("$bin/ampirun" --vp 2 "$work/hello" 2>&1)
    printf '%s\n' "$out" | sed 's/^/| /'
    [ "$(printf '%s\n' "$out" | grep -c '^hello from rank [01] of 2$')" = 2 ] ||
      fail "the program built by the installed mpicc did not print two hello lines"
    ;;
  *) echo "bad MODE '$mode'" >&2; exit 2 ;;
esac

step "$cmake" -S "$src/find_package" -B "$work/project" -G "$generator" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
  -DMPI_C_COMPILER="$bin/mpicc" -DMPI_CXX_COMPILER="$bin/mpicxx" ||
  { echo "FAIL: configuring the find_package(MPI) project failed"; exit 1; }
step "$cmake" --build "$work/project" || { echo "FAIL: building it failed"; exit 1; }
out=$("$bin/ampirun" --vp 4 "$work/project/fp_hello" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/| /'
[ "$rc" = 0 ] || fail "fp_hello exited with status $rc"
for r in 0 1 2 3; do
  n=$(printf '%s\n' "$out" | grep -c "^find_package hello from rank $r of 4\$")
  [ "$n" = 1 ] || fail "expected one line from rank $r, found $n"
done
[ "$failed" = 0 ] && echo PASS
exit "$failed"
