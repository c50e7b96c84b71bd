#!/usr/bin/env bash
# device_run1.sh — one GPU. The copy kernel walks strided layouts with a cursor per thread (adds
# and compares a step instead of two quotients a unit). The gpu label (default: only rows a warp
# wide go to the kernel); gpu_copy_kernel again with EXP_NARROW=1 (an experiment switch: narrow
# rows too, faces across x included); gpu_halo between two PEs (kernel bound 1 MiB) with and
# without EXP_NARROW and with the kernel off; Jacobi3D 256^3, 8 ranks, --datatypes over 8 PEs
# (kernel, kernel with EXP_NARROW, kernel off) against 8 MPS processes, three rounds interleaved.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
( cd "$B/tests/gpu" && EXP_NARROW=1 timeout 200 ctest -j3 --timeout 90 -R gpu_copy_kernel --output-on-failure ) > "$out/ctest_narrow.txt" 2>&1
echo "-- EXP_NARROW=1 gpu_copy_kernel:"; grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest_narrow.txt" | tail -10
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
# jp LABEL KERNEL_BYTES NARROW NP VP PES [ARGS...]
jp() { local label=$1 k=$2 nar=$3 np=$4 vp=$5 pes=$6; shift 6
  if [ "$nar" = 1 ]; then export EXP_NARROW=1; else unset EXP_NARROW; fi
  AMPI_GPU_COPY_KERNEL=$k timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  unset EXP_NARROW
  printf '%-40s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== gpu_halo, 2 PEs of one process"
{ for v in "1M 0" "1M 1" "0 0"; do
  set -- $v
  echo "-- AMPI_GPU_COPY_KERNEL=$1 EXP_NARROW=$2"
  if [ "$2" = 1 ]; then export EXP_NARROW=1; else unset EXP_NARROW; fi
  AMPI_GPU_COPY_KERNEL=$1 timeout 60 ampirun -np 1 --vp 2 --pes-per-process 2 "$carry/gpu_halo" 2>&1 | tail -8
  unset EXP_NARROW
done; } 2>&1 | tee "$out/halo.txt"
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms"
{ for round in 1 2 3; do
  jp "1x8 PEs datatypes, kernel" 256K 0 1 8 8 --datatypes
  jp "1x8 PEs datatypes, kernel+narrow" 256K 1 1 8 8 --datatypes
  jp "1x8 PEs datatypes, kernel off" 0 0 1 8 8 --datatypes
  mps_on; jp "8 MPS datatypes" 256K 0 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
EXP_NARROW=1 AMPI_GPU_COPY_KERNEL=256K timeout 90 ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 128 -i 20 -w 2 --gpu-aware --datatypes --verify > "$out/verify.txt" 2>&1
echo "verify (narrow, 128^3): rc=$? $(grep -iE 'error|verif' "$out/verify.txt" | tail -2)"
rm -f "$out/log"
echo "device_run1: done"
