#!/usr/bin/env bash
# device_run3.sh — one GPU (session 18, issue 18): where the 44-50 us that Jacobi3D's exchange
# adds to the sweeps go. Jacobi3D 256^3, 8 ranks, --datatypes, over 8 PEs (copy kernel, 2 blocks)
# and as 8 MPS processes, traced by bench/cuda_trace.cpp: the GPU's work (CUDA_TRACE_GPU=1, raw
# records kept for sweeps.py) and every driver call timed (CUDA_TRACE_API=1).
# Usage: bash device_run3.sh CARRY_DIR   (CARRY_DIR/ct: libcuda_trace.so, libcupti.so.13,
# cuda_trace.py)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
J=$AMPI_BUILD/apps/jacobi3d/jacobi3d_cuda
CT=$carry/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1 np=$2 vp=$3 pes=$4; shift 4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
traced() { local label=$1 mode=$2; shift 2
  local d=/tmp/trace/$label.$mode; mkdir -p "$d"
  ( export CUDA_INJECTION64_PATH=$CT/libcuda_trace.so CUDA_TRACE_$mode=1 CUDA_TRACE_DIR=$d LD_LIBRARY_PATH=$CT:$LD_LIBRARY_PATH
    jp "$label [$mode]" "$@" )
  cp "$out/log" "$d/jacobi.log"; }
{ for mode in GPU API; do
  traced pes8 $mode 1 8 8 --datatypes
  mps_on; traced mps8 $mode 8 8 1 --datatypes; mps_off
  traced pes8nox $mode 1 8 8 --no-exchange
done; } 2>&1 | tee "$out/traced.txt"
for l in pes8 mps8 pes8nox; do
  echo "== $l API"; for f in /tmp/trace/$l.API/api.*.txt; do head -14 "$f"; done
  echo "== $l GPU"; python3 "$CT/cuda_trace.py" /tmp/trace/$l.GPU
done 2>&1 | tee "$out/trace_summary.txt"
tar -C /tmp/trace -czf "$out/trace.tgz" .
rm -f "$out/log"
echo "device_run3: done"
