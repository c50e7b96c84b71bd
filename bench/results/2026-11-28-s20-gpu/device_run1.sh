#!/usr/bin/env bash
# device_run1.sh — one GPU (session 20, issue 18): the gpu label first (session 19's
# cudaStreamSynchronize fix never ran on a GPU; new AMPI_GPU_POLL_ALONE cases); then Jacobi3D
# 256^3, 8 ranks, --datatypes over 8 PEs with a lone rank waiting inside the driver
# (AMPI_GPU_POLL_ALONE=0) or through its PE's poll of a host word (1), against 8 MPS processes,
# rounds interleaved; --verify with the new setting.
# Usage: bash device_run1.sh CARRY_DIR
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 360 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1 np=$2 vp=$3 pes=$4; shift 4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4 5 6; do
  AMPI_GPU_POLL_ALONE=0 jp "8 PEs driver wait" 1 8 8 --datatypes
  AMPI_GPU_POLL_ALONE=1 jp "8 PEs poll alone" 1 8 8 --datatypes
  mps_on; jp "8 MPS datatypes" 8 8 1 --datatypes; mps_off
done
for round in 1 2; do
  AMPI_GPU_POLL_ALONE=0 jp "8 PEs driver wait faces" 1 8 8
  AMPI_GPU_POLL_ALONE=1 jp "8 PEs poll alone faces" 1 8 8
  mps_on; jp "8 MPS faces" 8 8 1; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
for m in --datatypes ""; do
  AMPI_GPU_POLL_ALONE=1 timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware $m --verify > "$out/verify.txt" 2>&1
  echo "verify poll alone (8 PEs, 128^3, ${m:-faces}): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
done
rm -f "$out/log"
echo "device_run1: done"
