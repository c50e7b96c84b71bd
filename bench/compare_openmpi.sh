#!/bin/sh
# bench/compare_openmpi.sh [build-dir] [rounds] — the same bench/pingpong.c built with our mpicc
# and with Debian's Open MPI (mpicc.openmpi; installs openmpi-bin if missing), run alternately in
# one go: ampi with 2 virtual ranks in one process, ampi with 2 processes (UCX, under ampirun),
# Open MPI with 2 processes (its default shared-memory path, and its UCX pml). Prints each run's
# 8 B latency and 4 MiB bandwidth, then the median of the rounds and the ratio ours/theirs.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
ROUNDS=${2:-5}
if ! command -v mpicc.openmpi >/dev/null 2>&1; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mpicc.openmpi -O2 bench/pingpong.c -o "$T/pp_ompi"
OMPI="mpirun.openmpi --allow-run-as-root -np 2"
UCXPML="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"

# run <label> <command...>: prints "<label> <8B us> <4MiB MB/s>"
run() {
  label=$1; shift
  "$@" 8 4194304 5 > "$T/out" 2>&1 || { echo "$label FAILED"; cat "$T/out"; return 1; }
  lat=$(awk '$1 == 8 {print $2}' "$T/out")
  bw=$(awk '$1 == 4194304 {print $3}' "$T/out")
  echo "$label $lat $bw" | tee -a "$T/all"
}

i=1
while [ "$i" -le "$ROUNDS" ]; do
  run ampi_1proc "$B/bin/ampirun" -np 1 --vp 2 "$B/bench/pingpong"
  run ampi_2proc "$B/bin/ampirun" -np 2 "$B/bench/pingpong"
  run ompi_sm $OMPI "$T/pp_ompi"
  run ompi_ucx $OMPI $UCXPML "$T/pp_ompi"
  i=$((i + 1))
done

echo
echo "median of $ROUNDS rounds (8 B one-way latency in us, 4 MiB bandwidth in MB/s):"
for l in ampi_1proc ampi_2proc ompi_sm ompi_ucx; do
  lat=$(awk -v l=$l '$1 == l {print $2}' "$T/all" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  bw=$(awk -v l=$l '$1 == l {print $3}' "$T/all" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$l $lat $bw" | tee -a "$T/med"
done
echo
awk '{lat[$1]=$2; bw[$1]=$3}
     END {
       printf "ampi 2 processes / Open MPI sm : latency x%.2f, bandwidth x%.2f\n", lat["ampi_2proc"]/lat["ompi_sm"], bw["ampi_2proc"]/bw["ompi_sm"];
       printf "ampi 2 processes / Open MPI ucx: latency x%.2f, bandwidth x%.2f\n", lat["ampi_2proc"]/lat["ompi_ucx"], bw["ampi_2proc"]/bw["ompi_ucx"];
       printf "ampi 1 process   / Open MPI sm : latency x%.2f, bandwidth x%.2f\n", lat["ampi_1proc"]/lat["ompi_sm"], bw["ampi_1proc"]/bw["ompi_sm"];
     }' "$T/med"
