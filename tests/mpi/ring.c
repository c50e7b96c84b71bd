/* ring (CTest tests token_ring.vp<V>): a token passed around all ranks 100 times. Rank 0
 * sends lap*size to rank 1; rank r receives lap*size + r - 1 from rank r-1 and sends one more to
 * rank r+1; the last rank sends back to rank 0, which checks lap*size + size - 1. Every rank also
 * checks the lap number carried with the token and the status. With one rank, rank 0 passes the
 * token to itself. */
#include "mpitest.h"

#define LAPS 100

int main(int argc, char **argv) {
  int rank, size, lap;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    long token[2]; /* value, lap */
    MPI_Status st;
    for (lap = 0; lap < LAPS; ++lap) {
      if (rank == 0) {
        long out[2];
        MPI_Request r;
        out[0] = (long)lap * size;
        out[1] = lap;
        /* nonblocking: with one rank, rank 0 is its own right neighbour */
        CHECK_MPI(MPI_Isend(out, 2, MPI_LONG, right, 1, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Recv(token, 2, MPI_LONG, left, 1, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(token[0] == (long)lap * size + size - 1 && token[1] == lap,
              "lap %d: rank 0 got the token back as %ld (lap %ld), expected %ld", lap, token[0],
              token[1], (long)lap * size + size - 1);
      } else {
        CHECK_MPI(MPI_Recv(token, 2, MPI_LONG, left, 1, MPI_COMM_WORLD, &st));
        CHECK(token[0] == (long)lap * size + rank - 1 && token[1] == lap,
              "lap %d: rank %d got %ld (lap %ld), expected %ld", lap, rank, token[0], token[1],
              (long)lap * size + rank - 1);
        ++token[0];
        CHECK_MPI(MPI_Send(token, 2, MPI_LONG, right, 1, MPI_COMM_WORLD));
      }
      CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1, "lap %d: status source %d tag %d", lap,
            st.MPI_SOURCE, st.MPI_TAG);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("ring");
  MPI_Finalize();
  return 0;
}
