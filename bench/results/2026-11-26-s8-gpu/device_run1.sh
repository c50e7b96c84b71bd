#!/usr/bin/env bash
# device_run1.sh — (1) why jacobi3d_cuda --enqueue --datatypes hangs over 4 and 8 PEs of one
# process (s7: 3 of 4 runs): cuda-gdb backtraces of every thread after 20 s, at 128^3;
# (2) the gpu label on this main (migration, load balancing and the MPI-IO change merged since
# the last GPU run).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
J=$AMPI_BUILD/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
for t in 8 4; do
  echo "-- $t PEs, --enqueue --datatypes, 128^3"
  timeout 60 ampirun -np 1 --vp 8 --pes-per-process $t --timeout 55 "$J" -n 128 -w 2 -i 20 --enqueue --datatypes > "$out/enq$t.log" 2>&1 &
  jp=$!
  for s in $(seq 1 20); do sleep 1; pgrep -f jacobi3d_cuda > /dev/null || break; done
  for p in $(pgrep -f jacobi3d_cuda); do
    case $(readlink /proc/$p/exe) in
      *jacobi3d_cuda)
        echo "-- pid $p still running after 20 s"; timeout 90 cuda-gdb -p $p -batch -ex "info threads" \
                        -ex "thread apply all bt 40" > "$out/enq$t.gdb" 2>&1
        grep -E "^#|^Thread" "$out/enq$t.gdb" | grep -vE "libcudadebugger" | head -150 ;;
    esac
  done
  wait $jp; echo "rc=$?"
  grep -vE "^ampi: note" "$out/enq$t.log" | tail -4
done 2>&1 | tee "$out/enqueue.txt"
( cd "$AMPI_BUILD/tests/gpu" && timeout 280 ctest -j2 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -30
echo "device_run1: done"
