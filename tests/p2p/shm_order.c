/* tests/p2p/shm_order.c — messages between processes of one host keep MPI's order whatever
 * carries them (tests/p2p/CMakeLists.txt runs it with the shared-memory path on, off, without CMA,
 * with every CMA read refused and with tiny rings):
 *  1. order across protocols: sizes that go eagerly through the ring, by UCX rendezvous and by CMA,
 *     and synchronous sends, alternating, received with MPI_ANY_SOURCE / MPI_ANY_TAG, both into
 *     receives posted beforehand and as unexpected messages; every sender's messages must come in
 *     the order sent, with their data;
 *  2. a flood: each rank sends far more than a ring holds to the others before anyone receives
 *     (the senders keep a backlog; nobody may deadlock), in both directions at once;
 *  3. a receiver whose process sleeps (the sender computes first) still gets its message. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c, ...)                                                                              \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      fprintf(stderr, "shm_order: rank %d: ", rank);                                               \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

static const int sizes[] = {8, 1000, 16384, 20000, 100000, 0, 1 << 19, 300};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define PER_SENDER 40
#define BIG (1 << 19)

static int rank, size;

static void fill(unsigned char *b, int n, int src, int seq) {
  for (int i = 0; i < n; ++i)
    b[i] = (unsigned char)(src * 31 + seq * 7 + i);
}

static void check_data(const unsigned char *b, int n, int src, int seq) {
  for (int i = 0; i < n; ++i)
    CHECK(b[i] == (unsigned char)(src * 31 + seq * 7 + i), "message %d from %d: byte %d wrong", seq,
          src, i);
}

/* Phase 1: every rank but the last sends PER_SENDER messages to the last one. */
static void order(int preposted) {
  const int last = size - 1;
  unsigned char *buf = malloc(BIG);
  if (rank != last) {
    MPI_Barrier(MPI_COMM_WORLD); /* the receiver has posted (or not) */
    MPI_Request reqs[PER_SENDER];
    unsigned char *bufs[PER_SENDER];
    for (int seq = 0; seq < PER_SENDER; ++seq) {
      const int n = sizes[(seq + rank) % NSIZES];
      bufs[seq] = malloc(n ? n : 1);
      fill(bufs[seq], n, rank, seq);
      if (seq % 5 == 4)
        MPI_Issend(bufs[seq], n, MPI_BYTE, last, seq, MPI_COMM_WORLD, &reqs[seq]);
      else
        MPI_Isend(bufs[seq], n, MPI_BYTE, last, seq, MPI_COMM_WORLD, &reqs[seq]);
    }
    MPI_Waitall(PER_SENDER, reqs, MPI_STATUSES_IGNORE);
    for (int seq = 0; seq < PER_SENDER; ++seq)
      free(bufs[seq]);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    const int total = PER_SENDER * (size - 1);
    int *next = calloc((size_t)size, sizeof *next);
    if (preposted) {
      unsigned char **bufs = malloc(sizeof *bufs * (size_t)total);
      MPI_Request *reqs = malloc(sizeof *reqs * (size_t)total);
      MPI_Status *st = malloc(sizeof *st * (size_t)total);
      for (int i = 0; i < total; ++i) {
        bufs[i] = malloc(BIG);
        MPI_Irecv(bufs[i], BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[i]);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Waitall(total, reqs, st);
      for (int i = 0; i < total; ++i) { /* receives match in posting order */
        const int src = st[i].MPI_SOURCE, seq = st[i].MPI_TAG;
        int n;
        MPI_Get_count(&st[i], MPI_BYTE, &n);
        CHECK(seq == next[src], "preposted: from %d got message %d, expected %d", src, seq,
              next[src]);
        CHECK(n == sizes[(seq + src) % NSIZES], "message %d from %d: %d bytes", seq, src, n);
        check_data(bufs[i], n, src, seq);
        ++next[src];
        free(bufs[i]);
      }
      free(bufs);
      free(reqs);
      free(st);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = 0; i < total; ++i) {
        MPI_Status st;
        if (i == 0) { /* let messages arrive unexpected first */
          MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        }
        MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        const int src = st.MPI_SOURCE, seq = st.MPI_TAG;
        int n;
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(seq == next[src], "unexpected: from %d got message %d, expected %d", src, seq,
              next[src]);
        CHECK(n == sizes[(seq + src) % NSIZES], "message %d from %d: %d bytes", seq, src, n);
        check_data(buf, n, src, seq);
        ++next[src];
      }
    }
    for (int s = 0; s < last; ++s)
      CHECK(next[s] == PER_SENDER, "got %d messages from %d", next[s], s);
    free(next);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(buf);
}

/* Phase 2: everyone floods everyone (8 MiB per pair in 4000-byte messages), then receives. */
static void flood(void) {
  enum { N = 2000, LEN = 4000 };
  unsigned char *out = malloc(LEN), *in = malloc(LEN);
  MPI_Request *reqs = malloc(sizeof *reqs * (size_t)N * (size_t)size);
  int nreq = 0;
  for (int i = 0; i < N; ++i) {
    for (int d = 0; d < size; ++d) {
      if (d == rank) continue;
      memset(out, i & 0xff, LEN);
      MPI_Isend(out, LEN, MPI_BYTE, d, 7, MPI_COMM_WORLD, &reqs[nreq]); /* eager: buffer reused */
      MPI_Wait(&reqs[nreq], MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD); /* behind the flood in every ring */
  for (int s = 0; s < size; ++s) {
    if (s == rank) continue;
    for (int i = 0; i < N; ++i) {
      MPI_Recv(in, LEN, MPI_BYTE, s, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(in[0] == (unsigned char)(i & 0xff) && in[LEN - 1] == (unsigned char)(i & 0xff),
            "flood: message %d from %d out of order", i, s);
    }
  }
  free(reqs);
  free(out);
  free(in);
}

/* Phase 3: the receiver's process goes to sleep while the sender computes. */
static void sleeper(void) {
  const int last = size - 1;
  int v = 0;
  if (rank == 0) {
    const double t0 = MPI_Wtime();
    volatile double x = 0;
    while (MPI_Wtime() - t0 < 0.3)
      x += 1;
    v = 4242;
    MPI_Send(&v, 1, MPI_INT, last, 9, MPI_COMM_WORLD);
  } else if (rank == last) {
    MPI_Recv(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(v == 4242, "sleeper: got %d", v);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    MPI_Finalize();
    return 0;
  }
  order(1);
  order(0);
  flood();
  sleeper();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("shm_order: ok\n");
  MPI_Finalize();
  return 0;
}
