#!/usr/bin/env bash
# Issue 18 on a GPU machine, in one device call: the gpu-labelled CTest suite, then the overlap
# measurement (N ranks that each run a 2 ms kernel, wait with KIND and swap a 32 KiB device halo
# with both ring neighbours; time per iteration / 2 ms), side by side in one run:
#   ranks   N virtual ranks of one process (per-rank streams, yielding waits: this branch)
#   before  the same with AMPI_GPU_RANK_STREAMS=0 (the CUDA runtime untouched, as main behaves)
#   mps     N processes of one rank under an MPS daemon that ampirun starts (--mps on)
# Run from the repository root with the staged build carried along:
#   bash bench/results/2026-11-26-gpu18/device_run.sh [CARRY_DIR]   (default build-h18-carry)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-h18-carry}
nvidia-smi -L | tee "$out/gpus.txt"
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export PMIX_MCA_pcompress='^zlib' # the staged PMIx 4.2 must not load the image's PMIx 5 plugins
# The timing tests alone (another process's kernels would time-slice the GPU with theirs).
( cd "$AMPI_BUILD/tests/gpu" && timeout 200 ctest -V -j4 -E '\.overlap\.|enqueue';
  timeout 100 ctest -V -R '\.overlap\.' ) > "$out/ctest-gpu.txt" 2>&1
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Not Run|\*\*\*Exception" "$out/ctest-gpu.txt" | grep -v "^[0-9]*: " | head -40
grep -E "ranks together|FAIL" "$out/ctest-gpu.txt" | tee "$out/overlap-ratios.txt"
# MPIX stream enqueue (hung in the first call): one process and two, 20 s each at most.
for l in "1 2" "2 2"; do set -- $l
  echo "== enqueue np $1 vp $2"
  timeout 25 "$AMPI_BUILD/bin/ampirun" -np $1 --vp $2 --timeout 20 "$AMPI_BUILD/tests/gpu/gpu_overlap_static" enqueue 2>&1 | grep -v "ampi: note" | tail -5
done 2>&1 | tee "$out/enqueue.txt"
exe=$AMPI_BUILD/tests/gpu/gpu_overlap_static
run() { timeout 60 "$AMPI_BUILD/bin/ampirun" --timeout 55 "$@" 2>&1 | grep -E "^bench|FAIL|error" ; }
for n in 4 8; do
  for kind in stream device memcpy; do
    echo "== n=$n kind=$kind"
    echo -n "ranks  "; run -np 1 --vp $n "$exe" bench $kind 300 2000
    echo -n "before "; run -np 1 --vp $n -x AMPI_GPU_RANK_STREAMS=0 "$exe" bench $kind 100 2000
    echo -n "mps    "; run -np $n --vp $n --mps on "$exe" bench $kind 300 2000
  done
done 2>&1 | tee "$out/bench.txt"
echo "== shared runtime, 8 ranks"
for kind in stream device memcpy; do
  echo -n "ranks  "; run -np 1 --vp 8 "$AMPI_BUILD/tests/gpu/gpu_overlap_shared" bench $kind 200 2000
done 2>&1 | tee -a "$out/bench.txt"
