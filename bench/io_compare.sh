#!/bin/sh
# bench/io_compare.sh [build-dir] [rounds] [size-MiB] [block] [ranks] — bench/io_strided.c built
# with our mpicc and with Debian's Open MPI (mpicc.openmpi, its default MPI-IO component), run
# alternately in one go on the same file system: ampi with RANKS virtual ranks in one process,
# ampi with RANKS ranks over 2 processes, Open MPI with RANKS processes. Each run does 3 write+read
# rounds and reports its median; the script prints every run and the median over ROUNDS runs.
# The file lives in $IO_DIR (default: a fresh directory under /tmp, removed at the end).
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
ROUNDS=${2:-3}
MIB=${3:-1024}
BLOCK=${4:-65536}
N=${5:-4}
T=$(mktemp -d)
D=${IO_DIR:-$T}
trap 'rm -rf "$T"' EXIT
mpicc.openmpi -O2 bench/io_strided.c -o "$T/io_ompi"
OMPI="mpirun.openmpi --allow-run-as-root --oversubscribe -np $N"
run() {
  label=$1; shift
  "$@" "$D/io_strided.dat" "$MIB" "$BLOCK" 3 > "$T/out" 2>&1 || { echo "$label FAILED"; cat "$T/out"; return 1; }
  w=$(awk '$1 == "median:" {print $3}' "$T/out")
  r=$(awk '$1 == "median:" {print $6}' "$T/out")
  echo "$label $w $r" | tee -a "$T/all"
}
i=1
while [ "$i" -le "$ROUNDS" ]; do
  run ampi_1proc "$B/bin/ampirun" -np 1 --vp "$N" "$B/bench/io_strided"
  run ampi_2proc "$B/bin/ampirun" -np 2 --vp "$N" "$B/bench/io_strided"
  run ompi $OMPI "$T/io_ompi"
  i=$((i + 1))
done
echo
echo "median of $ROUNDS runs ($N ranks, $MIB MiB, block $BLOCK B; MiB/s): label write read"
for l in ampi_1proc ampi_2proc ompi; do
  w=$(awk -v l=$l '$1 == l {print $2}' "$T/all" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  r=$(awk -v l=$l '$1 == l {print $3}' "$T/all" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$l $w $r"
done
