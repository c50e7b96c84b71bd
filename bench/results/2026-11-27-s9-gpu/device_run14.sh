#!/usr/bin/env bash
# device_run14.sh — after copies between PEs of a process stop calling the driver per message
# (a local reference instead of describe, completion words instead of events): the halo
# exchange alone, Jacobi3D --phases (8 PEs against 8 MPS processes), the --enqueue set, the gpu
# label.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
X=$carry/gpu_exchange
nvidia-smi --query-gpu=name --format=csv,noheader
export CUDA_VISIBLE_DEVICES=0
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
ex() { printf '%-22s ' "$1"; shift; timeout 60 ampirun "$@" 2>&1 | tail -1; }
jp() { # label np vp pes
  timeout 60 ampirun -np $2 --vp $3 --pes-per-process $4 "$J" -n 256 -i 300 -w 20 --gpu-aware --phases > "$out/log" 2>&1
  printf '%-22s rc=%d %s | %s\n' "$1" $? "$(grep -E '^Time per' "$out/log" | sed 's/.*: //')" "$(grep -E '^Phases' "$out/log" | sed 's/.*: //')"; }
{
for round in 1 2; do
  for k in 0 50; do
    ex "8 PEs, k=$k" -np 1 --vp 8 --pes-per-process 8 "$X" -k $k
    mps_on; ex "8 MPS procs, k=$k" -np 8 --vp 8 "$X" -k $k; mps_off
  done
  jp "jacobi 8 PEs" 1 8 8
  jp "jacobi 16 ranks 8 PEs" 1 16 8
  mps_on; jp "jacobi 8 MPS procs" 8 8 1; jp "jacobi 16 MPS procs" 16 16 1; mps_off
done
for args in "1 --enqueue" "8 --enqueue" "8 --enqueue --datatypes" "8 --datatypes"; do
  set -- $args; pes=$1; shift
  printf 'enqueue pes=%s %-22s ' $pes "$*"
  timeout 60 ampirun -np 1 --vp 8 --pes-per-process $pes "$J" -n 256 -i 200 -w 10 --gpu-aware "$@" > "$out/log" 2>&1
  echo "rc=$? $(grep -E '^Time per' "$out/log")"
done
} 2>&1 | tee "$out/run.txt"
( cd "$B/tests/gpu" && timeout 380 ctest -j2 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -20
echo "device_run14: done"
