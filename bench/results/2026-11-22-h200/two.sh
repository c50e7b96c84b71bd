#!/bin/bash
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
echo "== gpu_reuse vp2"; timeout -s KILL 20 ampirun -np 1 --vp 2 $AMPI_BUILD/tests/gpu/gpu_reuse 2>&1 | grep -v pmix | tail -15
pp=$AMPI_BUILD/tests/gpu/gpu_pingpong
m=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$m/p CUDA_MPS_LOG_DIRECTORY=$m/l; mkdir -p $m/p $m/l
nvidia-cuda-mps-control -d </dev/null >/dev/null 2>&1
echo "== (b) ours direct, two processes, one GPU, job's own MPS daemon"
timeout -s KILL 30 ampirun -np 2 --vp 2 --mps off --timeout 25 $pp direct 8 65536 4194304 67108864 > $O/b.txt 2>&1; echo rc=$?
grep -E "^direct|rror|final" $O/b.txt | head
echo "== (b) ucx_perftest under MPS"
p=13700
for t in "tag_lat 8 2000" "tag_lat 67108864 50" "tag_bw 67108864 50"; do
  set -- $t
  timeout -s KILL 15 ucx_perftest -p $p -t $1 -m cuda -s $2 -n $3 >/dev/null 2>&1 &
  sleep 1
  timeout -s KILL 15 ucx_perftest 127.0.0.1 -p $p -t $1 -m cuda -s $2 -n $3 2>&1 | grep -E "Final" | sed "s/^/$1 $2: /"
  wait; p=$((p+1))
done
echo quit | timeout -s KILL 5 nvidia-cuda-mps-control
date -u
