#!/usr/bin/env bash
# device_run1.sh — one GPU: where a Jacobi3D iteration (256^3, 8 ranks, face buffers) goes, one
# process over 8 PEs and over 1 PE against 8 MPS processes: (a) times with --phases, two rounds;
# (b) every driver API call timed (bench/cuda_trace.cpp, CUDA_TRACE_API=1); (c) the GPU's work
# recorded and merged (CUDA_TRACE_GPU=1, bench/cuda_trace.py); (d) CPU profiles (carried perf).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:?carry dir}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
cp "$carry/libampi.sym.so" "$AMPI_BUILD/lib/libampi.so.0.1.0"
J=$AMPI_BUILD/apps/jacobi3d/jacobi3d_cuda
CT=$carry/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mps_on() { export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY; nvidia-cuda-mps-control -d; }
mps_off() { echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps >/dev/null; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
# jp LABEL NP VP PES [ARGS...]
jp() { local label=$1 np=$2 vp=$3 pes=$4; shift 4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 300 -w 20 --gpu-aware "$@" > "$out/log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %s\n' "$label" $rc "$(grep -E '^Time per|^Comm|^Phases' "$out/log" | sed 's/^[^:]*: //' | tr '\n' ' ')"
  [ $rc = 0 ] || tail -5 "$out/log"; }
[ "${SKIP_A:-0}" = 1 ] || { echo "== (a) times"
{ for round in 1 2; do
  jp "1x8 PEs face" 1 8 8 --phases
  jp "1x1 PE face" 1 8 1 --phases
  jp "1x2 PEs face" 1 8 2 --phases
  jp "1x8 PEs datatypes" 1 8 8 --datatypes
  mps_on; jp "8 MPS face" 8 8 1 --phases; jp "8 MPS datatypes" 8 8 1 --datatypes; mps_off
done; } 2>&1 | tee "$out/times.txt"
}
# traced LABEL MODE(API|GPU) NP VP PES [ARGS]
traced() { local label=$1 mode=$2; shift 2
  local d=/tmp/trace/$label.$mode; mkdir -p "$d"
  ( export CUDA_INJECTION64_PATH=$CT/libcuda_trace.so CUDA_TRACE_$mode=1 CUDA_TRACE_DIR=$d LD_LIBRARY_PATH=$CT:$LD_LIBRARY_PATH
    jp "$label [$mode]" "$@" )
  cp "$out/log" "$d/jacobi.log"; }
echo "== (b) driver calls, (c) GPU work"
{ for mode in API GPU; do
  traced pes8 $mode 1 8 8
  traced pe1 $mode 1 8 1
  mps_on; traced mps8 $mode 8 8 1; mps_off
done; } 2>&1 | tee "$out/traced.txt"
for l in pes8 pe1 mps8; do
  echo "== $l API"; for f in /tmp/trace/$l.API/api.*.txt; do head -16 "$f"; done
  echo "== $l GPU"; python3 "$CT/cuda_trace.py" /tmp/trace/$l.GPU
done 2>&1 | tee "$out/trace_summary.txt"
echo "== (d) CPU profiles"
mkdir -p /tmp/perf && tar -C /tmp/perf -xJf "$carry/perf.tar.xz"
P() { LD_LIBRARY_PATH=/tmp/perf/lib /tmp/perf/perf "$@"; }
prof() { local name=$1 np=$2 vp=$3 pes=$4
  timeout 90 ampirun -np $np --vp $vp --pes-per-process $pes "$J" -n 256 -i 40000 -w 20 --gpu-aware > "$out/$name.log" 2>&1 &
  local job=$!; sleep 4
  P record -q -o /tmp/$name.data -a -e cpu-clock -F 2000 -- sleep 2 2>&1 | tail -2
  kill $job 2>/dev/null; wait $job 2>/dev/null
  P report -i /tmp/$name.data --stdio --no-children --sort dso,sym --percent-limit 0.4 2>/dev/null | grep -v '^$' | grep -v '^#' | head -50 > "$out/$name.sym.txt"
  P report -i /tmp/$name.data --stdio --no-children --sort dso --percent-limit 0.3 2>/dev/null | grep -v '^$' | grep -v '^#' | head -15 > "$out/$name.dso.txt"
  echo "-- $name"; cat "$out/$name.dso.txt"; head -25 "$out/$name.sym.txt"; }
prof pe1 1 8 1
prof pes8 1 8 8
tar -C /tmp -czf "$out/trace.tgz" trace; rm -f "$out/log"
echo "device_run1: done"
