// tests/privatize/priv_cxx.cpp — per-rank copies of C++ globals: objects with constructors and
// destructors (constructed once per rank before main, destroyed once per rank after its
// MPI_Finalize), function-local statics, inline-function statics and template static members
// (which GCC emits as STB_GNU_UNIQUE), std::string and std::vector globals, and std::cout shared
// by all ranks. The destructor lines are checked by the .expect run.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

int constructions = 0; // constructions of `tracked` in this copy
int my_rank = -1;

[[noreturn]] void fail(const char *what, int line) {
  std::fprintf(stderr, "FAIL [rank %d] priv_cxx.cpp:%d: %s\n", my_rank, line, what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}
#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) fail(#c, __LINE__);                                                                  \
  } while (0)

struct Tracked {
  int value;
  Tracked() : value(7) { ++constructions; }
  ~Tracked() {
    std::printf("destroyed rank %d value %d\n", my_rank, value);
    std::fflush(stdout);
  }
};

Tracked tracked;
std::string name = "unset";
std::vector<int> history(3, -1);

int &calls() {
  static int n = 0; // function-local static
  return ++n, n;
}

} // namespace

inline int &inline_counter() {
  static int c = 0; // an inline function's static: STB_GNU_UNIQUE
  return c;
}

template <class T> struct Registry {
  static T total; // a template's static member: STB_GNU_UNIQUE
};
template <class T> T Registry<T>::total = 0;

int main(int argc, char **argv) {
  CHECK(constructions == 1);
  CHECK(tracked.value == 7 && name == "unset" && history.size() == 3);
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  my_rank = rank;
  tracked.value = 100 + rank;
  name = "rank " + std::to_string(rank);
  history.assign(static_cast<std::size_t>(rank % 7 + 1), rank);
  for (int i = 0; i <= rank % 3; ++i)
    calls();
  inline_counter() += rank + 1;
  Registry<long>::total += 10L * rank;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(constructions == 1);
  CHECK(tracked.value == 100 + rank);
  CHECK(name == "rank " + std::to_string(rank));
  CHECK(history.size() == static_cast<std::size_t>(rank % 7 + 1) && history.back() == rank);
  CHECK(calls() == rank % 3 + 2);
  CHECK(inline_counter() == rank + 1);
  CHECK(Registry<long>::total == 10L * rank);
  // Exceptions unwind through a rank's copy (found among a thousand loaded objects).
  int caught = -1;
  try {
    throw std::runtime_error(name);
  } catch (const std::runtime_error &e) {
    caught = e.what() == name ? rank : -2;
  }
  CHECK(caught == rank);
  long mine = constructions, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == size);
  MPI_Finalize();
  if (rank == 0) std::cout << "ok priv_cxx (" << size << " ranks)" << std::endl;
  return 0;
}
