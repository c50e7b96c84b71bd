#!/usr/bin/env bash
# bench/results/2026-11-26-lat2/measure.sh — issue 17's goals for branch lat2, in one command, on
# a quiet machine: (1) bench/lat_goals.sh with the old build (main) and the new one interleaved
# with Open MPI, round by round (8 B latency, 8 B osu_bw, osu_bw 64 KiB-4 MiB, P99/P50 by size);
# (2) the same-host eager/single-copy switch: osu_latency -z and osu_bw at 8-128 KiB with the new
# build's AMPI_SHM_EAGER_LIMIT at 16K (the old default), 32K and 64K, interleaved.
#   bench/results/2026-11-26-lat2/measure.sh OLD_BUILD NEW_BUILD [ROUNDS]   (from the repo root)
set -u
OLD=${1:?usage: measure.sh OLD_BUILD NEW_BUILD [ROUNDS]}
NEW=${2:?usage: measure.sh OLD_BUILD NEW_BUILD [ROUNDS]}
R=${3:-5}
O=bench/results/2026-11-26-lat2
OA=${OSU_AMPI:-/work/ext/osu-host}
uptime | tee "$O/load_before.txt"
timeout 1200 bench/lat_goals.sh --rounds "$R" --out "$O/goals" "$OLD" "$NEW" > "$O/lat_goals.txt" 2>&1
# The switch point: latency (P50, P99) and bandwidth by eager limit, interleaved.
: > "$O/switch.txt"
for r in $(seq 1 "$R"); do
  for e in 16K 32K 64K; do
    echo "round $r AMPI_SHM_EAGER_LIMIT=$e" >> "$O/switch.txt"
    AMPI_SHM_EAGER_LIMIT=$e LD_LIBRARY_PATH=$(realpath "$NEW")/lib timeout 120 "$NEW/bin/ampirun" -np 2 \
      "$OA/c/mpi/pt2pt/standard/osu_latency" -z -m 8192:131072 -i 2000 2>&1 | grep -E '^[0-9]' |
      sed 's/^/lat /' >> "$O/switch.txt"
    AMPI_SHM_EAGER_LIMIT=$e LD_LIBRARY_PATH=$(realpath "$NEW")/lib timeout 120 "$NEW/bin/ampirun" -np 2 \
      "$OA/c/mpi/pt2pt/standard/osu_bw" -m 8192:131072 2>&1 | grep -E '^[0-9]' |
      sed 's/^/bw /' >> "$O/switch.txt"
  done
done
python3 - "$O/switch.txt" <<'PY' | tee "$O/switch_summary.txt"
import sys, statistics as st
d = {}
cur = None
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == 'round': cur = f[2].split('=')[1]; continue
    kind, size, cols = f[0], int(f[1]), [float(x) for x in f[2:]]
    d.setdefault((cur, kind, size), []).append(cols)
limits = ['16K', '32K', '64K']
sizes = sorted({k[2] for k in d})
print("medians over rounds; latency P50 us (P99/P50), osu_bw MB/s, by AMPI_SHM_EAGER_LIMIT")
print("size    " + "".join(f"{'lat ' + e:>18s}" for e in limits) + "".join(f"{'bw ' + e:>10s}" for e in limits))
for s in sizes:
    row = f"{s:<8d}"
    for e in limits:
        v = d.get((e, 'lat', s))
        if v:
            p50 = st.median(c[1] for c in v); p99 = st.median(c[3] for c in v)
            row += f"{p50:10.2f} ({p99 / p50:4.2f})"
        else: row += f"{'-':>18s}"
    for e in limits:
        v = d.get((e, 'bw', s))
        row += f"{st.median(c[0] for c in v):10.0f}" if v else f"{'-':>10s}"
    print(row)
PY
uptime | tee "$O/load_after.txt"
