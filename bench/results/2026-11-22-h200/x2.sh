#!/bin/bash
# One nvidia-h200-x2 call: (c) two processes on two GPUs (ours vs ucx_perftest vs host staging),
# Jacobi3D on two GPUs, and a diagnosis of the gpu_p2p two-process end-of-run hang.
R=$(pwd); O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
date -u; nvidia-smi -L; nvidia-smi topo -m | head -4
(
  cd .osu-carry && . ./env.sh
  echo "== (c) osu_latency D D, 2 processes, 2 GPUs"
  timeout 40 $AMPIRUN -np 2 --vp 2 --timeout 35 bin/osu_latency -d cuda D D -m 8:67108864 -i 200 -x 20
  echo "== (c) osu_bw D D"
  timeout 40 $AMPIRUN -np 2 --vp 2 --timeout 35 bin/osu_bw -d cuda D D -m 8:67108864 -i 20 -x 5
  echo "== (c) staging osu_latency / osu_bw"
  timeout 40 $AMPIRUN -np 2 --vp 2 --timeout 35 bin/osu_latency --staging -d cuda D D -m 8:67108864 -i 50 -x 5
  timeout 40 $AMPIRUN -np 2 --vp 2 --timeout 35 bin/osu_bw --staging -d cuda D D -m 67108864:67108864 -i 10 -x 2
  echo "== (c) ucx_perftest tag_lat / tag_bw, GPU0 <-> GPU1"
  p=13600
  for t in "tag_lat 8 2000" "tag_lat 65536 1000" "tag_lat 4194304 200" "tag_lat 67108864 50" "tag_bw 67108864 50" "tag_bw 4194304 200"; do
    set -- $t
    CUDA_VISIBLE_DEVICES=0 timeout 20 ucx_perftest -p $p -t $1 -m cuda -s $2 -n $3 >/dev/null 2>&1 &
    sleep 1
    CUDA_VISIBLE_DEVICES=1 timeout 20 ucx_perftest 127.0.0.1 -p $p -t $1 -m cuda -s $2 -n $3 2>&1 | grep -E "Final|^\s+[0-9]" | tail -1 | sed "s/^/$1 $2: /"
    wait; p=$((p+1))
  done
  echo "== Jacobi3D, two GPUs"
  JACOBI_TIMEOUT=25 timeout 170 sh bench/gpu_jacobi.sh --bin bin/jacobi3d_cuda -n 256 -i 30 --two-gpu --out "$O/jacobi2.txt"
)
echo "== gpu_p2p 2 processes, 1 GPU, no MPS: where does it stop?"
(
  source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib CUDA_VISIBLE_DEVICES=0
  timeout 45 ampirun -np 2 --vp 2 --mps off --timeout 40 $AMPI_BUILD/tests/gpu/gpu_p2p >"$O/np2.txt" 2>&1 &
  sleep 30
  for p in $(pgrep -f "tests/gpu/gpu_p2p"); do
    echo "-- pid $p $(tr '\0' ' ' </proc/$p/cmdline | cut -c1-60)"
    for t in /proc/$p/task/*; do echo "   $(cat $t/comm) $(awk '{print $3}' $t/stat) wchan=$(cat $t/wchan) sys=$(cut -d' ' -f1 $t/syscall)"; done
  done
  wait
  tail -5 "$O/np2.txt"
)
date -u
