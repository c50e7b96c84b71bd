#!/usr/bin/env bash
# device_run7.sh — one GPU (session 20, issue 18): a watched stream's wait ends on its word and
# then an event recorded after the word (run6's iinvoke failure: the word landed before the
# stream counted its write done). The gpu label; the iinvoke and overlap cases again 10 times;
# Jacobi3D 256^3 --datatypes, 8 ranks over 8 PEs, 16 over 8 PEs, 8 MPS processes, three rounds.
# Usage: bash device_run7.sh CARRY_DIR
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 330 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
( cd "$B/tests/gpu" && timeout 150 ctest -j3 --timeout 60 -R "iinvoke|vp2.overlap.stream|default_sync" --repeat until-fail:10 --output-on-failure ) > "$out/ctest_repeat.txt" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$out/ctest_repeat.txt" | tail -8
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
{ for round in 1 2 3; do
  jp "8/8 PEs" 1 8 8 --datatypes
  jp "16/8 PEs" 1 16 8 --datatypes
  mps_on; jp "8 MPS" 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
rm -f "$out/log"
echo "device_run7: done"
