#!/bin/sh
# scripts/build.sh [build-dir [cmake-option...]] — configures and builds ampi (default build dir:
# build/); options such as -DAMPI_WERROR=ON go to cmake.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
[ $# -eq 0 ] || shift
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$BUILD"
