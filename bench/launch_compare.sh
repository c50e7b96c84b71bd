#!/bin/sh
# bench/launch_compare.sh — the whole launch of a hello world with many ranks in one process,
# side by side: wall time of the whole command, from exec of the launcher to the exit of the last
# process (issue 19: `ampirun --vp 1000 ./hello` against Charm++'s AMPI `+p1 +vp1000`).
#
#   bench/launch_compare.sh OLD_BUILD NEW_BUILD [ROUNDS] [VP] [AMPI_BIN]
#
# OLD_BUILD, NEW_BUILD: build trees of ampi (bin/ampirun, bin/mpicc). ROUNDS (default 11) rounds,
# each running every variant once in turn (interleaved, so that the machine's load hits them
# alike); prints each variant's median, min and max in seconds, and the load average before and
# after. Variants: old and new with the default AMPI_PRIVATIZE (per-rank copies of the program)
# and with AMPI_PRIVATIZE=off; with AMPI_BIN (a Charm++ AMPI bin directory holding ampicc and
# charmrun, e.g. from /work/notes/s3/ampi.status), AMPI's `charmrun +p1 ./hello +vp VP ++local`
# too (the multicore build's `./hello +p1 +vpVP` if it has no charmrun). Results also go to
# bench/results/launch/launch_<date>.txt.
set -eu
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) rounds=${3:-11} vp=${4:-1000} ampi=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/launch_compare.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) printf("hello from %d of %d\n", rank, size);
  MPI_Finalize();
  return 0;
}
EOF
"$old/bin/mpicc" -O2 "$work/hello.c" -o "$work/hello_old"
"$new/bin/mpicc" -O2 "$work/hello.c" -o "$work/hello_new"
names="old new old_off new_off"
run_old() { "$old/bin/ampirun" --vp "$vp" "$work/hello_old"; }
run_new() { "$new/bin/ampirun" --vp "$vp" "$work/hello_new"; }
run_old_off() { AMPI_PRIVATIZE=off "$old/bin/ampirun" --vp "$vp" "$work/hello_old"; }
run_new_off() { AMPI_PRIVATIZE=off "$new/bin/ampirun" --vp "$vp" "$work/hello_new"; }
if [ -n "$ampi" ]; then
  "$ampi/ampicc" -O2 "$work/hello.c" -o "$work/hello_ampi"
  names="$names charm_ampi"
  if [ -x "$ampi/charmrun" ]; then
    run_charm_ampi() { (cd "$work" && "$ampi/charmrun" +p1 ./hello_ampi +vp "$vp" ++local); }
  else
    run_charm_ampi() { (cd "$work" && ./hello_ampi +p1 +vp"$vp"); }
  fi
fi
now() { date +%s%N; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for name in $names; do : >"$work/t_$name"; done
for name in $names; do "run_$name" >"$work/out_$name" 2>&1 || { cat "$work/out_$name"; exit 1; }; done
i=0
while [ "$i" -lt "$rounds" ]; do
  for name in $names; do
    t0=$(now)
    "run_$name" >/dev/null 2>&1
    t1=$(now)
    echo $(((t1 - t0) / 1000)) >>"$work/t_$name"
  done
  i=$((i + 1))
done
mkdir -p "$here/results/launch"
report="$here/results/launch/launch_$(date -u +%Y%m%dT%H%M%S).txt"
{
  echo "launch of a hello world, --vp $vp in one process, $rounds interleaved rounds (seconds)"
  echo "old: $old  new: $new${ampi:+  Charm++ AMPI: $ampi}"
  echo "load average before: $load_before  after: $(cut -d' ' -f1-3 /proc/loadavg)  ($(nproc) CPUs)"
  printf '%-12s %8s %8s %8s\n' variant median min max
  for name in $names; do
    sort -n "$work/t_$name" | awk -v n="$name" '{a[NR]=$1} END {
      m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
      printf "%-12s %8.3f %8.3f %8.3f\n", n, m / 1e6, a[1] / 1e6, a[NR] / 1e6 }'
  done
} | tee "$report"
