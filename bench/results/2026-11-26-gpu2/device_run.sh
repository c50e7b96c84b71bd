#!/usr/bin/env bash
# bench/results/2026-11-26-gpu2/device_run.sh — issue 18's device-side packing and Jacobi3D's new
# halo modes on a GPU machine, in one device call (everything printed, logs under $OUT):
#  1. the new gpu tests (gpu_dtype_pack: device packing against host packing, every constructor,
#     one process and two, packing on and off; gpu_jacobi3d: --verify of the default, --datatypes
#     and --enqueue modes);
#  2. the halo benchmark (bench/gpu_halo.c): a 256^3 grid's face as a vector type, device packing
#     (AMPI_GPU_DEVICE_PACK=1) against host staging (=0, main's way), each against the same bytes
#     contiguous in the same run; 2 virtual ranks of one process and 2 processes;
#  3. Jacobi3D 256^3 with 8 virtual ranks of one process on one GPU: default (pack kernels +
#     device buffers), --datatypes (subarray types, packed by the library), --enqueue (MPIX stream
#     enqueue), --enqueue --datatypes; then the default mode with 1, 2, 4, 8, 16 virtual ranks;
#  4. the older tests of the device paths this branch changed (gpu_typed, gpu_coll, gpu_p2p,
#     gpu_reuse; not under MPS).
# Run from the repository root with the staged build carried along (stage.sh):
#   bash build-gpu2-carry/device_run.sh [CARRY_DIR]   (default build-gpu2-carry)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-gpu2-carry}
nvidia-smi -L | tee "$out/gpus.txt"
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export PMIX_MCA_pcompress='^zlib' # the staged PMIx 4.2 must not load the image's PMIx 5 plugins
B=$AMPI_BUILD
summary() { grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Not Run|\*\*\*Exception|\*\*\*Skipped" "$1" | grep -v "^[0-9]*: " | head -40; }
echo "== 1. new gpu tests"
( cd "$B/tests/gpu" && timeout 150 ctest -V -j2 -R 'gpu_dtype_pack|gpu_jacobi3d' ) > "$out/ctest-new.txt" 2>&1
grep -E "Test +#" "$out/ctest-new.txt"; summary "$out/ctest-new.txt"
grep -E "FAIL|differs|error" "$out/ctest-new.txt" | grep -v "FAIL_REGULAR" | head -30
run() { timeout 100 "$B/bin/ampirun" --timeout 90 "$@" 2>&1 | grep -vE "^ampi: note|^$"; }
echo "== 2. halo: a 256^3 face as a vector type, device packing vs host staging vs contiguous"
H=$B/bench/gpu_halo
for l in "1 2" "2 2"; do set -- $l
  for pack in 1 0; do
    run -np $1 --vp $2 -x AMPI_GPU_DEVICE_PACK=$pack "$H" -t 0.4 | grep -E "^bench|rror|FAIL"
  done
done 2>&1 | tee "$out/halo.txt"
J=$B/apps/jacobi3d/jacobi3d_cuda
echo "== 3. Jacobi3D 256^3, 8 virtual ranks of one process on one GPU"
for mode in "" "--datatypes" "--enqueue" "--enqueue --datatypes"; do
  echo "-- mode: ${mode:-default}"
  run -np 1 --vp 8 "$J" -n 256 -i 50 -w 5 $mode | grep -E "^Time|^Comm|halo|rror|FAIL"
done 2>&1 | tee "$out/jacobi-modes.txt"
echo "== 3b. Jacobi3D 256^3, default mode, 1 2 4 8 16 virtual ranks of one process on one GPU"
for vp in 1 2 4 8 16; do
  echo "-- ranks: $vp"
  run -np 1 --vp $vp "$J" -n 256 -i 50 -w 5 | grep -E "^Time|^Comm|rror|FAIL"
done 2>&1 | tee "$out/jacobi-ranks.txt"
echo "== 4. device paths this branch changed, the older tests (gpu_typed, gpu_coll, gpu_p2p, gpu_reuse)"
( cd "$B/tests/gpu" && timeout 100 ctest -j4 -R 'gpu_typed|gpu_coll|gpu_p2p|gpu_reuse' -E 'mps' --output-on-failure ) > "$out/ctest-rest.txt" 2>&1
summary "$out/ctest-rest.txt"
