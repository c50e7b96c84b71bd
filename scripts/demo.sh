#!/bin/sh
# scripts/demo.sh — the README's first command: installs what is needed, builds, and runs the
# demo ring with 8 virtual ranks in one process, then the ping-pong latency between two ranks.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh build
build/bin/ampirun -np 1 --vp 8 build/examples/ring 100
build/bin/ampirun -np 1 --vp 2 build/bench/pingpong 8 1048576 5
