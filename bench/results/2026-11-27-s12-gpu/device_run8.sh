#!/usr/bin/env bash
# device_run8.sh — one GPU, side by side in one call: the merged code (new) against its parent
# before issue 17's Port::spin was merged (old-lib: ba34f3c, swapped in through LD_LIBRARY_PATH),
# to tell whether the spin of a rank waiting alone on its PE slowed Jacobi3D (run7 was slower
# than run2 on another H100). 1 process x 8 PEs, face buffers and --datatypes; 8 MPS processes
# with face buffers; three rounds interleaved.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
NEWLIB=$B/lib OLDLIB=$carry/old-lib
nvidia-smi --query-gpu=name --format=csv,noheader
lib() { if [ "$1" = old ]; then export LD_LIBRARY_PATH=${LD_LIBRARY_PATH//$NEWLIB/$OLDLIB}; else export LD_LIBRARY_PATH=${LD_LIBRARY_PATH//$OLDLIB/$NEWLIB}; fi; }
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
jp() { local label=$1; shift
  timeout 60 ampirun -np $1 --vp $2 --pes-per-process $3 "$J" -n 256 -i 300 -w 20 --gpu-aware ${4:-} > "$out/log" 2>&1
  local rc=$?
  printf '%-36s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm' "$out/log" | sed 's/.*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
{
echo "label                                rc  time/iter ms, comm/iter ms"
for round in 1 2 3; do
  for v in new old; do lib $v
    jp "1x8 PEs face ($v)" 1 8 8
    jp "1x8 PEs datatypes ($v)" 1 8 8 --datatypes
  done
  lib new; mps_on; jp "8 MPS procs face (new)" 8 8 1; lib old; jp "8 MPS procs face (old)" 8 8 1; lib new; mps_off
done
} 2>&1 | tee "$out/jacobi1.txt"
echo "device_run8: done"
