#!/usr/bin/env bash
# device_run5.sh — two H200s (session 19, issue 18): the committed build (host words) where the
# gpu label's two-GPU tests run (peer copies whose end a word tells); Jacobi3D 256^3, 8 ranks,
# --datatypes over both GPUs: 8 PEs with words and with events (AMPI_GPU_COMPLETION_WORDS=0)
# against 8 MPS processes, four rounds interleaved; --verify over both GPUs.
# Usage: bash device_run5.sh CARRY_DIR
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
jp() { local label=$1 np=$2 vp=$3 pes=$4; shift 4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks over 2 GPUs: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4; do
  jp "8 PEs words" 1 8 8 --datatypes
  AMPI_GPU_COMPLETION_WORDS=0 jp "8 PEs events" 1 8 8 --datatypes
  mps_on; jp "8 MPS datatypes" 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/jacobi2.txt"
timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --datatypes --verify > "$out/verify.txt" 2>&1
echo "verify (8 PEs, 2 GPUs, 128^3, --datatypes): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
rm -f "$out/log"
echo "device_run5: done"
