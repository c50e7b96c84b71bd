#!/usr/bin/env bash
# device_run5.sh — one GPU (session 20, issue 18): our copy streams at the context's greatest
# priority (an experiment switch of this build, AMPI_EXP_PRIO=1), so that a face's copy kernel is
# dispatched ahead of the sweeps' blocks already queued. Jacobi3D 256^3 --datatypes, four rounds
# interleaved: 8 ranks over 8 PEs, 16 over 8 PEs, 8 MPS processes, each with and without.
# Usage: bash device_run5.sh CARRY_DIR
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
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
echo "== gpu_halo x (65536 rows of 8 B), 2 PEs"
for p in "" 1 "" 1; do printf 'prio=%s ' "${p:-0}"; AMPI_EXP_PRIO=$p timeout 60 ampirun -np 1 --vp 2 --pes-per-process 2 "$carry/gpu_halo" x 2>&1 | grep '^bench'; done | tee "$out/halo.txt"
echo "== Jacobi3D 256^3: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4; do
  jp "8/8 PEs" 1 8 8 --datatypes
  AMPI_EXP_PRIO=1 jp "8/8 PEs prio" 1 8 8 --datatypes
  jp "16/8 PEs" 1 16 8 --datatypes
  AMPI_EXP_PRIO=1 jp "16/8 PEs prio" 1 16 8 --datatypes
  mps_on; jp "8 MPS" 8 8 1 --datatypes
  AMPI_EXP_PRIO=1 jp "8 MPS prio" 8 8 1 --datatypes; mps_off
done
jp "8/8 PEs faces" 1 8 8
AMPI_EXP_PRIO=1 jp "8/8 PEs faces prio" 1 8 8; } 2>&1 | tee "$out/jacobi.txt"
AMPI_EXP_PRIO=1 timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --datatypes --verify > "$out/verify.txt" 2>&1
echo "verify prio (8 PEs, 128^3): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
rm -f "$out/log"
echo "device_run5: done"
