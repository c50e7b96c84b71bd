#!/bin/bash
# One GPU: ctest -L gpu (with the IPC refusal fallback).
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
date -u; nvidia-smi -L
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
timeout -s KILL 400 ctest --test-dir $AMPI_BUILD/tests/gpu -L gpu --timeout 40 --output-on-failure >"$O/ctest.txt" 2>&1
grep -E "Test +#|tests passed|Failed|Timeout" "$O/ctest.txt"
grep -B2 -A25 "\*\*\*Failed\|Timeout" "$O/ctest.txt" | head -120
date -u
