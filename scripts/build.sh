#!/bin/sh
# scripts/build.sh [build-dir] — configures and builds ampi (default build dir: build/).
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD"
