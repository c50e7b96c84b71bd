#!/usr/bin/env bash
# bench/loaded_bibw.sh — issue 17's loaded-machine goal: the real OSU 7.4 osu_bibw and osu_mbw_mr
# with 2 processes, ours (built with our mpicc, run through ampirun, which binds each process to
# a core of its own) and Debian's Open MPI (--bind-to core), while one busy loop per core loads
# the machine. Rounds alternate ours and Open MPI's so that both see the same load; prints each
# run's wall time and the medians' ratio (goal: ours at most 1.2x Open MPI's time).
#   bench/loaded_bibw.sh [--rounds N] [--out DIR] BUILD
#     BUILD: an ampi build directory; env OSU_AMPI (default /work/ext/osu-host), OSU_OMPI
#     (default /work/ext/osu-ompi); the logs go to DIR (default ./loaded-bibw).
set -uo pipefail
ROUNDS=3 OUT=loaded-bibw
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
B=$(realpath "${1:?usage: loaded_bibw.sh [--rounds N] [--out DIR] BUILD}")
OA=${OSU_AMPI:-/work/ext/osu-host}/c/mpi/pt2pt/standard
OO=${OSU_OMPI:-/work/ext/osu-ompi}/c/mpi/pt2pt/standard
mkdir -p "$OUT"
loads=()
for _ in $(seq "$(nproc)"); do
  (while :; do :; done) &
  loads+=($!)
done
trap 'kill "${loads[@]}" 2>/dev/null' EXIT
echo "# $(date -u) $(nproc) busy loops; $ROUNDS rounds; build $B" | tee "$OUT/summary.txt"
secs() { # LOG COMMAND...: runs it, prints its wall seconds (or FAILED)
  local log=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  if "$@" >"$log" 2>&1; then
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }'
  else
    echo FAILED
  fi
}
for test in bibw mbw_mr; do
  ours=() theirs=()
  for r in $(seq "$ROUNDS"); do
    a=$(secs "$OUT/ampi.$test.$r.log" env LD_LIBRARY_PATH="$B/lib" timeout 900 "$B/bin/ampirun" -np 2 "$OA/osu_$test")
    o=$(secs "$OUT/ompi.$test.$r.log" timeout 900 mpirun.openmpi --allow-run-as-root --bind-to core -np 2 "$OO/osu_$test")
    printf 'osu_%s round %d: ampi %s s, Open MPI %s s\n' "$test" "$r" "$a" "$o" | tee -a "$OUT/summary.txt"
    ours+=("$a") theirs+=("$o")
  done
  python3 - "$test" "${ours[*]}" "${theirs[*]}" <<'PY' | tee -a "$OUT/summary.txt"
import statistics, sys
t, a, o = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
try:
    ma, mo = statistics.median(map(float, a)), statistics.median(map(float, o))
    print(f"osu_{t}: median ampi {ma:.1f} s, Open MPI {mo:.1f} s, ratio {ma / mo:.2f} (goal <= 1.2)")
except ValueError:
    print(f"osu_{t}: a run failed: ampi {a}, Open MPI {o}")
PY
done
