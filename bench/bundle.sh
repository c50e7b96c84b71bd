#!/bin/sh
# bench/bundle.sh <build-dir> <dest-dir> — a self-contained copy of what the benchmarks need, for
# a machine that lacks Debian's packages (e.g. a GPU machine with another distribution): ampirun,
# the benchmark programs of <build-dir> (osu/, apps/jacobi3d), the bench scripts, libampi and the
# shared libraries they need beyond the C/C++ runtime and the CUDA driver (PMIx, UCX, hwloc,
# libevent, ...) and UCX's modules. <dest-dir>/env.sh sets LD_LIBRARY_PATH, PATH
# (ampirun) and AMPIRUN for it:
#   bench/bundle.sh build-cuda /tmp/b && (cd /tmp/b && . ./env.sh && bench/gpu_jacobi.sh \
#       --bin bin/jacobi3d_cuda)
set -eu
B=$(cd "$1" && pwd)
D=$2
mkdir -p "$D/bin" "$D/lib/ucx" "$D/bench"
cp "$B/bin/ampirun" "$D/bin/"
for f in "$B"/osu/osu_* "$B"/apps/jacobi3d/jacobi3d "$B"/apps/jacobi3d/jacobi3d_cuda; do
  [ -f "$f" ] && [ -x "$f" ] && cp "$f" "$D/bin/"
done
cp -L "$B/lib/libampi.so.0" "$D/lib/"
strip "$D"/bin/* "$D/lib/libampi.so.0" 2>/dev/null || true
here=$(cd "$(dirname "$0")" && pwd)
cp "$here/compare.sh" "$here/gpu_jacobi.sh" "$here/osu_report.py" "$D/bench/"
# Shared libraries, except the C/C++ runtime and the driver, which the target machine has.
for f in "$D"/bin/* "$D/lib/libampi.so.0"; do ldd "$f" 2>/dev/null; done |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libcuda|ld-linux[^/]*)\.so' |
  while read -r l; do cp -L "$l" "$D/lib/"; done
multiarch=/usr/lib/x86_64-linux-gnu
# UCX's modules (cma; cuda_copy, cuda_ipc with a CUDA-enabled UCX) beside the libucs in use, and
# ucx_perftest of a CUDA-enabled UCX built into <build-dir>/ucx-cuda (raw UCX in compare.sh --gpu).
ucs=$(ldd "$D/lib/libampi.so.0" | awk '$1 == "libucs.so.0" {print $3}')
for m in "$(dirname "${ucs:-$multiarch/libucs.so.0}")"/ucx/lib*.so.0; do
  case $m in *ib.so.0 | *rdmacm.so.0) continue ;; esac
  [ -f "$m" ] && cp -L "$m" "$D/lib/ucx/"
done
if [ -x "$B/ucx-cuda/bin/ucx_perftest" ]; then
  cp "$B/ucx-cuda/bin/ucx_perftest" "$D/bin/"
  for l in "$B"/ucx-cuda/lib/libucx_perftest*.so.0 "$B"/ucx-cuda/lib/ucx/libucx_perftest_cuda.so.0; do
    [ -f "$l" ] && cp -L "$l" "$D/lib/$(basename "$(dirname "$l")" | sed 's/^lib$//')"
  done
fi
cat >"$D/env.sh" <<'EOS'
# . ./env.sh — use this bundle (run from its directory)
AMPI_BUNDLE=$(pwd)
export LD_LIBRARY_PATH=$AMPI_BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$AMPI_BUNDLE/bin:$PATH:/usr/local/nvidia/bin
export AMPIRUN=$AMPI_BUNDLE/bin/ampirun
# A machine with its own PMIx may log that a plugin of it (pcompress_zlib) does not load: harmless.
EOS
du -sh "$D" | awk '{print "bundle: " $2 " (" $1 ")"}'
