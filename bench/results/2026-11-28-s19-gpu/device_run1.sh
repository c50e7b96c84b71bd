#!/usr/bin/env bash
# device_run1.sh — one GPU (session 19, issue 18): the end of a launched copy learnt from a host
# word the stream writes (AMPI_GPU_COMPLETION_WORDS=1, the new default) against events
# (=0). The gpu label; Jacobi3D 256^3, 8 ranks, --datatypes over 8 PEs (words, events) against
# 8 MPS processes, five rounds interleaved; one run over 8 PEs traced (GPU timeline and driver
# calls, bench/cuda_trace.cpp); --verify over 8 PEs in both modes and with events.
# Usage: bash device_run1.sh CARRY_DIR   (CARRY_DIR/ct: libcuda_trace.so, libcupti.so.13,
# cuda_trace.py)
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
grep -A3 "fault" "$out/ctest.txt" | grep -E "rank .: the trap" | head -4
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1 np=$2 vp=$3 pes=$4; shift 4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3 4 5; do
  AMPI_GPU_COMPLETION_WORDS=1 jp "1x8 PEs datatypes words" 1 8 8 --datatypes
  AMPI_GPU_COMPLETION_WORDS=0 jp "1x8 PEs datatypes events" 1 8 8 --datatypes
  mps_on; jp "8 MPS datatypes" 8 8 1 --datatypes; mps_off
done
jp "1x8 PEs no-exchange" 1 8 8 --no-exchange; } 2>&1 | tee "$out/jacobi.txt"
traced() { local label=$1 mode=$2; shift 2
  local d=/tmp/trace/$label.$mode; mkdir -p "$d"
  ( export CUDA_INJECTION64_PATH=$CT/libcuda_trace.so CUDA_TRACE_$mode=1 CUDA_TRACE_DIR=$d LD_LIBRARY_PATH=$CT:$LD_LIBRARY_PATH
    jp "$label [$mode]" "$@" ); cp "$out/log" "$d/jacobi.log"; }
{ for mode in GPU API; do
  AMPI_GPU_COMPLETION_WORDS=1 traced words $mode 1 8 8 --datatypes
  AMPI_GPU_COMPLETION_WORDS=0 traced events $mode 1 8 8 --datatypes
done; } 2>&1 | tee "$out/traced.txt"
for l in words events; do echo "== $l GPU"; python3 $CT/cuda_trace.py /tmp/trace/$l.GPU; echo "== $l API"; head -14 /tmp/trace/$l.API/api.*.txt; done > "$out/trace_summary.txt" 2>&1
grep -E "^==|busy|cuLaunchKernel|cuEventQuery|cuStreamWriteValue|cuStreamQuery|cuPointerGetAttribute " "$out/trace_summary.txt"
( cd /tmp/trace && tar czf "$out/trace.tgz" . )
for m in --datatypes ""; do
  timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware $m --verify > "$out/verify.txt" 2>&1
  echo "verify (8 PEs, 128^3, ${m:-faces}): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
done
AMPI_GPU_COMPLETION_WORDS=0 timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --datatypes --verify > "$out/verify.txt" 2>&1
echo "verify (8 PEs, 128^3, datatypes, events): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -1)"
rm -f "$out/log"
echo "device_run1: done"
