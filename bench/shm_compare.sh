#!/bin/sh
# bench/shm_compare.sh — the same-host shared-memory path, before and after, beside Open MPI:
# the real OSU 7.4 osu_latency and osu_bw (unchanged sources; /work/ext/osu-host built with our
# mpicc, run on each build's libampi through LD_LIBRARY_PATH; /work/ext/osu-ompi with Debian's
# Open MPI and its shared-memory path), 2 processes bound to cores (ampirun's default; Open MPI
# --bind-to core), interleaved round by round so that every variant sees the same load:
#   old   OLD_BUILD (main)
#   new   NEW_BUILD, AMPI_SHM=1 (default)
#   off   NEW_BUILD, AMPI_SHM=0 (today's UCX path in the new build)
#   nocma NEW_BUILD, AMPI_SHM_CMA=0 (rings, but UCX rendezvous above AMPI_SHM_EAGER_LIMIT: where
#         CMA beats UCX's rendezvous, read osu_bw's new/nocma column)
#   ompi  Open MPI 4.1.4
# Prints the median of the rounds per size and variant, and the ratios new/old and new/ompi
# (latency: below 1 is better; bandwidth: above 1 is better). Raw outputs go to OUT.
#
#   bench/shm_compare.sh OLD_BUILD NEW_BUILD [ROUNDS] [OUT]
set -eu
OLD=${1:?usage: shm_compare.sh OLD_BUILD NEW_BUILD [ROUNDS] [OUT]}
NEW=${2:?usage}
ROUNDS=${3:-5}
OUT=${4:-bench/results/shm/run-$(date -u +%Y%m%dT%H%M%S)}
OSU=/work/ext/osu-host/c/mpi/pt2pt/standard
OMPI=/work/ext/osu-ompi/c/mpi/pt2pt/standard
mkdir -p "$OUT"
LAT="-m 8:1024 -i 20000 -x 2000"
BW="-m 8:4194304"

run() { # variant test -> raw output on stdout
  v=$1 t=$2
  case $t in osu_latency) args=$LAT ;; *) args=$BW ;; esac
  case $v in
    old) LD_LIBRARY_PATH=$OLD/lib "$OLD/bin/ampirun" -np 2 "$OSU/$t" $args ;;
    new) LD_LIBRARY_PATH=$NEW/lib AMPI_SHM=1 "$NEW/bin/ampirun" -np 2 "$OSU/$t" $args ;;
    off) LD_LIBRARY_PATH=$NEW/lib AMPI_SHM=0 "$NEW/bin/ampirun" -np 2 "$OSU/$t" $args ;;
    nocma) LD_LIBRARY_PATH=$NEW/lib AMPI_SHM_CMA=0 "$NEW/bin/ampirun" -np 2 "$OSU/$t" $args ;;
    ompi) mpirun.openmpi --allow-run-as-root -np 2 --bind-to core "$OMPI/$t" $args ;;
  esac 2>&1
}

for r in $(seq "$ROUNDS"); do
  for t in osu_latency osu_bw; do
    for v in old new off nocma ompi; do
      run $v $t >"$OUT/$t.$v.$r" || echo "round $r: $v $t failed" >&2
    done
  done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import sys, statistics, os
out, rounds = sys.argv[1], int(sys.argv[2])
variants = ["old", "new", "off", "nocma", "ompi"]
for test, better in (("osu_latency", "lower"), ("osu_bw", "higher")):
    med = {}
    for v in variants:
        per = {}
        for r in range(1, rounds + 1):
            p = os.path.join(out, f"{test}.{v}.{r}")
            if not os.path.exists(p): continue
            for line in open(p):
                f = line.split()
                if len(f) == 2 and f[0].isdigit():
                    per.setdefault(int(f[0]), []).append(float(f[1]))
        med[v] = {s: statistics.median(x) for s, x in per.items()}
    sizes = sorted(med["new"])
    unit = "us" if test == "osu_latency" else "MB/s"
    print(f"\n{test} ({unit}, median of {rounds} rounds; {better} is better)")
    print(f"{'size':>8} " + " ".join(f"{v:>10}" for v in variants) + f" {'new/old':>8} {'new/ompi':>8} {'off/old':>8} {'new/nocma':>9}")
    for s in sizes:
        row = [med[v].get(s, float('nan')) for v in variants]
        ratio = lambda a, b: a / b if b else float('nan')
        print(f"{s:>8} " + " ".join(f"{x:>10.2f}" for x in row) +
              f" {ratio(row[1], row[0]):>8.2f} {ratio(row[1], row[4]):>8.2f} {ratio(row[2], row[0]):>8.2f}"
              f" {ratio(row[1], row[3]):>9.2f}")
PY
