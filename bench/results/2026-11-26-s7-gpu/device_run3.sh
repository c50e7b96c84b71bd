#!/usr/bin/env bash
# bench/results/2026-11-26-gpu3/device_run3.sh — the third device call: the --enqueue fix
# (CUDA_MODULE_LOADING=EAGER set by libampi, core/cudart.cpp): Jacobi3D's CUDA tests (the three
# --enqueue ones re-enabled), gpu_overlap's enqueue tests, gpu_reduce; Jacobi3D 256^3 with 8
# virtual ranks in its modes; MPI_Allreduce of device buffers over 2 processes under MPS.
#   bash build-gpu3-carry/device_run3.sh [CARRY_DIR]
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-gpu3-carry}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
( cd "$B/tests/gpu" && timeout 200 ctest -j3 --timeout 90 -R 'gpu_jacobi3d|overlap.*enqueue|gpu_reduce.vp4|gpu_reduce.np2.vp2' --output-on-failure ) > "$out/ctest3.txt" 2>&1
grep -E "tests passed|Test +#|Failed|Timeout" "$out/ctest3.txt" | head -40
for m in "" "--datatypes" "--enqueue" "--enqueue --datatypes"; do
  echo "-- 8 virtual ranks, 256^3, $m"
  timeout 60 ampirun -np 1 --vp 8 --timeout 55 "$J" -n 256 -w 10 -i 100 $m 2>&1 | grep -E "^Time|^Comm|rror|longer"
done 2>&1 | tee "$out/jacobi-modes.txt"
for dr in 1 0; do
  echo "-- 2 processes, MPS, AMPI_GPU_DEVICE_REDUCE=$dr"
  AMPI_GPU_DEVICE_REDUCE=$dr timeout 100 ampirun -np 2 --vp 2 --mps auto --timeout 95 "$carry/gpu_allreduce" 2>&1 | grep -vE "^ampi: note"
done 2>&1 | tee "$out/allreduce-mps.txt"
echo "device_run3: done"
