#!/bin/sh
# tests/tools/local_rsh.sh HOST COMMAND — stands for ssh in the tests of ampirun --host (AMPI_RSH):
# runs COMMAND on this machine, as ssh would on HOST, with SSH_CONNECTION naming loopback as the
# client's address (the daemon connects back to the head there). tests/multihost runs the same
# jobs through real sshds between simulated hosts.
[ $# -eq 2 ] || { echo "usage: $0 HOST COMMAND" >&2; exit 255; }
SSH_CONNECTION="127.0.0.1 0 127.0.0.1 22" exec sh -c "$2"
