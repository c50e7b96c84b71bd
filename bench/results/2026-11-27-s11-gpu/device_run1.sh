#!/usr/bin/env bash
# device_run1.sh — nvidia-h100-x2: the gpu label on the code with ampirun's accept() gate; then
# Jacobi3D 256^3, 8 ranks on two GPUs (2 processes x 4 PEs, --datatypes and face buffers) against
# 8 MPS processes, with two temporary switches of this staging build only (not committed):
# AMPI_X_NOLEGACY skips the legacy-stream synchronize before a device send to another process,
# AMPI_X_NBCOPY makes our copy streams non-blocking. Two rounds.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1; shift; local envs=$1; shift
  env $envs timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$J" -n 256 -i 300 -w 20 --gpu-aware ${4:-} > "$out/log" 2>&1
  printf '%-46s rc=%d %s\n' "$label" $? "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/.*: //' | tr '\n' ' ')"; }
{
for round in 1 2; do
  for e in "X=0" "AMPI_X_NOLEGACY=1" "AMPI_X_NBCOPY=1" "AMPI_X_NOLEGACY=1 AMPI_X_NBCOPY=1"; do
    jp "2x4 PEs datatypes [$e]" "$e" 2 8 4 --datatypes
  done
  jp "2x4 PEs face buffers" "X=0" 2 8 4
  jp "2x4 PEs face buffers [NOLEGACY]" "AMPI_X_NOLEGACY=1" 2 8 4
  mps_on; jp "8 MPS procs, face buffers" "X=0" 8 8 1; jp "8 MPS procs, face buffers [NOLEGACY]" "AMPI_X_NOLEGACY=1" 8 8 1; mps_off
done
} 2>&1 | tee "$out/jacobi2.txt"
echo "device_run1: done"
