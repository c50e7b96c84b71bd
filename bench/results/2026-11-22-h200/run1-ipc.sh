#!/bin/bash
# nvidia-h200-x2: ctest -L gpu, then scripts/gpu_measure.sh (cases a, b, c on one machine).
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
date -u; nvidia-smi -L
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
echo "== ctest -L gpu"
timeout -s KILL 240 ctest --test-dir $AMPI_BUILD/tests/gpu -L gpu --timeout 40 --output-on-failure >"$O/ctest.txt" 2>&1
grep -E "Test +#|tests passed|Failed|Timeout" "$O/ctest.txt"
date -u
echo "== gpu_measure"
timeout -s KILL 300 bash .gpu-carry/gpu/scripts/gpu_measure.sh $AMPI_BUILD
date -u
