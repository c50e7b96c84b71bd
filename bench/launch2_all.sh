#!/bin/sh
# bench/launch2_all.sh — issue 19's launch figures in one command (for a quiet machine): the
# 1,000-rank hello world side by side (Charm++'s AMPI `+p1 +vp1000`, OLD_BUILD and NEW_BUILD, each
# with the default AMPI_PRIVATIZE and with =off; medians of ROUNDS interleaved rounds, wall time
# and CPU time), the start-up trace of each build (AMPI_DEBUG_STARTUP=1, default and with copies
# forced), and the start-up with copies at 1,000/4,000/8,000 ranks (bench/privatize_startup.sh:
# the "linear, at most 2 ms per rank" goal). Results under bench/results/launch2/.
#
#   bench/launch2_all.sh [OLD_BUILD] [NEW_BUILD] [AMPI_BIN] [ROUNDS]
#   defaults: /work/main/build build /work/ext/charm/netlrts-linux-x86_64/bin 11
set -eu
here=$(cd "$(dirname "$0")" && pwd)
old=$(cd "${1:-/work/main/build}" && pwd)
new=$(cd "${2:-$here/../build}" && pwd)
ampi=${3:-/work/ext/charm/netlrts-linux-x86_64/bin}
rounds=${4:-11}
out="$here/results/launch2/all_$(date -u +%Y%m%dT%H%M%S).txt"
mkdir -p "$here/results/launch2"
work=$(mktemp -d /tmp/launch2_all.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/hello.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) printf("hello from %d of %d\n", rank, size);
  MPI_Finalize();
  return 0;
}
EOC
"$old/bin/mpicc" -O2 "$work/hello.c" -o "$work/hello_old"
"$new/bin/mpicc" -O2 "$work/hello.c" -o "$work/hello_new"
{
  echo "== wall time (bench/launch_compare.sh)"
  sh "$here/launch_compare.sh" "$old" "$new" "$rounds" 1000 "$ampi"
  echo
  # Not Charm++'s: charmrun does not wait for its node program, whose CPU time /usr/bin/time then
  # never sees (it printed 0.000 s).
  echo "== CPU time (user + system of the whole command, children included), $rounds interleaved rounds"
  for v in old new old_off new_off; do : >"$work/cpu_$v"; done
  i=0
  while [ "$i" -lt "$rounds" ]; do
    for v in old new old_off new_off; do
      case $v in
      old) /usr/bin/time -f "%U %S" -o "$work/t" "$old/bin/ampirun" --vp 1000 "$work/hello_old" >/dev/null 2>&1 ;;
      new) /usr/bin/time -f "%U %S" -o "$work/t" "$new/bin/ampirun" --vp 1000 "$work/hello_new" >/dev/null 2>&1 ;;
      old_off) AMPI_PRIVATIZE=off /usr/bin/time -f "%U %S" -o "$work/t" "$old/bin/ampirun" --vp 1000 "$work/hello_old" >/dev/null 2>&1 ;;
      new_off) AMPI_PRIVATIZE=off /usr/bin/time -f "%U %S" -o "$work/t" "$new/bin/ampirun" --vp 1000 "$work/hello_new" >/dev/null 2>&1 ;;
      esac
      awk '{ printf "%.3f\n", $1 + $2 }' "$work/t" >>"$work/cpu_$v"
    done
    i=$((i + 1))
  done
  for v in old new old_off new_off; do
    sort -n "$work/cpu_$v" | awk -v n="$v" '{a[NR]=$1} END {
      m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
      printf "%-10s cpu median %6.3f s  min %6.3f  max %6.3f\n", n, m, a[1], a[NR] }'
  done
  echo
  for b in old new; do
    for mode in default on; do
      echo "== start-up trace: $b build, AMPI_PRIVATIZE=$mode, --vp 1000"
      if [ "$mode" = default ]; then
        AMPI_DEBUG_STARTUP=1 "$(eval echo \$$b)/bin/ampirun" --vp 1000 "$work/hello_$b" 2>&1 | grep "startup:"
      else
        AMPI_PRIVATIZE=on AMPI_DEBUG_STARTUP=1 "$(eval echo \$$b)/bin/ampirun" --vp 1000 "$work/hello_$b" 2>&1 | grep "startup:"
      fi
    done
  done
  echo
  echo "== start-up with copies (AMPI_PRIVATIZE=on), bench/privatize_startup.sh, 3 rounds"
  VARIANTS="old new off" sh "$here/privatize_startup.sh" "$old" "$new" 3 1000 4000 8000
} 2>&1 | tee "$out"
