#!/usr/bin/env bash
# bench/lat_goals.sh — issue 17's four small-message goals between two processes, in one command:
# ampi builds (old and new, or one) and Debian's Open MPI side by side, interleaved round by round,
# with the real OSU 7.4 binaries (ours: built with our mpicc, run on each build's libampi through
# LD_LIBRARY_PATH; Open MPI's: built with mpicc.openmpi, its vader shared memory). Prints medians
# over the rounds and the ratios:
#   1. osu_latency 8 B P50 against Open MPI (goal: at most 0.8x), and the average (OSU's default
#      figure without -z; bench/compare.sh, the issue's own measure, reports averages too)
#   2. osu_bw 8 B against Open MPI (goal: at least 1.0x)
#   3. osu_bw 64 KiB-4 MiB against Open MPI (goal: at least 1.0x)
#   4. osu_latency -z P99 / P50 at every size up to 4 MiB (goal: at most 3)
#
#   bench/lat_goals.sh [--rounds N] [--out DIR] [--report-only] BUILD [BUILD...]
#     BUILD: an ampi build directory (bin/ampirun, lib/libampi.so.0), e.g. /work/main/build build
#     --report-only: runs nothing; summarises DIR/raw as another machine wrote it (files
#     lat.ampiI.R, bw.ampiI.R for the I-th BUILD, lat.ompi.R, bw.ompi.R for round R; BUILD then
#     only names the columns)
#     env OSU_AMPI (default /work/ext/osu-host), OSU_OMPI (default /work/ext/osu-ompi)
# Raw outputs go to DIR/raw (default ./lat-goals); the summary to DIR/summary.txt and stdout.
set -uo pipefail
ROUNDS=5 OUT=lat-goals RUN=1
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --report-only) RUN=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: $0 [--rounds N] [--out DIR] BUILD [BUILD...]" >&2; exit 2; }
OA=${OSU_AMPI:-/work/ext/osu-host}
OO=${OSU_OMPI:-/work/ext/osu-ompi}
LAT=c/mpi/pt2pt/standard/osu_latency
BW=c/mpi/pt2pt/standard/osu_bw
names=()
if [ $RUN = 0 ]; then
  names=("$@")
  [ -d "$OUT/raw" ] || { echo "lat_goals.sh: no $OUT/raw to report on" >&2; exit 2; }
  set --
else
  mkdir -p "$OUT/raw"
  rm -f "$OUT"/raw/*
  { date -u; uptime; lscpu | grep -E "Model name|^CPU\(s\)"; } > "$OUT/machine.txt"
  for b in "$@"; do names+=("$(basename "$(dirname "$(realpath "$b")")")/$(basename "$b")"); done
fi
run_ampi() { # build test args...
  local b; b=$(realpath "$1"); shift
  LD_LIBRARY_PATH=$b/lib timeout 300 "$b/bin/ampirun" -np 2 "$@"
}
run_ompi() { timeout 300 mpirun.openmpi --allow-run-as-root --bind-to core -np 2 "$@"; }
for r in $(seq 1 "$ROUNDS"); do
  [ $RUN = 1 ] || break
  i=0
  for b in "$@"; do
    run_ampi "$b" "$OA/$LAT" -z -m 1:4194304 -i 1000 > "$OUT/raw/lat.ampi$i.$r" 2>&1
    run_ampi "$b" "$OA/$BW" -m 1:4194304 > "$OUT/raw/bw.ampi$i.$r" 2>&1
    i=$((i + 1))
  done
  run_ompi "$OO/$LAT" -z -m 1:4194304 -i 1000 > "$OUT/raw/lat.ompi.$r" 2>&1
  run_ompi "$OO/$BW" -m 1:4194304 > "$OUT/raw/bw.ompi.$r" 2>&1
done
python3 - "$OUT" "$ROUNDS" "${names[@]}" <<'EOF' | tee "$OUT/summary.txt"
import statistics, sys, glob, os
out, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def table(path):  # size -> list of columns (floats)
    t = {}
    try:
        for line in open(path):
            f = line.split()
            if len(f) >= 2 and f[0].isdigit():
                t[int(f[0])] = [float(x) for x in f[1:]]
    except OSError:
        pass
    return t
def med(kind, who, col):  # size -> median over rounds
    per = {}
    for r in range(1, rounds + 1):
        for s, cols in table(f"{out}/raw/{kind}.{who}.{r}").items():
            if col < len(cols): per.setdefault(s, []).append(cols[col])
    return {s: statistics.median(v) for s, v in per.items()}
libs = [(f"ampi{i}", n) for i, n in enumerate(names)] + [("ompi", "Open MPI")]
lat = {w: (med("lat", w, 1), med("lat", w, 3), med("lat", w, 0)) for w, _ in libs}  # P50, P99, avg
bw = {w: med("bw", w, 0) for w, _ in libs}
print(f"medians of {rounds} interleaved rounds; columns: " + ", ".join(f"{w}={n}" for w, n in libs))
def lat8(col):  # the 8 B row of one latency column for every library, with its ratio
    o = lat["ompi"][col].get(8)
    for w, n in libs:
        v = lat[w][col].get(8)
        print(f"   {n:28s} {v if v is not None else float('nan'):8.3f}" +
              (f"   {v / o:5.2f}x" if v and o else ""))
print("\n1. osu_latency 8 B P50 (us), ratio to Open MPI (goal <= 0.8)")
lat8(0)
print("   the same rounds' average (OSU's default figure, outliers included):")
lat8(2)
print("\n2. osu_bw 8 B (MB/s), ratio to Open MPI (goal >= 1.0)")
for w, n in libs:
    v = bw[w].get(8); o = bw["ompi"].get(8)
    print(f"   {n:28s} {v if v is not None else float('nan'):10.2f}" +
          (f"   {v / o:5.2f}x" if v and o else ""))
print("\n3. osu_bw 64 KiB-4 MiB (MB/s), ratio to Open MPI (goal >= 1.0)")
sizes = [s for s in sorted(bw["ompi"]) if 65536 <= s <= 4194304]
print("   size     " + "".join(f"{n[-20:]:>22s}" for w, n in libs))
for s in sizes:
    o = bw["ompi"].get(s)
    cells = []
    for w, n in libs:
        v = bw[w].get(s)
        cells.append(f"{v:12.0f} ({v / o:4.2f}x)" if v and o else f"{'-':>22s}")
    print(f"   {s:<8d} " + "".join(f"{c:>22s}" for c in cells))
print("\n4. osu_latency -z P99/P50 by size (goal <= 3); P50 us in brackets")
sizes = sorted(lat["ompi"][0])
print("   size     " + "".join(f"{n[-20:]:>22s}" for w, n in libs))
for s in sizes:
    cells = []
    for w, n in libs:
        p50, p99 = lat[w][0].get(s), lat[w][1].get(s)
        cells.append(f"{p99 / p50:5.2f} ({p50:.2f})" if p50 and p99 else "-")
    print(f"   {s:<8d} " + "".join(f"{c:>22s}" for c in cells))
EOF
