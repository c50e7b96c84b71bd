#!/usr/bin/env bash
# bench/results/2026-11-26-gpu3/device_run2.sh — the second device call: why jacobi3d_cuda
# --enqueue hangs (every run of device_run.sh hung). A build with temporary traces
# (AMPI_DEBUG_ENQUEUE=1: each enqueued operation's ticket, when the stream reaches it, when it is
# posted and done; each yielding CUDA wait of core/cudart.cpp), 2 virtual ranks, 1 warm-up and 2
# iterations; cuda-gdb's backtraces of the jacobi3d process itself after 12 s.
#   bash build-gpu3-carry/device_run2.sh [CARRY_DIR]
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-gpu3-carry}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
J=$AMPI_BUILD/apps/jacobi3d/jacobi3d_cuda
for a in "-w 1 -i 2" "-w 0 -i 1 --ahead 0"; do
  echo "== -np 1 --vp 2 --enqueue $a"
  AMPI_DEBUG_ENQUEUE=1 timeout 30 ampirun -np 1 --vp 2 --timeout 25 "$J" \
    -g 32x24x16 --enqueue --verify $a > "$out/trace.log" 2>&1 &
  jp=$!
  sleep 12
  for p in $(pgrep -f jacobi3d_cuda); do
    case $(readlink /proc/$p/exe) in
      *jacobi3d_cuda) echo "-- pid $p"; timeout 40 cuda-gdb -p $p -batch -ex "info threads" \
                        -ex "thread apply all bt 25" 2>&1 | grep -E "^#|^Thread|^\*|^  [0-9]" | head -80 ;;
    esac
  done
  wait $jp
  grep -vE "^ampi: note" "$out/trace.log" | head -120
done 2>&1 | tee "$out/enqueue2.txt"
echo "device_run2: done"
