#!/usr/bin/env bash
# bench/results/2026-11-25-osu/compare_ompi.sh AMPI_OSU OMPI_OSU [ROUNDS] — the real OSU 7.4
# osu_latency and osu_bw (defaults), built from the same source with our mpicc and with Debian's
# Open MPI 4.1.4 (mpicc.openmpi), two processes, run alternately while a parallel build loads the
# machine (make -j2 of the OSU tree over and over, from LOAD_SRC). Prints each run's 8 B and 1 MiB
# rows and the medians per library. Both launchers bind (ours and Open MPI's defaults).
set -uo pipefail
ampi_osu=${1:?AMPI_OSU build dir}
ompi_osu=${2:?OMPI_OSU build dir}
rounds=${3:-5}
root=$(cd "$(dirname "$0")/../../.." && pwd)
ampirun=$root/build/bin/ampirun
load_src=${LOAD_SRC:?LOAD_SRC: a configured OSU build tree to rebuild as load}
( while :; do make -C "$load_src" clean >/dev/null 2>&1; make -C "$load_src" -j2 >/dev/null 2>&1; done ) &
load=$!
trap 'kill $load 2>/dev/null; pkill -P $load 2>/dev/null' EXIT
sleep 5
lat=c/mpi/pt2pt/standard/osu_latency
bw=c/mpi/pt2pt/standard/osu_bw
row() { awk -v s="$1" '$1 == s { print $2 }'; }
declare -A res
for ((r = 1; r <= rounds; r++)); do
  for lib in ampi ompi; do
    if [[ $lib == ampi ]]; then run=("$ampirun" -np 2); d=$ampi_osu; else
      run=(mpirun.openmpi --allow-run-as-root -np 2); d=$ompi_osu; fi
    l=$("${run[@]}" "$d/$lat" 2>/dev/null)
    b=$("${run[@]}" "$d/$bw" 2>/dev/null)
    res[$lib.lat8]+="$(echo "$l" | row 8) "
    res[$lib.lat1M]+="$(echo "$l" | row 1048576) "
    res[$lib.bw8]+="$(echo "$b" | row 8) "
    res[$lib.bw1M]+="$(echo "$b" | row 1048576) "
    echo "round $r $lib: latency 8 B $(echo "$l" | row 8) us, 1 MiB $(echo "$l" | row 1048576) us;" \
      "bandwidth 8 B $(echo "$b" | row 8) MB/s, 1 MiB $(echo "$b" | row 1048576) MB/s"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "medians of $rounds rounds (ampi / Open MPI, ratio ampi:ompi)"
for k in lat8 lat1M bw8 bw1M; do
  a=$(echo "${res[ampi.$k]}" | median)
  o=$(echo "${res[ompi.$k]}" | median)
  echo "$k: $a / $o  ratio $(awk -v a="$a" -v o="$o" 'BEGIN { printf "%.2f", a / o }')"
done
