#!/bin/sh
# tests/mpi/no_survivors.sh TOKEN expect_run.sh-arguments... — runs expect_run.sh with the given
# checks and command, then requires that no process whose command line contains TOKEN is still
# alive two seconds after the job ended (the job's processes carry TOKEN as an argument).
set -u
token=$1
shift
sh "$(dirname "$0")/expect_run.sh" "$@"
rc=$?
# The job's processes: those carrying TOKEN, except this script (whose arguments carry it too).
survivors() { pgrep -f -- "$token" | grep -vx "$$"; }
i=0
while survivors >/dev/null; do
  i=$((i + 1))
  if [ "$i" -ge 20 ]; then
    echo "no_survivors: processes of the job are still running 2 s after it ended:"
    for p in $(survivors); do ps -o pid=,args= -p "$p"; kill -9 "$p"; done
    exit 1
  fi
  sleep 0.1
done
exit $rc
