/* tests/threads/thread_collectives.c — T threads per rank (argv[1]), thread t of every rank
 * working on its own duplicate of MPI_COMM_WORLD (as MPI requires for concurrent collectives):
 * MPI_Allreduce, MPI_Ibcast + MPI_Wait (a non-blocking collective, run by an internal task of the
 * rank) and MPI_Barrier, with results checked against values computed here. */
#include "mpitest.h"

#include <pthread.h>

enum { kIters = 30, kMaxThreads = 8 };

struct job {
  MPI_Comm comm;
  int t;
};

static void *thread_body(void *arg) {
  const struct job *j = arg;
  int r, n;
  CHECK_MPI(MPI_Comm_rank(j->comm, &r));
  CHECK_MPI(MPI_Comm_size(j->comm, &n));
  for (int it = 0; it < kIters; ++it) {
    int in = r * 10 + j->t + it, out = -1;
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, j->comm));
    const int expect = n * (n - 1) / 2 * 10 + n * (j->t + it);
    CHECK(out == expect, "thread %d iteration %d: MPI_Allreduce gave %d, expected %d", j->t, it,
          out, expect);
    int b = r == 0 ? 1000 * j->t + it : -1;
    MPI_Request q;
    CHECK_MPI(MPI_Ibcast(&b, 1, MPI_INT, 0, j->comm, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(b == 1000 * j->t + it, "thread %d iteration %d: MPI_Ibcast gave %d", j->t, it, b);
    CHECK_MPI(MPI_Barrier(j->comm));
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  const int nthreads = argc > 1 ? atoi(argv[1]) : 2;
  CHECK(nthreads >= 1 && nthreads <= kMaxThreads, "thread count %d", nthreads);
  struct job jobs[kMaxThreads];
  pthread_t threads[kMaxThreads];
  for (int t = 0; t < nthreads; ++t) {
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm));
    jobs[t].t = t;
  }
  for (int t = 0; t < nthreads; ++t)
    CHECK(pthread_create(&threads[t], NULL, thread_body, &jobs[t]) == 0, "pthread_create");
  for (int t = 0; t < nthreads; ++t) {
    CHECK(pthread_join(threads[t], NULL) == 0, "pthread_join");
    CHECK_MPI(MPI_Comm_free(&jobs[t].comm));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  mt_ok("thread_collectives");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
