#!/bin/sh
# bench/gpu_jacobi.sh — Jacobi3D (apps/jacobi3d, CUDA build) on GPUs: host-staged against
# GPU-aware halo exchange, virtual ranks of one process against one process per rank; prints a
# table of the mean time per iteration and the communication time per iteration (ms).
#
#   bench/gpu_jacobi.sh [--build DIR] [--bin JACOBI3D_CUDA] [-n N] [-i ITERS] [--ranks "1 2 4 8 16"]
#                       [--pes "2 4 8"] [--halo "staging gpu-aware datatypes"] [--two-gpu]
#                       [--out FILE]
#   One GPU (default): R ranks for each R of --ranks, all on GPU 0 (CUDA_VISIBLE_DEVICES=0),
#     as R virtual ranks of one process (ampirun -np 1 --vp R; no MPS) and as R processes
#     (ampirun -np R --vp R) under the MPS daemon (started here for those runs when
#     nvidia-cuda-mps-control exists and no daemon is named by CUDA_MPS_PIPE_DIRECTORY).
#   --pes "T...": also R virtual ranks of one process over T PEs (SMP mode, ampirun
#     --pes-per-process T: T threads share the process's CUDA context), for each T that divides R.
#   --halo LIST: the halo modes, each a row (default "staging gpu-aware"): staging (faces through
#     host memory), gpu-aware (device face buffers passed to MPI), datatypes (faces as subarray
#     datatypes of the device grid, no pack kernels: jacobi3d_cuda --datatypes).
#   --two-gpu: two GPUs, 1 and 4 ranks per GPU: one process per GPU holding its ranks as virtual
#     ranks (ampirun -np 2 --vp R; with --pes, also over T PEs each), and one process per rank
#     (ampirun -np R --vp R, MPS).
# The grid is N^3 doubles (default 256), 100 timed iterations after 10 warm-up.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
B=$ROOT/build-cuda BIN= N=256 ITERS=100 RANKS="1 2 4 8 16" PES= TWO=0 OUTF= HALOS="staging gpu-aware"
while [ $# -gt 0 ]; do
  case $1 in
    --build) B=$2; shift ;;
    --bin) BIN=$2; shift ;;
    -n) N=$2; shift ;;
    -i) ITERS=$2; shift ;;
    --ranks) RANKS=$2; shift ;;
    --pes) PES=$2; shift ;;
    --halo) HALOS=$2; shift ;;
    --two-gpu) TWO=1 ;;
    --out) OUTF=$2; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "gpu_jacobi.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$BIN" ] || BIN=$B/apps/jacobi3d/jacobi3d_cuda
AMPIRUN=${AMPIRUN:-$B/bin/ampirun}
if [ ! -x "$BIN" ]; then
  cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMPI_BENCH_CUDA=ON \
    -DAMPI_BUILD_TESTS=OFF >/dev/null && ninja -C "$B" jacobi3d_cuda ampirun >/dev/null || exit 1
fi
T=$(mktemp -d)
# The MPS daemon runs only while the one-process-per-rank layouts run: a process of virtual ranks
# is one context and needs none, and as an MPS client its 8 threads' launches and waits took 2.2x
# as long (bench/gpu_launch_threads: 180 against 82 us for 7 launches and a synchronize per
# thread and iteration, H100, bench/results/2026-11-27-s9-gpu/run1). A daemon the caller names
# (CUDA_MPS_PIPE_DIRECTORY set) serves every layout.
MPS=0 OWN_MPS=0
if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
  MPS=1
elif command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
  OWN_MPS=1 MPS=1
fi
mps_start() {
  [ $OWN_MPS -eq 1 ] || return 0
  export CUDA_MPS_PIPE_DIRECTORY=$T/pipe CUDA_MPS_LOG_DIRECTORY=$T/log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d || { MPS=0 OWN_MPS=0; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
}
mps_stop() {
  [ $OWN_MPS -eq 1 ] && [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] || return 0
  echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
  # The daemon ends after its server: wait for it before the next layout starts its context.
  while pgrep -x nvidia-cuda-mps-control >/dev/null 2>&1 || pgrep -f nvidia-cuda-mps-server >/dev/null 2>&1; do sleep 0.1; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}
cleanup() {
  mps_stop
  rm -rf "$T"
}
trap cleanup EXIT
trap "exit 143" TERM INT
[ -n "$OUTF" ] || OUTF=$T/table
: >"$OUTF"
printf '%-38s %5s %-13s %14s %14s\n' "layout" "ranks" "halo" "time/iter ms" "comm/iter ms" |
  tee -a "$OUTF"

RUN=0
FAILS=0
# one <layout label> <ranks> <np> <vp> <pes per process> [env...]
one() {
  label=$1 ranks=$2 np=$3 vp=$4 pes=$5
  shift 5
  for mode in $HALOS; do
    case $mode in
      staging) flag=--staging ;;
      gpu-aware) flag=--gpu-aware ;;
      datatypes) flag="--gpu-aware --datatypes" ;;
      *) echo "gpu_jacobi.sh: unknown halo mode $mode" >&2; exit 2 ;;
    esac
    RUN=$((RUN + 1))
    log=$T/run$RUN.log
    env "$@" timeout "${JACOBI_TIMEOUT:-300}" "$AMPIRUN" -np "$np" --vp "$vp" --pes-per-process "$pes" "$BIN" -n "$N" -i "$ITERS" -w 10 $flag \
      >"$log" 2>&1
    rc=$?
    t=$(awk -F': ' '/^Time per iteration/ {print $2}' "$log")
    c=$(awk -F': ' '/^Communication time per iteration/ {split($2, a, " "); print a[1]}' "$log")
    if [ $rc -ne 0 ] || [ -z "$t" ]; then
      t="FAILED($rc)" c="-"
      FAILS=$((FAILS + 1))
      tail -3 "$log" | sed 's/^/    # /' >"$T/why"
    fi
    printf '%-38s %5s %-13s %14s %14s\n' "$label" "$ranks" "$mode" "$t" "$c" | tee -a "$OUTF"
    if [ -f "$T/why" ]; then
      cat "$T/why"
      rm -f "$T/why"
    fi
  done
}

if [ $TWO -eq 0 ]; then
  for r in $RANKS; do
    one "1 GPU, $r virtual ranks, 1 process" "$r" 1 "$r" 1 CUDA_VISIBLE_DEVICES=0
    for t in $PES; do
      [ "$t" -le "$r" ] && [ $((r % t)) -eq 0 ] &&
        one "1 GPU, $r virtual ranks, 1 proc, $t PEs" "$r" 1 "$r" "$t" CUDA_VISIBLE_DEVICES=0
    done
    mps_start
    one "1 GPU, $r processes (MPS=$MPS)" "$r" "$r" "$r" 1 CUDA_VISIBLE_DEVICES=0
    mps_stop
  done
else
  for per in 1 4; do
    r=$((2 * per))
    one "2 GPUs, $per/GPU, 2 processes" "$r" 2 "$r" 1
    for t in $PES; do
      [ "$t" -le "$per" ] && [ $((per % t)) -eq 0 ] && [ "$t" -gt 1 ] &&
        one "2 GPUs, $per/GPU, 2 procs, $t PEs each" "$r" 2 "$r" "$t"
    done
    if [ $per -gt 1 ]; then
      mps_start
      one "2 GPUs, $per/GPU, $r processes (MPS=$MPS)" "$r" "$r" "$r" 1
      mps_stop
    fi
  done
fi
# The status is that of the runs (a run that failed makes it 1), not of the last test above.
[ $FAILS -eq 0 ]
