#!/bin/bash
# nvidia-h200-x2: ctest -L gpu, scripts/gpu_measure.sh (a, b, c), Jacobi3D on one and two GPUs,
# and whether a job under `ampirun --mps on` still hangs.
R=$(pwd); O=${OUT:-/tmp/out}; mkdir -p "$O"; exec >"$O/log.txt" 2>&1
date -u; nvidia-smi -L
(
source .gpu-carry/gpu/gpu_env.sh; export PMIX_MCA_pcompress=^zlib
echo "== ctest -L gpu"
timeout -s KILL 240 ctest --test-dir $AMPI_BUILD/tests/gpu -L gpu --timeout 40 --output-on-failure >"$O/ctest.txt" 2>&1
grep -E "Test +#|tests passed|Failed|Timeout" "$O/ctest.txt"
date -u
echo "== gpu_measure"
timeout -s KILL 300 bash .gpu-carry/gpu/scripts/gpu_measure.sh $AMPI_BUILD
date -u
echo "== ampirun --mps on, gpu_p2p 2 processes"
CUDA_VISIBLE_DEVICES=0 timeout -s KILL 40 ampirun -np 2 --vp 2 --mps on --timeout 30 $AMPI_BUILD/tests/gpu/gpu_p2p >"$O/mps_on.txt" 2>&1 &
sleep 25
for p in $(pgrep -f "tests/gpu/gpu_p2p|nvidia-cuda-mps"); do
  echo "-- pid $p $(tr '\0' ' ' </proc/$p/cmdline | cut -c1-80)"
  for t in /proc/$p/task/*; do echo "   $(cat $t/comm) $(awk '{print $3}' $t/stat) wchan=$(cat $t/wchan)"; done
done
wait; echo "rc=$?"; tail -5 "$O/mps_on.txt"
)
(
cd .osu-carry && . ./env.sh
echo "== Jacobi3D, one GPU"
JACOBI_TIMEOUT=25 timeout -s KILL 150 sh bench/gpu_jacobi.sh --bin bin/jacobi3d_cuda -n 256 -i 30 --out "$O/jacobi1.txt"
echo "== Jacobi3D, two GPUs"
JACOBI_TIMEOUT=25 timeout -s KILL 120 sh bench/gpu_jacobi.sh --bin bin/jacobi3d_cuda -n 256 -i 30 --two-gpu --out "$O/jacobi2.txt"
)
date -u
