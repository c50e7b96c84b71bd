#!/usr/bin/env bash
# bench/results/2026-11-26-gpu3/device_run.sh — issue 18's device reductions and the --enqueue
# hang, in one device call (the GPU machine gets the staged build as build-gpu3-carry, see
# stage.sh):
#   1. no PMIX_MCA_pcompress workaround: the staged PMIx must load its own plugins (gpu_env.sh);
#   2. the gpu tests of device reductions (gpu_reduce: device kernels and host staging, 1 and 2
#      processes), the older collectives test (gpu_coll), Jacobi3D's CUDA tests (the --enqueue
#      ones re-enabled) and gpu_overlap's enqueue tests;
#   3. MPI_Allreduce of 4 B-16 MiB device buffers (bench/gpu_allreduce), 8 ranks of one process
#      and 2 processes, AMPI_GPU_DEVICE_REDUCE=1 and 0 interleaved, 2 rounds each;
#   4. jacobi3d_cuda --enqueue (small grid, 2 and 8 virtual ranks, 2 processes); a run that hangs
#      gets cuda-gdb's backtraces of its threads;
#   5. bench/gpu_jacobi.sh's exit status on a short run that succeeds.
#   bash build-gpu3-carry/device_run.sh [CARRY_DIR]
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-gpu3-carry}
nvidia-smi -L | tee "$out/gpus.txt"
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
echo "== 2. tests" | tee "$out/ctest.txt"
( cd "$B/tests/gpu" && timeout 280 ctest -j3 --timeout 150 -R 'gpu_reduce|gpu_coll|gpu_jacobi3d|overlap.*enqueue' --output-on-failure ) >> "$out/ctest.txt" 2>&1
grep -E "tests passed|\*\*\*Failed|Timeout|Not Run|Exception|pmix_output_info|gpu_reduce:|Passed|FAIL" "$out/ctest.txt" | head -60
echo "== 3. MPI_Allreduce of device buffers" | tee "$out/allreduce.txt"
for round in 1 2; do
  for layout in "1 8" "2 2"; do
    set -- $layout
    for dr in 1 0; do
      echo "-- round $round: -np $1 --vp $2 AMPI_GPU_DEVICE_REDUCE=$dr"
      AMPI_GPU_DEVICE_REDUCE=$dr timeout 100 ampirun -np $1 --vp $2 --timeout 95 "$carry/gpu_allreduce" 2>&1 |
        grep -vE "^ampi: note"
    done
  done
done >> "$out/allreduce.txt" 2>&1
cat "$out/allreduce.txt"
echo "== 4. jacobi3d --enqueue" | tee "$out/enqueue.txt"
ldd "$J" | grep -i cudart | tee -a "$out/enqueue.txt"
for run in "1 2 -g 32x24x16 -w 1 -i 3" "1 8 -g 32x24x16 -w 2 -i 20" "1 8 -g 32x24x16 -w 2 -i 20 --datatypes" \
           "2 4 -g 32x24x16 -w 2 -i 20" "1 8 -n 256 -w 5 -i 50" "1 8 -n 256 -w 5 -i 50 --datatypes"; do
  set -- $run
  np=$1 vp=$2; shift 2
  echo "-- -np $np --vp $vp --enqueue $*" | tee -a "$out/enqueue.txt"
  timeout 40 ampirun -np $np --vp $vp --timeout 35 "$J" --enqueue --verify "$@" > "$out/j.log" 2>&1 &
  jp=$!
  for i in $(seq 1 30); do sleep 1; kill -0 $jp 2>/dev/null || break; done
  if kill -0 $jp 2>/dev/null; then
    echo "   still running after 30 s: backtraces" | tee -a "$out/enqueue.txt"
    for p in $(pgrep -f "jacobi3d_cuda --enqueue" | head -2); do
      timeout 30 cuda-gdb -p $p -batch -ex "thread apply all bt 20" 2>&1 | grep -E "^#|^Thread" | head -60
    done >> "$out/enqueue.txt" 2>&1
  fi
  wait $jp
  echo "   rc=$?" | tee -a "$out/enqueue.txt"
  grep -E "Verif|^Time|rror|FAIL|longer than" "$out/j.log" | tee -a "$out/enqueue.txt"
done
echo "== 5. gpu_jacobi.sh exit status"
JACOBI_TIMEOUT=60 AMPIRUN=$B/bin/ampirun timeout 120 sh "$carry/gpu_jacobi.sh" --bin "$J" -n 128 -i 10 \
  --ranks "1 2" --out "$out/jacobi-short.txt" > "$out/gpu_jacobi_sh.txt" 2>&1
echo "gpu_jacobi.sh rc=$?" | tee -a "$out/gpu_jacobi_sh.txt"
cat "$out/gpu_jacobi_sh.txt"
echo "device_run: done"
