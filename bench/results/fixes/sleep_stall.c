/* bench/results/fixes/sleep_stall.c — rank 0 waits for a message in a polling loop (MPI_Iprobe,
 * then usleep(1000)) while ranks 1 and 2 of the same process do 2,000 ping-pongs, after which
 * rank 1 sends rank 0 the message. With a sleep that blocks the PE's thread, every poll stops the
 * ping-pong for 1 ms; with a yielding sleep it runs beside the sleeps.
 * Run: ampirun -np 1 --vp 3 ./sleep_stall */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int rank, v = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (rank == 0) {
    int flag = 0, polls = 0;
    while (!flag) {
      MPI_Iprobe(1, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (!flag) usleep(1000);
      ++polls;
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("waiter: %d polls\n", polls);
  } else if (rank <= 2) {
    for (int i = 0; i < 2000; ++i) {
      if (rank == 1) {
        MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      }
    }
  }
  if (rank == 1) MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  if (rank == 1) printf("ping-pong beside a polling, sleeping rank: %.1f ms\n", t * 1e3);
  MPI_Finalize();
  return 0;
}
