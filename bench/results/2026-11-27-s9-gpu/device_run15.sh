#!/usr/bin/env bash
# device_run15.sh — side by side on one machine, 3 interleaved rounds: libampi before (old/, the
# commit before) and after copies between PEs of a process stopped calling the driver per
# message: the halo exchange alone (bench/gpu_exchange) and Jacobi3D --phases, 8 and 16 ranks
# over 8 PEs, and 8 processes under MPS with each library.
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
lib() { [ "$1" = old ] && echo "$carry/old:$LD_LIBRARY_PATH" || echo "$LD_LIBRARY_PATH"; }
ex() { # lib label args...
  local l=$1 label=$2; shift 2
  printf '%-4s %-22s ' $l "$label"; LD_LIBRARY_PATH=$(lib $l) timeout 60 ampirun "$@" 2>&1 | tail -1 | sed 's/.*: //'; }
jp() { # lib label np vp pes
  LD_LIBRARY_PATH=$(lib $1) timeout 60 ampirun -np $3 --vp $4 --pes-per-process $5 "$J" -n 256 -i 300 -w 20 --gpu-aware --phases > "$out/log" 2>&1
  printf '%-4s %-22s rc=%d %s | %s\n' $1 "$2" $? "$(grep -E '^Time per' "$out/log" | sed 's/.*: //')" "$(grep -E '^Phases' "$out/log" | sed 's/.*: //')"; }
{
for round in 1 2 3; do
  echo "-- round $round"
  for l in old new; do
    ex $l "exchange 8 PEs k=0" -np 1 --vp 8 --pes-per-process 8 "$X" -k 0
    ex $l "exchange 8 PEs k=50" -np 1 --vp 8 --pes-per-process 8 "$X" -k 50
    jp $l "jacobi 8 PEs" 1 8 8
    jp $l "jacobi 16 ranks 8 PEs" 1 16 8
  done
  mps_on
  for l in old new; do
    ex $l "exchange 8 MPS k=0" -np 8 --vp 8 "$X" -k 0
    jp $l "jacobi 8 MPS procs" 8 8 1
  done
  mps_off
done
} 2>&1 | tee "$out/ab.txt"
echo "device_run15: done"
