#!/usr/bin/env bash
# device_run2.sh — one GPU: Jacobi3D 256^3, 8 ranks, one process x 8 PEs with --datatypes, with
# AMPI_GPU_POLL_GAP 0 (each pass of the progress loop asks the driver about pending events),
# 1, 3 and 10 us between such passes, against 8 MPS processes with face buffers (gap 0 and 3 us).
# Three rounds, interleaved.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1; shift; local envs=$1; shift
  env $envs timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$J" -n 256 -i 300 -w 20 --gpu-aware ${4:-} > "$out/log" 2>&1
  local rc=$?
  printf '%-40s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/.*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
{
echo "label                                    rc  time/iter ms, comm/iter ms"
for round in 1 2 3; do
  for g in 0 1000 3000 10000; do
    jp "1x8 PEs datatypes GAP=$g" "AMPI_GPU_POLL_GAP=$g" 1 8 8 --datatypes
  done
  mps_on
  jp "8 MPS procs, face buffers GAP=0" "AMPI_GPU_POLL_GAP=0" 8 8 1
  jp "8 MPS procs, face buffers GAP=3000" "AMPI_GPU_POLL_GAP=3000" 8 8 1
  mps_off
done
} 2>&1 | tee "$out/jacobi1.txt"
echo "device_run2: done"
