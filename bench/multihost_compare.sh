#!/bin/sh
# bench/multihost_compare.sh [--build DIR] [--rounds N] [--out DIR]
# Latency and bandwidth between two simulated hosts (tests/multihost/multihost_test.sh: network
# namespaces on one machine joined by a veth pair and a bridge, so the messages go over TCP) for
# our OSU-compatible osu_latency and osu_bw (osu/) built with our mpicc and with Debian's Open MPI
# (mpicc.openmpi), both started by the same Slurm (srun --mpi=pmix -N 2 -n 2), rounds
# interleaved. Open MPI runs twice: its default choice (pml ucx over TCP when UCX is there) and
# ob1 with its tcp btl. Prints the median per size of each and the ratios ours / theirs; the raw
# outputs go to --out (default BUILD/bench-results-multihost). Needs root (namespaces).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
ROUNDS=3
OUT=
while [ $# -gt 0 ]; do
  case $1 in
  --build) B=$(cd "$2" && pwd); shift 2 ;;
  --rounds) ROUNDS=$2; shift 2 ;;
  --out) OUT=$2; shift 2 ;;
  *) echo "usage: $0 [--build DIR] [--rounds N] [--out DIR]" >&2; exit 2 ;;
  esac
done
OUT=${OUT:-$B/bench-results-multihost}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
command -v mpicc.openmpi >/dev/null 2>&1 || { echo "needs Debian's Open MPI (mpicc.openmpi)" >&2; exit 1; }
for lib in ampi:$B/bin/mpicc ompi:mpicc.openmpi; do
  name=${lib%%:*} cc=${lib#*:}
  make -s -C "$ROOT/osu" MPICC="$cc" OUT="$OUT/bin/$name" "$OUT/bin/$name/osu_latency" \
    "$OUT/bin/$name/osu_bw" >/dev/null
done
# One command on node1 of the simulated cluster: every round runs each library's latency and
# bandwidth once, one after the other (never at the same time).
cmd="set -e; for r in \$(seq $ROUNDS); do for p in osu_latency osu_bw; do
  srun --mpi=pmix -N 2 -n 2 $OUT/bin/ampi/\$p > $OUT/ampi.\$p.\$r.txt 2>&1
  srun --mpi=pmix -N 2 -n 2 $OUT/bin/ompi/\$p > $OUT/ompi.\$p.\$r.txt 2>&1
  OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self srun --mpi=pmix -N 2 -n 2 $OUT/bin/ompi/\$p > $OUT/ompi_tcp.\$p.\$r.txt 2>&1
done; done"
AMPI_MULTIHOST_COMMAND=$cmd bash "$ROOT/tests/multihost/multihost_test.sh" "$B" 2
python3 - "$OUT" "$ROUNDS" <<'PY'
import statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def table(lib, prog):
    per = {}
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{lib}.{prog}.{r}.txt"):
            f = line.split()
            if len(f) == 2 and f[0].isdigit():
                per.setdefault(int(f[0]), []).append(float(f[1]))
    return {k: statistics.median(v) for k, v in per.items()}
for prog, unit, better in (("osu_latency", "us", "lower"), ("osu_bw", "MB/s", "higher")):
    t = {lib: table(lib, prog) for lib in ("ampi", "ompi", "ompi_tcp")}
    print(f"{prog} ({unit}, median of {rounds}; {better} is better): size ampi ompi ompi_tcp ampi/ompi ampi/ompi_tcp")
    for size in sorted(t["ampi"]):
        a, o, ot = t["ampi"][size], t["ompi"].get(size), t["ompi_tcp"].get(size)
        print(f"{size:>8} {a:10.2f} {o:10.2f} {ot:10.2f} {a / o:6.2f} {a / ot:6.2f}")
PY
