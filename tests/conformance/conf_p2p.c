/* tests/conformance/conf_p2p.c — point-to-point rules of MPI-4.1 chapter 3, written from the
 * standard's text: messages between a pair do not overtake (3.5), wildcards and the status they
 * fill (3.2.5), probe then receive the probed message, persistent requests restarted (3.9), and
 * single-completion calls leaving status.MPI_ERROR as the program set it (3.2.5, 3.7.5). */
#include "../mpi/mpitest.h"

#define N 16

static void ordering(int rank, int size) {
  /* Every rank sends N messages of the same tag to its right neighbour; they arrive in order. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request reqs[N];
  int vals[N];
  for (int i = 0; i < N; ++i) {
    vals[i] = rank * 1000 + i;
    CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[i]));
  }
  for (int i = 0; i < N; ++i) {
    int v = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, i % 2 ? left : MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st));
    CHECK(v == left * 1000 + i, "message %d from %d arrived as %d (overtaken)", i, left, v);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "status source %d tag %d", st.MPI_SOURCE,
          st.MPI_TAG);
  }
  CHECK_MPI(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE));
}

static void wildcards_and_probe(int rank, int size) {
  /* A communicator of its own: MPI_ANY_TAG must not see the later phases' messages. */
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  /* Rank 0 collects one message from every other rank with MPI_ANY_SOURCE/MPI_ANY_TAG, probing
   * first: the probed size and source are the received message's. */
  if (rank == 0) {
    for (int i = 1; i < size; ++i) {
      MPI_Status st;
      int count = -1;
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == st.MPI_SOURCE, "probed %d ints from %d", count, st.MPI_SOURCE);
      CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE, "probed tag %d", st.MPI_TAG);
      int buf[64];
      MPI_Status rst;
      CHECK_MPI(MPI_Recv(buf, 64, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, comm, &rst));
      CHECK_MPI(MPI_Get_count(&rst, MPI_INT, &count));
      CHECK(count == st.MPI_SOURCE && rst.MPI_SOURCE == st.MPI_SOURCE, "received %d from %d", count,
            rst.MPI_SOURCE);
      for (int k = 0; k < count; ++k)
        CHECK(buf[k] == rst.MPI_SOURCE, "element %d is %d", k, buf[k]);
    }
    int flag = 1; /* every message was received once */
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a message is left over");
  } else {
    int buf[64];
    for (int k = 0; k < rank && k < 64; ++k)
      buf[k] = rank;
    CHECK_MPI(MPI_Send(buf, rank < 64 ? rank : 64, MPI_INT, 0, 100 + rank, comm));
  }
  CHECK_MPI(MPI_Comm_free(&comm));
  /* MPI_PROC_NULL: completes at once with source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0. */
  MPI_Status st;
  int count = -1;
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
        "MPI_PROC_NULL status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, count);
}

static void persistent(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = 0, in = -1;
  MPI_Request r[2];
  CHECK_MPI(MPI_Send_init(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[0]));
  CHECK_MPI(MPI_Recv_init(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[1]));
  for (int it = 0; it < 5; ++it) {
    out = rank * 10 + it;
    CHECK_MPI(MPI_Startall(2, r));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(in == left * 10 + it, "round %d received %d", it, in);
    CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL, "persistent request freed");
  }
  /* An inactive persistent request completes at once with an empty status. */
  MPI_Status st;
  int flag = 0;
  st.MPI_ERROR = 99; /* the empty status (3.7.3) has every field set, MPI_ERROR = MPI_SUCCESS */
  CHECK_MPI(MPI_Test(&r[1], &flag, &st));
  CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG &&
            st.MPI_ERROR == MPI_SUCCESS,
        "inactive request: flag %d source %d error %d", flag, st.MPI_SOURCE, st.MPI_ERROR);
  CHECK_MPI(MPI_Request_free(&r[0]));
  CHECK_MPI(MPI_Request_free(&r[1]));
}

static void status_error_kept(int rank, int size) {
  /* MPI-4.1 3.2.5: the single-completion calls do not set MPI_ERROR. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank, in = -1;
  MPI_Status st;
  MPI_Request req;
  st.MPI_ERROR = 12345;
  CHECK_MPI(
      MPI_Sendrecv(&out, 1, MPI_INT, right, 9, &in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_ERROR == 12345, "MPI_Sendrecv set MPI_ERROR to %d", st.MPI_ERROR);
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, right, 10, MPI_COMM_WORLD));
  st.MPI_ERROR = 4321;
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(st.MPI_ERROR == 4321 && in == left, "MPI_Wait set MPI_ERROR to %d", st.MPI_ERROR);
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD));
  int idx = -1, flag = 0;
  st.MPI_ERROR = 777;
  while (!flag)
    CHECK_MPI(MPI_Testany(1, &req, &idx, &flag, &st));
  CHECK(st.MPI_ERROR == 777 && idx == 0, "MPI_Testany set MPI_ERROR to %d", st.MPI_ERROR);
  st.MPI_ERROR = 555;
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_ERROR == 555, "MPI_Recv from MPI_PROC_NULL set MPI_ERROR to %d", st.MPI_ERROR);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ordering(rank, size);
  wildcards_and_probe(rank, size);
  persistent(rank, size);
  status_error_kept(rank, size);
  mt_ok("conf_p2p");
  MPI_Finalize();
  return 0;
}
