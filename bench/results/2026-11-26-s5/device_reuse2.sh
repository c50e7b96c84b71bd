#!/usr/bin/env bash
# gpu_reuse's "wrong data" from VMM memory sent over "net/rendezvous" between two processes of
# one host: with UCX's transports as ampi picks them, and with UCX's cuda_ipc left out.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
carry=${1:-build-s5-carry}
source "$carry/gpu_env.sh"; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
export PMIX_MCA_pcompress='^zlib'
exe=$AMPI_BUILD/tests/gpu/gpu_reuse
for tls in ${TLS_LIST:-default "^sysv,tcp,cuda_ipc" default "^sysv,tcp,cuda_ipc"}; do
  for round in 1 2 3; do
    for k in 1 2 3 4; do
      if [ "$tls" = default ]; then e=X=1; else e=UCX_TLS=$tls; fi
      env "$e" timeout 60 "$AMPI_BUILD/bin/ampirun" -np 2 --vp $((k % 2 ? 2 : 4)) "$exe" > "$out/r.$k.txt" 2>&1 &
    done
    wait
    echo "== $tls round $round: $(cat "$out"/r.*.txt | grep -c '^ok gpu_reuse') ok, $(cat "$out"/r.*.txt | grep -c 'wrong data') wrong"
  done
done
