#!/usr/bin/env bash
# device_run11.sh — Jacobi3D 256^3, GPU-aware, --phases: an experiment build (not on main) that
# asks the driver about pending events only every Nth poll (EXP_POLL_EVERY), 8 and 16 ranks over
# 8 PEs, against 8 MPS processes.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
export CUDA_VISIBLE_DEVICES=0
one() { # label np vp pes [env...]
  local label=$1 np=$2 vp=$3 pes=$4; shift 4
  env "$@" timeout 60 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware --phases > "$out/log" 2>&1
  printf '%-34s rc=%d %s | %s\n' "$label" $? "$(grep -E '^Time per' "$out/log" | sed 's/.*: //')" "$(grep -E '^Phases' "$out/log" | sed 's/.*: //')"
}
for round in 1 2; do
  echo "-- round $round"
  for n in 1 8 64; do one "8 ranks, 8 PEs, every $n" 1 8 8 EXP_POLL_EVERY=$n; done
  for n in 1 8 64; do one "16 ranks, 8 PEs, every $n" 1 16 8 EXP_POLL_EVERY=$n; done
  for n in 1 16; do one "8 ranks, 1 PE, every $n" 1 8 1 EXP_POLL_EVERY=$n; done
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d
  one "8 processes, MPS" 8 8 1
  one "8 processes, MPS, every 8" 8 8 1 EXP_POLL_EVERY=8
  echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
done 2>&1 | tee "$out/phases.txt"
echo "device_run11: done"
