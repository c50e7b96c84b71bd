/* tests/threads/thread_deadlock.c — a thread that a rank created waits in MPI_Recv for a message
 * nobody sends, while its rank waits for it in pthread_join: the job must end with the deadlock
 * report (naming the thread's call and the join) instead of hanging. Run with WILL_FAIL and a
 * pattern on the report. Before that, a thread that waits while its peer thread computes first
 * must not be reported. */
#include "mpitest.h"

#include <pthread.h>
#include <time.h>

struct job {
  int rank, size, phase;
};

static void *thread_body(void *arg) {
  const struct job *j = arg;
  int v = -1;
  if (j->phase == 0) {
    /* Ring among the threads: the receive waits while the sender computes for a while. */
    const int to = (j->rank + 1) % j->size, from = (j->rank + j->size - 1) % j->size;
    MPI_Request req;
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &req));
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    volatile unsigned long spin = 0;
    do { /* computes (no MPI) for 300 ms: longer than the detectors' waves */
      ++spin;
      clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L < 300);
    CHECK_MPI(MPI_Send(&j->rank, 1, MPI_INT, to, 7, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(v == from, "got %d from rank %d", v, from);
  } else {
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, j->rank, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  struct job j;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &j.rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &j.size));
  for (j.phase = 0; j.phase < 2; ++j.phase) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread_body, &j) == 0, "pthread_create");
    CHECK(pthread_join(t, NULL) == 0, "pthread_join");
    if (j.phase == 0) {
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      if (j.rank == 0) printf("no deadlock while a thread computes\n");
      fflush(stdout);
    }
  }
  CHECK(0, "the second phase must deadlock");
  MPI_Finalize();
  return 0;
}
