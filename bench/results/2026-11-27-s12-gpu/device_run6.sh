#!/usr/bin/env bash
# device_run6.sh — one GPU: does a rank alone on its PE gain from waiting for the GPU by yielding
# (the PE drives progress meanwhile) rather than in the CUDA runtime's own blocking call?
# Experiment switch of this staging build only (AMPI_X_YIELD1=1). Jacobi3D 256^3, 8 ranks: 1
# process x 8 PEs and 8 MPS processes, face buffers and --datatypes, with and without; 2 rounds.
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
for round in 1 2; do
  for m in "face:" "datatypes:--datatypes"; do
    for y in 0 1; do jp "1x8 PEs ${m%%:*} YIELD1=$y" "AMPI_X_YIELD1=$y" 1 8 8 ${m#*:}; done
    mps_on
    for y in 0 1; do jp "8 MPS procs ${m%%:*} YIELD1=$y" "AMPI_X_YIELD1=$y" 8 8 1 ${m#*:}; done
    mps_off
  done
done
} 2>&1 | tee "$out/jacobi1.txt"
echo "device_run6: done"
