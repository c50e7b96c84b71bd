#!/usr/bin/env bash
# bench/results/2026-11-26-gpu2/device_run2.sh — the second device call: after the first
# (device_run.sh, run1/) found Jacobi3D's --enqueue modes hung with 8 virtual ranks. Runs:
#  1. --enqueue, 8 virtual ranks, with what this branch changed since (the library sets
#     CUDA_DEVICE_MAX_CONNECTIONS=32 in a process of several ranks; jacobi3d bounds how far the
#     host queues ahead, --ahead 2), and the two diagnostic variants (the driver's default 8
#     connections; no bound on queueing ahead), 25 s each at most;
#  2. the new gpu tests again (gpu_dtype_pack: now also the direct typed copy between same-shaped
#     types of one PE; gpu_jacobi3d with every mode);
#  3. Jacobi3D 256^3, 8 virtual ranks, the four halo modes;
#  4. the halo benchmark with device packing (host staging was measured in run1/).
#   bash build-gpu2-carry/device_run2.sh [CARRY_DIR]   (default build-gpu2-carry)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-gpu2-carry}
nvidia-smi -L | tee "$out/gpus.txt"
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export PMIX_MCA_pcompress='^zlib' # the staged PMIx 4.2 must not load the image's PMIx 5 plugins
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
q() { timeout "$1" "$B/bin/ampirun" --timeout $(($1 - 3)) "${@:2}" 2>&1 | grep -vE "^ampi: note|^$"; }
small="-g 32x24x16 -i 20 -w 2 --verify"
echo "== 1. --enqueue, 8 virtual ranks (32x24x16, --verify)"
{
echo "-- as built (connections 32 set by the library, --ahead 2)"; q 25 -np 1 --vp 8 "$J" $small --enqueue
echo "-- CUDA_DEVICE_MAX_CONNECTIONS=8 (the driver's default), --ahead 2"; q 25 -np 1 --vp 8 -x CUDA_DEVICE_MAX_CONNECTIONS=8 "$J" $small --enqueue
echo "-- connections 32, --ahead 0 (no bound)"; q 25 -np 1 --vp 8 "$J" $small --enqueue --ahead 0
echo "-- 2 virtual ranks, connections 8"; q 25 -np 1 --vp 2 -x CUDA_DEVICE_MAX_CONNECTIONS=8 "$J" $small --enqueue
} 2>&1 | grep -E "^--|Verif|^Time|rror|FAIL|longer than" | tee "$out/enqueue-diag.txt"
echo "== 2. new gpu tests"
( cd "$B/tests/gpu" && timeout 200 ctest -j2 -R 'gpu_dtype_pack|gpu_jacobi3d' --output-on-failure ) > "$out/ctest-new.txt" 2>&1
grep -E "Test +#|tests passed|differs|FAIL" "$out/ctest-new.txt" | grep -v REGULAR | head -40
echo "== 3. Jacobi3D 256^3, 8 virtual ranks of one process on one GPU"
for mode in "" "--datatypes" "--enqueue" "--enqueue --datatypes"; do
  echo "-- mode: ${mode:-default}"
  q 40 -np 1 --vp 8 "$J" -n 256 -i 50 -w 5 $mode | grep -E "^Time|^Comm|rror|FAIL|longer than"
done 2>&1 | tee "$out/jacobi-modes.txt"
echo "== 4. halo: a 256^3 face as a vector type, device packing vs contiguous"
for l in "1 2" "2 2"; do set -- $l
  q 40 -np $1 --vp $2 "$B/bench/gpu_halo" -t 0.4 | grep -E "^bench|rror|FAIL"
done 2>&1 | tee "$out/halo.txt"
