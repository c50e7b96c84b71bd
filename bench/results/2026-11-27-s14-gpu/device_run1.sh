#!/usr/bin/env bash
# device_run1.sh — one GPU: strided copies between ranks of one process through the PE's copy
# kernel (one descriptor per segment) instead of a launched kernel each. The gpu label (with
# gpu_copy_kernel's new strided cases); Jacobi3D 256^3, 8 ranks, --datatypes over 8 PEs with the
# copy kernel (default 256K) and without (AMPI_GPU_COPY_KERNEL=0: launched strided kernels, as
# before), face buffers over 8 PEs, against 8 MPS processes in both modes, three rounds
# interleaved; bench/gpu_halo (a 256^3 face as a vector type against the same bytes contiguous)
# between two PEs of one process, with the kernel taking up to 1 MiB (its 512 KiB faces) and off.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
# jp LABEL KERNEL_BYTES NP VP PES [ARGS...]
jp() { local label=$1 k=$2 np=$3 vp=$4 pes=$5; shift 5
  AMPI_GPU_COPY_KERNEL=$k timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-40s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3; do
  jp "1x8 PEs datatypes, kernel" 256K 1 8 8 --datatypes
  jp "1x8 PEs datatypes, kernel off" 0 1 8 8 --datatypes
  jp "1x8 PEs face, kernel" 256K 1 8 8
  mps_on
  jp "8 MPS datatypes" 256K 8 8 1 --datatypes
  jp "8 MPS face" 256K 8 8 1
  mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
echo "== gpu_halo, 2 PEs of one process"
{ for k in 1M 0; do
  echo "-- AMPI_GPU_COPY_KERNEL=$k"
  AMPI_GPU_COPY_KERNEL=$k timeout 60 ampirun -np 1 --vp 2 --pes-per-process 2 "$carry/gpu_halo" 2>&1 | tail -8
done; } 2>&1 | tee "$out/halo.txt"
rm -f "$out/log"
echo "device_run1: done"
