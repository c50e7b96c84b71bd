#!/bin/sh
# bench/compare.sh — our OSU-compatible osu_latency and osu_bw (osu/) side by side with other MPIs,
# in one go, on this machine; prints the median per size of several rounds with the ratios
# ours / theirs, and writes PNG plots (latency.png, bandwidth.png: log-log, one line per library).
#
#   bench/compare.sh [--build DIR] [--rounds N] [--max BYTES] [--out DIR] [--quick]
#     CPU comparison: osu/ built with our mpicc, Debian's Open MPI (mpicc.openmpi) and MPICH
#     (mpicc.mpich); installs openmpi-bin libopenmpi-dev mpich libmpich-dev python3-matplotlib
#     with apt when missing. Runs: ours 2 virtual ranks in one process (ampi_vp2), ours 2
#     processes (ampi_np2), Open MPI 2 processes (ompi, its default shared-memory path, and
#     ompi_ucx with its UCX pml), MPICH 2 processes (mpich, ch4:ucx).
#   bench/compare.sh --gpu [--build DIR] [--bin DIR] [--rounds N] [--max BYTES] [--out DIR]
#     GPU comparison (run on a GPU machine): our osu programs built with CUDA (osu/Makefile
#     CUDA=..., or prebuilt ones in --bin DIR) with device buffers passed to MPI (ampi_D_*), the
#     same through host staging (--staging: cudaMemcpy to/from pinned host buffers around each
#     message; ampi_stage_*), host buffers (ampi_H_vp2), 2 virtual ranks of one process (vp2)
#     and 2 processes (np2; the MPS daemon is started when one GPU is shared and
#     nvidia-cuda-mps-control exists), and raw UCX (ucx_perftest tag_lat/tag_bw, -m cuda) when
#     ucx_perftest is on PATH.
# Results (raw outputs, plots) go to --out (default <build>/bench-results[-gpu]).
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
GPU=0 B= BIN= ROUNDS=3 MAX=4194304 OUT= QUICK=0
while [ $# -gt 0 ]; do
  case $1 in
    --gpu) GPU=1 ;;
    --build) B=$2; shift ;;
    --bin) BIN=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --max) MAX=$2; shift ;;
    --out) OUT=$2; shift ;;
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$B" ] || { [ $GPU -eq 1 ] && B=build-cuda || B=build; }
case $B in /*) ;; *) B=$ROOT/$B ;; esac
[ -n "$OUT" ] || { [ $GPU -eq 1 ] && OUT=$B/bench-results-gpu || OUT=$B/bench-results; }
mkdir -p "$OUT/raw"
rm -f "$OUT"/raw/*
T=$(mktemp -d)
MPS_STARTED=0
cleanup() {
  if [ $MPS_STARTED -eq 1 ]; then echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true; fi
  rm -rf "$T"
}
trap cleanup EXIT
trap "exit 143" TERM INT
ITER=""
[ $QUICK -eq 1 ] && ITER="-i 200 -x 20"

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
need_pkgs=
if [ $GPU -eq 0 ]; then
  command -v mpicc.openmpi >/dev/null 2>&1 || need_pkgs="$need_pkgs openmpi-bin libopenmpi-dev"
  command -v mpicc.mpich >/dev/null 2>&1 || need_pkgs="$need_pkgs mpich libmpich-dev"
fi
PY=
for p in /usr/bin/python3 python3; do
  if $p -c 'import matplotlib' >/dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ] && command -v apt-get >/dev/null 2>&1; then
  need_pkgs="$need_pkgs python3-matplotlib"
fi
if [ -n "$need_pkgs" ]; then
  echo "installing:$need_pkgs"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need_pkgs >/dev/null
fi
[ -n "$PY" ] || PY=/usr/bin/python3
command -v "$PY" >/dev/null 2>&1 || PY=python3

# Our library: build it when the build directory lacks it.
if [ -z "$BIN" ] && [ ! -x "$B/bin/ampirun" ]; then
  extra=
  [ $GPU -eq 1 ] && extra=-DAMPI_BENCH_CUDA=ON
  cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $extra >/dev/null
  ninja -C "$B" ampi ampi_start ampirun >/dev/null
fi
AMPIRUN=${AMPIRUN:-$B/bin/ampirun}

# run <label> <kind lat|bw> <round> <command...>
run() {
  label=$1 kind=$2 round=$3
  shift 3
  f="$OUT/raw/$label.$kind.$round.txt"
  if ! timeout "${OSU_TIMEOUT:-600}" "$@" >"$f" 2>&1; then
    echo "  $label $kind round $round FAILED (see $f):"
    tail -3 "$f" | sed 's/^/    /'
    mv "$f" "$f.failed"
  fi
}

if [ $GPU -eq 0 ]; then
  for lib in ampi:$B/bin/mpicc ompi:mpicc.openmpi mpich:mpicc.mpich; do
    name=${lib%%:*} cc=${lib#*:}
    make -s -C "$ROOT/osu" MPICC="$cc" OUT="$T/$name" "$T/$name/osu_latency" "$T/$name/osu_bw" >/dev/null
  done
  OMPI="mpirun.openmpi --allow-run-as-root -np 2"
  UCXPML="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
  r=1
  while [ $r -le "$ROUNDS" ]; do
    echo "round $r of $ROUNDS"
    for k in lat bw; do
      p=osu_latency
      [ $k = bw ] && p=osu_bw
      run ampi_vp2 $k $r "$AMPIRUN" -np 1 --vp 2 "$T/ampi/$p" -m 1:$MAX $ITER
      run ampi_np2 $k $r "$AMPIRUN" -np 2 --vp 2 "$T/ampi/$p" -m 1:$MAX $ITER
      run ompi $k $r $OMPI "$T/ompi/$p" -m 1:$MAX $ITER
      run ompi_ucx $k $r $OMPI $UCXPML "$T/ompi/$p" -m 1:$MAX $ITER
      run mpich $k $r mpirun.mpich -np 2 "$T/mpich/$p" -m 1:$MAX $ITER
    done
    r=$((r + 1))
  done
  series=
  for l in ampi_vp2 ampi_np2 ompi ompi_ucx mpich; do
    series="$series $l=$OUT/raw/$l.lat.*.txt:$OUT/raw/$l.bw.*.txt"
  done
  $PY "$ROOT/bench/osu_report.py" --out "$OUT" --ours ampi_vp2,ampi_np2 \
    --ref ompi,ompi_ucx,mpich --title "2 ranks, $(nproc) CPUs" $series
  exit 0
fi

# ---- GPU ----------------------------------------------------------------------------------------
if [ -z "$BIN" ]; then
  CUDA=${CUDA_HOME:-/usr/local/cuda}
  make -s -C "$ROOT/osu" MPICC="$B/bin/mpicc" CUDA="$CUDA" OUT="$T/ampi" "$T/ampi/osu_latency" \
    "$T/ampi/osu_bw" >/dev/null
  BIN=$T/ampi
fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
echo "GPUs: $NGPU"
if [ "${NGPU:-0}" -le 1 ] && command -v nvidia-cuda-mps-control >/dev/null 2>&1 &&
   [ -z "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
  export CUDA_MPS_PIPE_DIRECTORY=$T/mps-pipe CUDA_MPS_LOG_DIRECTORY=$T/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then MPS_STARTED=1; echo "MPS daemon started"; fi
fi
# ucx_perftest in the OSU format: <size> <value> per line.
ucx_run() {
  kind=$1 round=$2
  test=tag_lat
  [ $kind = bw ] && test=tag_bw
  f="$OUT/raw/ucx.$kind.$round.txt"
  : >"$f"
  s=1
  port=$((13337 + round))
  while [ $s -le "$MAX" ]; do
    n=10000
    [ $s -ge 65536 ] && n=1000
    timeout 60 ucx_perftest -p $port >/dev/null 2>&1 &
    srv=$!
    sleep 0.3
    timeout 60 ucx_perftest localhost -p $port -t $test -m cuda -s $s -n $n 2>/dev/null |
      awk -v s=$s -v k=$kind '$1 == "Final:" { if (k == "lat") print s, $5; else print s, $7 * 1.048576 }' >>"$f" || true
    wait $srv 2>/dev/null || true
    s=$((s * 2))
  done
}
r=1
while [ $r -le "$ROUNDS" ]; do
  echo "round $r of $ROUNDS"
  for k in lat bw; do
    p=osu_latency
    [ $k = bw ] && p=osu_bw
    run ampi_D_vp2 $k $r "$AMPIRUN" -np 1 --vp 2 "$BIN/$p" -m 1:$MAX $ITER -d cuda D D
    run ampi_stage_vp2 $k $r "$AMPIRUN" -np 1 --vp 2 "$BIN/$p" -m 1:$MAX $ITER -d cuda --staging D D
    run ampi_H_vp2 $k $r "$AMPIRUN" -np 1 --vp 2 "$BIN/$p" -m 1:$MAX $ITER
    run ampi_D_np2 $k $r "$AMPIRUN" -np 2 --vp 2 "$BIN/$p" -m 1:$MAX $ITER -d cuda D D
    run ampi_stage_np2 $k $r "$AMPIRUN" -np 2 --vp 2 "$BIN/$p" -m 1:$MAX $ITER -d cuda --staging D D
    if command -v ucx_perftest >/dev/null 2>&1; then ucx_run $k $r; fi
  done
  r=$((r + 1))
done
series=
for l in ampi_D_vp2 ampi_stage_vp2 ampi_H_vp2 ampi_D_np2 ampi_stage_np2 ucx; do
  series="$series $l=$OUT/raw/$l.lat.*.txt:$OUT/raw/$l.bw.*.txt"
done
$PY "$ROOT/bench/osu_report.py" --out "$OUT" --ours ampi_D_vp2,ampi_D_np2 \
  --ref ampi_stage_vp2,ampi_stage_np2,ucx --title "2 ranks, GPU buffers, $NGPU GPU(s)" $series
