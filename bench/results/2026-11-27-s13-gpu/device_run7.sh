#!/usr/bin/env bash
# device_run7.sh — one GPU: why a device ping-pong between two processes takes ~150 us one way
# (run4, run5): the same with ampirun's private MPS daemon (--mps on) against without (--mps off),
# and with host buffers for reference; two rounds.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
PP=$AMPI_BUILD/tests/gpu/gpu_pingpong
nvidia-smi --query-gpu=name --format=csv,noheader
{ for round in 1 2; do
  for m in off on; do
    echo "-- 2 processes, --mps $m"
    timeout 60 ampirun -np 2 --mps $m "$PP" direct 8 1024 131072 1048576 2>&1 | grep -E "^direct|rror"
  done
  echo "-- 2 processes, --mps off, staging through pinned host memory"
  timeout 60 ampirun -np 2 --mps off "$PP" staging 8 1024 131072 2>&1 | grep -E "^staging|rror"
done; } 2>&1 | tee "$out/pingpong.txt"
echo "device_run7: done"
