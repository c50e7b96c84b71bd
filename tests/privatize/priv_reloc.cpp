// tests/privatize/priv_reloc.cpp — the relocations of a rank's copy (src/privatize/copy_maker):
// every kind of word the loader fills in must point into the rank's own copy when it names the
// program's own code or data, and to the one shared definition otherwise. Each case would fail if
// a copy kept the template's addresses or another copy's: a global pointer to another global
// (checked against the address the code computes PC-relative, and changed by every rank before
// MPI_Init, so that a copy made from a running copy would see it changed), a function pointer
// table, a pointer to a string literal and to the end of an array, C++ vtables, a GNU ifunc of
// the program (an IRELATIVE relocation), pointers to libc's functions and variables, a weak
// undefined symbol, static constructors (one line each: the .expect run counts them), and C++
// exceptions thrown and caught inside the program, through its own frames and through
// libstdc++'s (std::sort calling a throwing comparator).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unistd.h>
#include <utility>
#include <vector>

extern char **environ;
extern "C" int ampi_test_not_defined_anywhere(void) __attribute__((weak));

namespace {

int my_rank = -1;

[[noreturn]] void fail(const char *what, int line) {
  std::fprintf(stderr, "FAIL [rank %d] priv_reloc.cpp:%d: %s\n", my_rank, line, what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}
#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) fail(#c, __LINE__);                                                                  \
  } while (0)

} // namespace

// Not static, not const: the compiler must keep the words and let the loader fill them in.
int target = 0;
int other = 0;
int *pointer = &target;
int numbers[4] = {1, 2, 3, 4};
int *numbers_end = numbers + 4;
const char *literal = "a string literal";
int twice(int x) {
  return 2 * x;
}
int square(int x) {
  return x * x;
}
int (*table[])(int) = {twice, square};
void *(*libc_malloc)(std::size_t) = std::malloc;
char ***libc_environ = &environ;
int (*weak_missing)(void) = ampi_test_not_defined_anywhere;

struct Shape {
  virtual ~Shape() = default;
  virtual int sides() const = 0;
};
struct Triangle : Shape {
  int sides() const override { return 3; }
};
struct Square : Shape {
  int sides() const override { return 4; }
};
Triangle triangle;
Square square_shape;
Shape *shapes[] = {&triangle, &square_shape};

// An ifunc of the program: resolved by the loader (IRELATIVE), to a function of this copy (which
// reads this copy's `other`: another copy's function would read that copy's).
extern "C" int picked_impl(void) {
  return other + 1000;
}
extern "C" int (*pick_resolver(void))(void) {
  return picked_impl;
}
extern "C" int picked(void) __attribute__((ifunc("pick_resolver")));

int constructions = 0;
struct Announce {
  Announce() {
    ++constructions;
    std::printf("constructed %p\n", static_cast<void *>(this));
    std::fflush(stdout);
  }
};
Announce announce;

struct ProgramError : std::runtime_error { // typeinfo and vtable in the copy
  int code;
  ProgramError(const char *what, int c) : std::runtime_error(what), code(c) {}
};

__attribute__((noinline)) void deep_throw(int depth, int code) {
  if (depth == 0) throw ProgramError("thrown in the program", code);
  deep_throw(depth - 1, code);
  std::printf("%d", depth); // not a tail call
}

int main(int argc, char **argv) {
  // Before MPI_Init: the copy's words as made; then changed, which another copy must not see.
  CHECK(pointer == &target);
  pointer = &other;
  CHECK(constructions == 1);

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  *pointer = my_rank;
  CHECK(other == my_rank);
  CHECK(numbers_end == &numbers[4] && numbers_end[-1] == 4);
  CHECK(std::strcmp(literal, "a string literal") == 0);
  CHECK(table[0] == &twice && table[1] == &square);
  CHECK(table[0](my_rank) == 2 * my_rank && table[1](3) == 9);
  CHECK(libc_malloc == &std::malloc);
  void *block = libc_malloc(16);
  CHECK(block != nullptr);
  std::free(block);
  CHECK(*libc_environ == environ);
  CHECK(weak_missing == nullptr);
  CHECK(shapes[0]->sides() == 3 && shapes[1]->sides() == 4);
  CHECK(dynamic_cast<Square *>(shapes[1]) == &square_shape);
  CHECK(picked() == my_rank + 1000);

  // Exceptions: through the program's frames, and through libstdc++'s.
  for (int i = 0; i < 3; ++i) {
    try {
      deep_throw(5 + i, my_rank);
      CHECK(false);
    } catch (const ProgramError &e) {
      CHECK(e.code == my_rank && std::strcmp(e.what(), "thrown in the program") == 0);
    }
  }
  try {
    std::vector<int> v{3, 1, 2};
    std::sort(v.begin(), v.end(), [](int a, int b) -> bool {
      if (a == 2 || b == 2) throw std::logic_error("from a comparator");
      return a < b;
    });
    CHECK(false);
  } catch (const std::logic_error &e) {
    CHECK(std::strcmp(e.what(), "from a comparator") == 0);
  }

  // Each rank's globals are its own: the addresses differ between ranks, the values are theirs.
  // (pid, address) pairs: ranks sharing a process run copies at distinct addresses.
  const std::uintptr_t mine[2] = {static_cast<std::uintptr_t>(::getpid()),
                                  reinterpret_cast<std::uintptr_t>(&target)};
  std::vector<std::uintptr_t> all(2 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pairs;
  for (std::size_t i = 0; i < all.size(); i += 2)
    pairs.emplace_back(all[i], all[i + 1]);
  std::sort(pairs.begin(), pairs.end());
  CHECK(std::adjacent_find(pairs.begin(), pairs.end()) == pairs.end());
  int sum = 0;
  MPI_Allreduce(&other, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == size * (size - 1) / 2);
  int total = 0;
  MPI_Allreduce(&constructions, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == size);
  if (my_rank == 0) std::printf("ok priv_reloc (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
