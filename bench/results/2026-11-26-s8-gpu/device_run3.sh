#!/usr/bin/env bash
# device_run3.sh — after a rank's cudaFree in a process of several MPIX-stream ranks waits for its
# own streams and defers the real free (run2: the program's cudaFree hung in cuMemFree behind
# other ranks' stream waits): gpu_overlap enqueue_free with it and with AMPI_GPU_RANK_STREAMS=0
# (the real cudaFree: expected to hang until --timeout); jacobi3d_cuda --enqueue --datatypes over
# 4 and 8 PEs, 128^3 and 256^3, three runs each; the gpu label.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
for rt in shared static; do
  echo "-- enqueue_free, $rt runtime"; timeout 30 ampirun -np 1 --vp 2 --timeout 25 "$B/tests/gpu/gpu_overlap_$rt" enqueue_free 2>&1 | grep -v "^ampi: note"; echo "rc=$?"
  echo "-- enqueue_free, $rt runtime, AMPI_GPU_RANK_STREAMS=0 (the real cudaFree)"
  timeout 30 ampirun -np 1 --vp 2 --timeout 15 -x AMPI_GPU_RANK_STREAMS=0 "$B/tests/gpu/gpu_overlap_$rt" enqueue_free 2>&1 | grep -v "^ampi: note" | tail -3
done 2>&1 | tee "$out/free.txt"
for n in 128 256; do for t in 8 4; do for k in 1 2 3; do
  echo "-- $n^3, $t PEs, --enqueue --datatypes, run $k"
  timeout 45 ampirun -np 1 --vp 8 --pes-per-process $t --timeout 40 "$J" -n $n -w 2 -i 30 --enqueue --datatypes > "$out/e.log" 2>&1 &
  jp=$!
  for s in $(seq 1 25); do sleep 1; pgrep -f jacobi3d_cuda > /dev/null || break; done
  for p in $(pgrep -f jacobi3d_cuda); do
    case $(readlink /proc/$p/exe) in
      *jacobi3d_cuda) [ -f "$out/hang.gdb" ] && continue
        echo "-- pid $p still running after 25 s"; timeout 90 cuda-gdb -p $p -batch -ex "info threads" \
                        -ex "thread apply all bt 30" > "$out/hang.gdb" 2>&1
        grep -E "^#|^Thread" "$out/hang.gdb" | grep -vE "libcudadebugger" | grep -E "ampi|MPI|cu[A-Z]|^Thread" | head -80 ;;
    esac
  done
  wait $jp; echo "rc=$?"
  grep -E "^Time|rror|longer" "$out/e.log"
done; done; done 2>&1 | tee "$out/enqueue.txt"
( cd "$B/tests/gpu" && timeout 330 ctest -j2 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -20
echo "device_run3: done"
