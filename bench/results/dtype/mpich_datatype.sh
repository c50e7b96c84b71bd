#!/usr/bin/env bash
# Builds and runs the programs of MPICH's test/mpi/datatype testlist against an ampi build, by
# hand (not through runtests, whose tree another session owns): each line runs with its rank
# count in one process (ampirun -np 1 --vp N) and over two processes (-np 2 --vp N).
# Usage: bench/results/dtype/mpich_datatype.sh [AMPI_BUILD] [OUT]
#   MPICH_SUITE: the configured suite (default /work/ext/mpich-suite: src/ and ampi/include).
#   ONLY: a regex of program names to run. Lines marked mem= (many GiB) are skipped.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
B=${1:-$REPO/build}
OUT=${2:-/tmp/dtype-mpich}
S=${MPICH_SUITE:-/work/ext/mpich-suite}
ONLY=${ONLY:-.}
mkdir -p "$OUT"
CC="$B/bin/mpicc"
INC="-I$S/src/include -I$S/ampi/include"
if [ ! -f "$OUT/libmtest.a" ] || [ "$B/lib/libampi.so" -nt "$OUT/libmtest.a" ]; then
  for f in mtest mtest_common dtypes mtest_single; do
    $CC $INC -O1 -w -c "$S/src/util/$f.c" -o "$OUT/$f.o" || exit 1
  done
  ar rcs "$OUT/libmtest.a" "$OUT"/mtest.o "$OUT"/mtest_common.o "$OUT"/dtypes.o "$OUT/mtest_single.o"
fi
pass=0; fail=0; skip=0
while read -r prog np rest; do
  case "$prog" in ''|'#'*) continue ;; esac
  [[ "$prog" =~ $ONLY ]] || continue
  if [[ "$rest" == *mem=* ]]; then echo "skip $prog $np $rest (memory)"; skip=$((skip+1)); continue; fi
  args=""
  [[ "$rest" =~ arg=([^ ]*) ]] && args=${BASH_REMATCH[1]}
  if [ ! -x "$OUT/$prog" ] || [ "$S/src/datatype/$prog.c" -nt "$OUT/$prog" ] || [ "$B/lib/libampi.so" -nt "$OUT/$prog" ]; then
    $CC $INC -O1 -w "$S/src/datatype/$prog.c" "$OUT/libmtest.a" -lm -o "$OUT/$prog" >"$OUT/$prog.build.log" 2>&1 || {
      echo "FAIL $prog (build: $OUT/$prog.build.log)"; fail=$((fail+2)); continue; }
  fi
  for p in 1 2; do
    [ "$np" -lt 2 ] && [ "$p" = 2 ] && continue
    log="$OUT/$prog.np$p.vp$np.${args:-noarg}.log"
    timeout -k 5 120 "$B/bin/ampirun" --bind-to none -np $p --vp "$np" "$OUT/$prog" $args >"$log" 2>&1
    rc=$?
    if [ $rc = 0 ] && grep -qi "No Errors" "$log"; then pass=$((pass+1)); else
      echo "FAIL $prog np=$p vp=$np $args rc=$rc ($log)"; fail=$((fail+1)); fi
  done
done < "$S/ampi/datatype/testlist"
echo "datatype: $pass passed, $fail failed, $skip lines skipped (memory)"
