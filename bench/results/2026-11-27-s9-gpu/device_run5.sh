#!/usr/bin/env bash
# device_run5.sh — a system-wide CPU profile (Debian's perf 6.1, carried) of Jacobi3D 256^3,
# 8 ranks, GPU-aware: one process over 8 PEs against 8 processes under MPS.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
B=$AMPI_BUILD
J=$B/apps/jacobi3d/jacobi3d_cuda
mkdir -p /tmp/perf && tar -C /tmp/perf -xJf "$carry/perf.tar.xz"
P() { LD_LIBRARY_PATH=/tmp/perf/lib /tmp/perf/perf "$@"; }
P --version || exit 1
export CUDA_VISIBLE_DEVICES=0
prof() { # name np vp pes [env...]
  local name=$1 np=$2 vp=$3 pes=$4; shift 4
  # perf's own libraries must not reach the job: it runs beside perf, which samples every CPU
  # for 2 s in the middle of its 8000 iterations.
  env AMPI_GPU_WAIT_PROGRESS=0 "$@" ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 8000 -w 20 \
    --gpu-aware --phases > "$out/$name.log" 2>&1 &
  local job=$!
  sleep 1.5
  P record -q -o /tmp/$name.data -a -e cpu-clock -F 4000 -g -- sleep 2
  wait $job
  grep -E '^Time per|^Phases' "$out/$name.log"
  P report -i /tmp/$name.data --stdio --no-children --sort dso,sym -g none --percent-limit 0.4 2>/dev/null | grep -v '^$' | head -70 > "$out/$name.sym.txt"
  P report -i /tmp/$name.data --stdio --no-children --sort comm,dso -g none --percent-limit 0.5 2>/dev/null | grep -v '^$' | head -40 > "$out/$name.dso.txt"
  P report -i /tmp/$name.data --stdio --no-children --sort sym -G --percent-limit 3 2>/dev/null | head -400 > "$out/$name.callers.txt"
  head -45 "$out/$name.sym.txt"
}
echo "== one process, 8 PEs"; prof pes8 1 8 8
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d
echo "== 8 processes, MPS"; prof mps8 8 8 1
echo quit | nvidia-cuda-mps-control
echo "device_run5: done"
