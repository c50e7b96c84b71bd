#!/bin/sh
# tests/fortran/pkg_config_test.sh BUILDDIR SRCDIR WORKDIR CC FC
# Builds a C program with `pkg-config --cflags --libs mpi-c` (and ampi, mpi) and a Fortran one with
# `pkg-config --cflags --libs mpi-fort` (mpif.h and `use mpi_f08`), from the build tree's
# lib/pkgconfig, and runs each under ampirun --vp 2. Also checks that mpi-cxx.pc exists and that the files name this tree.
set -u
[ $# -eq 5 ] || { echo "usage: $0 BUILDDIR SRCDIR WORKDIR CC FC" >&2; exit 2; }
build=$1 src=$2 work=$3 cc=$4 fc=$5
unset AMPI_VP LD_LIBRARY_PATH
rm -rf "$work" && mkdir -p "$work" || exit 1
PKG_CONFIG_PATH=$build/lib/pkgconfig
export PKG_CONFIG_PATH
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
run2() { # program expected-line-prefix
  out=$("$build/bin/ampirun" --vp 2 "$1" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed 's/^/| /'
  [ "$rc" = 0 ] || fail "$1 exited with status $rc"
  for r in 0 1; do
    n=$(printf '%s\n' "$out" | grep -c "^$2 from rank $r of 2\$")
    [ "$n" = 1 ] || fail "$1: expected one line from rank $r, found $n"
  done
}
for pc in ampi mpi mpi-c mpi-cxx mpi-fort; do
  pkg-config --exists "$pc" || fail "pkg-config does not find $pc"
  case $(pkg-config --variable=libdir "$pc") in
    "$build"/*) ;;
    *) fail "$pc.pc: libdir is not under $build" ;;
  esac
done
for pc in ampi mpi mpi-c; do
  # shellcheck disable=SC2046
  echo "\$ $cc hello_mpi.c \$(pkg-config --cflags --libs $pc)"
  $cc "$src/../tools/hello_mpi.c" -o "$work/hello_c_$pc" $(pkg-config --cflags --libs "$pc") ||
    fail "building a C program with $pc.pc failed"
  [ -x "$work/hello_c_$pc" ] && run2 "$work/hello_c_$pc" "hello"
done
echo "\$ $fc hello_header.f90 \$(pkg-config --cflags --libs mpi-fort)"
# shellcheck disable=SC2046
$fc "$src/find_package/hello_header.f90" -o "$work/hello_f" $(pkg-config --cflags --libs mpi-fort) ||
  fail "building a Fortran program with mpi-fort.pc failed"
[ -x "$work/hello_f" ] && run2 "$work/hello_f" "fortran header hello"
echo "\$ $fc hello_f08.f90 \$(pkg-config --cflags --libs mpi-fort)"
# shellcheck disable=SC2046
(cd "$work" && $fc "$src/find_package/hello_f08.f90" -o "$work/hello_f08" \
  $(pkg-config --cflags --libs mpi-fort)) || fail "building an mpi_f08 program with mpi-fort.pc failed"
[ -x "$work/hello_f08" ] && run2 "$work/hello_f08" "fortran f08 hello"
[ "$failed" = 0 ] && echo PASS
exit "$failed"
