#!/bin/sh
# bench/results/2026-11-26-secure/startup.sh OLD_BUILD NEW_BUILD [rounds] — what issue 19's
# checks cost at start-up: the wall time of a whole job, old and new build interleaved round by
# round (same load), median of the rounds, and the ratio new / old.
#   pmix np8:  ampirun -np 8 pmix_client_probe check 8 8 (PMIx connections only: the namespace
#              secret, the kernel's peer check per connection, the cleaner process)
#   mpi np4:   ampirun -np 4 --vp 16 tests/mpi/init_finalize (a whole MPI start-up and end,
#              UCX's transports without sysv and tcp)
set -eu
OLD=${1:?usage: startup.sh OLD_BUILD NEW_BUILD [rounds]}
NEW=${2:?usage: startup.sh OLD_BUILD NEW_BUILD [rounds]}
ROUNDS=${3:-15}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ms() { echo $(($(date +%s%N) / 1000000)); }
timed() { # FILE COMMAND...
  f=$1
  shift
  a=$(ms)
  "$@" >/dev/null 2>&1
  b=$(ms)
  echo $((b - a)) >>"$f"
}
for i in $(seq "$ROUNDS"); do
  for which in old new; do
    [ $which = old ] && B=$OLD || B=$NEW
    timed "$T/$which.pmix" "$B/bin/ampirun" -np 8 "$B/tests/tools/pmix_client_probe" check 8 8
    timed "$T/$which.mpi" "$B/bin/ampirun" -np 4 --vp 16 "$B/tests/mpi/init_finalize"
  done
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-10s %10s %10s %8s\n' case "old ms" "new ms" ratio
for c in pmix mpi; do
  o=$(median "$T/old.$c")
  n=$(median "$T/new.$c")
  printf '%-10s %10s %10s %8s\n' "$c" "$o" "$n" "$(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.2f", n / o }')"
done
