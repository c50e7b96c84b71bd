#!/bin/bash
# tests/multihost/multihost_test.sh BUILD_DIR [NHOSTS]
# Runs the MPI test programs across simulated hosts on one machine. Each host is a Linux network
# namespace (its own loopback and one veth interface on a private bridge, address 10.77.0.I) and
# a UTS namespace (its own host name, nodeI, which is what tells ampi that ranks are on different
# hosts: no shared memory, no CMA, no CUDA IPC between them; UCX goes over TCP on the veth pair).
# A private Slurm cluster runs on them (one munged, slurmctld on node1, one slurmd per host), and
# multihost_runs.py starts every MPI test program of BUILD_DIR with `srun --mpi=pmix -N NHOSTS`,
# plus the cases that only another host exercises. Then ampirun itself across the hosts, without
# Slurm: one sshd per host (sshd_hosts.sh) and `ampirun --host` / `mpiexec -hostfile` cases. Only the namespaces, links and addresses this
# script creates are used, and everything stops by itself (also on failure or interruption): the
# namespaces are deleted, which removes their links, and the temp dir goes.
# Needs root, iproute2, util-linux's unshare, Debian's slurm-wlm and munge (installed with apt-get
# when missing), and openssh-server for the ampirun cases (installed when missing; left out with a
# note if it cannot be). Exit status: 0 all passed, 1 a check failed, 2 usage, 77 skipped (the reason is
# printed). AMPI_MULTIHOST_KEEP=1 keeps the temp dir (logs); AMPI_MULTIHOST_ONLY=REGEX runs only
# the matching cases; AMPI_MULTIHOST_COMMAND="CMD" runs CMD (sh -c, on node1, SLURM_CONF set)
# instead of the test runs, e.g. a benchmark (bench/multihost_compare.sh).
set -u

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 BUILD_DIR [NHOSTS]" >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || { echo "multihost_test: no build dir '$1'" >&2; exit 2; }
nhosts=${2:-2}
case $nhosts in [2-9]) ;; *) echo "multihost_test: NHOSTS must be 2..9" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)

say() { echo "multihost_test: $*"; }
skip() {
  say "SKIP: $*"
  exit 77
}
now_ms() { date +%s%3N; }
script_start=$(now_ms)

# ---- what it needs -----------------------------------------------------------------------------
[ "$(uname -s)" = Linux ] || skip "not Linux"
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, munged as the munge user, Slurm's daemons)"
command -v ip >/dev/null 2>&1 || skip "no ip (iproute2)"
for c in unshare nsenter; do command -v $c >/dev/null 2>&1 || skip "no $c (util-linux)"; done
command -v python3 >/dev/null 2>&1 || skip "no python3"
have_slurm() {
  for c in slurmctld slurmd srun sinfo squeue munged munge unmunge mungekey; do
    command -v "$c" >/dev/null 2>&1 || return 1
  done
  for f in /usr/lib/*/libpmix.so /usr/lib/libpmix.so /usr/local/lib/libpmix.so; do
    [ -e "$f" ] && return 0
  done
  return 1
}
if ! have_slurm; then
  command -v apt-get >/dev/null 2>&1 || skip "slurm-wlm/munge not installed and no apt-get"
  say "installing slurm-wlm munge libpmix-dev with apt-get"
  log=$(mktemp)
  if ! apt-get update -qq >"$log" 2>&1 ||
    ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge libpmix-dev >>"$log" 2>&1; then
    tail -n 5 "$log"
    rm -f "$log"
    skip "apt-get could not install slurm-wlm munge libpmix-dev"
  fi
  rm -f "$log"
  have_slurm || skip "slurm-wlm/munge installed, but a command or libpmix.so is still missing"
fi
# Can this kernel/container make network namespaces with veth pairs? (Not in every container.)
probe=ampi-probe-$$
if ! ip netns add "$probe" 2>/dev/null; then
  skip "cannot create a network namespace (ip netns add)"
fi
if ! ip -n "$probe" link add p0 type veth peer name p1 2>/dev/null ||
  ! ip netns exec "$probe" unshare --uts --mount true 2>/dev/null; then
  ip netns del "$probe" 2>/dev/null
  skip "cannot create veth pairs or UTS/mount namespaces"
fi
ip netns del "$probe"
[ -x "$build/tests/mpi/p2p_basic" ] || { say "FAIL: no test programs in $build/tests (build first)"; exit 1; }

# Nothing of an outer Slurm job may leak into ours.
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset AMPI_VP AMPI_MAP

# ---- the temp dir, the namespaces' names and the cleanup ---------------------------------------
T=$(mktemp -d /tmp/ampi-multihost.XXXXXX) || { say "FAIL: mktemp"; exit 1; }
chmod 755 "$T" # munged (as munge) must reach its socket dir below
M=$T/munge
export SLURM_CONF=$T/slurm.conf
tag=$$ # namespace names are unique to this run
switch_ns=ampi-$tag-sw
host_ns() { echo "ampi-$tag-h$1"; }

# stop FILE:NAME...: ends the processes named in the pid files FILEs if they still are NAMEs
# (SIGTERM to all, then SIGKILL to those still there after 10 s).
stop() {
  local arg f name pid= pids= i
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

cleanup() {
  local rc=$? pids i t0
  trap - EXIT INT TERM HUP
  t0=$(now_ms)
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -d "$T/log" ]; then
    for f in "$T"/log/*.log "$M"/log/munged.log; do
      [ -s "$f" ] || continue
      echo "---- last lines of $f"
      tail -n 25 "$f"
    done
  fi
  stop_sshds
  for i in $(seq "$nhosts"); do stop "$T/run/slurmd-node$i.pid:slurmd"; done
  stop "$T/run/slurmctld.pid:slurmctld"
  # Whatever still runs inside our namespaces (slurmstepd, tasks, an srun) ends with them.
  for i in $(seq "$nhosts"); do
    pids=$(ip netns pids "$(host_ns "$i")" 2>/dev/null)
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  done
  stop "$M/run/munged.pid:munged"
  for i in $(seq "$nhosts"); do ip netns del "$(host_ns "$i")" 2>/dev/null; done
  ip netns del "$switch_ns" 2>/dev/null
  if [ "${AMPI_MULTIHOST_KEEP:-0}" = 1 ]; then
    say "kept $T"
  else
    rm -rf "$T"
  fi
  say "stopped the cluster and removed the namespaces in $(($(now_ms) - t0)) ms"
  exit "$rc"
}
# One sshd per host, for the runs of ampirun --host (start_sshds, stop_sshds).
. "$here/sshd_hosts.sh"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fail_setup() {
  say "FAIL: $*"
  exit 1
}

# ---- the network: a bridge in a namespace of its own, one veth pair per host ------------------
ip netns add "$switch_ns" || fail_setup "ip netns add $switch_ns"
ip -n "$switch_ns" link add br0 type bridge && ip -n "$switch_ns" link set br0 up ||
  fail_setup "bridge in $switch_ns"
{
  echo "127.0.0.1 localhost"
  for i in $(seq "$nhosts"); do echo "10.77.0.$i node$i"; done
} >"$T/hosts"
for i in $(seq "$nhosts"); do
  ns=$(host_ns "$i")
  ip netns add "$ns" || fail_setup "ip netns add $ns"
  ip -n "$ns" link set lo up &&
    ip -n "$ns" link add eth0 type veth peer name "port$i" &&
    ip -n "$ns" link set "port$i" netns "$switch_ns" &&
    ip -n "$switch_ns" link set "port$i" master br0 up &&
    ip -n "$ns" addr add "10.77.0.$i/24" dev eth0 &&
    ip -n "$ns" link set eth0 up || fail_setup "the link of host $i"
done

# on_host I CMD...: runs CMD as host I: in its network namespace, with its own host name (a UTS
# namespace) and, in a private mount namespace, an /etc/hosts that names every simulated host and
# a /sys of its own network namespace (so /sys/class/net shows its links) that keeps the
# machine's cgroup tree (slurmd needs it; `ip netns exec` would drop it), a TmpFS of its own
# (Slurm's PMIx plugin makes the same directory names there on every node) and a boot id of its
# own (UCX takes processes with the same /proc/sys/kernel/random/boot_id for one machine and
# would join them through shared memory and CMA).
mkdir -p "$T/cgroup" "$T/tmp"
for i in $(seq "$nhosts"); do
  mkdir -p "$T/local/node$i/tmp"
  cat /proc/sys/kernel/random/uuid >"$T/local/node$i/boot_id"
done
on_host() {
  local i=$1
  shift
  nsenter --net="/run/netns/$(host_ns "$i")" unshare --uts --mount --propagation private -- \
    sh -c 'hostname "$1" && mount --bind "$2" /etc/hosts &&
      mount --rbind /sys/fs/cgroup "$3" && mount -t sysfs sysfs /sys &&
      mount --move "$3" /sys/fs/cgroup && mount --bind "$4/tmp" "$5" &&
      mount --bind "$4/boot_id" /proc/sys/kernel/random/boot_id && shift 5 && exec "$@"' \
    sh "node$i" "$T/hosts" "$T/cgroup" "$T/local/node$i" "$T/tmp" "$@"
}

# ---- munged: private key, socket, pid, log and seed files, run as the munge user ---------------
# Its socket is a path in the file system, which every network namespace reaches.
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

# ---- slurm.conf: node1..nodeN at 10.77.0.1..N, the controller on node1 ------------------------
# The namespaces are new, so Slurm's default ports are free in them.
mkdir -p "$T/state" "$T/spool" "$T/log" "$T/run" || fail_setup "mkdir in $T"
cat >"$SLURM_CONF" <<EOF
# Private cluster of tests/multihost/multihost_test.sh: $nhosts simulated hosts.
ClusterName=ampimulti
SlurmctldHost=node1(10.77.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool/%n
TmpFS=$T/tmp
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd-%n.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-%n.log
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
# A task that dies (a crash, an exit without MPI_Finalize) ends its job step, as MPI users set
# it (srun --kill-on-bad-exit=1); without it the other hosts' tasks wait for the dead one.
KillOnBadExit=1
EOF
for i in $(seq "$nhosts"); do
  echo "NodeName=node$i NodeAddr=10.77.0.$i CPUs=8 State=UNKNOWN" >>"$SLURM_CONF"
done
echo "PartitionName=ampi Nodes=node[1-$nhosts] Default=YES MaxTime=INFINITE State=UP" >>"$SLURM_CONF"
srun --mpi=list 2>&1 | grep -qw pmix || fail_setup "srun lists no pmix MPI plugin"

# ---- slurmctld and the slurmds -----------------------------------------------------------------
setup_start=$(now_ms)
on_host 1 slurmctld </dev/null >"$T/log/slurmctld.out" 2>&1 || {
  cat "$T/log/slurmctld.out"
  fail_setup "slurmctld did not start"
}
start_slurmd() {
  mkdir -p "$T/spool/node$1"
  on_host "$1" slurmd -N "node$1" </dev/null >"$T/log/slurmd-node$1.out" 2>&1 || {
    cat "$T/log/slurmd-node$1.out"
    return 1
  }
}
# wait_idle: every node idle within 30 s; a node slurmctld marked DOWN or DRAINED (after its
# slurmd died) is resumed.
wait_idle() {
  local i states down
  idle=0
  for i in $(seq 60); do
    states=$(on_host 1 timeout 10 sinfo -h -N -o '%N %T' 2>/dev/null)
    idle=$(echo "$states" | grep -c ' idle$')
    [ "$idle" -eq "$nhosts" ] && return 0
    down=$(echo "$states" | awk '$2 ~ /^(down|drain)/ {print $1}' | paste -sd, -)
    [ -n "$down" ] && on_host 1 timeout 10 scontrol update nodename="$down" state=resume >/dev/null 2>&1
    sleep 0.5
  done
  return 1
}
for i in $(seq "$nhosts"); do
  start_slurmd "$i" || fail_setup "slurmd of node$i did not start"
done
wait_idle || fail_setup "$idle of $nhosts nodes idle after 30 s"
# Every host's link up (UCX leaves out an interface that is not yet running) and one job over
# all hosts, before the cases: CI's first case once found no TCP path between the hosts.
for i in $(seq "$nhosts"); do
  up=
  for k in $(seq 50); do
    up=$(on_host "$i" cat /sys/class/net/eth0/operstate 2>/dev/null)
    [ "$up" = up ] && break
    sleep 0.1
  done
  [ "$up" = up ] || fail_setup "the link of host $i is '$up', not up"
done
on_host 1 timeout 60 srun -N "$nhosts" -n "$nhosts" true </dev/null >/dev/null 2>&1 ||
  fail_setup "a first job over the $nhosts hosts failed"
say "cluster up in $(($(now_ms) - setup_start)) ms: $nhosts hosts node1..node$nhosts (10.77.0.1..$nhosts), $T"
# ampirun --host starts its daemons through ssh: the runs include its cases when every host's
# sshd answers (AMPI_MULTIHOST_SSH=1).
ssh_start=$(now_ms)
if start_sshds; then
  export AMPI_MULTIHOST_SSH=1
  say "sshd up on the $nhosts hosts in $(($(now_ms) - ssh_start)) ms (AMPI_RSH=$AMPI_RSH)"
else
  export AMPI_MULTIHOST_SSH=0
fi

# ---- the runs (multihost_runs.py) --------------------------------------------------------------
# On node1, as a user on a login node would: each case is a job of its own (srun), several at a
# time; one line per case. (Job steps in one allocation were tried: one step that failed badly
# ended the allocation, and every later case with it.)
# multihost_runs.py exits 3 when one of the cluster's daemons died under it (CI saw Slurm's own
# slurmd abort on a corrupted heap; its core is kept in $T/log): the dead daemons are started
# again, DOWN nodes resumed, and the runs that had not passed go again, at most twice.
export AMPI_MULTIHOST_NHOSTS=$nhosts
restart_dead_daemons() {
  local i pid
  for i in $(seq "$nhosts"); do
    pid=$(cat "$T/run/slurmd-node$i.pid" 2>/dev/null)
    if [ -z "$pid" ] || ! grep -q '^slurmd' "/proc/$pid/comm" 2>/dev/null; then
      say "slurmd of node$i had died; its last log lines:"
      tail -n 5 "$T/log/slurmd-node$i.log" | sed 's/^/| /'
      for c in "$T"/log/core*; do [ -e "$c" ] && say "core file: $(file -b "$c" 2>/dev/null)"; done
      start_slurmd "$i" || return 1
    fi
  done
  pid=$(cat "$T/run/slurmctld.pid" 2>/dev/null)
  if [ -z "$pid" ] || ! grep -q '^slurmctld' "/proc/$pid/comm" 2>/dev/null; then
    say "slurmctld had died; its last log lines:"
    tail -n 5 "$T/log/slurmctld.log" | sed 's/^/| /'
    on_host 1 slurmctld </dev/null >>"$T/log/slurmctld.out" 2>&1 || return 1
  fi
  wait_idle
}
if [ -n "${AMPI_MULTIHOST_COMMAND:-}" ]; then
  on_host 1 sh -c "$AMPI_MULTIHOST_COMMAND" </dev/null &
  wait $!
  rc=$?
else
  restarts=0
  export AMPI_MULTIHOST_DEADLINE=$(($(date +%s) + ${AMPI_MULTIHOST_BUDGET:-1100}))
  while :; do
    on_host 1 python3 "$here/multihost_runs.py" "$build" "$T" </dev/null &
    wait $!
    rc=$?
    [ "$rc" -eq 3 ] || break
    if [ "$restarts" -ge 2 ]; then
      say "FAIL: the cluster's daemons died $((restarts + 1)) times"
      rc=1
      break
    fi
    restarts=$((restarts + 1))
    restart_dead_daemons || {
      say "FAIL: could not restart the cluster's daemons"
      rc=1
      break
    }
    say "restarted the cluster's dead daemons (restart $restarts); running again what did not pass"
  done
fi

# The cluster must be idle again, with no job left.
for i in $(seq 30); do
  jobs=$(on_host 1 timeout 10 squeue -h -o %i 2>/dev/null)
  [ -n "$jobs" ] || break
  sleep 0.5
done
if [ -n "$jobs" ]; then
  echo "FAIL jobs left in the queue: $jobs"
  rc=1
fi
say "srun under Slurm $(srun --version 2>/dev/null | awk '{print $2}') across $nhosts simulated hosts, $(($(now_ms) - script_start)) ms in all"
[ "$rc" -eq 0 ]
