#!/usr/bin/env bash
# device_run12.sh — Jacobi3D's halo exchange alone (bench/gpu_exchange.c, 8 ranks, 3 neighbours,
# 128 KiB device faces), with and without a busy GPU: one process over 8 PEs (and 1 PE) against
# 8 processes under MPS, two rounds.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
X=$carry/gpu_exchange
export CUDA_VISIBLE_DEVICES=0
one() { # label np vp pes args
  local label=$1 np=$2 vp=$3 pes=$4; shift 4
  printf '%-26s ' "$label"
  timeout 60 ampirun -np $np --vp $vp --pes-per-process $pes "$X" "$@" 2>&1 | tail -1
}
for round in 1 2; do
  for k in 0 50; do
    one "8 ranks, 8 PEs" 1 8 8 -k $k
    one "8 ranks, 1 PE" 1 8 1 -k $k -i 500
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
    mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d
    one "8 processes, MPS" 8 8 1 -k $k
    echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  done
done 2>&1 | tee "$out/exchange.txt"
echo "device_run12: done"
