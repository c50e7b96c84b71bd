#!/usr/bin/env bash
# device_run13.sh — CPU profiles (carried perf 6.1, libampi with its symbol table) of the halo
# exchange alone (bench/gpu_exchange, 8 ranks, 128 KiB device faces, no kernel): one process
# over 8 PEs against 8 processes under MPS.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
X=$carry/gpu_exchange
mkdir -p /tmp/perf && tar -C /tmp/perf -xJf "$carry/perf.tar.xz"
P() { LD_LIBRARY_PATH=/tmp/perf/lib /tmp/perf/perf "$@"; }
export CUDA_VISIBLE_DEVICES=0
prof() { # name np vp pes
  local name=$1 np=$2 vp=$3 pes=$4
  timeout 60 ampirun -np $np --vp $vp --pes-per-process $pes "$X" -i 40000 > "$out/$name.log" 2>&1 &
  local job=$!
  sleep 2
  P record -q -o /tmp/$name.data -a -e cpu-clock -F 4000 -- sleep 2
  wait $job
  tail -1 "$out/$name.log"
  P report -i /tmp/$name.data --stdio --no-children --sort dso,sym --percent-limit 0.3 2>/dev/null | grep -v '^$' | grep -v '^#' | head -60 > "$out/$name.sym.txt"
  P report -i /tmp/$name.data --stdio --no-children --sort dso --percent-limit 0.3 2>/dev/null | grep -v '^$' | grep -v '^#' | head -20 > "$out/$name.dso.txt"
  head -30 "$out/$name.sym.txt"
}
echo "== one process, 8 PEs"; prof pes8 1 8 8
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d
echo "== 8 processes, MPS"; prof mps8 8 8 1
echo quit | nvidia-cuda-mps-control
echo "device_run13: done"
