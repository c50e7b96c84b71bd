#!/bin/bash
# One GPU: ctest -L gpu, and how long a job under ampirun's own MPS daemon takes to end.
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
date -u; nvidia-smi -L
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
echo "== ctest -L gpu"
timeout -s KILL 240 ctest --test-dir $AMPI_BUILD/tests/gpu -L gpu --timeout 40 --output-on-failure >"$O/ctest.txt" 2>&1
grep -E "Test +#|tests passed|Failed|Timeout" "$O/ctest.txt"
ms() { date +%s%N | cut -c1-13; }
for m in on auto; do
  t0=$(ms)
  CUDA_VISIBLE_DEVICES=0 timeout -s KILL 60 ampirun -np 2 --vp 2 --mps $m --timeout 50 $AMPI_BUILD/tests/gpu/gpu_pingpong direct 8 2>&1 | tail -2
  echo "rc=$? --mps $m: $(( $(ms) - t0 )) ms"
done
pgrep -a nvidia-cuda-mps || echo "no MPS process left"; ls /tmp | grep -c ampi-mps
date -u
