#!/usr/bin/env bash
# device_run6.sh — jacobi3d_cuda --enqueue on one PE: how the time per iteration grows with the
# ranks of the PE, and what the queue-ahead bound and synchronous copies change.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
export CUDA_VISIBLE_DEVICES=0
one() { # label vp pes args [env...]
  local label=$1 vp=$2 pes=$3 args=$4; shift 4
  env "$@" timeout 60 ampirun -np 1 --vp $vp --pes-per-process $pes "$J" -n 256 -i 200 -w 10 --gpu-aware $args > "$out/log" 2>&1
  printf '%-40s rc=%d %s\n' "$label" $? "$(grep -E '^Time per' "$out/log" | sed 's/.*: //')"
}
{
for vp in 1 2 4 8; do one "vp$vp 1 PE --enqueue" $vp 1 "--enqueue"; done
for vp in 2 4 8; do one "vp$vp 1 PE (no enqueue)" $vp 1 ""; done
one "vp8 1 PE --enqueue --ahead 1" 8 1 "--enqueue --ahead 1"
one "vp8 1 PE --enqueue --ahead 8" 8 1 "--enqueue --ahead 8"
one "vp8 1 PE --enqueue ASYNC=1G" 8 1 "--enqueue" AMPI_GPU_ASYNC_BYTES=1G
one "vp8 1 PE --enqueue RANK_STREAMS=0" 8 1 "--enqueue" AMPI_GPU_RANK_STREAMS=0
one "vp8 2 PEs --enqueue" 8 2 "--enqueue"
one "vp8 8 PEs --enqueue" 8 8 "--enqueue"
} 2>&1 | tee "$out/enqueue.txt"
echo "device_run6: done"
