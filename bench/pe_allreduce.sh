#!/bin/sh
# bench/pe_allreduce.sh — MPI_Allreduce among the ranks of one process and of two processes, two
# builds of ampi side by side (the PE-aware collectives of src/coll/pe_coll.cpp against the flat
# algorithms), interleaved round by round so that both see the same load; optionally Open MPI
# with as many processes as we have ranks (oversubscribed on this 2-core machine).
#
#   bench/pe_allreduce.sh OLD_BUILD NEW_BUILD [rounds] [ompi]
#
# Each figure is osu/osu_allreduce's average over its timed iterations; printed: the median over
# the rounds per build, and new / old (below 1: the new build is faster). With a fourth argument
# `ompi`, the same points with Debian's Open MPI 4.1.4 (osu_allreduce of /work/ext/osu-ompi,
# N processes, --oversubscribe: 8 or 64 processes on 2 cores) once per round.
set -eu
OLD=${1:?usage: pe_allreduce.sh OLD_BUILD NEW_BUILD [rounds] [ompi]}
NEW=${2:?usage: pe_allreduce.sh OLD_BUILD NEW_BUILD [rounds] [ompi]}
ROUNDS=${3:-5}
OMPI=${4:-}
OMPI_OSU=/work/ext/osu-ompi/c/mpi/collective/blocking/osu_allreduce
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

iters() { [ "$1" -le 1024 ] && echo 2000 || echo 200; }
# ours <build> <np> <ranks> <bytes> -> average latency in us
ours() {
  timeout 300 "$1/bin/ampirun" -np "$2" --vp "$3" "$1/osu/osu_allreduce" -m "$4:$4" \
    -i "$(iters "$4")" -x 50 2>/dev/null | awk -v b="$4" '$1 == b { print $2 }'
}
ompi() {
  timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$1" "$OMPI_OSU" \
    -m "$2:$2" -i "$(iters "$2")" -x 50 2>/dev/null | awk -v b="$2" '$1 == b { print $2 }'
}
POINTS="1:8:8 1:8:65536 1:64:8 1:64:65536 2:8:8 2:8:65536 2:64:8 2:64:65536"
for i in $(seq "$ROUNDS"); do
  for pt in $POINTS; do
    IFS=: read -r np n b <<EOF2
$pt
EOF2
    ours "$OLD" "$np" "$n" "$b" >>"$T/old.$pt"
    ours "$NEW" "$np" "$n" "$b" >>"$T/new.$pt"
    if [ -n "$OMPI" ] && [ "$np" = 1 ]; then ompi "$n" "$b" >>"$T/ompi.$pt"; fi
  done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
printf '%-22s %12s %12s %9s' "procs x ranks, bytes" "old us" "new us" "new/old"
[ -n "$OMPI" ] && printf ' %14s %10s' "ompi N proc us" "new/ompi"
echo
for pt in $POINTS; do
  IFS=: read -r np n b <<EOF2
$pt
EOF2
  o=$(median "$T/old.$pt")
  nw=$(median "$T/new.$pt")
  printf '%-22s %12s %12s %9.3f' "$np x $((n / np)), $b" "$o" "$nw" "$(echo "$nw / $o" | bc -l)"
  if [ -n "$OMPI" ] && [ -s "$T/ompi.$pt" ]; then
    m=$(median "$T/ompi.$pt")
    printf ' %14s %10.3f' "$m" "$(echo "$nw / $m" | bc -l)"
  fi
  echo
done
