#!/bin/sh
# tests/smp/net_count.sh EXPECT AMPIRUN ARGS... — runs the job with AMPI_DEBUG_SMP=1 (each PE prints
# at its end how many active messages or data to PEs of its own process went through the network
# port) and checks it: EXPECT=zero: the job succeeds and every PE (as many as the lines, at least
# one per PE) printed 0; EXPECT=nonzero: some PE printed more than 0 (the counter works: the test
# forces large messages onto the network with AMPI_SHM_CMA_REFUSE=1).
set -u
EXPECT=$1
shift
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT
AMPI_DEBUG_SMP=1 "$@" 2>"$ERR"
rc=$?
cat "$ERR" >&2
[ $rc -eq 0 ] || { echo "net_count: the job failed ($rc)" >&2; exit 1; }
lines=$(grep -c "active messages or data to PEs of its process went through" "$ERR")
nonzero=$(grep -cE "PE [0-9]+: [1-9][0-9]* active messages or data" "$ERR")
[ "$lines" -ge 2 ] || { echo "net_count: $lines PE lines (expected one per PE)" >&2; exit 1; }
case $EXPECT in
zero) [ "$nonzero" -eq 0 ] || { echo "net_count: $nonzero PEs used the network" >&2; exit 1; } ;;
nonzero) [ "$nonzero" -gt 0 ] || { echo "net_count: the counter stayed 0" >&2; exit 1; } ;;
esac
echo "net_count: $lines PEs, $nonzero of them sent through the network ($EXPECT expected)"
