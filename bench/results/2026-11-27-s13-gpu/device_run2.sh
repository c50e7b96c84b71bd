#!/usr/bin/env bash
# device_run2.sh — one GPU: the PEs' resident copy kernel (AMPI_GPU_COPY_KERNEL, default 256K)
# against the copy engines (AMPI_GPU_COPY_KERNEL=0). The gpu label; Jacobi3D 256^3, 8 ranks,
# face buffers and --datatypes, 1 process x 8 PEs and x 1 PE, against 8 MPS processes (both
# settings), three rounds interleaved; Jacobi3D's exchange alone (bench/gpu_exchange); the
# driver calls of 8 PEs with the kernel (CUPTI, bench/cuda_trace.cpp).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
X=$carry/gpu_exchange
CT=$carry/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
grep -E "gpu_copy_kernel" "$out/ctest.txt" | head -8
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
# jp LABEL KERNEL_BYTES NP VP PES [ARGS...]
jp() { local label=$1 k=$2 np=$3 vp=$4 pes=$5; shift 5
  AMPI_GPU_COPY_KERNEL=$k timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-40s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm|^Phases' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
echo "== Jacobi3D 256^3, 8 ranks: time/iter ms, comm/iter ms [phases]"
{ for round in 1 2 3; do
  for k in 256K 0; do
    jp "1x8 PEs face, kernel=$k" $k 1 8 8 --phases
    jp "1x8 PEs datatypes, kernel=$k" $k 1 8 8 --datatypes
    jp "1x1 PE face, kernel=$k" $k 1 8 1 --phases
  done
  mps_on
  for k in 256K 0; do
    jp "8 MPS face, kernel=$k" $k 8 8 1 --phases
  done
  jp "8 MPS datatypes, kernel=256K" 256K 8 8 1 --datatypes
  mps_off
done; } 2>&1 | tee "$out/jacobi.txt"
echo "== exchange alone (gpu_exchange, 128 KiB faces)"
one() { local label=$1 k=$2 np=$3 vp=$4 pes=$5; shift 5
  printf '%-34s ' "$label"
  AMPI_GPU_COPY_KERNEL=$k timeout 60 ampirun -np $np --vp $vp --pes-per-process $pes "$X" "$@" 2>&1 | tail -1; }
{ for round in 1 2; do
  for k in 256K 0; do one "8 PEs, kernel=$k" $k 1 8 8; one "1 PE, kernel=$k" $k 1 8 1 -i 500; done
  mps_on; for k in 256K 0; do one "8 MPS, kernel=$k" $k 8 8 1; done; mps_off
done; } 2>&1 | tee "$out/exchange.txt"
echo "== driver calls, 8 PEs face, kernel on"
d=/tmp/trace/pes8; mkdir -p $d
( export CUDA_INJECTION64_PATH=$CT/libcuda_trace.so CUDA_TRACE_API=1 CUDA_TRACE_DIR=$d LD_LIBRARY_PATH=$CT:$LD_LIBRARY_PATH
  jp "1x8 PEs face, kernel=256K [API]" 256K 1 8 8 )
head -14 $d/api.*.txt | tee "$out/api_pes8.txt"
rm -f "$out/log"
echo "device_run2: done"
