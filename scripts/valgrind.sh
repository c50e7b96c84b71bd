#!/bin/sh
# scripts/valgrind.sh PROGRAM [ARGS...] — runs one MPI program of a build without sanitizers
# under valgrind's memcheck, as a single process without ampirun: the library then hosts
# AMPI_VP ranks (default 1) in this one process, with no PMIx and no UCX. Exit status: the
# program's, 99 when memcheck found an error (invalid access, use of uninitialised memory, a
# definite or indirect leak), 77 when valgrind is not installed.
#
# The ctest tests `valgrind.<program>.vp<V>` (label `valgrind`) run this; cmake/Sanitizers.cmake
# defines them in a build without AMPI_SANITIZE when valgrind is found at configure time. By hand:
#   AMPI_VP=8 scripts/valgrind.sh build/tests/mpi/p2p_basic
#
# The ranks' stacks: memcheck takes a change of the stack pointer by more than --max-stackframe
# (2 MB by default) for a switch to another stack, which is what a switch between two rank stacks
# (8 MiB apart by default) or back to the thread's own stack is. Keep AMPI_STACK_SIZE at 4M or
# more here: with smaller stacks, a switch can look like a huge frame and give false reports.
set -eu
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind.sh: valgrind is not installed (Debian: apt-get install valgrind)" >&2
  exit 77
fi
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM [ARGS...]" >&2; exit 2; }
# One process without ampirun: no PMIx server is inherited from the caller.
unset PMIX_NAMESPACE PMIX_RANK PMIX_SERVER_URI41 PMIX_SERVER_URI4 PMIX_SERVER_URI3 \
  PMIX_SERVER_URI2 PMIX_SERVER_URI21 AMPI_STACK_SIZE 2>/dev/null || true
exec valgrind --tool=memcheck --quiet --error-exitcode=99 --num-callers=40 \
  --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
  --track-fds=no "$@"
