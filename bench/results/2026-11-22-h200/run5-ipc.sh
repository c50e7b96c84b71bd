#!/bin/bash
# nvidia-h200-x2: ctest -L gpu three times over (until a failure), then scripts/gpu_measure.sh.
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
date -u; nvidia-smi -L
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
echo "== ctest -L gpu --repeat until-fail:3"
timeout -s KILL 300 ctest --test-dir $AMPI_BUILD/tests/gpu -L gpu --timeout 40 --repeat until-fail:3 --output-on-failure >"$O/ctest.txt" 2>&1
grep -E "Test +#|tests passed|Failed|Timeout" "$O/ctest.txt"
date -u
echo "== gpu_measure"
timeout -s KILL 280 bash .gpu-carry/gpu/scripts/gpu_measure.sh $AMPI_BUILD
date -u
