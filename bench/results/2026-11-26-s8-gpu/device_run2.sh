#!/usr/bin/env bash
# device_run2.sh — after MPIX streams' words come from the PE's slabs (no cuMemFreeHost at
# MPIX_Stream_free): jacobi3d_cuda --enqueue --datatypes over 4 and 8 PEs, 128^3 and 256^3, three
# runs each (hung in run1 at 4 PEs, in Stream_free); cuda-gdb backtraces if one still hangs; the
# gpu label with the overlap timing tests run alone; Jacobi3D 8 ranks over 1-8 PEs against MPS.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
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
( cd "$B/tests/gpu" && timeout 300 ctest -j2 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -20
echo "== Jacobi3D"
AMPIRUN=$(command -v ampirun) JACOBI_TIMEOUT=60 timeout 200 bash "$carry/gpu_jacobi.sh" --bin "$J" --ranks "8" --pes "2 4 8" -i 100 \
  --out "$out/jacobi.txt" 2>&1 | tail -14
echo "device_run2: done"
