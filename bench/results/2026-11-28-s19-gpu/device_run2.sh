#!/usr/bin/env bash
# device_run2.sh — one GPU (session 19, issue 18): a launched strided copy (Jacobi3D's x face)
# sets a host word itself at its end (no operation queued after it), the default now, against
# events (AMPI_GPU_COMPLETION_WORDS=0). An experiment of this build only, AMPI_EXP_NARROW=1: the
# copy kernel takes rows of one unit too (no launch for the x face), with 2 and 4 blocks. The gpu
# label; gpu_halo x; Jacobi3D 256^3, 8 ranks, --datatypes over 8 PEs against 8 MPS processes,
# five rounds interleaved; traced runs (GPU timeline and driver calls); --verify.
# Usage: bash device_run2.sh CARRY_DIR   (CARRY_DIR/ct as in device_run1.sh)
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
CT=$carry/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 330 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
echo "== gpu_halo x face (65536 rows of 8 B), 2 PEs of one process, kernel bound 1 MiB"
{ for v in "w 2" "e 2" "n 2" "n 4"; do
  set -- $v
  env=(AMPI_GPU_COPY_KERNEL=1M AMPI_GPU_COPY_KERNEL_BLOCKS=$2)
  [ $1 = e ] && env+=(AMPI_GPU_COMPLETION_WORDS=0)
  [ $1 = n ] && env+=(AMPI_EXP_NARROW=1)
  echo "-- ${env[*]}"
  env "${env[@]}" timeout 60 ampirun -np 1 --vp 2 --pes-per-process 2 "$carry/gpu_halo" x 2>&1 | grep '^bench'
done; } 2>&1 | tee "$out/halo.txt"
jp() { local label=$1 np=$2 vp=$3 pes=$4; shift 4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4 5; do
  jp "8 PEs words" 1 8 8 --datatypes
  AMPI_GPU_COMPLETION_WORDS=0 jp "8 PEs events" 1 8 8 --datatypes
  AMPI_EXP_NARROW=1 jp "8 PEs narrow, 2 blocks" 1 8 8 --datatypes
  AMPI_EXP_NARROW=1 AMPI_GPU_COPY_KERNEL_BLOCKS=4 jp "8 PEs narrow, 4 blocks" 1 8 8 --datatypes
  mps_on; jp "8 MPS datatypes" 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
traced() { local label=$1 mode=$2; shift 2
  local d=/tmp/trace/$label.$mode; mkdir -p "$d"
  ( export CUDA_INJECTION64_PATH=$CT/libcuda_trace.so CUDA_TRACE_$mode=1 CUDA_TRACE_DIR=$d LD_LIBRARY_PATH=$CT:$LD_LIBRARY_PATH
    jp "$label [$mode]" "$@" ); cp "$out/log" "$d/jacobi.log"; }
{ for mode in GPU API; do
  traced words $mode 1 8 8 --datatypes
  AMPI_EXP_NARROW=1 traced narrow $mode 1 8 8 --datatypes
done; } 2>&1 | tee "$out/traced.txt"
for l in words narrow; do echo "== $l GPU"; python3 $CT/cuda_trace.py /tmp/trace/$l.GPU; echo "== $l API"; head -14 /tmp/trace/$l.API/api.*.txt; done > "$out/trace_summary.txt" 2>&1
grep -E "^==|busy|cuLaunchKernel|cuEventQuery|cuStreamWriteValue|cuStreamQuery|cuPointerGetAttribute " "$out/trace_summary.txt"
( cd /tmp/trace && tar czf "$out/trace.tgz" . )
for e in "" AMPI_EXP_NARROW=1; do
  env $e timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --datatypes --verify > "$out/verify.txt" 2>&1
  echo "verify (8 PEs, 128^3, datatypes ${e:-default}): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
done
rm -f "$out/log"
echo "device_run2: done"
