#!/usr/bin/env bash
# device_run1.sh — one GPU (session 18, issue 18): the copy kernel with several blocks
# (AMPI_GPU_COPY_KERNEL_BLOCKS) and Jacobi3D's floor (--no-exchange).
#  1. the gpu label (correctness; gpu_copy_kernel's new blocks3 and blocks4.idle1 layouts);
#  2. gpu_halo's y face (256 rows of 2 KiB, 512 KiB) and its contiguous twin between two PEs,
#     kernel bound 1 MiB, with 1, 2, 4 and 8 blocks, and launched (kernel off);
#  3. Jacobi3D 256^3, 8 ranks, ms per iteration, three rounds interleaved: --datatypes over 8 PEs
#     with 1, 2, 4, 8 blocks; face buffers over 8 PEs with 1 and 4 blocks; 8 MPS processes in
#     both modes; --no-exchange (the sweeps alone) over 8 PEs and 8 MPS processes; 1 rank;
#  4. Jacobi3D 128^3 --datatypes --verify over 8 PEs with 4 blocks.
# Usage: bash device_run1.sh CARRY_DIR   (CARRY_DIR staged by bench/results/2026-11-26-gpu3/stage.sh
# plus gpu_halo)
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
echo "== gpu_halo y face, 2 PEs of one process (kernel bound 1 MiB)"
{ for v in "1M 1" "1M 2" "1M 4" "1M 8" "0 1"; do
  set -- $v
  echo "-- AMPI_GPU_COPY_KERNEL=$1 AMPI_GPU_COPY_KERNEL_BLOCKS=$2"
  AMPI_GPU_COPY_KERNEL=$1 AMPI_GPU_COPY_KERNEL_BLOCKS=$2 timeout 60 ampirun -np 1 --vp 2 --pes-per-process 2 "$carry/gpu_halo" y 2>&1 | tail -4
done; } 2>&1 | tee "$out/halo.txt"
# jp LABEL BLOCKS NP VP PES [ARGS...]
jp() { local label=$1 k=$2 np=$3 vp=$4 pes=$5; shift 5
  AMPI_GPU_COPY_KERNEL_BLOCKS=$k timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-40s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3; do
  for k in 1 2 4 8; do jp "1x8 PEs datatypes, blocks $k" $k 1 8 8 --datatypes; done
  jp "1x8 PEs faces, blocks 1" 1 1 8 8
  jp "1x8 PEs faces, blocks 4" 4 1 8 8
  jp "1x8 PEs no-exchange" 1 1 8 8 --no-exchange
  jp "1 rank" 1 1 1 1
  mps_on
  jp "8 MPS datatypes" 1 8 8 1 --datatypes
  jp "8 MPS faces" 1 8 8 1
  jp "8 MPS no-exchange" 1 8 8 1 --no-exchange
  mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
AMPI_GPU_COPY_KERNEL_BLOCKS=4 timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --datatypes --verify > "$out/verify.txt" 2>&1
echo "verify (blocks 4, 128^3, --datatypes): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -2)"
AMPI_GPU_COPY_KERNEL_BLOCKS=4 timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --verify > "$out/verify2.txt" 2>&1
echo "verify (blocks 4, 128^3, faces): rc=$? $(grep -iE 'error|verif' "$out/verify2.txt" | tail -2)"
rm -f "$out/log"
echo "device_run1: done"
