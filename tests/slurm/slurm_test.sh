#!/bin/bash
# tests/slurm/slurm_test.sh BUILD_DIR
# Proves that ampi programs run under a real Slurm: starts a private one-node Slurm cluster on
# loopback (its own munged, slurmctld and slurmd, with their config, sockets, state, spool, pid
# and log files all in one temp dir, on ports of their own, so a system-wide Slurm or munge is
# left alone), runs the self-checking MPI programs of BUILD_DIR/tests/mpi with
#   srun --mpi=pmix -n 4 PROG                    (one rank per Slurm task)
#   AMPI_VP=8 srun --mpi=pmix -n 2 PROG          (8 virtual ranks on 2 Slurm tasks)
# checks each one's exit status and its "ok ... (N ranks)" line, checks that a failing job
# (a non-zero exit, MPI_Abort) makes srun fail, then stops everything it started (also on
# failure or interruption) and removes the temp dir.
# Needs root and Debian's slurm-wlm and munge (installed with apt-get when missing).
# Exit status: 0 all passed, 1 a check failed, 2 usage, 77 skipped (Slurm could not be
# installed: the reason is printed). AMPI_SLURM_KEEP=1 keeps the temp dir (logs) afterwards.
set -u

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || { echo "slurm_test: no build dir '$1'" >&2; exit 2; }
bins=$build/tests/mpi

say() { echo "slurm_test: $*"; }
skip() {
  say "SKIP: $*"
  exit 77
}
now_ms() { date +%s%3N; }
script_start=$(now_ms)

# ---- the packages ------------------------------------------------------------------------------
[ "$(uname -s)" = Linux ] || skip "not Linux"
[ "$(id -u)" -eq 0 ] || skip "needs root (to start munged as the munge user and Slurm's daemons)"

have_all() {
  for c in slurmctld slurmd srun sinfo scontrol munged munge unmunge mungekey; do
    command -v "$c" >/dev/null 2>&1 || return 1
  done
  # The mpi_pmix plugin dlopens libpmix.so (the unversioned name, from libpmix-dev).
  for f in /usr/lib/*/libpmix.so /usr/lib/libpmix.so /usr/local/lib/libpmix.so; do
    [ -e "$f" ] && return 0
  done
  return 1
}
if ! have_all; then
  command -v apt-get >/dev/null 2>&1 || skip "slurm-wlm/munge not installed and no apt-get"
  say "installing slurm-wlm munge libpmix-dev with apt-get"
  if ! apt-get update -qq >/tmp/slurm_test.apt.$$ 2>&1 ||
     ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge libpmix-dev \
         >>/tmp/slurm_test.apt.$$ 2>&1; then
    tail -n 5 /tmp/slurm_test.apt.$$
    rm -f /tmp/slurm_test.apt.$$
    skip "apt-get could not install slurm-wlm munge libpmix-dev"
  fi
  rm -f /tmp/slurm_test.apt.$$
  have_all || skip "slurm-wlm/munge installed, but a command or libpmix.so is still missing"
fi

for p in p2p_basic exit_code; do
  [ -x "$bins/$p" ] || { say "FAIL: no test program $bins/$p (build first)"; exit 1; }
done

# Nothing of an outer Slurm job may leak into ours (srun would join that job's allocation).
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset AMPI_VP AMPI_MAP

# ---- the temp dir and the cleanup --------------------------------------------------------------
T=$(mktemp -d /tmp/ampi-slurm.XXXXXX) || { say "FAIL: mktemp"; exit 1; }
chmod 755 "$T" # munged (as munge) must reach its socket dir below
M=$T/munge
SLURM_CONF=$T/slurm.conf # exported once munged runs (see leftovers)

# stop FILE:NAME...: ends the processes named in the pid files FILEs if they still are NAMEs
# (SIGTERM to all, then SIGKILL to those still there after 10 s).
stop() {
  local arg f name pid pids= i
  for arg in "$@"; do
    f=${arg%%:*} name=${arg#*:}
    [ -s "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null)
    case $pid in '' | *[!0-9]*) continue ;; esac
    grep -q "^$name" "/proc/$pid/comm" 2>/dev/null || continue
    kill -TERM "$pid" 2>/dev/null && pids="$pids $pid"
  done
  for i in $(seq 100); do
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && break; pid=; done
    [ -n "$pid" ] || return 0
    sleep 0.1
  done
  say "SIGKILL to what ignored SIGTERM:" $pids
  kill -KILL $pids 2>/dev/null
}

# Processes of our cluster that outlived the daemons (slurmstepd, tasks, srun): those whose
# environment names our SLURM_CONF, which no other process on the machine has.
leftovers() {
  local d pid
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [ "$pid" = $$ ] || [ "$pid" = "$BASHPID" ] && continue
    tr '\0' '\n' 2>/dev/null <"$d/environ" | grep -qxF "SLURM_CONF=$SLURM_CONF" && echo "$pid"
  done
}

cleanup() {
  local rc=$? pids t0
  trap - EXIT INT TERM HUP
  t0=$(now_ms)
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -d "$T/log" ]; then
    for f in "$T"/log/*.log "$M"/log/munged.log; do
      [ -s "$f" ] || continue
      echo "---- last lines of $f"
      tail -n 25 "$f"
    done
  fi
  stop "$T/run/slurmd.pid:slurmd" "$T/run/slurmctld.pid:slurmctld"
  pids=$(leftovers)
  if [ -n "$pids" ]; then
    say "ending processes left by the cluster:" $pids
    kill -KILL $pids 2>/dev/null
  fi
  stop "$M/run/munged.pid:munged"
  if [ "${AMPI_SLURM_KEEP:-0}" = 1 ]; then
    say "kept $T"
  else
    rm -rf "$T"
  fi
  say "stopped the cluster in $(($(now_ms) - t0)) ms"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fail_setup() {
  say "FAIL: $*"
  exit 1
}

# ---- munged: private key, socket, pid, log and seed files, run as the munge user ---------------
id munge >/dev/null 2>&1 || fail_setup "no user munge (the munge package creates it)"
mkdir -p "$M" && chmod 755 "$M" || fail_setup "mkdir $M"
for d in etc lib log; do install -d -o munge -g munge -m 700 "$M/$d" || fail_setup "mkdir $M/$d"; done
install -d -o munge -g munge -m 755 "$M/run" || fail_setup "mkdir $M/run"
runuser -u munge -- mungekey -c -k "$M/etc/munge.key" >/dev/null 2>&1 ||
  runuser -u munge -- sh -c "umask 077; dd if=/dev/urandom of='$M/etc/munge.key' bs=128 count=1 2>/dev/null" ||
  fail_setup "could not create a munge key"
munge_sock=$M/run/munge.socket
runuser -u munge -- munged --socket="$munge_sock" --key-file="$M/etc/munge.key" \
  --pid-file="$M/run/munged.pid" --log-file="$M/log/munged.log" --seed-file="$M/lib/munged.seed" \
  </dev/null >"$M/log/munged.out" 2>&1 || {
  cat "$M/log/munged.out"
  fail_setup "munged did not start"
}
for i in $(seq 50); do [ -S "$munge_sock" ] && break; sleep 0.1; done
munge -S "$munge_sock" -n 2>/dev/null | unmunge -S "$munge_sock" >/dev/null 2>&1 ||
  fail_setup "munged does not answer on $munge_sock"

export SLURM_CONF

# ---- slurm.conf --------------------------------------------------------------------------------
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctld_port=
for base in 17817 17837 17857 17877 17897; do
  if ! port_busy "$base" && ! port_busy $((base + 1)); then
    ctld_port=$base
    break
  fi
done
[ -n "$ctld_port" ] || fail_setup "no free port pair among 17817..17898"
slurmd_port=$((ctld_port + 1))
node=$(hostname -s)
ncpu=$(nproc)
[ "$ncpu" -ge 4 ] || ncpu=4 # declared (config_overrides): -n 4 fits on a 2-core machine
mkdir -p "$T/state" "$T/spool" "$T/log" "$T/run" "$T/tmp" || fail_setup "mkdir in $T"
cat >"$SLURM_CONF" <<EOF
# Private one-node cluster of tests/slurm/slurm_test.sh, on loopback.
ClusterName=ampitest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
TmpFS=$T/tmp
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$ncpu State=UNKNOWN
PartitionName=ampi Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

srun --mpi=list 2>&1 | grep -qw pmix || fail_setup "srun lists no pmix MPI plugin"

# ---- slurmctld and slurmd ----------------------------------------------------------------------
setup_start=$(now_ms)
slurmctld </dev/null >"$T/log/slurmctld.out" 2>&1 || {
  cat "$T/log/slurmctld.out"
  fail_setup "slurmctld did not start"
}
slurmd -N "$node" </dev/null >"$T/log/slurmd.out" 2>&1 || {
  cat "$T/log/slurmd.out"
  fail_setup "slurmd did not start"
}
state=
for i in $(seq 60); do
  state=$(timeout 10 sinfo -h -n "$node" -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || fail_setup "node $node not idle after 30 s (state '$state')"
say "cluster up in $(($(now_ms) - setup_start)) ms: node $node (CPUs=$ncpu), ports $ctld_port/$slurmd_port, $T"

# ---- the runs ----------------------------------------------------------------------------------
passed=0 failed=0
failures=
out=$T/run.out
# run NAME EXPECT ENV... -- SRUN_ARGS...: EXPECT is "ok:N" (status 0 and "ok ... (N ranks)"),
# "status:S" (exactly status S) or "nonzero:REGEX" (non-zero status and REGEX in the output).
# After a run that timed out, the others are counted failed without running (the whole test
# stays well within CTest's TIMEOUT, so that the cleanup always runs).
timed_out=0
run() {
  local name=$1 expect=$2 envs=() started ms rc ok=1 why=
  shift 2
  if [ "$timed_out" -eq 1 ]; then
    failed=$((failed + 1))
    failures="$failures $name"
    echo "FAIL $name: not run (an earlier srun timed out)"
    return
  fi
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  echo "\$ ${envs[*]:+${envs[*]} }srun $*"
  started=$(now_ms)
  # In the background, so that a signal to this script is handled at once (trap, cleanup).
  env "${envs[@]}" timeout -k 5 30 srun "$@" </dev/null >"$out" 2>&1 &
  wait $!
  rc=$?
  ms=$(($(now_ms) - started))
  [ "$ms" -lt 30000 ] || timed_out=1
  sed 's/^/| /' "$out"
  case $expect in
  ok:*)
    local n=${expect#ok:}
    [ "$rc" -eq 0 ] || { ok=0; why="exit status $rc, expected 0"; }
    grep -Eq "^ok .*\(${n} ranks\)\$" "$out" || { ok=0; why="${why:+$why; }no line 'ok ... ($n ranks)'"; }
    ;;
  status:*)
    [ "$rc" -eq "${expect#status:}" ] || { ok=0; why="exit status $rc, expected ${expect#status:}"; }
    ;;
  nonzero:*)
    # srun ends with the worst status of the tasks: 137 here, the others being killed after
    # MPI_Abort.
    [ "$rc" -ne 0 ] || { ok=0; why="exit status 0, expected a failure"; }
    grep -Eq "${expect#nonzero:}" "$out" || { ok=0; why="${why:+$why; }no line matching '${expect#nonzero:}'"; }
    ;;
  esac
  [ "$timed_out" -eq 0 ] || { ok=0; why="${why:+$why; }timed out (30 s)"; }
  if [ "$ok" -eq 1 ]; then
    passed=$((passed + 1))
    echo "PASS $name (exit status $rc, $ms ms)"
  else
    failed=$((failed + 1))
    failures="$failures $name"
    echo "FAIL $name: $why ($ms ms)"
  fi
}

for p in p2p_basic p2p_nonblocking p2p_wildcards p2p_modes collectives comms token_ring; do
  run "$p.n4" ok:4 -- --mpi=pmix -n 4 "$bins/$p"
done
for p in collectives p2p_wildcards; do
  run "$p.n2.vp8" ok:8 AMPI_VP=8 -- --mpi=pmix -n 2 "$bins/$p"
done
# Failures must reach srun's exit status.
run exit_code.n4 status:3 -- --mpi=pmix -n 4 "$bins/exit_code"
run abort_code.n4 "nonzero:^abort_code: rank [0-9]+ calls MPI_Abort" -- --mpi=pmix -n 4 "$bins/abort_code"

# The cluster must be idle again, with no job left (once the last one has completed).
for i in $(seq 30); do
  jobs=$(timeout 10 squeue -h -o %i 2>/dev/null)
  [ -n "$jobs" ] || break
  sleep 0.5
done
if [ -n "$jobs" ]; then
  failed=$((failed + 1))
  failures="$failures jobs-left($jobs)"
  echo "FAIL jobs left in the queue: $jobs"
fi

echo
say "srun --mpi=pmix under Slurm $(srun --version 2>/dev/null | awk '{print $2}'), $(($(now_ms) - script_start)) ms in all"
[ -z "$failures" ] || say "failed:$failures"
say "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
