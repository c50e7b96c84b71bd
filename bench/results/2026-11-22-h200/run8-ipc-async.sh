#!/bin/bash
# nvidia-h200-x2: which IPC messages to copy asynchronously (AMPI_GPU_IPC_ASYNC): latency and
# streaming bandwidth for two processes on one GPU (MPS) and on two GPUs.
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
pp=$AMPI_BUILD/tests/gpu/gpu_pingpong
sizes="8 16384 65536 262144 4194304"
m=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$m/p CUDA_MPS_LOG_DIRECTORY=$m/l; mkdir -p $m/p $m/l
nvidia-cuda-mps-control -d </dev/null >/dev/null 2>&1
for dev in 0 0,1; do
  for a in 0 16384 65536 262144; do
    for mode in direct stream; do
      echo "== GPUs $dev async>=$a $mode"
      CUDA_VISIBLE_DEVICES=$dev AMPI_GPU_IPC_ASYNC=$a timeout 60 ampirun -np 2 --vp 2 --mps off --timeout 50 $pp $mode $sizes 2>&1 | grep -E "^$mode|rror"
    done
  done
done
echo quit | nvidia-cuda-mps-control
