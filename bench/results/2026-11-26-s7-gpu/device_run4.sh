#!/usr/bin/env bash
# device_run4.sh — after: libampi sets CUDA_DEVICE_MAX_CONNECTIONS=32 only for processes of several
# ranks (MPS processes of one rank aborted with it); a rank's default stream is its own when its
# process (not its PE) has several ranks. The gpu label, the Jacobi3D table, --enqueue timings.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
( cd "$B/tests/gpu" && timeout 300 ctest -j3 --timeout 90 --output-on-failure ) > "$out/ctest.txt" 2>&1
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/ctest.txt" | tail -30
echo "== Jacobi3D"
AMPIRUN=$(command -v ampirun) JACOBI_TIMEOUT=60 timeout 400 bash "$carry/gpu_jacobi.sh" --bin "$J" --ranks "8 16" --pes "2 4 8" -i 100 \
  --out "$out/jacobi.txt" 2>&1 | tail -40
echo "== --enqueue 256^3, 8 ranks"
for t in 1 8; do for m in "--enqueue" "--enqueue --datatypes"; do
  echo "-- --pes-per-process $t $m"
  timeout 60 ampirun -np 1 --vp 8 --pes-per-process $t --timeout 55 "$J" -n 256 -w 10 -i 100 $m 2>&1 | grep -E "^Time|^Comm|rror|longer"
done; done 2>&1 | tee "$out/enqueue.txt"
echo "device_run4: done"
echo "== 8 processes under MPS, full output"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps7/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps7/log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY && nvidia-cuda-mps-control -d
timeout 60 ampirun -np 8 --vp 8 --timeout 55 "$J" -n 256 -w 10 -i 100 2>&1 | grep -v "ampi: note" | head -20
echo quit | nvidia-cuda-mps-control
