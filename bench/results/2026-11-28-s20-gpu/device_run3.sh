#!/usr/bin/env bash
# device_run3.sh — one GPU (session 20, issue 18): which driver calls a lone rank's wait through
# its PE makes. Jacobi3D 256^3, 8 ranks over 8 PEs, --datatypes, traced (driver API calls,
# bench/cuda_trace.cpp) with the wait in the driver (default) and through the PE's poll
# (AMPI_GPU_POLL_ALONE=1); then 8 ranks over 4 PEs (two a PE: every wait through the PE) against
# 8 over 8, three rounds.
# Usage: bash device_run3.sh CARRY_DIR   (CARRY_DIR/ct: libcuda_trace.so, libcupti.so.13,
# cuda_trace.py)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
CT=$carry/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
jp() { local label=$1 np=$2 vp=$3 pes=$4; shift 4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
traced() { local label=$1 mode=$2; shift 2
  local d=/tmp/trace/$label.$mode; mkdir -p "$d"
  ( export CUDA_INJECTION64_PATH=$CT/libcuda_trace.so CUDA_TRACE_$mode=1 CUDA_TRACE_DIR=$d LD_LIBRARY_PATH=$CT:$LD_LIBRARY_PATH
    jp "$label [$mode]" "$@" ); cp "$out/log" "$d/jacobi.log"; }
{ AMPI_GPU_POLL_ALONE=0 traced driver API 1 8 8 --datatypes
  AMPI_GPU_POLL_ALONE=1 traced poll API 1 8 8 --datatypes
  AMPI_GPU_POLL_ALONE=0 traced driver GPU 1 8 8 --datatypes
  AMPI_GPU_POLL_ALONE=1 traced poll GPU 1 8 8 --datatypes
  AMPI_GPU_POLL_ALONE=1 AMPI_GPU_COMPLETION_WORDS=0 traced pollev API 1 8 8 --datatypes
} 2>&1 | tee "$out/traced.txt"
for l in driver poll; do echo "== $l GPU"; python3 $CT/cuda_trace.py /tmp/trace/$l.GPU; done > "$out/trace_summary.txt" 2>&1
for l in driver poll pollev; do echo "== $l API"; head -24 /tmp/trace/$l.API/api.*.txt; done >> "$out/trace_summary.txt" 2>&1
( cd /tmp/trace && tar czf "$out/trace.tgz" . )
echo "== 8 ranks over 8 PEs and over 4 PEs (two a PE)"
{ for round in 1 2 3; do
  jp "8 PEs" 1 8 8 --datatypes
  jp "4 PEs (2 ranks a PE)" 1 8 4 --datatypes
  jp "16 ranks, 8 PEs" 1 16 8 --datatypes
done; } 2>&1 | tee "$out/jacobi.txt"
rm -f "$out/log"
echo "device_run3: done"
