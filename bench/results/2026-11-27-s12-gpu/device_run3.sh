#!/usr/bin/env bash
# device_run3.sh — one GPU: where an iteration of Jacobi3D 256^3 with 8 virtual ranks over 8 PEs
# (--datatypes) goes, by nsys (CUDA trace): kernel and API summaries and the GPU trace as CSV;
# the same for 8 MPS processes with face buffers when nsys is there.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
nvidia-smi --query-gpu=name --format=csv,noheader
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"
[ -n "$NSYS" ] || { ls /usr/local/cuda/ /opt 2>&1 | head -30; exit 0; }
cd /tmp
timeout 120 "$NSYS" profile -t cuda --force-overwrite true -o /tmp/j8 \
  ampirun -np 1 --vp 8 --pes-per-process 8 "$J" -n 256 -i 200 -w 20 --gpu-aware --datatypes > "$out/run.txt" 2>&1
echo "profile rc=$?"; grep -E "^Time per|^Comm" "$out/run.txt"
"$NSYS" stats --report cuda_gpu_kern_sum,cuda_api_sum --format csv -o "$out/j8" /tmp/j8.nsys-rep > /dev/null 2>&1
"$NSYS" stats --report cuda_gpu_trace --format csv -o "$out/j8" /tmp/j8.nsys-rep > /dev/null 2>&1
ls -la "$out"
for f in "$out"/j8_cuda_gpu_kern_sum.csv "$out"/j8_cuda_api_sum.csv; do echo "== $f"; head -20 "$f" | cut -c1-220; done
gzip -f "$out"/j8_cuda_gpu_trace.csv 2>/dev/null
echo "device_run3: done"
