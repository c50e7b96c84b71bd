#!/usr/bin/env bash
# device_run2.sh — two H200s (nvidia-h200-x2), session 18, issue 18: the copy kernel's blocks with
# the default now 2.
#  1. the gpu label with both GPUs (the two-GPU tests run: the kernel pulls from the peer GPU);
#  2. Jacobi3D 256^3, 8 ranks on GPU 0 alone (CUDA_VISIBLE_DEVICES=0), five rounds interleaved:
#     --datatypes over 8 PEs with 1 and 2 blocks, 8 MPS processes, --no-exchange over 8 PEs;
#  3. Jacobi3D 256^3, 8 ranks over both GPUs, three rounds: --datatypes and face buffers over
#     8 PEs with 1 and 2 blocks, 8 MPS processes.
# Usage: bash device_run2.sh CARRY_DIR
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 330 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
# jp LABEL BLOCKS NP VP PES [ARGS...]
jp() { local label=$1 k=$2 np=$3 vp=$4 pes=$5; shift 5
  AMPI_GPU_COPY_KERNEL_BLOCKS=$k timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-40s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks, GPU 0 only: time/iter ms, comm/iter ms"
{ export CUDA_VISIBLE_DEVICES=0
  for round in 1 2 3 4 5; do
  jp "1x8 PEs datatypes, blocks 1" 1 1 8 8 --datatypes
  jp "1x8 PEs datatypes, blocks 2" 2 1 8 8 --datatypes
  jp "1x8 PEs no-exchange" 2 1 8 8 --no-exchange
  mps_on; jp "8 MPS datatypes" 2 8 8 1 --datatypes; mps_off
done; unset CUDA_VISIBLE_DEVICES; } 2>&1 | tee "$out/jacobi1.txt"
echo "== Jacobi3D 256^3, 8 ranks over 2 GPUs"
{ for round in 1 2 3; do
  jp "1x8 PEs datatypes, blocks 1" 1 1 8 8 --datatypes
  jp "1x8 PEs datatypes, blocks 2" 2 1 8 8 --datatypes
  jp "1x8 PEs faces, blocks 1" 1 1 8 8
  jp "1x8 PEs faces, blocks 2" 2 1 8 8
  mps_on; jp "8 MPS datatypes" 2 8 8 1 --datatypes; jp "8 MPS faces" 2 8 8 1; mps_off
done; } 2>&1 | tee "$out/jacobi2.txt"
timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --datatypes --verify > "$out/verify.txt" 2>&1
echo "verify (default blocks, 2 GPUs, 128^3, --datatypes): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -2)"
rm -f "$out/log"
echo "device_run2: done"
