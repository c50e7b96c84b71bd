#!/usr/bin/env bash
# device_run3.sh — one GPU (session 19, issue 18): the committed build (host words; the narrow-row
# experiment removed). The gpu label; gpu_halo x with words and with events, three rounds
# alternating; Jacobi3D 256^3, 8 ranks, --datatypes over 8 PEs (words, events) against 8 MPS
# processes, seven rounds interleaved; --verify.
# Usage: bash device_run3.sh CARRY_DIR
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
echo "== gpu_halo x face (65536 rows of 8 B), 2 PEs of one process"
{ for round in 1 2 3; do for w in 1 0; do
  printf 'words=%s ' $w
  AMPI_GPU_COMPLETION_WORDS=$w timeout 60 ampirun -np 1 --vp 2 --pes-per-process 2 "$carry/gpu_halo" x 2>&1 | grep '^bench'
done; done; } 2>&1 | tee "$out/halo.txt"
jp() { local label=$1 np=$2 vp=$3 pes=$4; shift 4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4 5 6 7; do
  jp "8 PEs words" 1 8 8 --datatypes
  AMPI_GPU_COMPLETION_WORDS=0 jp "8 PEs events" 1 8 8 --datatypes
  mps_on; jp "8 MPS datatypes" 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
for m in --datatypes ""; do
  timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware $m --verify > "$out/verify.txt" 2>&1
  echo "verify (8 PEs, 128^3, ${m:-faces}): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
done
rm -f "$out/log"
echo "device_run3: done"
