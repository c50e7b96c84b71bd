#!/bin/sh
# tests/multihost/ampirun_signal.sh SIGNAL STATUS AMPIRUN ARGS... TOKEN — starts AMPIRUN ARGS...
# TOKEN (a job over several hosts whose processes carry TOKEN and wait), waits until every one of
# its processes runs (as many as `--host` gives slots, counted by TOKEN on the command line of
# the program), sends SIGNAL to ampirun only, and checks that ampirun exits with STATUS within
# 20 s. multihost_runs.py wraps it in no_survivors.sh TOKEN: nothing of the job may be left on any
# host. Exit status 0 when ampirun ended as expected.
set -u
[ $# -ge 5 ] || { echo "usage: $0 SIGNAL STATUS AMPIRUN ARGS... TOKEN" >&2; exit 2; }
sig=$1 want=$2
shift 2
for token; do :; done
# The slots of --host a:2,b:2 (the processes to wait for).
expect=0
prev=
for a; do
  if [ "$prev" = --host ]; then
    for h in $(echo "$a" | tr , ' '); do
      case $h in *:*) expect=$((expect + ${h#*:})) ;; *) expect=$((expect + 1)) ;; esac
    done
  fi
  prev=$a
done
# A background job of a non-interactive shell starts with SIGINT ignored, and ampirun keeps
# ignored signals ignored: env gives it the default back.
env --default-signal=INT "$@" &
pid=$!
# The program's processes: TOKEN on their command line, not ampirun's (its own name first).
programs() { pgrep -f -- "$token" | while read -r p; do
  case $(cat "/proc/$p/comm" 2>/dev/null) in ampirun | sh | ssh | no_survivors*) ;; *) echo "$p" ;; esac
done | wc -l; }
tries=0
until [ "$(programs)" -ge "$expect" ]; do
  tries=$((tries + 1))
  if [ "$tries" -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
    echo "FAIL: $expect processes of the job did not start (found $(programs))"
    kill -KILL "$pid" 2>/dev/null
    exit 1
  fi
  sleep 0.1
done
kill "-$sig" "$pid"
(sleep 20 && kill -KILL "$pid") </dev/null >/dev/null 2>&1 &
watchdog=$!
wait "$pid"
rc=$?
kill "$watchdog" 2>/dev/null
echo "ampirun exited with status $rc after SIG$sig"
[ "$rc" = "$want" ] || { echo "FAIL: expected exit status $want"; exit 1; }
exit 0
