#!/usr/bin/env bash
# device_run17.sh — the final commit: the gpu label, and Jacobi3D 8 ranks over 8 PEs against 8
# MPS processes (--phases), and the exchange alone, two rounds.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
X=$carry/gpu_exchange
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 380 ctest -j2 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -20
export CUDA_VISIBLE_DEVICES=0
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { timeout 60 ampirun -np $2 --vp $3 --pes-per-process $4 "$J" -n 256 -i 300 -w 20 --gpu-aware --phases > "$out/log" 2>&1
  printf '%-22s rc=%d %s | %s\n' "$1" $? "$(grep -E '^Time per' "$out/log" | sed 's/.*: //')" "$(grep -E '^Phases' "$out/log" | sed 's/.*: //')"; }
ex() { printf '%-22s ' "$1"; shift; timeout 60 ampirun "$@" 2>&1 | tail -1 | sed 's/.*: //'; }
{
for round in 1 2; do
  jp "jacobi 8 PEs" 1 8 8
  ex "exchange 8 PEs" -np 1 --vp 8 --pes-per-process 8 "$X"
  mps_on; jp "jacobi 8 MPS procs" 8 8 1; ex "exchange 8 MPS procs" -np 8 --vp 8 "$X"; mps_off
done
} 2>&1 | tee "$out/final.txt"
echo "device_run17: done"
