#!/usr/bin/env bash
# bench/results/2026-11-26-s7-gpu/device_run.sh — one device call on the merged main (SMP mode,
# device reductions, datareps): the whole `gpu` label; Jacobi3D 256^3 with 8 and 16 ranks on one
# GPU as virtual ranks over 1, 2, 4, 8 PEs of one process against processes under MPS
# (bench/gpu_jacobi.sh --pes); the np1.vp8 --enqueue hang: cuda-gdb backtraces after 20 s.
#   bash CARRY/device_run.sh CARRY
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpus.txt"
( cd "$B/tests/gpu" && timeout 280 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Test +#|Failed|Timeout|Not Run|Disabled" "$out/ctest.txt" | tail -60
echo "== Jacobi3D"
JACOBI_TIMEOUT=60 timeout 330 bash "$carry/gpu_jacobi.sh" --bin "$J" --ranks "8 16" --pes "2 4 8" -i 100 \
  --out "$out/jacobi.txt" 2>&1 | tail -40
echo "== --enqueue, 8 virtual ranks: 1 PE and 8 PEs"
for t in 8 1; do
  echo "-- --pes-per-process $t"
  timeout 40 ampirun -np 1 --vp 8 --pes-per-process $t --timeout 35 "$J" -n 128 -w 2 -i 10 --enqueue > "$out/enq$t.log" 2>&1 &
  jp=$!
  sleep 20
  for p in $(pgrep -f jacobi3d_cuda); do
    case $(readlink /proc/$p/exe) in
      *jacobi3d_cuda) echo "-- pid $p (still running after 20 s)"; timeout 60 cuda-gdb -p $p -batch -ex "info threads" \
                        -ex "thread apply all bt 30" > "$out/enq$t.gdb" 2>&1
                      grep -E "^#|^Thread|^\*|^  [0-9]" "$out/enq$t.gdb" | head -150 ;;
    esac
  done
  wait $jp; echo "rc=$?"
  grep -vE "^ampi: note" "$out/enq$t.log" | tail -5
done 2>&1 | tee "$out/enqueue.txt"
echo "device_run: done"
