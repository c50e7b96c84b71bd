#!/bin/bash
# bench/allreduce_ranks.sh — MPI_Allreduce among N ranks of one process, ours against Charm++'s
# AMPI (the same source, +p1 +vpN: N virtual ranks on one PE) and against Open MPI with N
# processes (oversubscribed on this 2-core machine, bound to cores with overload allowed), side by
# side and interleaved run by run so that all see the same load. Optionally a second build of ours
# (BASE=, e.g. main's) in the same rounds.
#
#   bench/allreduce_ranks.sh BUILD [AMPI_DIR]
#     BUILD     our build directory (its bin/mpicc and bin/ampirun)
#     AMPI_DIR  a Charm++ build with AMPI (e.g. /work/ext/charm/multicore-linux-x86_64: the
#               program runs alone with +p1; a netlrts build runs under its charmrun ++local);
#               empty: no AMPI column
#   environment: RANKS ("2 4 8 16 32 64"), MIN (8), MAX (1048576), RUNS (3: program runs per
#     library and rank count), ROUNDS (5: timed rounds inside each run), OMPI (1; 0: no Open MPI),
#     BASE (another build of ours to run alongside, e.g. /work/main/build), OUT (keep raw lines),
#     ITERS (2000: most calls per round; OMPI_ITERS (200) for Open MPI, whose N oversubscribed
#     processes take milliseconds per call)
#
# bench/allreduce_ranks.c prints per size the median over its rounds of the time per call (wall)
# and of the PE thread's CPU time per call (cpu: load-independent where all ranks are user-level
# threads of one OS thread, i.e. ours and AMPI; Open MPI's processes poll, so its cpu is not
# shown). This script prints the median over RUNS of each, and the ratios ours/AMPI (wall and cpu)
# and ours/Open MPI (wall). Below 1: ours is faster.
set -euo pipefail
BUILD=${1:?usage: allreduce_ranks.sh BUILD [AMPI_DIR]}
AMPI_DIR=${2:-}
RANKS=${RANKS:-"2 4 8 16 32 64"}
MIN=${MIN:-8}
MAX=${MAX:-1048576}
RUNS=${RUNS:-3}
ROUNDS=${ROUNDS:-5}
OMPI=${OMPI:-1}
BASE=${BASE:-}
SRC=$(cd "$(dirname "$0")" && pwd)/allreduce_ranks.c
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$BUILD/bin/mpicc" -O2 -o "$T/ours" "$SRC"
[ -n "$BASE" ] && "$BASE/bin/mpicc" -O2 -o "$T/base" "$SRC"
if [ -n "$AMPI_DIR" ]; then
  "$AMPI_DIR/bin/ampicc" -O2 -o "$T/ampi" "$SRC" >/dev/null
  case "$AMPI_DIR" in
  *netlrts*) AMPI_RUN="$AMPI_DIR/bin/charmrun" ;;
  *) AMPI_RUN= ;;
  esac
fi
[ "$OMPI" = 1 ] && mpicc.openmpi -O2 -o "$T/ompi" "$SRC"
ARGS="$MIN $MAX $ROUNDS ${ITERS:-2000}"
OMPI_ARGS="$MIN $MAX $ROUNDS ${OMPI_ITERS:-200}"

# run <lib> <N>: appends "lib N bytes wall cpu" lines to $T/raw
run() {
  local lib=$1 n=$2 out
  case $lib in
  ours) out=$(timeout 600 "$BUILD/bin/ampirun" -np 1 --vp "$n" "$T/ours" $ARGS) ;;
  base) out=$(timeout 600 "$BASE/bin/ampirun" -np 1 --vp "$n" "$T/base" $ARGS) ;;
  ampi)
    if [ -n "$AMPI_RUN" ]; then
      out=$(cd "$T" && timeout 600 "$AMPI_RUN" +p1 ./ampi +vp"$n" $ARGS ++local ++quiet)
    else
      out=$(cd "$T" && timeout 600 ./ampi +p1 +vp"$n" $ARGS ++quiet)
    fi
    ;;
  ompi)
    out=$(timeout 600 mpirun.openmpi --allow-run-as-root --oversubscribe \
      --bind-to core:overload-allowed -np "$n" "$T/ompi" $OMPI_ARGS)
    ;;
  esac
  echo "$out" | awk -v lib="$lib" -v n="$n" 'NF == 5 && $1 ~ /^[0-9]+$/ { print lib, n, $1, $4, $5 }' \
    >>"$T/raw"
}

LIBS=ours
[ -n "$BASE" ] && LIBS="$LIBS base"
[ -n "$AMPI_DIR" ] && LIBS="$LIBS ampi"
[ "$OMPI" = 1 ] && LIBS="$LIBS ompi"
: >"$T/raw"
for r in $(seq "$RUNS"); do
  for n in $RANKS; do
    for lib in $LIBS; do
      run "$lib" "$n" || echo "# $lib with $n ranks failed (run $r)" >&2
    done
  done
done
[ -n "${OUT:-}" ] && cp "$T/raw" "$OUT"

# Medians per (lib, N, bytes) of wall and cpu, then one line per (N, bytes).
python3 - "$T/raw" "$LIBS" <<'EOF'
import statistics, sys
from collections import defaultdict
raw, libs = sys.argv[1], sys.argv[2].split()
wall, cpu = defaultdict(list), defaultdict(list)
for line in open(raw):
    lib, n, b, w, c = line.split()
    wall[lib, int(n), int(b)].append(float(w))
    cpu[lib, int(n), int(b)].append(float(c))
med = lambda d, k: statistics.median(d[k]) if d.get(k) else None
fmt = lambda v: f"{v:10.2f}" if v is not None else f"{'-':>10}"
rat = lambda a, b: f"{a / b:8.2f}" if a is not None and b else f"{'-':>8}"
head = f"{'ranks':>5} {'bytes':>8}"
for lib in libs:
    head += f" {lib + ' us':>10}"
for lib in libs:
    if lib != "ompi":
        head += f" {lib + ' cpu':>10}"
if "base" in libs:
    head += f" {'ours/base':>9}"
if "ampi" in libs:
    head += f" {'/ampi':>8} {'cpu/ampi':>8}"
if "ompi" in libs:
    head += f" {'/ompi':>8}"
print(head)
for n, b in sorted({(k[1], k[2]) for k in wall}):
    line = f"{n:5d} {b:8d}"
    for lib in libs:
        line += " " + fmt(med(wall, (lib, n, b)))
    for lib in libs:
        if lib != "ompi":
            line += " " + fmt(med(cpu, (lib, n, b)))
    o = med(wall, ("ours", n, b))
    if "base" in libs:
        line += "  " + rat(o, med(wall, ("base", n, b)))
    if "ampi" in libs:
        line += " " + rat(o, med(wall, ("ampi", n, b)))
        line += " " + rat(med(cpu, ("ours", n, b)), med(cpu, ("ampi", n, b)))
    if "ompi" in libs:
        line += " " + rat(o, med(wall, ("ompi", n, b)))
    print(line)
EOF
