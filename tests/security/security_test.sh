#!/bin/sh
# tests/security/security_test.sh AMPIRUN JOB INTRUDER WORKDIR CASE — issue 19 as an attacker
# would try it. JOB is secure_job, INTRUDER is pmix_intruder (see their heads). Every case runs
# the job with TMPDIR, the per-rank copies' directory (AMPI_PRIVATIZE_DIR) and UCX's POSIX
# shared-memory directory (UCX_POSIX_DIR) inside WORKDIR/tmp, and checks that nothing is left
# there afterwards.
#   intruder      -np 2 --vp 4, waiting for the test: as user nobody (setpriv), a PMIx client
#                 tries to join the job's server: (a) honestly, naming the namespace of old
#                 ampiruns (ampirun.PID), (b) honestly with the job's real namespace and rank 0
#                 (taken from a process's environment, as root can), (c) with the real namespace
#                 while claiming the owner's uid and gid (the attack of issue 19), (d) (c) as rank
#                 1. Every attempt must be refused, the job must then finish with the right sum
#                 and status 0, and ampirun must report one refusal, once. Needs root.
#   permissions   -np 2 --vp 4 with per-rank copies, while the job runs: ampirun's PMIx directory
#                 is 0700 and holds nothing that its group or others may read or write; so is
#                 the copies' directory; every shared mapping of the job's processes (UCX's
#                 segments, System V ones included) is a file of mode 0600/0700 of the job's
#                 user; no process of the job listens on a TCP port
#   kill-ampirun  -np 2 --vp 4 with per-rank copies: SIGKILL to ampirun once the ranks run:
#                 every process gone, WORKDIR/tmp empty (cleaner processes)
#   kill-rank     the same with SIGKILL to process 1: ampirun reports it, status 137, empty
#   segv          -np 1 --vp 8: rank 5 writes through 0x10: "rank 5 (world) of process 0 ...
#                 crashed: SIGSEGV at 0x10", ampirun reports SIGSEGV, status 139
#   segv-np2      -np 2 --vp 8: rank 6 (process 1)
#   overflow      -np 1 --vp 8: rank 3 overflows its stack: named as a stack overflow, with the
#                 setting that raises the stack size
set -u
[ $# -eq 5 ] || { echo "usage: $0 AMPIRUN JOB INTRUDER WORKDIR CASE" >&2; exit 2; }
ampirun=$1 job=$2 intruder=$3 work=$4 case=$5

rm -rf "$work" && mkdir -p "$work/tmp" || exit 1
out=$work/stdout err=$work/stderr
TMPDIR=$work/tmp AMPI_PRIVATIZE_DIR=$work/tmp UCX_POSIX_DIR=$work/tmp
export TMPDIR AMPI_PRIVATIZE_DIR UCX_POSIX_DIR
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds; false after SECONDS.
wait_for() {
  limit=$(($1 * 10))
  shift
  i=0
  while ! "$@"; do
    i=$((i + 1))
    [ $i -ge $limit ] && return 1
    sleep 0.1
  done
  return 0
}
ready_count() { # (no output file yet: 0)
  n=$(grep -c '^ready rank' "$out" 2>/dev/null)
  [ "${n:-0}" -ge "$1" ]
}
gone() { ! kill -0 "$1" 2>/dev/null; }
empty_tmp() { [ -z "$(ls -A "$work/tmp")" ]; }
job_pids() { sed -n 's/^ready rank [0-9]* pid \([0-9]*\)$/\1/p' "$out" | sort -u; }
show() {
  echo "--- stdout"
  cat "$out"
  echo "--- stderr"
  cat "$err"
}
expect_err() {
  grep -Eq -e "$1" "$err" || fail "no line of ampirun's standard error matches: $1"
}
check_leftovers() {
  if ! wait_for 10 empty_tmp; then
    fail "left behind in TMPDIR:"
    find "$work/tmp" -exec ls -ld {} +
  fi
}

# start_job ARGS...: ampirun ARGS in the background, its standard input a FIFO kept open on fd 3.
start_job() {
  rm -f "$work/go"
  mkfifo "$work/go" || exit 1
  exec 3<>"$work/go"
  echo "$ ampirun $*"
  "$ampirun" "$@" <"$work/go" >"$out" 2>"$err" &
  ampirun_pid=$!
}
finish_job() {
  wait "$ampirun_pid"
  rc=$?
  exec 3>&-
  show
  echo "ampirun exit status: $rc"
}

case $case in
intruder | intruder-leaked | intruder-same-user)
  if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    echo "SKIP: needs root and setpriv (to act as another user)"
    exit 77
  fi
  # The intruder must be able to run its program: a copy outside the (maybe private) build tree.
  attacker=$(mktemp -d /tmp/ampi-intruder.XXXXXX) || exit 1
  trap 'rm -rf "$attacker"' EXIT
  cp "$intruder" "$attacker/pmix_intruder" && chmod 755 "$attacker" "$attacker/pmix_intruder"
  start_job -np 2 --vp 4 "$job" wait
  wait_for 60 ready_count 4 || fail "the job did not start"
  pid1=$(sed -n 's/^ready rank 1 pid \([0-9]*\)$/\1/p' "$out")
  # What root can read of a process of the job: its PMIx variables (server URI, namespace).
  tr '\0' '\n' <"/proc/$pid1/environ" | grep '^PMIX_' | grep -v '^PMIX_RANK=' >"$work/pmix_env"
  nspace=$(sed -n 's/^PMIX_NAMESPACE=//p' "$work/pmix_env")
  [ -n "$nspace" ] || fail "no PMIX_NAMESPACE in the environment of process 1"
  echo "the job's namespace: $nspace"
  # Another user (nobody), or for intruder-same-user the job's own user from outside the job (a
  # process that is neither one ampirun started nor a descendant of one).
  as_other='setpriv --reuid nobody --regid nogroup --clear-groups'
  [ "$case" = intruder-same-user ] && as_other=
  attempt() { # NAME NAMESPACE RANK [CLAIM_UID CLAIM_GID]
    name=$1 ns=$2 rank=$3
    shift 3
    # shellcheck disable=SC2046,SC2086 # one word per variable; as_other is a command's words
    timeout 30 $as_other \
      env -i $(grep -v '^PMIX_NAMESPACE=' "$work/pmix_env") PMIX_NAMESPACE="$ns" PMIX_RANK="$rank" \
      PMIX_MCA_gds=hash ASAN_OPTIONS=detect_leaks=0 "$attacker/pmix_intruder" "$@" \
      >"$work/intruder_$name" 2>&1
    irc=$?
    echo "--- intruder ($name): exit status $irc"
    cat "$work/intruder_$name"
    [ $irc -eq 0 ] && grep -q '^refused: ' "$work/intruder_$name" ||
      fail "intruder ($name) was not refused"
  }
  owner="$(id -u) $(id -g)"
  if [ "$case" = intruder ]; then
    # What another user can know: the server's port (/proc/net/tcp) and ampirun's pid.
    attempt old-namespace "ampirun.$ampirun_pid" 0
    # shellcheck disable=SC2086 # uid and gid
    attempt old-namespace-claims-owner "ampirun.$ampirun_pid" 0 $owner
    # shellcheck disable=SC2086
    attempt guessed-secret-claims-owner "ampirun.$ampirun_pid.00000000000000000000000000000000" 1 $owner
  elif [ "$case" = intruder-same-user ]; then
    # The job's user, with the secret, from outside the job: kept out too.
    attempt same-user-leaked "$nspace" 0
  else
    # The secret has leaked: the kernel's word on who is connecting must still keep it out.
    # shellcheck disable=SC2086
    attempt leaked-claims-owner "$nspace" 0 $owner
    # shellcheck disable=SC2086
    attempt leaked-claims-owner-rank1 "$nspace" 1 $owner
  fi
  echo "go" >&3
  finish_job
  [ "$rc" = 0 ] || fail "expected exit status 0, got $rc"
  grep -qx 'sum 6 of 4 ranks: go' "$out" || fail "no line 'sum 6 of 4 ranks: go'"
  # Every attempt was closed at accept(), before libpmix read a byte (src/launcher/pmix_gate.hpp).
  if [ "$case" = intruder-same-user ]; then
    expect_err "^ampirun: refused a connection to the job's PMIx server: the connecting socket \\(user id $(id -u)\\) is held by no process of the job \\(further refusals are not reported\\)$"
  else
    expect_err "^ampirun: refused a connection to the job's PMIx server: the connecting socket belongs to user id $(id -u nobody) \\(further refusals are not reported\\)$"
  fi
  [ "$(grep -c 'refused a connection' "$err")" = 1 ] || fail "the refusal is not reported once"
  if grep -q 'PMIx_Abort\|PMIX ERROR\|did not shut down' "$err"; then
    fail "an abort, a PMIx error or a hung shutdown was reported"
  fi
  check_leftovers
  ;;
permissions)
  # Per-rank copies: the program's globals copied per rank, in AMPI_PRIVATIZE_DIR.
  export AMPI_PRIVATIZE=on
  start_job -np 2 --vp 4 "$job" wait
  wait_for 60 ready_count 4 || fail "the job did not start"
  me=$(id -u)
  echo "--- what the job created under TMPDIR"
  find "$work/tmp" -exec ls -ld {} +
  n=$(find "$work/tmp" -mindepth 1 -maxdepth 1 -type d | wc -l)
  [ "$n" -ge 3 ] || fail "expected ampirun's directory and two directories of copies, found $n"
  bad=$(find "$work/tmp" -mindepth 1 \( -perm /077 -o ! -user "$me" \) -print)
  [ -z "$bad" ] || fail "readable or writable by others, or not the job's user's: $bad"
  for pid in $(job_pids); do
    echo "--- shared mappings of pid $pid"
    grep -E '^[0-9a-f]+-[0-9a-f]+ r[w-]-s ' "/proc/$pid/maps"
    grep -E '^[0-9a-f]+-[0-9a-f]+ r[w-]-s ' "/proc/$pid/maps" | while read -r range _ _ _ _ path _; do
      case $path in
      /SYSV*)
        # System V segments: UCX makes them 0660 (and their ids are listed to every user).
        echo "FAIL: pid $pid maps a System V shared-memory segment at $range"
        continue
        ;;
      esac
      mode=$(stat -L -c '%a %u' "/proc/$pid/map_files/$range") || continue
      case $mode in
      "600 $me" | "700 $me") ;;
      *) echo "FAIL: pid $pid maps a shared file of mode/owner $mode at $range" ;;
      esac
    done >>"$work/mapping_failures"
    # Listening TCP sockets (state 0A) held by the job's processes.
    inodes=$(ls -l "/proc/$pid/fd" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
    for inode in $inodes; do
      if awk -v i="$inode" '$4 == "0A" && $10 == i { found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6; then
        fail "pid $pid listens on a TCP port (socket $inode)"
      fi
    done
  done
  if [ -s "$work/mapping_failures" ]; then
    cat "$work/mapping_failures"
    failed=1
  fi
  echo "go" >&3
  finish_job
  [ "$rc" = 0 ] || fail "expected exit status 0, got $rc"
  grep -qx 'sum 6 of 4 ranks: go' "$out" || fail "no line 'sum 6 of 4 ranks: go'"
  check_leftovers
  ;;
kill-ampirun | kill-rank)
  export AMPI_PRIVATIZE=on
  start_job -np 2 --vp 4 "$job" hang
  wait_for 60 ready_count 4 || fail "the job did not start"
  pids=$(job_pids)
  [ -n "$(ls -A "$work/tmp")" ] || fail "the job created nothing under TMPDIR (the test tests nothing)"
  if [ "$case" = kill-ampirun ]; then
    kill -KILL "$ampirun_pid"
  else
    victim=$(sed -n 's/^ready rank 3 pid \([0-9]*\)$/\1/p' "$out")
    kill -KILL "$victim"
  fi
  finish_job
  for pid in $pids; do
    wait_for 10 gone "$pid" || fail "process $pid of the job still runs"
  done
  if [ "$case" = kill-ampirun ]; then
    [ "$rc" = 137 ] || fail "expected ampirun to be killed (137), got $rc"
  else
    [ "$rc" = 137 ] || fail "expected exit status 137, got $rc"
    expect_err "^ampirun: process 1 \\(pid $victim\\) killed by signal SIGKILL"
  fi
  check_leftovers
  ;;
segv | segv-np2 | overflow)
  case $case in
  segv) np=1 rank=5 process=0 mode=segv ;;
  segv-np2) np=2 rank=6 process=1 mode=segv ;;
  overflow) np=1 rank=3 process=0 mode=overflow ;;
  esac
  start_job -np $np --vp 8 "$job" $mode $rank
  exec 3>&-
  finish_job
  [ "$rc" = 139 ] || fail "expected exit status 139 (SIGSEGV), got $rc"
  expect_err "^ampirun: process $process \\(pid [0-9]+\\) killed by signal SIGSEGV"
  if [ $mode = segv ]; then
    expect_err "^ampi: rank $rank \\(world\\) of process $process \\(pid [0-9]+\\) crashed: SIGSEGV at 0x10( |$)"
  else
    expect_err "^ampi: rank $rank \\(world\\) of process $process \\(pid [0-9]+\\) crashed: stack overflow .*--stack-size.*AMPI_STACK_SIZE"
  fi
  [ "$(grep -c 'crashed' "$err")" = 1 ] || fail "expected one crash report"
  check_leftovers
  ;;
*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
[ $failed = 0 ] && echo "PASS" || exit 1
