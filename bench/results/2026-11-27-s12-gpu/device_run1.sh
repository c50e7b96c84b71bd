#!/usr/bin/env bash
# device_run1.sh — nvidia-h100-x2 (two GPUs, NVLink): the gpu label with peer access for
# strided copies between the GPUs of one process (DevPtrCache::reachable); then Jacobi3D 256^3,
# 8 ranks over two GPUs, three rounds: one process x 8 PEs with --datatypes (peer access on and
# AMPI_GPU_PEER_ACCESS=0), one process x 8 PEs with face buffers, 2 processes x 4 PEs with
# --datatypes, against 8 MPS processes with face buffers (the issue's peer).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
nvidia-smi topo -m | head -4
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
grep -E "two_gpus" "$out/ctest.txt" | head
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1; shift; local envs=$1; shift
  env $envs timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$J" -n 256 -i 300 -w 20 --gpu-aware ${4:-} > "$out/log" 2>&1
  local rc=$?
  printf '%-44s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/.*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
{
echo "label                                        rc  time/iter ms, comm/iter ms"
for round in 1 2 3; do
  jp "1x8 PEs datatypes (peer access)" "X=0" 1 8 8 --datatypes
  jp "1x8 PEs datatypes AMPI_GPU_PEER_ACCESS=0" "AMPI_GPU_PEER_ACCESS=0" 1 8 8 --datatypes
  jp "1x8 PEs face buffers" "X=0" 1 8 8
  jp "2x4 PEs datatypes" "X=0" 2 8 4 --datatypes
  mps_on; jp "8 MPS procs, face buffers" "X=0" 8 8 1; mps_off
done
} 2>&1 | tee "$out/jacobi2.txt"
echo "device_run1: done"
