#!/usr/bin/env bash
# device_run5.sh — why jacobi3d_cuda --enqueue with 8 PEs (one rank each) hangs at 256^3 (the
# 32x24x16 test passes): cuda-gdb backtraces of every thread after 25 s; the same at 128^3.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
J=$AMPI_BUILD/apps/jacobi3d/jacobi3d_cuda
for n in 64 128 256; do
  echo "-- 8 PEs, --enqueue, $n^3"
  timeout 50 ampirun -np 1 --vp 8 --pes-per-process 8 --timeout 45 "$J" -n $n -w 2 -i 10 --enqueue > "$out/enq$n.log" 2>&1 &
  jp=$!
  sleep 25
  for p in $(pgrep -f jacobi3d_cuda); do
    case $(readlink /proc/$p/exe) in
      *jacobi3d_cuda) grep -q Programs /proc/$p/status 2>/dev/null
        echo "-- pid $p still running after 25 s"; timeout 60 cuda-gdb -p $p -batch -ex "info threads" \
                        -ex "thread apply all bt 40" > "$out/enq$n.$p.gdb" 2>&1
        grep -E "^#|^Thread" "$out/enq$n.$p.gdb" | grep -vE "libcudadebugger|in \?\? \(\) from .*libcuda" | head -120 ;;
    esac
  done
  wait $jp; echo "rc=$?"
  grep -vE "^ampi: note" "$out/enq$n.log" | tail -4
done 2>&1 | tee "$out/enqueue.txt"
