#!/usr/bin/env bash
# device_run2.sh — Jacobi3D 256^3 over 1-16 ranks per GPU with the MPS daemon running only for
# the process-per-rank layouts (gpu_jacobi.sh), then the stream-enqueue modes with 8 ranks.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== Jacobi3D"
AMPIRUN=$(command -v ampirun) JACOBI_TIMEOUT=60 timeout 330 bash "$carry/gpu_jacobi.sh" --bin "$J" --ranks "1 2 4 8 16" --pes "2 4 8" -i 200 \
  --out "$out/jacobi.txt" 2>&1 | tail -40
echo "== --enqueue, 8 ranks, no MPS"
for pes in 1 8; do for extra in "" "--datatypes"; do
  printf 'pes=%s %-12s ' $pes "$extra"
  CUDA_VISIBLE_DEVICES=0 timeout 60 ampirun -np 1 --vp 8 --pes-per-process $pes "$J" -n 256 -i 200 -w 10 --gpu-aware --enqueue $extra > "$out/enq_$pes$extra.log" 2>&1
  echo "rc=$? $(grep -E '^Time per iteration' "$out/enq_$pes$extra.log")"
done; done
echo "device_run2: done"
