# tests/multihost/sshd_hosts.sh — sourced by multihost_test.sh: one OpenSSH server per simulated
# host, for `ampirun --host` (which starts its daemons through ssh). Each sshd runs as that host
# (on_host: its network, UTS and mount namespaces), listens on the host's address only, has a
# host key of its own and lets root in with the test's key only (no password, no PAM); the
# client's configuration (the key, the known host keys, BatchMode) is a file of the temp dir that
# AMPI_RSH names. Nothing outside $T is written but /run/sshd, the privilege separation directory
# sshd requires (empty, as Debian's package makes it).
# Needs: T, nhosts, on_host, say, stop (from multihost_test.sh). Sets AMPI_RSH and exports it.
# start_sshds returns 1 (with the reason said) when sshd or ssh-keygen is missing and apt-get
# cannot install openssh-server; the ampirun cases are then left out.

start_sshds() {
  local S=$T/ssh i log up
  if ! command -v ssh-keygen >/dev/null 2>&1 || [ ! -x /usr/sbin/sshd ] ||
    ! command -v ssh >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || { say "no sshd and no apt-get: ampirun cases left out"; return 1; }
    say "installing openssh-server openssh-client with apt-get"
    log=$T/log/apt-ssh.log
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server openssh-client \
      >"$log" 2>&1; then
      tail -n 5 "$log"
      say "apt-get could not install openssh-server: ampirun cases left out"
      return 1
    fi
  fi
  mkdir -p "$S" /run/sshd && chmod 700 "$S" || return 1
  ssh-keygen -q -t ed25519 -N '' -C ampi-multihost -f "$S/client" || return 1
  cp "$S/client.pub" "$S/authorized_keys"
  : >"$S/known_hosts"
  for i in $(seq "$nhosts"); do
    ssh-keygen -q -t ed25519 -N '' -C "node$i" -f "$S/host_node$i" || return 1
    echo "node$i,10.77.0.$i $(cut -d' ' -f1,2 "$S/host_node$i.pub")" >>"$S/known_hosts"
  done
  cat >"$S/sshd_config" <<EOF
# tests/multihost: the sshd of every simulated host (its address, key and pid file on the command line)
AuthorizedKeysFile $S/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitUserEnvironment no
X11Forwarding no
AllowTcpForwarding no
PrintMotd no
MaxStartups 64:30:128
MaxSessions 64
LogLevel ERROR
EOF
  cat >"$S/ssh_config" <<EOF
# tests/multihost: ssh from one simulated host to another, for AMPI_RSH
Host *
  User root
  IdentityFile $S/client
  IdentitiesOnly yes
  UserKnownHostsFile $S/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
EOF
  for i in $(seq "$nhosts"); do
    on_host "$i" /usr/sbin/sshd -f "$S/sshd_config" -o "ListenAddress=10.77.0.$i" \
      -o "HostKey=$S/host_node$i" -o "PidFile=$T/run/sshd-node$i.pid" \
      -E "$T/log/sshd-node$i.log" </dev/null || { say "sshd of node$i did not start"; return 1; }
  done
  export AMPI_RSH="ssh -F $S/ssh_config"
  # Every host reaches every other one (the first login also proves the keys).
  for i in $(seq "$nhosts"); do
    up=
    for k in $(seq 50); do
      up=$(on_host 1 timeout 10 $AMPI_RSH "node$i" hostname 2>/dev/null)
      [ "$up" = "node$i" ] && break
      sleep 0.1
    done
    [ "$up" = "node$i" ] || { say "ssh from node1 to node$i fails"; return 1; }
  done
  return 0
}

stop_sshds() {
  local i
  for i in $(seq "$nhosts"); do stop "$T/run/sshd-node$i.pid:sshd"; done
}
