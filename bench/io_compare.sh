#!/bin/sh
# bench/io_compare.sh [build-dir] [rounds] [size-MiB] [block] [ranks] — the strided collective
# write and read of bench/io_strided.c (every rank writes every RANKS-th block of BLOCK bytes of
# one file with MPI_File_write_all, syncs, reads it back with MPI_File_read_all and checks it),
# built with our mpicc and with Debian's Open MPI (mpicc.openmpi, its default MPI-IO component),
# run side by side on the same file system, interleaved round by round: ampi with RANKS virtual
# ranks in one process, ampi with RANKS ranks over 2 processes, Open MPI with RANKS processes.
# Each run does 3 write+read passes and reports its median; the script prints every run, the
# median over ROUNDS runs of each, and the ratios ampi / Open MPI (above 1: ampi faster).
#
# Size: 1024 MiB by default, or the largest multiple of 64 MiB that leaves room for the file twice
# over in the file system of $IO_DIR (default: a fresh directory under /tmp, removed at the end);
# the size used is printed. Defaults: 5 rounds, 1024 MiB, 64 KiB blocks, 4 ranks.
#   bench/io_compare.sh build 5          # the quiet-machine rerun
# IO_OUT=FILE also writes the summary there.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
ROUNDS=${2:-5}
MIB=${3:-1024}
BLOCK=${4:-65536}
N=${5:-4}
[ -x "$B/bench/io_strided" ] || { echo "io_compare: $B/bench/io_strided is missing (ninja -C $B io_strided)"; exit 1; }
command -v mpicc.openmpi > /dev/null || { echo "io_compare: mpicc.openmpi is missing (Debian's openmpi-bin, libopenmpi-dev)"; exit 1; }
T=$(mktemp -d)
D=${IO_DIR:-$T}
trap 'rm -rf "$T"' EXIT
avail=$(df -Pm "$D" | awk 'NR == 2 {print $4}')
if [ $((MIB * 2)) -gt "$avail" ]; then
  want=$MIB
  MIB=$((avail / 2 / 64 * 64))
  echo "io_compare: $D has $avail MiB free: the file is $MIB MiB instead of $want MiB"
  [ "$MIB" -gt 0 ] || exit 1
fi
mpicc.openmpi -O2 bench/io_strided.c -o "$T/io_ompi"
OMPI="mpirun.openmpi --allow-run-as-root --oversubscribe -np $N"
echo "io_compare: $N ranks, $MIB MiB file in $D, block $BLOCK B, $ROUNDS rounds (MiB/s: write read)"
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
med() { # median of column $2 of label $1
  awk -v l="$1" -v c="$2" '$1 == l {print $c}' "$T/all" | sort -g |
    awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
{
  echo
  echo "median of $ROUNDS interleaved runs ($N ranks, $MIB MiB, block $BLOCK B; MiB/s): label write read"
  for l in ampi_1proc ampi_2proc ompi; do
    echo "$l $(med $l 2) $(med $l 3)"
  done
  ow=$(med ompi 2); or=$(med ompi 3)
  for l in ampi_1proc ampi_2proc; do
    awk -v l=$l -v w="$(med $l 2)" -v r="$(med $l 3)" -v ow="$ow" -v or="$or" \
      'BEGIN {printf "ratio %s/ompi: write %.2f read %.2f\n", l, w / ow, r / or}'
  done
} | tee "${IO_OUT:-/dev/null}"
