/* examples/ring.c — the demo: every rank says hello, then a token travels around all ranks
 * `laps` times (default 100), each rank adding one; rank 0 checks the total.
 *   ampirun -np 1 --vp 8 build/examples/ring [laps] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, len;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  const int laps = argc > 1 ? atoi(argv[1]) : 100;
  if (size <= 16 || rank == 0) printf("hello from rank %d of %d on %s\n", rank, size, host);

  long token = 0;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const double t0 = MPI_Wtime();
  for (int lap = 0; lap < laps; ++lap) {
    if (rank == 0) {
      token++;
      MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token++;
      MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
    }
  }
  const double t = MPI_Wtime() - t0;
  int ok = 1;
  if (rank == 0) {
    ok = token == (long)laps * size;
    printf("token went %d times around %d ranks: %ld (expected %ld) in %.3f ms, %.3f us per hop\n",
           laps, size, token, (long)laps * size, t * 1e3, t / ((double)laps * size) * 1e6);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
