#!/bin/bash
# One nvidia-h200 call: ctest -L gpu, (b) two processes on one GPU under MPS vs ucx_perftest
# under MPS, (a) one process.
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
date -u; nvidia-smi -L
(
  source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
  echo "== ctest -L gpu"
  ctest --test-dir $AMPI_BUILD/tests/gpu -L gpu --timeout 45 2>&1 | grep -E "Test +#|tests passed|Failed|Timeout"
  pp=$AMPI_BUILD/tests/gpu/gpu_pingpong
  echo "== (a) ref copy / ours direct / ours staging, one process"
  timeout 30 $pp copy 8 65536 4194304 67108864 2>&1 | tail -4
  timeout 30 ampirun -np 1 --vp 2 $pp direct 8 65536 4194304 67108864 2>&1 | grep -E "^direct"
  timeout 30 ampirun -np 1 --vp 2 $pp staging 8 65536 4194304 67108864 2>&1 | grep -E "^staging"
  echo "== (b) ours direct / staging, two processes, one GPU, MPS"
  timeout 40 ampirun -np 2 --vp 2 --mps on --timeout 35 $pp direct 8 65536 4194304 67108864 2>&1 | grep -E "^direct|rror"
  timeout 40 ampirun -np 2 --vp 2 --mps on --timeout 35 $pp staging 8 65536 4194304 67108864 2>&1 | grep -E "^staging|rror"
  echo "== (b) ucx_perftest under MPS"
  m=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$m/p CUDA_MPS_LOG_DIRECTORY=$m/l; mkdir -p $m/p $m/l
  nvidia-cuda-mps-control -d </dev/null >/dev/null 2>&1
  p=13700
  for t in "tag_lat 8 2000" "tag_lat 65536 1000" "tag_lat 4194304 200" "tag_lat 67108864 50" "tag_bw 67108864 50"; do
    set -- $t
    timeout 20 ucx_perftest -p $p -t $1 -m cuda -s $2 -n $3 >/dev/null 2>&1 &
    sleep 1
    timeout 20 ucx_perftest 127.0.0.1 -p $p -t $1 -m cuda -s $2 -n $3 2>&1 | grep -E "Final" | sed "s/^/$1 $2: /"
    wait; p=$((p+1))
  done
  echo quit | nvidia-cuda-mps-control
)
date -u
