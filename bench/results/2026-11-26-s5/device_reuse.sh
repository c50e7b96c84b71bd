#!/usr/bin/env bash
# gpu_reuse's intermittent "wrong data" (only under ctest -j4 so far): which case, which path.
# Runs 4 instances at once, 4 rounds, with AMPI_DEBUG_PROTOCOL=1.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-s5-carry}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export PMIX_MCA_pcompress='^zlib'
exe=$AMPI_BUILD/tests/gpu/gpu_reuse
for round in 1 2 3 4; do
  for k in 1 2 3 4; do
    AMPI_DEBUG_PROTOCOL=1 timeout 60 "$AMPI_BUILD/bin/ampirun" -np 2 --vp $((k % 2 ? 2 : 4)) "$exe" > "$out/r$round.$k.txt" 2>&1 &
  done
  wait
done
grep -h "wrong\|protocol\|ok gpu_reuse\|FAILED" "$out"/r*.txt | sort | uniq -c | sort -rn | head -40
