#!/usr/bin/env bash
# device_run1.sh — strided-copy kernels and the unpacked send between PEs of one process: the gpu
# label; the halo benchmark (a 256^3 face as a vector type) with this build's libampi against
# the one before (old-lib, session 9's); Jacobi3D 8 ranks, default and --datatypes, 8 PEs of one
# process against 8 MPS processes, two rounds.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
H=$carry/gpu_halo
NEWLIB=$B/lib OLDLIB=$carry/old-lib
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
export CUDA_VISIBLE_DEVICES=0
lib() { if [ "$1" = old ]; then export LD_LIBRARY_PATH=${LD_LIBRARY_PATH//$NEWLIB/$OLDLIB}; else export LD_LIBRARY_PATH=${LD_LIBRARY_PATH//$OLDLIB/$NEWLIB}; fi; }
echo "== halo: 256^3 face as a vector, device packing vs contiguous (us)"
for l in "1 2 1" "1 2 2" "2 2 1"; do set -- $l
  for v in new old; do lib $v
    echo "-- np $1 vp $2 pes $3 lib $v"
    timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$H" -t 0.3 2>&1 | grep -E "^bench|rror|FAIL"
  done
done 2>&1 | tee "$out/halo.txt"
lib new
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1; shift; timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$J" -n 256 -i 300 -w 20 --gpu-aware ${4:-} > "$out/log" 2>&1
  printf '%-36s rc=%d %s\n' "$label" $? "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/.*: //' | tr '\n' ' ')"; }
{
for round in 1 2; do
  jp "8 PEs default (new)" 1 8 8
  jp "8 PEs datatypes (new)" 1 8 8 --datatypes
  lib old; jp "8 PEs datatypes (old lib)" 1 8 8 --datatypes; lib new
  jp "1 PE datatypes (new)" 1 8 1 --datatypes
  mps_on
  jp "8 MPS procs default" 8 8 1
  jp "8 MPS procs datatypes" 8 8 1 --datatypes
  mps_off
done
} 2>&1 | tee "$out/jacobi.txt"
echo "device_run1: done"
