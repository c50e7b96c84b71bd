/* tests/threads/thread_pingpong.c — a multi-threaded ping-pong, as osu_latency_mt does it: every
 * rank is paired with rank^1, and each of its T threads (argv[1]) ping-pongs with the same thread
 * of the partner on its own tag, with eager and rendezvous sizes (in-process and between
 * processes) and blocking and nonblocking calls, while the two main threads ping-pong on a tag of
 * their own. Every payload and status is checked. */
#include "mpitest.h"

#include <pthread.h>

enum { kIters = 60, kMaxThreads = 16, kMainTag = 1000 };
static const int kCounts[] = {1, 64, 3000, 20000}; /* ints: up to 80 KB */

struct job {
  int rank, partner, tag;
};

static int value(int from, int tag, int iter, int i) {
  return from * 1000003 + tag * 10007 + iter * 101 + i;
}

static void pingpong(const struct job *j, int *sbuf, int *rbuf) {
  for (int iter = 0; iter < kIters; ++iter) {
    const int count = kCounts[iter % 4];
    for (int i = 0; i < count; ++i)
      sbuf[i] = value(j->rank, j->tag, iter, i);
    memset(rbuf, 0, sizeof(int) * (size_t)count);
    MPI_Status st;
    if (iter % 2 == 0) {
      if (j->rank % 2 == 0) {
        CHECK_MPI(MPI_Send(sbuf, count, MPI_INT, j->partner, j->tag, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(rbuf, count, MPI_INT, j->partner, j->tag, MPI_COMM_WORLD, &st));
      } else {
        CHECK_MPI(MPI_Recv(rbuf, count, MPI_INT, j->partner, j->tag, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Send(sbuf, count, MPI_INT, j->partner, j->tag, MPI_COMM_WORLD));
      }
    } else { /* both sides at once, nonblocking */
      MPI_Request reqs[2];
      MPI_Status sts[2];
      CHECK_MPI(MPI_Irecv(rbuf, count, MPI_INT, j->partner, j->tag, MPI_COMM_WORLD, &reqs[0]));
      CHECK_MPI(MPI_Isend(sbuf, count, MPI_INT, j->partner, j->tag, MPI_COMM_WORLD, &reqs[1]));
      CHECK_MPI(MPI_Waitall(2, reqs, sts));
      st = sts[0];
    }
    int got = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == count && st.MPI_SOURCE == j->partner && st.MPI_TAG == j->tag,
          "tag %d iteration %d: status count %d source %d tag %d", j->tag, iter, got, st.MPI_SOURCE,
          st.MPI_TAG);
    for (int i = 0; i < count; ++i)
      CHECK(rbuf[i] == value(j->partner, j->tag, iter, i),
            "tag %d iteration %d: element %d is %d, expected %d", j->tag, iter, i, rbuf[i],
            value(j->partner, j->tag, iter, i));
  }
}

static void *thread_body(void *arg) {
  const struct job *j = arg;
  int is_main = -1;
  CHECK_MPI(MPI_Is_thread_main(&is_main));
  CHECK(is_main == 0, "MPI_Is_thread_main is %d in a created thread", is_main);
  int *sbuf = malloc(sizeof(int) * 20000), *rbuf = malloc(sizeof(int) * 20000);
  CHECK(sbuf && rbuf, "out of memory");
  pingpong(j, sbuf, rbuf);
  free(sbuf);
  free(rbuf);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1, rank, size;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int nthreads = argc > 1 ? atoi(argv[1]) : 2;
  CHECK(nthreads >= 1 && nthreads <= kMaxThreads, "thread count %d", nthreads);
  CHECK(size % 2 == 0, "needs an even number of ranks, not %d", size);

  struct job jobs[kMaxThreads];
  pthread_t threads[kMaxThreads];
  for (int t = 0; t < nthreads; ++t) {
    jobs[t].rank = rank;
    jobs[t].partner = rank ^ 1;
    jobs[t].tag = t;
    CHECK(pthread_create(&threads[t], NULL, thread_body, &jobs[t]) == 0, "pthread_create");
  }
  /* The main threads talk too, at the same time. */
  struct job mine = {rank, rank ^ 1, kMainTag};
  int *sbuf = malloc(sizeof(int) * 20000), *rbuf = malloc(sizeof(int) * 20000);
  CHECK(sbuf && rbuf, "out of memory");
  pingpong(&mine, sbuf, rbuf);
  free(sbuf);
  free(rbuf);
  for (int t = 0; t < nthreads; ++t)
    CHECK(pthread_join(threads[t], NULL) == 0, "pthread_join");

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  mt_ok("thread_pingpong");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
