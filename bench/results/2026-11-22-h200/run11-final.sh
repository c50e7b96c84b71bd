#!/bin/bash
# nvidia-h200-x2, the final code (same-process device copies asynchronous too): ctest -L gpu twice over, scripts/gpu_measure.sh (a, b, c), and
# Jacobi3D on one and two GPUs.
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
date -u; nvidia-smi -L
(
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
echo "== ctest -L gpu --repeat until-fail:2"
timeout -s KILL 200 ctest --test-dir $AMPI_BUILD/tests/gpu -L gpu --timeout 40 --repeat until-fail:2 --output-on-failure >"$O/ctest.txt" 2>&1
grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|Failed|Timeout" "$O/ctest.txt"
date -u
echo "== gpu_measure"
timeout -s KILL 280 bash .gpu-carry/gpu/scripts/gpu_measure.sh $AMPI_BUILD
date -u
)
(
cd .osu-carry && . ./env.sh
echo "== Jacobi3D, one GPU"
JACOBI_TIMEOUT=25 timeout -s KILL 150 sh bench/gpu_jacobi.sh --bin bin/jacobi3d_cuda -n 256 -i 30 --out "$O/jacobi1.txt"
echo "== Jacobi3D, two GPUs"
JACOBI_TIMEOUT=25 timeout -s KILL 120 sh bench/gpu_jacobi.sh --bin bin/jacobi3d_cuda -n 256 -i 30 --two-gpu --out "$O/jacobi2.txt"
)
date -u
