#!/usr/bin/env bash
# bench/results/dtype/mpich_prebuilt.sh AMPI_BUILD [OUT] — runs MPICH's test/mpi/datatype
# programs as already built in a configured suite (MPICH_SUITE, default /work/ext/mpich-suite-s4:
# ampi/datatype/) against an ampi build: its libampi.so comes first through LD_LIBRARY_PATH (the
# programs' RUNPATH names another build), each testlist line runs in one process
# (ampirun -np 1 --vp N). Lines marked mem= (many GiB) are skipped. Prints one
# "PASS|FAIL prog vp args" line per testlist line, then the totals; logs under OUT.
set -uo pipefail
B=$(cd "${1:?usage: mpich_prebuilt.sh AMPI_BUILD [OUT]}" && pwd)
OUT=${2:-$(mktemp -d)}
S=${MPICH_SUITE:-/work/ext/mpich-suite-s4}
D=$S/ampi/datatype
mkdir -p "$OUT"
pass=0; fail=0; skip=0
while read -r prog np rest; do
  case "$prog" in ''|'#'*) continue ;; esac
  if [[ "$rest" == *mem=* ]]; then echo "SKIP $prog $np $rest"; skip=$((skip+1)); continue; fi
  args=""
  [[ "$rest" =~ arg=([^ ]*) ]] && args=${BASH_REMATCH[1]}
  log="$OUT/$prog.vp$np.${args:-noarg}.log"
  if [ ! -x "$D/$prog" ]; then
    echo "FAIL $prog $np $args (not built)"; fail=$((fail+1)); continue
  fi
  (cd "$D" && LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout -k 5 120 "$B/bin/ampirun" --bind-to none -np 1 --vp "$np" "./$prog" $args) >"$log" 2>&1
  rc=$?
  if [ $rc = 0 ] && grep -qi "No Errors" "$log"; then
    echo "PASS $prog $np $args"; pass=$((pass+1))
  else
    echo "FAIL $prog $np $args rc=$rc"; fail=$((fail+1))
  fi
done < "$D/testlist"
echo "datatype (one process): $pass passed, $fail failed, $skip skipped (mem=)"
