#!/bin/sh
# bench/privatize_startup.sh — start-up of a job with per-rank copies of the program (issue 19):
# the whole run of bench/results/limits/hello.c with N ranks in one process, for each N, the old
# build (every copy dlopened) and the new one (copies mapped from one template,
# src/privatize/copy_maker) side by side, interleaved round by round so that both see the same
# load, and the new build without copies (AMPI_PRIVATIZE=off) as the floor. Prints per N and
# variant the median wall time of the rounds, its ms per rank, and the median CPU time (user +
# system: less sensitive to the machine's load than wall time).
#
#   bench/privatize_startup.sh OLD_BUILD NEW_BUILD [ROUNDS] [N...]
#   e.g. bench/privatize_startup.sh /work/main/build build 3 1000 2000 4000 8000
#
# The new build alone with AMPI_PRIVATIZE_LOADER=dlopen is the old way too ("dlopen" column).
# VARIANTS (environment, default "old new dlopen off") picks the columns: dlopen takes ~36 s at
# 8,000 ranks.
set -eu
OLD=${1:?usage: privatize_startup.sh OLD_BUILD NEW_BUILD [ROUNDS] [N...]}
NEW=${2:?usage: privatize_startup.sh OLD_BUILD NEW_BUILD [ROUNDS] [N...]}
ROUNDS=${3:-3}
[ $# -ge 3 ] && shift 3 || shift $#
COUNTS=${*:-1000 2000 4000 8000}
VARIANTS=${VARIANTS:-old new dlopen off}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$OLD/bin/mpicc" -O2 -o "$T/hello_old" "$HERE/results/limits/hello.c"
"$NEW/bin/mpicc" -O2 -o "$T/hello_new" "$HERE/results/limits/hello.c"

# one <variant> <n>: appends "wall cpu" of one run to $T/<variant>.<n>; a failed run is an error
one() {
  case $1 in
  old) set -- "$1" "$2" env AMPI_PRIVATIZE=on "$OLD/bin/ampirun" --vp "$2" "$T/hello_old" ;;
  new) set -- "$1" "$2" env AMPI_PRIVATIZE=on "$NEW/bin/ampirun" --vp "$2" "$T/hello_new" ;;
  dlopen) set -- "$1" "$2" env AMPI_PRIVATIZE=on AMPI_PRIVATIZE_LOADER=dlopen \
    "$NEW/bin/ampirun" --vp "$2" "$T/hello_new" ;;
  off) set -- "$1" "$2" env AMPI_PRIVATIZE=off "$NEW/bin/ampirun" --vp "$2" "$T/hello_new" ;;
  esac
  v=$1 n=$2
  shift 2
  /usr/bin/time -f "%e %U %S" -o "$T/time" "$@" >"$T/out" 2>"$T/err" || {
    echo "FAILED: $v --vp $n" >&2
    cat "$T/err" >&2
    exit 1
  }
  grep -q "hello from $n ranks" "$T/out" || { echo "no hello: $v --vp $n" >&2; exit 1; }
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$T/time" >>"$T/$v.$n"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

for n in $COUNTS; do
  r=0
  while [ $r -lt "$ROUNDS" ]; do
    for v in $VARIANTS; do one $v "$n"; done
    r=$((r + 1))
  done
done

printf "%-7s %-7s %10s %10s %10s\n" ranks variant "wall s" "ms/rank" "cpu s"
for n in $COUNTS; do
  for v in $VARIANTS; do
    w=$(cut -d' ' -f1 "$T/$v.$n" | median)
    c=$(cut -d' ' -f2 "$T/$v.$n" | median)
    printf "%-7s %-7s %10s %10.3f %10s\n" "$n" "$v" "$w" "$(echo "$w * 1000 / $n" | bc -l)" "$c"
  done
done
