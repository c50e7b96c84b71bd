#!/usr/bin/env bash
# device_run5.sh — two GPUs of one host (asked of nvidia-h100-x2): the copy kernel also pulls from
# the other GPU's memory where peer access lets its context reach it (ranks of one process on two
# GPUs: the faces between the GPUs went to the copy engines, contiguous, or to launched kernels,
# strided). The gpu label (two-GPU tests included); Jacobi3D 256^3, 8 ranks over both GPUs,
# 1 process x 8 PEs, face buffers and --datatypes, copy kernel on and off, against 8 MPS
# processes in both modes, three rounds interleaved.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvidia-smi topo -m 2>/dev/null | head -4
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1 k=$2 np=$3 vp=$4 pes=$5; shift 5
  AMPI_GPU_COPY_KERNEL=$k timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-40s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm|^Verif|error' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks over two GPUs: time/iter ms, comm/iter ms"
{ for mode in "" --datatypes; do # checked against the serial computation (a small grid)
    AMPI_GPU_COPY_KERNEL=256K timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 40 -w 2 --gpu-aware --verify $mode 2>&1 | grep -E "^Verification|^ok" | tr '\n' ' '; echo " [$mode]"
  done
  for round in 1 2 3; do
  jp "1x8 PEs face, kernel" 256K 1 8 8
  jp "1x8 PEs face, kernel off" 0 1 8 8
  jp "1x8 PEs datatypes, kernel" 256K 1 8 8 --datatypes
  jp "1x8 PEs datatypes, kernel off" 0 1 8 8 --datatypes
  mps_on; jp "8 MPS face" 256K 8 8 1; jp "8 MPS datatypes" 256K 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
rm -f "$out/log"
echo "device_run5: done"
