#!/usr/bin/env bash
# device_run2.sh — nvidia-h100-x2: the gpu label after keeping each virtual rank's CUDA context
# across its switches and reusing our events in their own context (8 ranks of one process over
# two GPUs crashed in run1: gpu_jacobi3d.np1.vp8.*).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 170 ctest -j4 --timeout 60 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
grep -E "^# Jacobi3D|device\(s\) visible|PASSED|rror" "$out/ctest.txt" | grep -A3 "8 ranks as 2x2x2" | head -20
echo "device_run2: done"
