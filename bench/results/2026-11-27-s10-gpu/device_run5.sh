#!/usr/bin/env bash
# device_run5.sh — two GPUs (nvidia-h100-x2): Jacobi3D 256^3, 1 and 4 ranks per GPU,
# one process per GPU holding its ranks (1 PE, and over 2 and 4 PEs) against one process per rank
# under MPS; face buffers and --datatypes (bench/gpu_jacobi.sh --two-gpu).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader; nvidia-smi topo -m | head -4
AMPIRUN=$(command -v ampirun) JACOBI_TIMEOUT=60 timeout 400 bash "$carry/gpu_jacobi.sh" --bin "$J" --two-gpu --pes "2 4" -i 200 \
  --halo "gpu-aware datatypes" --out "$out/jacobi2.txt" 2>&1 | tail -30
echo "device_run5: done"
