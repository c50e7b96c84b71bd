#!/usr/bin/env bash
# device_run1.sh — one H200 (session 21, issue 18): do launches of threads that each have a green
# context of their own still wait for each other, as the threads of one context do?
# bench/gpu_launch_threads (no MPI): T workers, each K=2 tiny kernels then a wait, per iteration;
# threads of one context, threads each in a green context (GLT_GREEN=1, the SMs split T ways),
# T processes under MPS. Three rounds, interleaved.
# Usage: bash device_run1.sh CARRY_DIR   (CARRY_DIR/gpu_launch_threads)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64 CUDA_MODULE_LOADING=EAGER
G=$carry/gpu_launch_threads
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{ for round in 1 2 3; do
  echo "-- round $round"
  for w in sync word; do
    for t in 1 2 4 8; do
      GLT_GREEN=0 timeout 60 $G $w threads $t 5000 2 0
      GLT_GREEN=1 timeout 60 $G $w threads $t 5000 2 0 || echo "green $w $t failed rc=$?"
    done
    mps_on; for t in 1 2 4 8; do timeout 60 $G $w procs $t 5000 2 0; done; mps_off
  done
done; } 2>&1 | tee "$out/launch.txt"
echo "device_run1: done"
