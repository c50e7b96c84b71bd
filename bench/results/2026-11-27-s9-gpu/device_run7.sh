#!/usr/bin/env bash
# device_run7.sh — streams of one context waiting for the host: cuStreamWaitValue32 against a
# one-thread polling kernel (bench/gpu_stream_wait.cu), over streams and queue-ahead depths.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
export CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_MAX_CONNECTIONS=32
W=$carry/gpu_stream_wait
{
for ahead in 1 2 8; do
  for s in 1 2 4 8 16; do
    for how in memop kernel; do timeout 60 $W $how $s 2000 $ahead || echo "$how $s $ahead failed $?"; done
  done
done
} 2>&1 | tee "$out/wait.txt"
echo "device_run7: done"
