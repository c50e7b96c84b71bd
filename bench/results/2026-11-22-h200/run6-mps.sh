#!/bin/bash
# Why does "quit" not end the MPS daemon that ampirun starts? Compare -d and -f by hand, then
# look at ampirun's own daemon while its quit is pending.
O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib CUDA_VISIBLE_DEVICES=0
pp=$AMPI_BUILD/tests/gpu/gpu_pingpong
ms() { date +%s%N | cut -c1-13; }
for mode in -d -f; do
  echo "== by hand, nvidia-cuda-mps-control $mode"
  m=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$m/p CUDA_MPS_LOG_DIRECTORY=$m/l; mkdir -p $m/p $m/l
  if [ $mode = -d ]; then nvidia-cuda-mps-control -d </dev/null >/dev/null 2>&1; else setsid nvidia-cuda-mps-control -f </dev/null >$m/l/fg.out 2>&1 & fi
  sleep 0.5
  timeout 30 ampirun -np 2 --vp 2 --mps off $pp direct 8 2>&1 | grep direct
  t0=$(ms); echo quit | timeout 20 nvidia-cuda-mps-control; echo "quit rc=$? took $(( $(ms) - t0 )) ms"
  sleep 0.5; pgrep -a nvidia-cuda-mps || echo "none left"
  tail -5 $m/l/control.log; ls $m/l
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  pkill -9 -f nvidia-cuda-mps; sleep 0.3
done
echo "== ampirun --mps on"
export TMPDIR=$(mktemp -d)
timeout 40 ampirun -np 2 --vp 2 --mps on $pp direct 8 > $O/on.txt 2>&1 &
for i in $(seq 120); do
  if grep -q "^direct" $O/on.txt; then break; fi; sleep 0.1
done
sleep 2
echo "-- processes while the quit is pending"
ps -eo pid,ppid,pgid,sid,stat,wchan:30,args | grep -E "mps|gpu_pingpong|ampirun" | grep -v grep
for f in $TMPDIR/ampi-mps.*/log/*; do echo "-- $f"; tail -15 $f; done
wait
cat $O/on.txt
