#!/usr/bin/env bash
# The merged main (last session's seven branches, never run on a GPU) on one GPU machine, in one
# device call: the whole `gpu` CTest label (timing tests alone, after the rest), gpu_reuse.np2.*
# three times each (the known intermittent "2 wrong"), and Jacobi3D 256^3 with 1, 2, 4, 8 and 16
# ranks on one GPU: virtual ranks of one process against processes under MPS
# (bench/gpu_jacobi.sh).   bash bench/results/2026-11-26-s5/device_main.sh [CARRY_DIR]
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-s5-carry}
nvidia-smi -L | tee "$out/gpus.txt"
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export PMIX_MCA_pcompress='^zlib' # the staged PMIx 4.2 must not load the image's PMIx 5 plugins
( cd "$AMPI_BUILD/tests/gpu" && timeout 240 ctest -j4 --timeout 60 -E '\.overlap\.' --output-on-failure;
  timeout 100 ctest -V -R '\.overlap\.' ) > "$out/ctest-gpu.txt" 2>&1
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Not Run|\*\*\*Exception|ranks together" "$out/ctest-gpu.txt" | grep -v "^[0-9]*: Test command" | head -60
for i in 1 2 3; do (cd "$AMPI_BUILD/tests/gpu" && timeout 60 ctest -R '^gpu_reuse\.np2\.vp[24]$' --output-on-failure 2>&1 | grep -E "tests passed|Failed|wrong"); done | tee "$out/reuse.txt"
JACOBI_TIMEOUT=120 AMPIRUN=$AMPI_BUILD/bin/ampirun timeout 330 bash "$carry/gpu_jacobi.sh" \
  --bin "$carry/jacobi3d_cuda" -n 256 -i 100 --ranks "1 2 4 8 16" --out "$out/jacobi.txt" 2>&1 | tail -40
echo "device_main: done"
