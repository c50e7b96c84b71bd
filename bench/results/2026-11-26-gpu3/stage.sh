#!/usr/bin/env bash
# bench/results/2026-11-26-gpu3/stage.sh — stages this branch's GPU build for one device call:
# scripts/gpu_stage.sh (bin/, lib/, UCX, tests/gpu, run-time libraries) plus Jacobi3D's CUDA
# build, bench/gpu_allreduce, bench/gpu_jacobi.sh and this folder's scripts.
#   bench/results/2026-11-26-gpu3/stage.sh DEST [BUILD_DIR]   (default BUILD_DIR: build-gpu)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dest=${1:?usage: stage.sh DEST [BUILD_DIR]}
build=$(realpath "${2:-$root/build-gpu}")
"$root/scripts/gpu_stage.sh" "$dest" "$build"
mkdir -p "$dest/build/apps/jacobi3d"
cp -a "$build/apps/jacobi3d/jacobi3d_cuda" "$dest/build/apps/jacobi3d/"
cp -a "$build/bench/gpu_allreduce" "$dest/"
strip --strip-unneeded "$dest/build/apps/jacobi3d/jacobi3d_cuda" "$dest/gpu_allreduce" 2>/dev/null || true
cp "$root/bench/gpu_jacobi.sh" "$here"/*.sh "$dest/"
du -sh "$dest"
