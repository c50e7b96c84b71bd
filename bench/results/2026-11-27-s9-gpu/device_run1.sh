#!/usr/bin/env bash
# device_run1.sh — how launches and waits scale over host threads of one CUDA context against
# processes (bench/gpu_launch_threads.cu), then Jacobi3D 256^3 with 8 ranks: 1 PE, 8 PEs, 8 MPS
# processes (the baseline of this machine for issue 18's goal).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
L=$carry/gpu_launch_threads
{
for k in 7 1; do
  echo "== K=$k kernels per iteration, no MPS"
  for how in sync event word; do
    for t in 1 2 4 8; do $L $how threads $t 3000 $k; done
    for t in 1 2 4 8; do $L $how procs $t 3000 $k; done
  done
done
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
echo "== K=7, MPS"
for how in sync event word; do
  for t in 1 2 4 8; do $L $how threads $t 3000 7; done
  for t in 1 2 4 8; do $L $how procs $t 3000 7; done
done
echo quit | nvidia-cuda-mps-control
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
} 2>&1 | tee "$out/launch.txt"
echo "== Jacobi3D"
AMPIRUN=$(command -v ampirun) JACOBI_TIMEOUT=60 timeout 200 bash "$carry/gpu_jacobi.sh" --bin "$B/apps/jacobi3d/jacobi3d_cuda" --ranks "8" --pes "8" -i 200 \
  --out "$out/jacobi.txt" 2>&1 | tail -8
echo "device_run1: done"
