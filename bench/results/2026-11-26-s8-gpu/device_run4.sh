#!/usr/bin/env bash
# device_run4.sh — the final commit's gpu label (gpu_overlap's stream_comm refactor included) and
# Jacobi3D 256^3 with 8 and 16 virtual ranks over 8 and 16 PEs against as many MPS processes.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 330 ctest -j2 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -20
echo "== Jacobi3D"
AMPIRUN=$(command -v ampirun) JACOBI_TIMEOUT=60 timeout 220 bash "$carry/gpu_jacobi.sh" --bin "$B/apps/jacobi3d/jacobi3d_cuda" --ranks "8 16" --pes "8 16" -i 100 \
  --out "$out/jacobi.txt" 2>&1 | tail -14
echo "device_run4: done"
