#!/bin/sh
# bench/results/dtype/pack_compare.sh OLD_BUILD NEW_BUILD [rounds] — pack_bench.c built with each
# build's mpicc and run alternately (old, new, old, ...) so both see the same load; prints per
# case the median over the rounds of each build's figure (us per MPI_Pack / MPI_Unpack) and
# new / old (below 1: the new build is faster). Instruction counts, which the machine's load
# does not change: pack_instructions.sh.
set -eu
OLD=${1:?usage: pack_compare.sh OLD_BUILD NEW_BUILD [rounds]}
NEW=${2:?usage}
ROUNDS=${3:-5}
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$OLD/bin/mpicc" -O2 "$D/pack_bench.c" -o "$T/old"
"$NEW/bin/mpicc" -O2 "$D/pack_bench.c" -o "$T/new"
r=1
while [ "$r" -le "$ROUNDS" ]; do
  "$OLD/bin/ampirun" -np 1 --vp 1 "$T/old" >"$T/old.$r"
  "$NEW/bin/ampirun" -np 1 --vp 1 "$T/new" >"$T/new.$r"
  r=$((r + 1))
done
python3 - "$T" "$ROUNDS" <<'PY'
import sys, statistics
t, n = sys.argv[1], int(sys.argv[2])
def load(which):
    out = {}
    for r in range(1, n + 1):
        for line in open(f"{t}/{which}.{r}"):
            *k, v = line.split()
            out.setdefault(" ".join(k), []).append(float(v))
    return out
old, new = load("old"), load("new")
print(f"{'case':36} {'old us':>10} {'new us':>10} {'new/old':>8}   (medians of {n} interleaved rounds)")
for k in old:
    o, w = statistics.median(old[k]), statistics.median(new[k])
    print(f"{k:36} {o:10.2f} {w:10.2f} {w / o:8.2f}")
PY
