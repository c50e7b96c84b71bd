#!/usr/bin/env bash
# device_run6.sh — two H200s (session 20, issue 18): the committed build (copy streams at the
# greatest priority by default, AMPI_GPU_COPY_PRIORITY; yielding waits without the runtime's
# synchronize). The gpu label, two-GPU tests included; Jacobi3D 256^3 --datatypes, 8 ranks: on
# GPU 0 alone and over both GPUs, 8 PEs of one process against 8 MPS processes with and without
# the priority, three rounds each, interleaved.
# Usage: bash device_run6.sh CARRY_DIR
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 400 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
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
rounds() { for round in 1 2 3; do
  jp "8 PEs" 1 8 8 --datatypes
  AMPI_GPU_COPY_PRIORITY=0 jp "8 PEs prio 0" 1 8 8 --datatypes
  mps_on; jp "8 MPS" 8 8 1 --datatypes
  AMPI_GPU_COPY_PRIORITY=0 jp "8 MPS prio 0" 8 8 1 --datatypes; mps_off
done; }
echo "== Jacobi3D 256^3, 8 ranks on GPU 0: time/iter ms, comm/iter ms"
( export CUDA_VISIBLE_DEVICES=0; rounds ) 2>&1 | tee "$out/jacobi1.txt"
echo "== Jacobi3D 256^3, 8 ranks over 2 GPUs"
rounds 2>&1 | tee "$out/jacobi2.txt"
timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --datatypes --verify > "$out/verify.txt" 2>&1
echo "verify (8 PEs, 2 GPUs, 128^3, --datatypes): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
rm -f "$out/log"
echo "device_run6: done"
