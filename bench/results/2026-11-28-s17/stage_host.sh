#!/usr/bin/env bash
# Stages, for one call on a lent GPU machine (used for its CPU only), what an A/B of the host path
# needs: ampirun, two libampi builds (BEFORE and AFTER lib/ folders), the real OSU 7.4 osu_bw and
# osu_latency built with our mpicc and with Debian's Open MPI (that machine has Open MPI 4.1.6:
# the same libmpi.so.40), bwwin.c for both, and the Debian run-time libraries the machine lacks
# (UCX 1.13 with its modules beside it, PMIx 4.2 with its plugins, libevent, hwloc, munge, udev).
#   stage_host.sh DEST BEFORE_LIB AFTER_LIB
set -euo pipefail
dest=$(realpath -m "${1:?usage: stage_host.sh DEST BEFORE_LIB AFTER_LIB}")
before=${2:?}; after=${3:?}
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
rm -rf "$dest"; mkdir -p "$dest"/{before,after,bin,osu/ampi,osu/ompi,sys/lib/ucx}
cp -L "$before/libampi.so.0" "$dest/before/"; cp -L "$after/libampi.so.0" "$dest/after/"
cp "$root/build/bin/ampirun" "$dest/bin/"
for p in osu_bw osu_latency; do
  cp /work/ext/osu-host/c/mpi/pt2pt/standard/$p "$dest/osu/ampi/"
  cp /work/ext/osu-ompi/c/mpi/pt2pt/standard/$p "$dest/osu/ompi/"
done
"$root/build/bin/mpicc" -O2 "$here/bwwin.c" -o "$dest/osu/ampi/bwwin"
mpicc.openmpi -O2 "$here/bwwin.c" -o "$dest/osu/ompi/bwwin"
for l in ucp ucs uct ucm; do cp -L /lib/x86_64-linux-gnu/lib$l.so.0 "$dest/sys/lib/"; done
cp -L /usr/lib/x86_64-linux-gnu/ucx/*.so.0 "$dest/sys/lib/ucx/"
ldd "$root/build/bin/ampirun" "$root/build/lib/libampi.so" | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -E 'libevent|libhwloc|libmunge|libudev|libnuma' | xargs -r -I{} cp -L {} "$dest/sys/lib/"
cp -a /usr/lib/x86_64-linux-gnu/pmix2 "$dest/sys/pmix2"; rm -rf "$dest/sys/pmix2/include"
find "$dest" -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-unneeded {} + 2>/dev/null || true
cat >"$dest/env.sh" <<'EOS'
c=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ -e /usr/lib/x86_64-linux-gnu/pmix2 ]] || ln -s "$c/sys/pmix2" /usr/lib/x86_64-linux-gnu/pmix2
export PMIX_PKGLIBDIR=$c/sys/pmix2/lib/pmix PMIX_MCA_mca_base_component_path=$c/sys/pmix2/lib/pmix
export STAGE=$c PATH=$c/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ampi(lib, args...): runs with that libampi build first on the library path.
ampi() { local l=$1; shift; LD_LIBRARY_PATH=$c/$l:$c/sys/lib:$c/sys/pmix2/lib ampirun "$@"; }
EOS
du -sh "$dest"
