#!/bin/sh
# tests/p2p/shm_sigkill.sh AMPIRUN PROGRAM — a two-process job that used the same-host rings
# (AMPI_DEBUG_PROTOCOL names shm-eager) has no segment left in /dev/shm while it runs (they are
# unlinked once mapped, at start-up), and none after both processes are killed with SIGKILL.
set -u
AMPIRUN=$1 PROG=$2
D=$(mktemp -d)
RUN=
cleanup() { [ -n "$RUN" ] && kill -9 "$RUN" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
fail() { echo "shm_sigkill: $*" >&2; cat "$D/err" >&2; exit 1; }
segments() { ls /dev/shm 2>/dev/null | grep -E "^ampi-$(id -u)-($1|$2)-" ; }

SHM_SIGKILL_DIR=$D AMPI_SHM=1 AMPI_DEBUG_PROTOCOL=1 "$AMPIRUN" -np 2 "$PROG" 2>"$D/err" &
RUN=$!
i=0
while [ ! -s "$D/pid.0" ] || [ ! -s "$D/pid.1" ]; do # the ranks report once past MPI_Init
  kill -0 "$RUN" 2>/dev/null || fail "the job ended early"
  i=$((i + 1))
  [ $i -lt 600 ] || fail "the ranks did not start"
  sleep 0.05
done
P0=$(cat "$D/pid.0") P1=$(cat "$D/pid.1")
grep -q "host/shm-eager" "$D/err" || fail "the message did not take the shared-memory path"
[ -z "$(segments "$P0" "$P1")" ] || fail "segments left while running: $(segments "$P0" "$P1")"
kill -9 "$P0" "$P1"
wait "$RUN"
RUN=
[ -z "$(segments "$P0" "$P1")" ] || fail "segments left after SIGKILL: $(segments "$P0" "$P1")"
echo "shm_sigkill: ok (pids $P0 $P1)"
