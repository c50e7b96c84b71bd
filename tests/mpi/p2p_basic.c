/* p2p_basic: blocking point-to-point.
 *  - MPI_Send/MPI_Recv of 0 B .. 4 MiB between pairs (eager and rendezvous sizes), checked byte for
 *    byte, with the receive status (MPI_SOURCE, MPI_TAG, MPI_Get_count) and the bytes of a larger
 *    receive buffer past the message left alone;
 *  - typed messages and MPI_Get_count/MPI_Get_elements (MPI_UNDEFINED for a partial element);
 *  - MPI_PROC_NULL as destination and source;
 *  - MPI_Sendrecv and MPI_Sendrecv_replace around a ring (small and large).
 * Works for any number of ranks: a rank without a partner exchanges with itself through
 * MPI_Sendrecv. */
#include "mpitest.h"

static const long kSizes[] = {0, 1, 8, 4096, 65535, 65536, 65537, 1L << 20, 4L << 20};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))
#define GUARD 64

/* One exchange of n bytes between me and peer (peer != me): the lower rank sends first. */
static void exchange_pair(int me, int peer, long n, int tag) {
  unsigned char *out = mt_malloc((size_t)n);
  unsigned char *in = mt_malloc((size_t)n + GUARD);
  MPI_Status st;
  int count = -1, i;
  long bad;
  mt_fill(out, n, me, tag);
  memset(in, 0xEE, (size_t)n + GUARD);
  /* Receive with a buffer larger than the message: count + GUARD bytes of capacity. */
  if (me < peer) {
    CHECK_MPI(MPI_Send(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(in, (int)n + GUARD, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
  } else {
    CHECK_MPI(MPI_Recv(in, (int)n + GUARD, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Send(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
  }
  CHECK(st.MPI_SOURCE == peer, "size %ld: status.MPI_SOURCE=%d, expected %d", n, st.MPI_SOURCE,
        peer);
  CHECK(st.MPI_TAG == tag, "size %ld: status.MPI_TAG=%d, expected %d", n, st.MPI_TAG, tag);
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == n, "size %ld: MPI_Get_count=%d", n, count);
  bad = mt_verify(in, n, peer, tag);
  CHECK(bad < 0, "size %ld from %d: byte %ld is 0x%02x, expected 0x%02x", n, peer, bad,
        bad < 0 ? 0 : in[bad], bad < 0 ? 0 : mt_byte(bad, peer, tag));
  for (i = 0; i < GUARD; ++i)
    CHECK(in[n + i] == 0xEE, "size %ld: byte %ld past the message was written (0x%02x)", n, n + i,
          in[n + i]);
  free(out);
  free(in);
}

/* Exchange with the partner at distance `bit` (rank ^ bit); a rank without one talks to itself. */
static void pairs_phase(int rank, int size, int bit, int max_index) {
  int peer = rank ^ bit, k;
  for (k = 0; k <= max_index && k < NSIZES; ++k) {
    long n = kSizes[k];
    int tag = 100 + k;
    if (peer < size) {
      exchange_pair(rank, peer, n, tag);
    } else {
      unsigned char *out = mt_malloc((size_t)n), *in = mt_malloc((size_t)n);
      MPI_Status st;
      int count = -1;
      long bad;
      mt_fill(out, n, rank, tag);
      CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_BYTE, rank, tag, in, (int)n, MPI_BYTE, rank, tag,
                             MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == tag, "self: source %d tag %d", st.MPI_SOURCE,
            st.MPI_TAG);
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == n, "self size %ld: count %d", n, count);
      bad = mt_verify(in, n, rank, tag);
      CHECK(bad < 0, "self size %ld: byte %ld differs", n, bad);
      free(out);
      free(in);
    }
  }
}

static void typed_messages(int rank, int size) {
  /* rank sends to (rank+1)%size, receives from (rank-1+size)%size; small sizes are eager so the
   * send-first order is safe (standard sends of a few bytes). */
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  double dout[17], din[32];
  int iout[5], iin[5], count = -1, i;
  char bytes[10];
  MPI_Status st;
  MPI_Request rq;
  MPI_Count elems = -1;

  for (i = 0; i < 17; ++i)
    dout[i] = rank * 1000.5 + i;
  CHECK_MPI(MPI_Irecv(din, 32, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Send(dout, 17, MPI_DOUBLE, right, 7, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
  CHECK(count == 17, "MPI_Get_count(MPI_DOUBLE)=%d, expected 17", count);
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 17 * (int)sizeof(double), "MPI_Get_count(MPI_BYTE)=%d", count);
  CHECK_MPI(MPI_Get_elements_x(&st, MPI_DOUBLE, &elems));
  CHECK(elems == 17, "MPI_Get_elements_x=%lld", (long long)elems);
  for (i = 0; i < 17; ++i)
    CHECK(din[i] == left * 1000.5 + i, "double %d: %g", i, din[i]);

  /* 10 bytes are not a whole number of ints: MPI_Get_count gives MPI_UNDEFINED. */
  for (i = 0; i < 10; ++i)
    bytes[i] = (char)(rank + i);
  CHECK_MPI(MPI_Irecv(iin, 5, MPI_INT, left, 8, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Send(bytes, 10, MPI_BYTE, right, 8, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 10, "count of bytes %d", count);
  if (sizeof(int) == 4) {
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == MPI_UNDEFINED, "MPI_Get_count(MPI_INT) of 10 bytes = %d, expected MPI_UNDEFINED",
          count);
  }
  CHECK(memcmp(iin,
               (char[10]){(char)left, (char)(left + 1), (char)(left + 2), (char)(left + 3),
                          (char)(left + 4), (char)(left + 5), (char)(left + 6), (char)(left + 7),
                          (char)(left + 8), (char)(left + 9)},
               10) == 0,
        "bytes received as ints differ");

  /* MPI_STATUS_IGNORE */
  for (i = 0; i < 5; ++i)
    iout[i] = rank * 10 + i;
  CHECK_MPI(MPI_Irecv(iin, 5, MPI_INT, left, 9, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Send(iout, 5, MPI_INT, right, 9, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  for (i = 0; i < 5; ++i)
    CHECK(iin[i] == left * 10 + i, "int %d: %d", i, iin[i]);
}

static void proc_null(void) {
  int buf[4] = {1, 2, 3, 4}, count = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD));
  st.MPI_SOURCE = 12345;
  st.MPI_TAG = 12345;
  CHECK_MPI(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "recv from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
  CHECK(st.MPI_TAG == MPI_ANY_TAG, "recv from MPI_PROC_NULL: tag %d", st.MPI_TAG);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 0, "recv from MPI_PROC_NULL: count %d", count);
  CHECK(buf[0] == 1 && buf[1] == 2 && buf[2] == 3 && buf[3] == 4,
        "recv from MPI_PROC_NULL modified the buffer");
  CHECK_MPI(MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, buf, 4, MPI_INT, MPI_PROC_NULL, 1,
                         MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "sendrecv with MPI_PROC_NULL: source %d", st.MPI_SOURCE);
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "recv(ANY_TAG) from MPI_PROC_NULL: source %d",
        st.MPI_SOURCE);
}

static void sendrecv_ring(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  static const int kCounts[] = {0, 1, 1000, 100000, 300000};
  int k;
  for (k = 0; k < 5; ++k) {
    const int n = kCounts[k];
    int *out = mt_malloc((size_t)n * sizeof(int)), *in = mt_malloc((size_t)n * sizeof(int) + 4);
    MPI_Status st;
    int count = -1, i;
    for (i = 0; i < n; ++i)
      out[i] = rank * 7919 + i;
    /* Sendrecv: to the right, from the left. */
    CHECK_MPI(MPI_Sendrecv(out, n, MPI_INT, right, 20 + k, in, n + 1, MPI_INT, left, 20 + k,
                           MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 20 + k, "sendrecv: source %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == n, "sendrecv %d ints: count %d", n, count);
    for (i = 0; i < n; ++i)
      CHECK(in[i] == left * 7919 + i, "sendrecv %d ints: element %d = %d", n, i, in[i]);

    /* Sendrecv_replace: to the left, from the right. */
    CHECK_MPI(
        MPI_Sendrecv_replace(out, n, MPI_INT, left, 40 + k, right, 40 + k, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == right && st.MPI_TAG == 40 + k, "sendrecv_replace: source %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == n, "sendrecv_replace %d ints: count %d", n, count);
    for (i = 0; i < n; ++i)
      CHECK(out[i] == right * 7919 + i, "sendrecv_replace %d ints: element %d = %d", n, i, out[i]);

    /* Shift the values twice more around the ring with ANY_SOURCE: after the replace above the
     * buffer holds the right neighbour's values; pass them right again so each rank gets its own
     * values back. */
    CHECK_MPI(MPI_Sendrecv_replace(out, n, MPI_INT, right, 60 + k, MPI_ANY_SOURCE, 60 + k,
                                   MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left, "sendrecv_replace(ANY_SOURCE): source %d", st.MPI_SOURCE);
    for (i = 0; i < n; ++i)
      CHECK(out[i] == rank * 7919 + i, "round trip %d ints: element %d = %d", n, i, out[i]);
    free(out);
    free(in);
  }
}

int main(int argc, char **argv) {
  int rank, size, bit;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* All sizes with the neighbour (rank ^ 1); the smaller sizes also with partners further away
   * (rank ^ 2, rank ^ 4, ...). */
  pairs_phase(rank, size, 1, NSIZES - 1);
  for (bit = 2; bit < size; bit <<= 1)
    pairs_phase(rank, size, bit, 6);
  MPI_Barrier(MPI_COMM_WORLD);

  typed_messages(rank, size);
  proc_null();
  sendrecv_ring(rank, size);

  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("p2p_basic");
  MPI_Finalize();
  return 0;
}
