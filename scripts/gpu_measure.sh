#!/usr/bin/env bash
# On a GPU machine: ampi's latency and bandwidth with device buffers (8 B, 64 KiB, 4 MiB,
# 64 MiB) beside UCX's own ucx_perftest (tag API, cuda memory) and beside host staging through
# ampi (copy to pinned host memory, send, copy back), for
#   (a) two ranks of one process on one GPU (ucx_perftest has no such case: the reference is one
#       cuMemcpyAsync + synchronize, device to device),
#   (b) two processes on one GPU under an MPS daemon started here (private directories),
#   (c) two processes on two GPUs (when two are visible).
# Latency is one-way (half a round trip, ping-pong); bandwidth is size / latency, for all three.
# Needs the build's bin/ and ucx-cuda/bin on PATH (gpu_env.sh of scripts/gpu_stage.sh does it).
# Usage: scripts/gpu_measure.sh [BUILD_DIR]
set -uo pipefail
b=${1:-${AMPI_BUILD:-build}}
pp=$b/tests/gpu/gpu_pingpong
sizes="8 65536 4194304 67108864"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ours() { # np mode mps [env...] -> lines "mode size lat bw" (a run that hangs is cut at 120 s)
  local np=$1 mode=$2 mps=$3; shift 3
  env "$@" timeout 70 ampirun -np "$np" --vp 2 --mps "$mps" --timeout 60 "$pp" "$mode" $sizes 2>&1 |
    grep -E "^$mode "
}
perftest() { # port env-for-server env-for-client -> lines "size lat bw"
  local port=$1 senv=$2 cenv=$3
  for s in $sizes; do
    local n=1000; [[ $s -ge 4194304 ]] && n=100
    env $senv timeout 60 ucx_perftest -p "$port" -t tag_lat -m cuda -s "$s" -n "$n" >/dev/null 2>&1 &
    local spid=$!
    sleep 1
    env $cenv timeout 60 ucx_perftest 127.0.0.1 -p "$port" -t tag_lat -m cuda -s "$s" -n "$n" 2>&1 |
      awk -v s="$s" '/Final:/ {printf "%s %s %.2f\n", s, $5, s / $5 / 1e3}'
    wait $spid
    port=$((port + 1))
  done
}
row() { # label file-ours file-ref file-staging
  for s in $sizes; do
    printf "%-26s %10s" "$1" "$s"
    for f in "$2" "$3" "$4"; do
      awk -v s="$s" '{ if ($(NF-2) == s) { printf " %11s %9s", $(NF-1), $NF; found=1 } }
                     END { if (!found) printf " %11s %9s", "-", "-" }' "$f"
    done
    echo
  done
}

echo "== (a) two ranks of one process, one GPU"
CUDA_VISIBLE_DEVICES=0 timeout 120 "$pp" copy $sizes >"$out/a.ref"
ours 1 direct off CUDA_VISIBLE_DEVICES=0 >"$out/a.ours"
ours 1 staging off CUDA_VISIBLE_DEVICES=0 >"$out/a.stage"
cat "$out"/a.*

echo "== (b) two processes, one GPU, under an MPS daemon started here for the measurement"
mps=$(mktemp -d)
export CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d </dev/null >/dev/null 2>&1
ours 2 direct off CUDA_VISIBLE_DEVICES=0 >"$out/b.ours"
ours 2 staging off CUDA_VISIBLE_DEVICES=0 >"$out/b.stage"
ours 2 direct off CUDA_VISIBLE_DEVICES=0 AMPI_GPU_EAGER_LIMIT=8192 >"$out/be.ours"
perftest 13400 CUDA_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=0 >"$out/b.ref"
echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
echo "== (b') the same without MPS (the GPU time-slices between the two processes)"
ours 2 direct off CUDA_VISIBLE_DEVICES=0 >"$out/bx.ours"
cat "$out"/b.*

if [[ $ngpu -ge 2 ]]; then
  echo "== (c) two processes, two GPUs"
  ours 2 direct off CUDA_VISIBLE_DEVICES=0,1 >"$out/c.ours"
  ours 2 staging off CUDA_VISIBLE_DEVICES=0,1 >"$out/c.stage"
  ours 2 direct off CUDA_VISIBLE_DEVICES=0,1 AMPI_GPU_EAGER_LIMIT=8192 >"$out/ce.ours"
  perftest 13500 CUDA_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=1 >"$out/c.ref"
  cat "$out"/c.*
fi

echo
echo "one-way latency (us) and bandwidth (GB/s); device buffers; $(nvidia-smi -L | head -n1)"
printf "%-26s %10s %11s %9s %11s %9s %11s %9s\n" case bytes ours_us ours_GB/s ref_us ref_GB/s \
  staging_us staging_GB/s
row "(a) 1 process, 1 GPU" "$out/a.ours" "$out/a.ref" "$out/a.stage"
row "(b) 2 processes, 1 GPU" "$out/b.ours" "$out/b.ref" "$out/b.stage"
row "(b) device eager <= 8 KiB" "$out/be.ours" /dev/null /dev/null
row "(b') same, no MPS" "$out/bx.ours" /dev/null /dev/null
if [[ $ngpu -ge 2 ]]; then
  row "(c) 2 processes, 2 GPUs" "$out/c.ours" "$out/c.ref" "$out/c.stage"
  row "(c) device eager <= 8 KiB" "$out/ce.ours" /dev/null /dev/null
fi
echo "ref: (a) one cuMemcpyAsync+sync device to device; (b), (c) ucx_perftest tag_lat -m cuda"
echo "device eager: AMPI_GPU_EAGER_LIMIT=8192 (device data copied into the host envelope)"
