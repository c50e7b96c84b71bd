#!/usr/bin/env bash
# bench/results/2026-11-26-gpu2/device_run3.sh — the third device call: diagnostics of Jacobi3D's
# --enqueue hang (runs 1 and 2: every --enqueue run hung, 2 and 8 virtual ranks, whatever
# CUDA_DEVICE_MAX_CONNECTIONS and --ahead). Checks that gpu_overlap's enqueue tests pass with this
# build, then jacobi3d --enqueue with 2 virtual ranks and 1 iteration, 2 iterations, 1 ahead, and
# one hung run's threads (kernel stacks, gdb if the machine has it) with AMPI_DEBUG_PROTOCOL=1.
#   bash build-gpu2-carry/device_run3.sh [CARRY_DIR]   (default build-gpu2-carry)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-gpu2-carry}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export PMIX_MCA_pcompress='^zlib'
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
q() { timeout "$1" "$B/bin/ampirun" --timeout $(($1 - 3)) "${@:2}" 2>&1 | grep -vE "^ampi: note|^$"; }
echo "== gpu_overlap enqueue tests with this build"
( cd "$B/tests/gpu" && timeout 60 ctest -R 'overlap.*enqueue' ) 2>&1 | grep -E "Test +#|tests passed"
g="-g 32x24x16 --verify"
for v in "-w 0 -i 1" "-w 1 -i 1" "-w 0 -i 3 --ahead 1"; do
  echo "-- 2 virtual ranks, --enqueue $v"
  q 15 -np 1 --vp 2 "$J" $g --enqueue $v | grep -E "Verif|^Time|rror|FAIL|longer than"
done 2>&1 | tee "$out/enqueue-small.txt"
echo "== a hung run's threads (2 virtual ranks, -w 2 -i 2, AMPI_DEBUG_PROTOCOL=1)"
timeout 25 "$B/bin/ampirun" --timeout 22 -x AMPI_DEBUG_PROTOCOL=1 -np 1 --vp 2 "$J" $g --enqueue -w 2 -i 2 > "$out/hung.txt" 2>&1 &
sleep 8
for p in $(pgrep -f "jacobi3d_cuda $g" | head -3); do
  echo "-- pid $p: $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-120)"
  for t in /proc/$p/task/*; do
    echo "thread $(basename $t) $(cut -d' ' -f2,3 $t/stat) wchan=$(cat $t/wchan 2>/dev/null)"
    head -6 $t/stack 2>/dev/null | sed 's/^/    /'
  done
  command -v gdb >/dev/null && timeout 20 gdb -p $p -batch -ex "thread apply all bt 12" 2>/dev/null | grep -E "^#|^Thread" | head -80
done 2>&1 | tee "$out/threads.txt"
wait
grep -vE "^ampi: note" "$out/hung.txt" | head -40
