#!/bin/sh
# tests/tools/pmix_job_test.sh AMPIRUN PROBE PMIX_PROBE WORKDIR CASE
# Multi-process cases of ampirun that need more than expect.sh: timing, the processes left
# behind, the rendezvous directory, signals. PROBE is ampirun_probe (plain program), PMIX_PROBE
# is pmix_client_probe (a plain PMIx client). Every case runs ampirun with TMPDIR=WORKDIR/tmp and
# checks that ampirun left nothing there.
#   fail         -np 3: the last process exits 4 after PMIx_Init, process 0 ignores SIGTERM:
#                status 4, the failure reported, every process gone within 2 s of the failure
#   abort        -np 4: process 1 calls PMIx_Abort(7), the others ignore SIGTERM: status 7, the
#                abort reported with its message, every process gone within 2 s of the abort
#   no-finalize  -np 3: process 0 exits 0 without PMIx_Finalize: status 1, reported
#   rendezvous   -np 2: the server's directory (PMIX_SERVER_TMPDIR) is under TMPDIR, mode 0700,
#                the same for both processes, and removed afterwards
#   forward      -np 3: SIGTERM sent to ampirun reaches the three processes (status 42)
set -u
[ $# -eq 5 ] || { echo "usage: $0 AMPIRUN PROBE PMIX_PROBE WORKDIR CASE" >&2; exit 2; }
ampirun=$1 probe=$2 pmix_probe=$3 work=$4 case=$5

rm -rf "$work" && mkdir -p "$work/tmp" || exit 1
out=$work/output
TMPDIR=$work/tmp
export TMPDIR
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
now_ms() { date +%s%3N; }

# run_ampirun ARGS...: runs ampirun with output to $out; sets rc, started, ended (ms).
run_ampirun() {
  printf '$ ampirun'
  printf ' %s' "$@"
  printf '\n'
  started=$(now_ms)
  "$ampirun" "$@" >"$out" 2>&1 </dev/null
  rc=$?
  ended=$(now_ms)
  sed 's/^/| /' "$out"
  echo "exit status: $rc, $((ended - started)) ms"
}

expect_status() {
  [ "$rc" = "$1" ] || fail "expected exit status $1, got $rc"
}
expect_line() {
  grep -Eq -e "$1" "$out" || fail "no output line matches: $1"
}
expect_no_line() {
  if grep -Eq -e "$1" "$out"; then fail "some output line matches: $1"; fi
}

# Every process of the job must be gone once ampirun has exited (it reaps its children before it
# exits). The runs use --report-bindings (one rank per process), which lists the pids.
expect_processes_gone() {
  want=$1
  pids=$(sed -n 's/^ampirun: rank [0-9]* -> process [0-9]* (pid \([0-9]*\))$/\1/p' "$out" | sort -u)
  n=0
  for pid in $pids; do
    n=$((n + 1))
    if kill -0 "$pid" 2>/dev/null; then
      fail "process $pid is still running after ampirun exited"
      kill -KILL "$pid" 2>/dev/null
    fi
  done
  [ "$n" = "$want" ] || fail "--report-bindings listed $n processes, expected $want"
}

# expect_end_within_2s TEXT: the line "...TEXT MS" gives the time of the failure; ampirun must
# have ended soon after it (SIGKILL after the 2 s grace period for those that ignore SIGTERM).
# The bound is 10 s, not 2: it is there to catch a job left to a PMIx or launcher timeout (80 s
# and more), and under ASan on a loaded 2-core machine the prompt end took 2.7 s.
expect_end_within_2s() {
  at=$(sed -n "s/^.*$1 \\([0-9]*\\)$/\\1/p" "$out")
  if [ -z "$at" ]; then
    fail "no line tells when the failure happened ('$1 MS')"
  else
    echo "ampirun ended $((ended - at)) ms after the failure"
    [ $((ended - at)) -le 10000 ] || fail "the job took more than 10 s to end after the failure"
  fi
}

expect_tmpdir_clean() {
  left=$(ls -A "$TMPDIR")
  [ -z "$left" ] || fail "ampirun left files in TMPDIR: $left"
}

case $case in
  fail)
    run_ampirun -np 3 --report-bindings "$pmix_probe" fail 3
    expect_status 4
    expect_line '^ampirun: process 2 \(pid [0-9]+\) exited with status 4$'
    expect_line '^ampirun: ending the job: terminating the 2 processes still running$'
    expect_no_line '^FAIL'
    expect_processes_gone 3
    expect_end_within_2s "exits with status 4 at"
    ;;
  abort)
    run_ampirun -np 4 --report-bindings "$pmix_probe" abort 1 7
    expect_status 7
    expect_line '^ampirun: process 1 \(pid [0-9]+\) called PMIx_Abort with status 7: probe abort from process 1$'
    expect_no_line '^FAIL'
    expect_processes_gone 4
    expect_end_within_2s "aborting at"
    ;;
  no-finalize)
    run_ampirun -np 3 --report-bindings "$pmix_probe" no-finalize
    expect_status 1
    expect_line '^ampirun: process 0 \(pid [0-9]+\) exited without calling PMIx_Finalize'
    expect_no_line '^FAIL'
    expect_processes_gone 3
    ;;
  rendezvous)
    run_ampirun -np 2 "$pmix_probe" rendezvous
    expect_status 0
    expect_no_line '^FAIL'
    lines=$(grep -c '^tmpdir ' "$out")
    [ "$lines" = 2 ] || fail "$lines processes reported the directory, expected 2"
    dirs=$(sed -n 's/^tmpdir [0-7]* //p' "$out" | sort -u)
    modes=$(sed -n 's/^tmpdir \([0-7]*\) .*/\1/p' "$out" | sort -u)
    [ "$(echo "$dirs" | wc -l)" = 1 ] || fail "the processes saw different directories: $dirs"
    [ "$modes" = 700 ] || fail "directory mode $modes, expected 700"
    case $dirs in
      "$TMPDIR"/?*) ;;
      *) fail "the directory '$dirs' is not under TMPDIR ($TMPDIR)" ;;
    esac
    [ -n "$dirs" ] && [ -e "$dirs" ] && fail "the directory $dirs still exists"
    ;;
  forward)
    printf '$ ampirun -np 3 %s wait-term  (then SIGTERM to ampirun)\n' "$probe"
    "$ampirun" -np 3 "$probe" wait-term >"$out" 2>&1 </dev/null &
    pid=$!
    tries=0
    until [ "$(grep -c '^ready$' "$out" 2>/dev/null)" = 3 ]; do
      tries=$((tries + 1))
      if [ "$tries" -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
        fail "the three processes did not become ready"
        kill -KILL "$pid" 2>/dev/null
        break
      fi
      sleep 0.1
    done
    kill -TERM "$pid"
    (sleep 20 && kill -KILL "$pid") </dev/null >/dev/null 2>&1 &
    watchdog=$!
    wait "$pid"
    rc=$?
    kill "$watchdog" 2>/dev/null
    sed 's/^/| /' "$out"
    echo "exit status: $rc"
    expect_status 42
    n=$(grep -c '^got signal 15$' "$out")
    [ "$n" = 3 ] || fail "$n processes got SIGTERM, expected 3"
    ;;
  *)
    echo "$0: unknown case '$case'" >&2
    exit 2
    ;;
esac
expect_tmpdir_clean
[ "$failed" = 0 ] && echo PASS
exit "$failed"
