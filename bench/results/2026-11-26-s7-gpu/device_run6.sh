#!/usr/bin/env bash
# device_run6.sh — SMP mode with one copy stream per PE, made when a rank makes its own stream:
# --enqueue with 8 PEs at 64/128/256^3 (hung from 128^3 in run5), the gpu label, Jacobi3D 8 ranks.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
for n in 128 256; do for t in 8 4 1; do for m in "--enqueue" "--enqueue --datatypes"; do
  echo "-- $n^3, --pes-per-process $t $m"
  timeout 40 ampirun -np 1 --vp 8 --pes-per-process $t --timeout 35 "$J" -n $n -w 5 -i 50 $m 2>&1 | grep -E "^Time|rror|longer"
done; done; done 2>&1 | tee "$out/enqueue.txt"
( cd "$B/tests/gpu" && timeout 300 ctest -j2 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -30
echo "== Jacobi3D"
AMPIRUN=$(command -v ampirun) JACOBI_TIMEOUT=60 timeout 300 bash "$carry/gpu_jacobi.sh" --bin "$J" --ranks "8" --pes "2 4 8" -i 100 \
  --out "$out/jacobi.txt" 2>&1 | tail -20
echo "device_run6: done"
