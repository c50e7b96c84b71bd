#!/usr/bin/env bash
# device_run16.sh — after a request waited for by one internal task wakes that task alone (not
# the rank and all its helpers): jacobi3d_cuda --enqueue on one PE (ranks, --ahead) and over 8
# PEs, the default mode for reference, then the gpu label.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
one() { # label vp pes args [env...]
  local label=$1 vp=$2 pes=$3 args=$4; shift 4
  env CUDA_VISIBLE_DEVICES=0 "$@" timeout 60 ampirun -np 1 --vp $vp --pes-per-process $pes "$J" -n 256 -i 200 -w 10 --gpu-aware $args > "$out/log" 2>&1
  printf '%-40s rc=%d %s\n' "$label" $? "$(grep -E '^Time per' "$out/log" | sed 's/.*: //')"
}
{
for vp in 1 2 4 8; do one "vp$vp 1 PE --enqueue" $vp 1 "--enqueue"; done
one "vp8 1 PE (no enqueue)" 8 1 ""
one "vp8 1 PE --enqueue --ahead 1" 8 1 "--enqueue --ahead 1"
one "vp8 1 PE --enqueue --ahead 8" 8 1 "--enqueue --ahead 8"
one "vp8 1 PE --enqueue --datatypes" 8 1 "--enqueue --datatypes"
one "vp8 2 PEs --enqueue" 8 2 "--enqueue"
one "vp8 8 PEs --enqueue" 8 8 "--enqueue"
one "vp8 8 PEs --enqueue --datatypes" 8 8 "--enqueue --datatypes"
one "vp8 8 PEs (no enqueue)" 8 8 ""
one "vp16 8 PEs --enqueue" 16 8 "--enqueue"
} 2>&1 | tee "$out/enqueue.txt"
( cd "$B/tests/gpu" && timeout 380 ctest -j2 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -20
echo "device_run16: done"
