#!/usr/bin/env bash
# Builds a CUDA-enabled UCX (Debian bookworm's ucx 1.13.1 source package) and installs it, stripped,
# under a prefix in the build tree (default build/ucx-cuda). The normal ampi build keeps using
# Debian's libucx-dev; configure ampi with -DAMPI_UCX_CUDA=ON (prefix: -DAMPI_UCX_CUDA_PREFIX=...)
# to build against this one.
#
# Usage: scripts/build_ucx_cuda.sh [PREFIX]      (env: CUDA_HOME, UCX_CUDA_WORK, JOBS)
# Needs: network access to the Debian archive this system's apt uses, dpkg-dev, autoconf,
# automake, libtool, CUDA toolkit.
# nvml.h and libnvidia-ml.so come from Debian non-free's libnvidia-ml-dev/libnvidia-ml1, extracted
# with dpkg-deb -x and used at build time only (the GPU machine's driver provides libnvidia-ml.so.1).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(realpath -m "${1:-$root/build/ucx-cuda}")
work=$(realpath -m "${UCX_CUDA_WORK:-$root/build/ucx-cuda-work}")
cuda=${CUDA_HOME:-/usr/local/cuda}
jobs=${JOBS:-$(nproc)}

[[ -f $cuda/include/cuda.h ]] || { echo "build_ucx_cuda: no CUDA toolkit at $cuda (set CUDA_HOME)" >&2; exit 1; }
mkdir -p "$work/apt/lists/partial" "$work/apt/archives/partial" "$work/dl"

# The Debian archive this system's apt already uses (its first non-security source, one-line or
# deb822 form); APT_MIRROR overrides it.
mirror=${APT_MIRROR:-}
if [[ -z $mirror ]]; then
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1 == "deb" && / bookworm / && / main/ && !/security/ { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' || true)
fi
if [[ -z $mirror ]]; then
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk -v RS= '/Suites:[^\n]*bookworm/ && !/security/ { for (i = 1; i <= NF; i++) if ($i == "URIs:") { print $(i + 1); exit } }' || true)
fi
[[ -n $mirror ]] || { echo "build_ucx_cuda: no Debian archive in the apt configuration (set APT_MIRROR)" >&2; exit 1; }
# A private apt configuration: bookworm's source and non-free binary indexes from that archive.
printf 'deb-src %s bookworm main\ndeb %s bookworm non-free\n' "$mirror" "$mirror" >"$work/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache::Archives=$work/apt/archives"
  -o "APT::Get::List-Cleanup=0")

if ! ls "$work"/dl/ucx_1.13.1*.dsc >/dev/null 2>&1; then
  apt-get "${apt_opts[@]}" update
  (cd "$work/dl" && apt-get "${apt_opts[@]}" source --download-only ucx &&
    apt-get "${apt_opts[@]}" download libnvidia-ml-dev libnvidia-ml1)
fi

# nvml.h / libnvidia-ml.so for configure (build time only).
nvml=$work/nvml
if [[ ! -f $nvml/usr/include/nvml.h ]]; then
  rm -rf "$nvml"
  for d in "$work"/dl/libnvidia-ml*.deb; do dpkg-deb -x "$d" "$nvml"; done
fi
nvml_inc=$(dirname "$(find "$nvml" -name nvml.h | head -n1)")
nvml_lib=$(dirname "$(find "$nvml" -name 'libnvidia-ml.so*' | head -n1)")
# configure links -lnvidia-ml: make sure the unversioned name exists.
[[ -e $nvml_lib/libnvidia-ml.so ]] || ln -sf "$(basename "$(ls "$nvml_lib"/libnvidia-ml.so.* | head -n1)")" "$nvml_lib/libnvidia-ml.so"

src=$work/ucx-1.13.1
if [[ ! -x $src/configure ]]; then
  rm -rf "$src"
  dpkg-source --no-check -x "$work"/dl/ucx_1.13.1*.dsc "$src"
  # CUDA 13 removed the old cuCtxCreate signature (it takes a CUctxCreateParams* now).
  python3 - "$src/test/apps/test_cuda_hook.c" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
if "CUDA_VERSION >= 13000" not in s:
    s, n = re.subn(r"cuCtxCreate\(\s*&(\w+)\s*,\s*0\s*,\s*(\w+)\s*\)",
                   r"\n#if CUDA_VERSION >= 13000\n    cuCtxCreate(&\1, NULL, 0, \2)\n#else\n    cuCtxCreate(&\1, 0, \2)\n#endif\n    ", s)
    open(p, "w").write(s)
EOF
  (cd "$src" && ./autogen.sh)
fi

bld=$work/build
mkdir -p "$bld"
cd "$bld"
if [[ ! -f Makefile ]]; then
  "$src/configure" --prefix="$prefix" --with-cuda="$cuda" --enable-optimizations --enable-mt \
    --disable-doxygen-doc --disable-logging --disable-debug --disable-assertions --disable-params-check \
    --without-java --without-go --without-gdrcopy \
    CPPFLAGS="-I$nvml_inc" LDFLAGS="-L$nvml_lib -Wl,-rpath-link,$nvml_lib"
fi
make -j"$jobs"
rm -rf "$prefix"
make install
# Stripped and slim: no static archives or libtool files; libnuma travels with it.
find "$prefix" \( -name '*.a' -o -name '*.la' \) -delete
find "$prefix/lib" "$prefix/bin" -type f \( -name '*.so*' -o -perm -u+x \) -exec strip --strip-unneeded {} + 2>/dev/null || true
numa=$(ldconfig -p | awk '/libnuma\.so\.1 /{print $NF; exit}')
[[ -n $numa ]] && cp -L "$numa" "$prefix/lib/"
echo "build_ucx_cuda: installed $(du -sh "$prefix" | cut -f1) under $prefix"
ls "$prefix/lib/ucx"
