#!/usr/bin/env bash
# device_run4.sh — one GPU, the code of run2, more rounds: Jacobi3D 256^3, 8 ranks, --datatypes
# over 8 PEs and over 2 PEs (4 ranks each) with the copy kernel and without, against 8 MPS
# processes with --datatypes and with face buffers, five rounds interleaved.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1 k=$2 np=$3 vp=$4 pes=$5; shift 5
  AMPI_GPU_COPY_KERNEL=$k timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-40s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4 5; do
  jp "1x8 PEs datatypes, kernel" 256K 1 8 8 --datatypes
  jp "1x8 PEs datatypes, kernel off" 0 1 8 8 --datatypes
  jp "1x2 PEs datatypes, kernel" 256K 1 8 2 --datatypes
  jp "1x2 PEs datatypes, kernel off" 0 1 8 2 --datatypes
  mps_on; jp "8 MPS datatypes" 256K 8 8 1 --datatypes; jp "8 MPS face" 256K 8 8 1; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
rm -f "$out/log"
echo "device_run4: done"
