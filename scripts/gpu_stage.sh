#!/usr/bin/env bash
# Stages what the GPU machine needs into one directory that travels with a device call (64 MiB
# limit): the build's bin/, lib/, ucx-cuda/ (scripts/build_ucx_cuda.sh) and tests/gpu, stripped,
# plus the Debian run-time libraries that such a machine lacks (PMIx with its plugins, libevent,
# hwloc, munge, udev). On the GPU machine, `source DEST/gpu_env.sh` sets everything up.
# Usage: scripts/gpu_stage.sh DEST [BUILD_DIR]      (BUILD_DIR configured with -DAMPI_UCX_CUDA=ON)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$(realpath -m "${1:?usage: gpu_stage.sh DEST [BUILD_DIR]}")
build=$(realpath "${2:-$root/build}")
ucx=$(sed -n 's/^AMPI_UCX_CUDA_PREFIX:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)
ucx=${ucx:-$build/ucx-cuda}
grep -q '^AMPI_UCX_CUDA:BOOL=ON' "$build/CMakeCache.txt" ||
  { echo "gpu_stage: $build was not configured with -DAMPI_UCX_CUDA=ON" >&2; exit 1; }
[[ -d $ucx/lib ]] || { echo "gpu_stage: no UCX under $ucx (run scripts/build_ucx_cuda.sh)" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest/build/tests/gpu" "$dest/sys/lib" "$dest/scripts"
cp -a "$build/bin" "$build/lib" "$dest/build/"
cp -a "$ucx" "$dest/build/ucx-cuda"
rm -rf "$dest/build/ucx-cuda/include" "$dest/build/ucx-cuda/lib/cmake"
for f in "$build"/tests/gpu/*; do [[ -f $f ]] && cp -a "$f" "$dest/build/tests/gpu/"; done
find "$dest/build" -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-unneeded {} + 2>/dev/null || true
cp "$root"/scripts/gpu_measure.sh "$dest/scripts/"
mkdir -p "$dest/src_tests/gpu" && cp "$root"/tests/gpu/*.sh "$dest/src_tests/gpu/"
echo "$build" >"$dest/BUILD_PATH"
echo "$root" >"$dest/SOURCE_PATH"
cp -a /usr/lib/x86_64-linux-gnu/pmix2 "$dest/sys/pmix2"
LD_LIBRARY_PATH=$ucx/lib ldd "$build/bin/ampirun" "$build/lib/libampi.so" |
  awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -E 'libevent|libhwloc|libmunge|libudev|libpmix|libboost' | xargs -r -I{} cp -L {} "$dest/sys/lib/"
cat >"$dest/gpu_env.sh" <<'EOS'
# Source on the GPU machine: makes the staged build answer at the path it was built in (its CTest
# files name that path) and puts its libraries and programs on the search paths.
c=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
b=$(cat "$c/BUILD_PATH")
if [[ ! -e $b ]]; then mkdir -p "$(dirname "$b")" && ln -s "$c/build" "$b"; fi
# Tests name scripts of the source tree (tests/gpu/with_mps.sh) by the path they were built at.
s=$(cat "$c/SOURCE_PATH" 2>/dev/null)
if [[ -n $s && ! -e $s/tests && -d $c/src_tests ]]; then mkdir -p "$s" && ln -s "$c/src_tests" "$s/tests"; fi
[[ -e /usr/lib/x86_64-linux-gnu/pmix2 ]] || { mkdir -p /usr/lib/x86_64-linux-gnu && ln -s "$c/sys/pmix2" /usr/lib/x86_64-linux-gnu/pmix2; }
export LD_LIBRARY_PATH=$b/ucx-cuda/lib:$b/lib:$c/sys/lib:$c/sys/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The staged PMIx loads its own plugins, not those of a PMIx the machine has at the same path
# (the GPU image's PMIx 5 plugins fail in PMIx 4.2: "undefined symbol: pmix_output_info").
# PMIX_PKGLIBDIR relocates PMIx's plugin directory (pinstalldirs "env" component; ampirun passes
# it on); PMIX_MCA_mca_base_component_path alone is not enough: PMIx 4.2 searches it after its
# built-in directory, so a plugin of the same name there is loaded first.
export PMIX_PKGLIBDIR=$c/sys/pmix2/lib/pmix
export PMIX_MCA_mca_base_component_path=$c/sys/pmix2/lib/pmix
export PATH=$b/bin:$b/ucx-cuda/bin:$PATH:/usr/local/nvidia/bin
export AMPI_BUILD=$b
EOS
du -sh "$dest"
