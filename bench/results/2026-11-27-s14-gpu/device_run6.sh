#!/usr/bin/env bash
# device_run6.sh — one GPU, after the review commit (a strided copy is planned once for the copy
# kernel or the launched kernels, its pointers checked once): the gpu label, and Jacobi3D 256^3,
# 8 ranks, --datatypes over 8 PEs with the copy kernel and without, two rounds.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
{ for round in 1 2; do for k in 256K 0; do
  printf 'datatypes 8 PEs kernel=%s: ' $k
  AMPI_GPU_COPY_KERNEL=$k timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 256 -i 300 -w 20 --gpu-aware --datatypes 2>&1 | grep -E '^Time per' | sed 's/^[^:]*: //'
done; done; } 2>&1 | tee "$out/jacobi.txt"
echo "device_run6: done"
