#!/bin/sh
# scripts/test.sh — the README's second command (and what CI runs): installs what is needed,
# builds, and runs the test suite. Long soaks and sanitizer runs carry their own labels and are
# left out here; GPU tests report "skipped" on machines without a GPU.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh build
ctest --test-dir build --output-on-failure -j2 -LE "soak|sanitizer"
