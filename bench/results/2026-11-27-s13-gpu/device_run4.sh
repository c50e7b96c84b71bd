#!/usr/bin/env bash
# device_run4.sh — one GPU, the final code: the gpu label; Jacobi3D 256^3, 8 ranks, the copy
# kernel with its default idle time (200 us), with 1000 us, and off, face buffers and
# --datatypes, against 8 MPS processes, three rounds interleaved; device ping-pong latency
# (tests/gpu/gpu_pingpong direct) between two processes (CUDA IPC) and two PEs of one process,
# copy kernel on and off.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
PP=$B/tests/gpu/gpu_pingpong
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
# jp LABEL KERNEL_BYTES IDLE_US NP VP PES [ARGS...]
jp() { local label=$1 k=$2 idle=$3 np=$4 vp=$5 pes=$6; shift 6
  AMPI_GPU_COPY_KERNEL=$k AMPI_GPU_COPY_KERNEL_IDLE=$idle timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-44s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm|^Phases' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms [phases]"
{ for round in 1 2 3; do
  jp "1x8 PEs face, kernel idle 200" 256K 200 1 8 8 --phases
  jp "1x8 PEs face, kernel idle 1000" 256K 1000 1 8 8 --phases
  jp "1x8 PEs face, kernel off" 0 200 1 8 8 --phases
  jp "1x8 PEs datatypes, kernel idle 200" 256K 200 1 8 8 --datatypes
  mps_on
  jp "8 MPS face, kernel idle 200" 256K 200 8 8 1 --phases
  jp "8 MPS face, kernel off" 0 200 8 8 1 --phases
  jp "8 MPS datatypes, kernel idle 200" 256K 200 8 8 1 --datatypes
  mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
echo "== device ping-pong: mode bytes one-way-us GB/s"
{ for round in 1 2; do
  for k in 256K 0; do
    echo "-- 2 processes (CUDA IPC), kernel=$k"
    AMPI_GPU_COPY_KERNEL=$k timeout 60 ampirun -np 2 "$PP" direct 8 1024 16384 131072 262144 1048576 2>&1 | grep "^direct"
    echo "-- 1 process, 2 PEs, kernel=$k"
    AMPI_GPU_COPY_KERNEL=$k timeout 60 ampirun -np 1 --vp 2 --pes-per-process 2 "$PP" direct 8 1024 16384 131072 262144 1048576 2>&1 | grep "^direct"
  done
done; } 2>&1 | tee "$out/pingpong.txt"
rm -f "$out/log"
echo "device_run4: done"
