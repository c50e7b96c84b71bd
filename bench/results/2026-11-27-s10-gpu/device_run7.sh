#!/usr/bin/env bash
# device_run7.sh — the merged code on an H200 (nvidia-h200): the gpu label; the halo benchmark;
# Jacobi3D 8 ranks over 8 PEs with --datatypes against 8 MPS processes with face buffers, three
# rounds.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
H=$carry/gpu_halo
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 280 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
export CUDA_VISIBLE_DEVICES=0
echo "== halo: 256^3 face as a vector, device packing vs contiguous (us)"
for l in "1 2 1" "1 2 2" "2 2 1"; do set -- $l
  echo "-- np $1 vp $2 pes $3"
  timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$H" -t 0.3 2>&1 | grep -E "^bench|rror|FAIL"
done 2>&1 | tee "$out/halo.txt"
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1; shift; timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$J" -n 256 -i 300 -w 20 --gpu-aware ${4:-} > "$out/log" 2>&1
  printf '%-36s rc=%d %s\n' "$label" $? "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/.*: //' | tr '\n' ' ')"; }
{
for round in 1 2 3; do
  jp "8 ranks, 8 PEs, datatypes" 1 8 8 --datatypes
  jp "8 ranks, 8 PEs, face buffers" 1 8 8
  mps_on; jp "8 MPS procs, face buffers" 8 8 1; mps_off
done
} 2>&1 | tee "$out/jacobi.txt"
echo "device_run7: done"
