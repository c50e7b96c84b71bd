// tests/privatize/priv_tls.cpp — thread_local variables are per rank when ranks run per-rank
// copies of the program: initialised (.tdata) and zeroed (.tbss) C thread-locals, and a C++
// thread_local object whose constructor runs once per rank on first use. Every rank writes its
// own values, lets all other ranks run (barriers, a ring exchange), and checks that it still sees
// its own; a thread that a rank creates sees fresh initial values (thread_local is also per
// thread). Run with several ranks per process.
#include <mpi.h>

#include <pthread.h>

#include <cstdio>
#include <string>

namespace {
thread_local int initialised = 42; // .tdata
thread_local long zeroed[64];      // .tbss
int constructions = 0;             // a global: per rank too
struct Counter {
  int value;
  Counter() : value(1000) { ++constructions; }
};
thread_local Counter counter;

int my_rank = -1; // a global: per rank
// Destroyed when its rank ends: says whether it holds its own rank's values.
struct Noisy {
  int rank = -1;
  std::string text; // heap memory: a second destruction of the same object would free it twice
  ~Noisy() {
    if (rank < 0) return;
    const bool own = rank == my_rank && text == "rank " + std::to_string(my_rank);
    std::printf("tls destroyed rank %d %s\n", rank, own ? "own" : "NOT OWN");
  }
};
thread_local Noisy noisy;

void *fresh_thread(void *out) {
  // A new thread starts from the initial image, whatever its creating rank did.
  *static_cast<int *>(out) = initialised == 42 && zeroed[7] == 0 ? 1 : 0;
  return nullptr;
}
} // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  my_rank = rank;
  noisy.rank = rank;
  noisy.text = "rank " + std::to_string(rank);
  int bad = 0;
  if (initialised != 42 || zeroed[7] != 0) ++bad; // untouched by ranks that ran before
  initialised = 42 + rank;
  for (long &z : zeroed)
    z = rank;
  counter.value += rank;
  MPI_Barrier(MPI_COMM_WORLD);
  int token = rank, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size,
               0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  if (initialised != 42 + rank) ++bad;
  for (long z : zeroed)
    if (z != rank) ++bad;
  if (counter.value != 1000 + rank || constructions != 1) ++bad;
  if (got != (rank + size - 1) % size) ++bad;
  int fresh = 0;
  pthread_t t;
  if (pthread_create(&t, nullptr, fresh_thread, &fresh) != 0 || pthread_join(t, nullptr) != 0 ||
      !fresh)
    ++bad;
  if (initialised != 42 + rank) ++bad; // the thread did not disturb the rank's copy
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      std::printf("ok priv_tls (%d ranks)\n", size);
    else
      std::printf("FAILED priv_tls: %d wrong values\n", total);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
