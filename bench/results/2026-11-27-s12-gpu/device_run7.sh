#!/usr/bin/env bash
# device_run7.sh — one GPU, the merged code (peer access, layouts between processes, issue 17's
# spin for a rank waiting alone on its PE): the gpu label; Jacobi3D 256^3, 8 ranks, 1 process x
# 8 PEs against 8 MPS processes, face buffers and --datatypes each, three rounds interleaved.
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
jp() { local label=$1; shift
  timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$J" -n 256 -i 300 -w 20 --gpu-aware ${4:-} > "$out/log" 2>&1
  local rc=$?
  printf '%-36s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/.*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
{
echo "label                                rc  time/iter ms, comm/iter ms"
for round in 1 2 3; do
  jp "1x8 PEs face" 1 8 8
  jp "1x8 PEs datatypes" 1 8 8 --datatypes
  mps_on; jp "8 MPS procs face" 8 8 1; jp "8 MPS procs datatypes" 8 8 1 --datatypes; mps_off
done
} 2>&1 | tee "$out/jacobi1.txt"
echo "device_run7: done"
