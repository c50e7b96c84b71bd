#!/bin/sh
# scripts/deps.sh — installs the Debian 12 packages ampi needs to build and test (needs root or
# sudo). Safe to re-run. python3 runs the include-layering check (scripts/check_layers.py) and
# clang-format the formatting check (scripts/check_format.sh), both part of scripts/test.sh.
# slurm-wlm, munge and openssh-server/-client: tests/multihost (srun, and ampirun --host through
# one sshd per simulated host).
set -eu
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
PKGS="valgrind cmake ninja-build g++ gcc gfortran make pkg-config binutils libboost-context-dev libgtest-dev googletest libucx-dev libpmix-dev libhwloc-dev slurm-wlm munge openssh-server openssh-client python3 clang-format"
missing=
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
