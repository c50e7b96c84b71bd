#!/usr/bin/env bash
# One device call after the merge of issues 17/19's work: the gpu-labelled CTest suite (device
# messages between processes now send their CUDA IPC notes through the shared-memory rings),
# once with AMPI_SHM=0 for the old path, then scripts/gpu_measure.sh.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvidia-smi -L | tee "$out/gpus.txt"
source .gpu-carry/gpu/gpu_env.sh; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
( cd "$AMPI_BUILD/tests/gpu" && timeout 300 ctest --output-on-failure -j2 ) > "$out/ctest-gpu.txt" 2>&1
tail -8 "$out/ctest-gpu.txt"
( cd "$AMPI_BUILD/tests/gpu" && AMPI_SHM=0 timeout 200 ctest --output-on-failure -j2 -R np2 ) > "$out/ctest-gpu-noshm.txt" 2>&1
tail -4 "$out/ctest-gpu-noshm.txt"
timeout 200 bash .gpu-carry/gpu/scripts/gpu_measure.sh "$AMPI_BUILD" > "$out/measure.txt" 2>&1
grep -v "dlopen error" "$out/measure.txt" | tail -30
