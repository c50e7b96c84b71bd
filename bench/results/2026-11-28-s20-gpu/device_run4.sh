#!/usr/bin/env bash
# device_run4.sh — one GPU (session 20, issue 18): a yielding wait that ended without error no
# longer calls the runtime's synchronize (it took 4.5-6.5 us on a finished stream, run3). The gpu
# label; then Jacobi3D 256^3 --datatypes, four rounds interleaved: 8 ranks over 8 PEs (default:
# lone ranks wait in the driver), over 8 PEs with AMPI_GPU_POLL_ALONE=1, over 4 PEs (two a PE) and
# 16 ranks over 8 PEs, each with the skip and with the real call kept (AMPI_EXP_REALSYNC=1, an
# experiment switch of this build), against 8 MPS processes.
# Usage: bash device_run4.sh CARRY_DIR
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 360 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
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
echo "== Jacobi3D 256^3: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4; do
  jp "8/8 PEs driver" 1 8 8 --datatypes
  AMPI_GPU_POLL_ALONE=1 jp "8/8 PEs poll, skip" 1 8 8 --datatypes
  AMPI_GPU_POLL_ALONE=1 AMPI_EXP_REALSYNC=1 jp "8/8 PEs poll, real" 1 8 8 --datatypes
  jp "8/4 PEs skip" 1 8 4 --datatypes
  AMPI_EXP_REALSYNC=1 jp "8/4 PEs real" 1 8 4 --datatypes
  jp "16/8 PEs skip" 1 16 8 --datatypes
  AMPI_EXP_REALSYNC=1 jp "16/8 PEs real" 1 16 8 --datatypes
  mps_on; jp "8 MPS" 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
for m in --datatypes ""; do
  timeout 90 ampirun -np 1 --vp 16 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware $m --verify > "$out/verify.txt" 2>&1
  echo "verify (16 ranks / 8 PEs, 128^3, ${m:-faces}): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
done
rm -f "$out/log"
echo "device_run4: done"
