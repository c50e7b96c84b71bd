#!/usr/bin/env bash
# One device call after this session's merge: the gpu-labelled CTest suite twice, then
# gpu_reuse.np2.vp4 (the one rare failure of the last session) 30 times.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvidia-smi -L | tee "$out/gpus.txt"
source .gpu-carry/gpu/gpu_env.sh; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
for i in 1 2; do
  ( cd "$AMPI_BUILD/tests/gpu" && timeout 240 ctest --output-on-failure -j2 ) > "$out/ctest-gpu-$i.txt" 2>&1
  tail -4 "$out/ctest-gpu-$i.txt"
done
f=0
for i in $(seq 30); do
  ( cd "$AMPI_BUILD/tests/gpu" && timeout 60 ctest -R '^gpu_reuse.np2.vp4$' --output-on-failure ) > "$out/reuse-$i.txt" 2>&1 || { f=$((f+1)); echo "reuse run $i failed"; }
done
echo "gpu_reuse.np2.vp4: $f failures in 30 runs"
