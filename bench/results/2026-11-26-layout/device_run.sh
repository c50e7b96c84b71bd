#!/usr/bin/env bash
# One device call: the gpu-labelled CTest suite of the new build, then scripts/gpu_measure.sh for
# the new build and the baseline (c984e38), one after the other on the same machine.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvidia-smi -L | tee "$out/gpus.txt"
( source .gpu-carry/gpu/gpu_env.sh; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
  cd "$AMPI_BUILD/tests/gpu" && timeout 240 ctest --output-on-failure -j2 ) > "$out/ctest-gpu-new.txt" 2>&1
tail -15 "$out/ctest-gpu-new.txt"
for which in base gpu; do
  ( source .gpu-carry/$which/gpu_env.sh; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
    timeout 200 bash .gpu-carry/$which/scripts/gpu_measure.sh "$AMPI_BUILD" ) > "$out/measure-$which.txt" 2>&1
  echo "== $which"; cat "$out/measure-$which.txt" | tail -30
done
