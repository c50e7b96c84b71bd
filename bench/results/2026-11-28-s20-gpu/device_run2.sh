#!/usr/bin/env bash
# device_run2.sh — one GPU (session 20, issue 18): what a lone rank's wait for its sweep costs the
# other PEs' launches. Jacobi3D 256^3, 8 ranks, --datatypes over 8 PEs: the default (the wait
# inside the driver, scheduling auto = spin), the wait through the PE's poll with events
# (AMPI_GPU_POLL_ALONE=1 AMPI_GPU_COMPLETION_WORDS=0: no cuStreamWriteValue32), and an experiment
# build's context scheduling flags set by cuCtxSetFlags (AMPI_EXP_SCHED 2 yield, 4 blocking
# sync), against 8 MPS processes; five rounds interleaved.
# Usage: bash device_run2.sh CARRY_DIR
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
  printf '%-34s rc=%d %s %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')" "$(grep -m1 experiment "$out/log")"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4 5; do
  jp "8 PEs driver wait" 1 8 8 --datatypes
  AMPI_GPU_POLL_ALONE=1 AMPI_GPU_COMPLETION_WORDS=0 jp "8 PEs poll alone, events" 1 8 8 --datatypes
  AMPI_EXP_SCHED=2 jp "8 PEs sched yield" 1 8 8 --datatypes
  AMPI_EXP_SCHED=4 jp "8 PEs sched blocking" 1 8 8 --datatypes
  AMPI_EXP_SCHED=1 jp "8 PEs sched spin" 1 8 8 --datatypes
  mps_on; jp "8 MPS datatypes" 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
rm -f "$out/log"
echo "device_run2: done"
