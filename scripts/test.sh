#!/bin/sh
# scripts/test.sh — the README's second command (and what CI runs): installs what is needed,
# builds, and runs the test suite (build/); then builds the tree again with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/, -DAMPI_SANITIZE=address,undefined, see
# cmake/Sanitizers.cmake) and runs the whole suite there too, with the sanitizer-only tests
# (label `sanitizer`). Long soaks carry the label `soak` and are left out of both runs; GPU tests
# report "skipped" on machines without a GPU. The first run includes the valgrind memcheck tests
# (label `valgrind`), about 25 s on 2 cores.
#
# CI's checks of the code itself: the first build has -Werror (-DAMPI_WERROR=ON; the sanitizer
# build keeps warnings as warnings: GCC's -fsanitize changes its analyses and their false
# positives are not ours to chase); the include layering (scripts/check_layers.py, the test
# layers.check of label unit) runs with the suite; scripts/check_format.sh (clang-format in check
# mode on src/ and tests/) runs first and lists the files that differ. Each failure fails the script.
#
# AMPI_TEST_SANITIZERS=0 skips the sanitizer build and run. Both runs always happen (unless a
# build fails); the script fails if either run had a failure, and ends with a summary of both
# runs (each run's failed tests, from its log DIR/ctest-output.log).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
# valgrind, for the memcheck tests of the first build (defined only when it is installed).
if ! command -v valgrind >/dev/null 2>&1; then
  SUDO=
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null
fi

status=0
echo "== clang-format in check mode (src/, tests/)"
scripts/check_format.sh || status=1

scripts/build.sh build -DAMPI_WERROR=ON
ctest --test-dir build --output-on-failure -j2 -LE "soak|sanitizer|hdf5" \
  --output-log build/ctest-output.log || status=1

if [ "${AMPI_TEST_SANITIZERS:-1}" != 0 ]; then
  echo "== the same suite under AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/)"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DAMPI_SANITIZE=address,undefined -DAMPI_WERROR=OFF >/dev/null
  cmake --build build-asan
  # multihost (tests/multihost) reruns the MPI tests across simulated hosts under Slurm; the
  # first run covers those paths, and the programs themselves run under the sanitizers here.
  ctest --test-dir build-asan --output-on-failure -j2 -LE "soak|multihost|hdf5" \
    --output-log build-asan/ctest-output.log || status=1
fi
# Both runs' failures again, last: where only the end of this script's output is kept (CI), a
# failure of the first run would otherwise be out of sight.
echo "== summary"
for d in build build-asan; do
  [ -f "$d/ctest-output.log" ] || continue
  failed=$(grep -E '^[[:space:]]*[0-9]+ - .*\((Failed|Timeout|Exception|Not Run|SEGFAULT)\)' \
    "$d/ctest-output.log" || true)
  if [ -n "$failed" ]; then
    echo "$d: failed:"
    echo "$failed"
  else
    echo "$d: $(grep -E 'tests passed' "$d/ctest-output.log" | tail -1)"
  fi
done
exit "$status"
