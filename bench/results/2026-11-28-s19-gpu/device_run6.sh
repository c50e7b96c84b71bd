#!/usr/bin/env bash
# device_run6.sh — one GPU (session 19, issue 18): what slows a launch among the threads of one
# context (bench/gpu_launch_threads, no MPI). Per iteration, K tiny kernels, C pointer checks
# (cuPointerGetAttribute, as the pointer cache makes them), then cudaStreamSynchronize; with and
# without 7 bystander threads that wait in cudaStreamSynchronize for a kernel of their own (as
# PEs whose ranks wait for their sweep). Three rounds.
# Usage: bash device_run6.sh CARRY_DIR   (CARRY_DIR/gpu_launch_threads)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
G=$carry/gpu_launch_threads
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{ for round in 1 2 3; do
  echo "-- round $round"
  for b in 0 7; do GLT_BYSTANDERS=$b timeout 60 $G sync threads 1 20000 1 0; done
  for b in 0 7; do GLT_BYSTANDERS=$b timeout 60 $G sync threads 1 20000 2 12; done
  for c in 0 12; do timeout 60 $G sync threads 8 5000 2 $c; done
  for c in 0 12; do timeout 60 $G sync threads 1 20000 2 $c; done
done; } 2>&1 | tee "$out/launch.txt"
echo "device_run6: done"
