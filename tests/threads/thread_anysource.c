/* tests/threads/thread_anysource.c — T threads per rank (argv[1]); thread t of every rank sends
 * kPerPeer messages on tag t to every other rank and receives all of those meant for it with
 * MPI_ANY_SOURCE (half found with MPI_Probe first). Each source must deliver exactly kPerPeer
 * messages, in the order it sent them, with the payload it sent. The main threads meanwhile
 * exchange a message with every other rank through MPI_ANY_SOURCE and MPI_Iprobe polling. */
#include "mpitest.h"

#include <pthread.h>

enum { kPerPeer = 6, kMaxThreads = 8, kMaxRanks = 64, kLen = 40, kMainTag = 999 };

struct job {
  int rank, size, tag;
};

static void fill(int *buf, int from, int tag, int k) {
  for (int i = 0; i < kLen; ++i)
    buf[i] = from * 100000 + tag * 1000 + k * 10 + i % 10;
}

static void *thread_body(void *arg) {
  const struct job *j = arg;
  const int peers = j->size - 1;
  int(*sbufs)[kLen] = malloc(sizeof(int[kLen]) * (size_t)(peers * kPerPeer + 1));
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)(peers * kPerPeer + 1));
  CHECK(sbufs && reqs, "out of memory");
  int n = 0;
  for (int k = 0; k < kPerPeer; ++k) {
    for (int d = 0; d < j->size; ++d) {
      if (d == j->rank) continue;
      fill(sbufs[n], j->rank, j->tag, k);
      CHECK_MPI(MPI_Isend(sbufs[n], kLen, MPI_INT, d, j->tag, MPI_COMM_WORLD, &reqs[n]));
      ++n;
    }
  }
  int next[kMaxRanks] = {0};
  for (int m = 0; m < peers * kPerPeer; ++m) {
    int rbuf[kLen], expect[kLen], got = -1;
    MPI_Status st;
    if (m % 2 == 0) {
      MPI_Status pst;
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, j->tag, MPI_COMM_WORLD, &pst));
      CHECK(pst.MPI_TAG == j->tag && pst.MPI_SOURCE != j->rank, "probe found source %d tag %d",
            pst.MPI_SOURCE, pst.MPI_TAG);
      CHECK_MPI(MPI_Recv(rbuf, kLen, MPI_INT, pst.MPI_SOURCE, j->tag, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == pst.MPI_SOURCE, "probed %d, received from %d", pst.MPI_SOURCE,
            st.MPI_SOURCE);
    } else {
      CHECK_MPI(MPI_Recv(rbuf, kLen, MPI_INT, MPI_ANY_SOURCE, j->tag, MPI_COMM_WORLD, &st));
    }
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
    const int s = st.MPI_SOURCE;
    CHECK(got == kLen && st.MPI_TAG == j->tag && s >= 0 && s < j->size && s != j->rank,
          "status: count %d source %d tag %d", got, s, st.MPI_TAG);
    CHECK(next[s] < kPerPeer, "more than %d messages from rank %d on tag %d", kPerPeer, s, j->tag);
    fill(expect, s, j->tag, next[s]);
    CHECK(memcmp(rbuf, expect, sizeof expect) == 0,
          "tag %d: message %d from rank %d has the wrong payload (first %d, expected %d)", j->tag,
          next[s], s, rbuf[0], expect[0]);
    ++next[s];
  }
  for (int s = 0; s < j->size; ++s)
    CHECK(s == j->rank || next[s] == kPerPeer, "tag %d: %d messages from rank %d", j->tag, next[s],
          s);
  CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
  free(sbufs);
  free(reqs);
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
  CHECK(size <= kMaxRanks, "at most %d ranks", kMaxRanks);

  struct job jobs[kMaxThreads];
  pthread_t threads[kMaxThreads];
  for (int t = 0; t < nthreads; ++t) {
    jobs[t].rank = rank;
    jobs[t].size = size;
    jobs[t].tag = t;
    CHECK(pthread_create(&threads[t], NULL, thread_body, &jobs[t]) == 0, "pthread_create");
  }
  /* Main threads: one message to every other rank, received with MPI_ANY_SOURCE after polling. */
  int out = rank, seen[kMaxRanks] = {0};
  MPI_Request reqs[kMaxRanks];
  int n = 0;
  for (int d = 0; d < size; ++d)
    if (d != rank) CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, d, kMainTag, MPI_COMM_WORLD, &reqs[n++]));
  for (int m = 0; m < size - 1; ++m) {
    int flag = 0, in = -1;
    MPI_Status st;
    while (!flag)
      CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, kMainTag, MPI_COMM_WORLD, &flag, &st));
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, kMainTag, MPI_COMM_WORLD, &st));
    CHECK(in == st.MPI_SOURCE && in != rank && !seen[in], "main: got %d from %d", in,
          st.MPI_SOURCE);
    seen[in] = 1;
  }
  CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
  for (int t = 0; t < nthreads; ++t)
    CHECK(pthread_join(threads[t], NULL) == 0, "pthread_join");

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  mt_ok("thread_anysource");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
