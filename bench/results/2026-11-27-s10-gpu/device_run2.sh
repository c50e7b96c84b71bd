#!/usr/bin/env bash
# device_run2.sh — after run1: the kernels' module loads with the context's first stream of ours
# (run1's np1.vp8.enqueue.datatypes hung in a later load), and a device send into a posted device
# receive of the same PE is one asynchronous kernel copy. The gpu label; the halo benchmark, new
# libampi against session 9's; Jacobi3D 1-16 ranks, GPU-aware face buffers and --datatypes.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
H=$carry/gpu_halo
NEWLIB=$B/lib OLDLIB=$carry/old-lib
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 280 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
export CUDA_VISIBLE_DEVICES=0
lib() { if [ "$1" = old ]; then export LD_LIBRARY_PATH=${LD_LIBRARY_PATH//$NEWLIB/$OLDLIB}; else export LD_LIBRARY_PATH=${LD_LIBRARY_PATH//$OLDLIB/$NEWLIB}; fi; }
echo "== halo: 256^3 face as a vector, device packing vs contiguous (us)"
for l in "1 2 1" "1 2 2" "2 2 1"; do set -- $l
  for v in new old; do lib $v
    echo "-- np $1 vp $2 pes $3 lib $v"
    timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$H" -t 0.3 2>&1 | grep -E "^bench|rror|FAIL"
  done
done 2>&1 | tee "$out/halo.txt"
lib new
echo "== Jacobi3D table"
AMPIRUN=$(command -v ampirun) JACOBI_TIMEOUT=60 timeout 280 bash "$carry/gpu_jacobi.sh" --bin "$J" --ranks "1 2 4 8 16" --pes "2 4 8" -i 200 \
  --halo "gpu-aware datatypes" --out "$out/jacobi.txt" 2>&1 | tail -45
echo "device_run2: done"
