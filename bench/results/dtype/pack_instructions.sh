#!/bin/sh
# bench/results/dtype/pack_instructions.sh OLD_BUILD NEW_BUILD [reps] — instructions per MPI_Pack
# and per MPI_Unpack of each pack_bench.c case in both builds, counted by valgrind's callgrind
# (inclusive cost of the calls; `perf stat -e instructions` is not supported in this VM). Counts
# do not depend on the machine's load, so they give a ratio where timings jump. Each case runs as
# one process without ampirun (one rank), `reps` packs then `reps` unpacks (default 3).
set -eu
OLD=${1:?usage: pack_instructions.sh OLD_BUILD NEW_BUILD [reps]}
NEW=${2:?usage}
REPS=${3:-3}
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$OLD/bin/mpicc" -O2 "$D/pack_bench.c" -o "$T/old"
"$NEW/bin/mpicc" -O2 "$D/pack_bench.c" -o "$T/new"
unset PMIX_NAMESPACE PMIX_RANK PMIX_SERVER_URI41 PMIX_SERVER_URI4 PMIX_SERVER_URI3 \
  PMIX_SERVER_URI2 PMIX_SERVER_URI21 2>/dev/null || true
CASES=$(sed -n 's/^ *run("\([A-Za-z0-9_]*\)".*/\1/p' "$D/pack_bench.c")
for c in $CASES; do
  for b in old new; do
    AMPI_VP=1 valgrind --tool=callgrind --callgrind-out-file="$T/$b.$c.cg" "$T/$b" "$c" "$REPS" \
      >/dev/null 2>&1
    for f in MPI_Pack MPI_Unpack; do
      # The inclusive Ir of the MPI function (PMPI_ name where MPI_ is an alias of it).
      ir=$(callgrind_annotate --inclusive=yes --threshold=100 "$T/$b.$c.cg" 2>/dev/null |
        awk -v f="$f" '{ gsub(",", "", $1) }
          $0 ~ "[ :]P?" f " " || $0 ~ "[ :]P?" f "$" { if ($1 + 0 > best) best = $1 + 0 }
          END { print best + 0 }')
      echo "$f $c $b $ir" >>"$T/counts"
    done
  done
done
python3 - "$T/counts" "$REPS" <<'PY'
import sys
counts, reps = {}, int(sys.argv[2])
for line in open(sys.argv[1]):
    f, c, b, ir = line.split()
    counts.setdefault((f, c), {})[b] = int(ir) / reps
print(f"{'call case':44} {'old instr':>12} {'new instr':>12} {'new/old':>8}   (per call, callgrind)")
for (f, c), v in counts.items():
    o, n = v.get("old", 0), v.get("new", 0)
    print(f"{f + ' ' + c:44} {o:12.0f} {n:12.0f} {n / o if o else float('nan'):8.3f}")
PY
