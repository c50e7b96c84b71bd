#!/bin/sh
# tests/privatize/fallback_test.sh BINDIR SOURCE WORKDIR EXPECT_RUN — builds priv_fallback.c with
# mpicc and -fPIE (objects that reach optarg through a copy relocation) and checks that a run with
# two ranks in one process warns that the ranks share the globals, names optarg, and still runs
# the program correctly (constructor once, options parsed by rank 0).
set -eu
bindir=$1
src=$2
work=$3
expect=$4
rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$bindir/mpicc" "$src" -fPIE -o fallback_pie
sh "$expect" -e "^ampi: warning: .*fallback_pie: the ranks of a process share its global variables.*\(optarg[,)]" \
  -o "^fallback ok constructed=1 n=3$" -- "$bindir/ampirun" -np 1 --vp 2 ./fallback_pie -n 3
