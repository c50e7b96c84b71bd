#!/usr/bin/env bash
# device_run4.sh — two GPUs (NVLink): layouts sent between processes (the receiver's kernel copies
# from the sender's layout mapped with CUDA IPC; p2p/ipc.cpp's send_layout, kIpcLayout). The gpu
# label; the halo benchmark between two processes on one GPU; Jacobi3D 256^3, 8 ranks over two
# GPUs, three rounds: 2 processes x 4 PEs and 1 process x 8 PEs with --datatypes, 8 MPS processes
# with face buffers and with --datatypes.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
H=$carry/gpu_halo
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*|Not Run" "$out/ctest.txt" | tail -25
grep -E "Test +#.*gpu_dtype_pack" "$out/ctest.txt"
echo "== halo: 256^3 face as a vector between two processes of one GPU (us)"
CUDA_VISIBLE_DEVICES=0 timeout 60 ampirun -np 2 --vp 2 "$H" -t 0.3 2>&1 | grep -E "^bench|rror|FAIL" | tee "$out/halo.txt"
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
  jp "2x4 PEs datatypes" 2 8 4 --datatypes
  jp "1x8 PEs datatypes" 1 8 8 --datatypes
  mps_on
  jp "8 MPS procs, face buffers" 8 8 1
  jp "8 MPS procs, datatypes" 8 8 1 --datatypes
  mps_off
done
} 2>&1 | tee "$out/jacobi2.txt"
echo "device_run4: done"
