#!/usr/bin/env bash
# On a GPU machine: ampi's latency and bandwidth with device buffers (8 B, 64 KiB, 4 MiB,
# 64 MiB) beside UCX's own ucx_perftest (tag API, cuda memory) and beside host staging through
# ampi (copy to pinned host memory, send, copy back), for
#   (a) two ranks of one process on one GPU (ucx_perftest has no such case: the reference is one
#       cuMemcpyAsync + synchronize, device to device),
#   (b) two processes on one GPU under an MPS daemon started here (private directories),
#   (c) two processes on two GPUs (when two are visible).
# Latency: one-way, half a ping-pong round trip (bandwidth column = size / latency). Streaming
# bandwidth: a window of 16 messages back to back, like osu_bw, beside ucx_perftest's tag_bw.
# Between processes ampi copies device data itself through CUDA IPC; "ucx path" rows turn that
# off (AMPI_GPU_IPC=0: the data goes through UCX's rendezvous, as before).
# Needs the build's bin/ and ucx-cuda/bin on PATH (gpu_env.sh of scripts/gpu_stage.sh does it).
# Usage: scripts/gpu_measure.sh [BUILD_DIR]
set -uo pipefail
b=${1:-${AMPI_BUILD:-build}}
pp=$b/tests/gpu/gpu_pingpong
sizes="8 65536 4194304 67108864"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ours() { # np mode [env...] -> lines "mode size us GB/s" (a run that hangs is cut after 60 s)
  local np=$1 mode=$2; shift 2
  env "$@" timeout 70 ampirun -np "$np" --vp 2 --mps off --timeout 60 "$pp" "$mode" $sizes 2>&1 |
    grep -E "^$mode |rror"
}
perftest() { # test port env-for-server env-for-client -> lines "size us GB/s"
  # ucx_perftest's MB/s are 2^20 bytes a second; the GB/s written here are 10^9, as ours.
  local test=$1 port=$2 senv=$3 cenv=$4
  for s in $sizes; do
    local n=1000
    [[ $s -ge 4194304 ]] && n=100
    env $senv timeout 60 ucx_perftest -p "$port" -t "$test" -m cuda -s "$s" -n "$n" >/dev/null 2>&1 &
    local spid=$!
    sleep 1
    env $cenv timeout 60 ucx_perftest 127.0.0.1 -p "$port" -t "$test" -m cuda -s "$s" -n "$n" 2>&1 |
      awk -v s="$s" '/Final:/ {printf "%s %s %s %.2f\n", "ucx", s, $5, $7 * 1048576 / 1e9}'
    wait $spid
    port=$((port + 1))
  done
}
row() { # label file... (one pair of columns per file)
  local label=$1; shift
  for s in $sizes; do
    printf "%-30s %9s" "$label" "$s"
    for f in "$@"; do
      awk -v s="$s" '{ if ($(NF-2) == s) { printf " %10s %9s", $(NF-1), $NF; found=1 } }
                     END { if (!found) printf " %10s %9s", "-", "-" }' "$f"
    done
    echo
  done
}
header() {
  printf "%-30s %9s" case bytes
  for c in "$@"; do printf " %10s %9s" "${c}_us" "GB/s"; done
  echo
}

echo "== (a) two ranks of one process, one GPU"
CUDA_VISIBLE_DEVICES=0 timeout 120 "$pp" copy $sizes >"$out/a.ref"
ours 1 direct CUDA_VISIBLE_DEVICES=0 >"$out/a.ours"
ours 1 staging CUDA_VISIBLE_DEVICES=0 >"$out/a.stage"
ours 1 stream CUDA_VISIBLE_DEVICES=0 >"$out/a.stream"
cat "$out"/a.*

echo "== (b) two processes, one GPU, under an MPS daemon started here for the measurement"
mps=$(mktemp -d)
export CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d </dev/null >/dev/null 2>&1
ours 2 direct CUDA_VISIBLE_DEVICES=0 >"$out/b.ours"
ours 2 direct CUDA_VISIBLE_DEVICES=0 AMPI_GPU_IPC=0 >"$out/b.ucxpath"
ours 2 staging CUDA_VISIBLE_DEVICES=0 >"$out/b.stage"
ours 2 stream CUDA_VISIBLE_DEVICES=0 >"$out/b.stream"
perftest tag_lat 13400 CUDA_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=0 >"$out/b.ref"
perftest tag_bw 13420 CUDA_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=0 >"$out/b.refbw"
echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
cat "$out"/b.*

if [[ $ngpu -ge 2 ]]; then
  echo "== (c) two processes, two GPUs"
  ours 2 direct CUDA_VISIBLE_DEVICES=0,1 >"$out/c.ours"
  ours 2 direct CUDA_VISIBLE_DEVICES=0,1 AMPI_GPU_IPC=0 >"$out/c.ucxpath"
  ours 2 staging CUDA_VISIBLE_DEVICES=0,1 >"$out/c.stage"
  ours 2 stream CUDA_VISIBLE_DEVICES=0,1 >"$out/c.stream"
  perftest tag_lat 13500 CUDA_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=1 >"$out/c.ref"
  perftest tag_bw 13520 CUDA_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=1 >"$out/c.refbw"
  cat "$out"/c.*
fi

echo
echo "Latency, one-way (us), and size/latency (GB/s); device buffers; $(nvidia-smi -L | head -n1)"
header ours ref staging
row "(a) 1 process, 1 GPU" "$out/a.ours" "$out/a.ref" "$out/a.stage"
row "(b) 2 processes, 1 GPU, MPS" "$out/b.ours" "$out/b.ref" "$out/b.stage"
row "(b) ucx path (AMPI_GPU_IPC=0)" "$out/b.ucxpath"
if [[ $ngpu -ge 2 ]]; then
  row "(c) 2 processes, 2 GPUs" "$out/c.ours" "$out/c.ref" "$out/c.stage"
  row "(c) ucx path (AMPI_GPU_IPC=0)" "$out/c.ucxpath"
fi
echo "ref: (a) one cuMemcpyAsync+sync device to device; (b), (c) ucx_perftest tag_lat -m cuda"
echo
echo "Streaming bandwidth (GB/s; us per message), window of 16 messages, beside ucx_perftest tag_bw"
header ours ref
row "(a) 1 process, 1 GPU" "$out/a.stream" /dev/null
row "(b) 2 processes, 1 GPU, MPS" "$out/b.stream" "$out/b.refbw"
[[ $ngpu -ge 2 ]] && row "(c) 2 processes, 2 GPUs" "$out/c.stream" "$out/c.refbw"
exit 0
