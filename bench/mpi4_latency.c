/* bench/mpi4_latency.c — what MPI 4's calls cost against the MPI 3 calls they stand for, side by
 * side in one run (rounds interleaved, so the machine's load hits both alike): a ping-pong of
 * `bytes` between ranks 0 and 1 with MPI_Send/MPI_Recv vs MPI_Send_c/MPI_Recv_c (the generated
 * large-count bindings), MPI_Sendrecv vs MPI_Isendrecv + MPI_Wait, and a persistent send
 * (MPI_Send_init) vs a partitioned one of 8 partitions (MPI_Psend_init, MPI_Pready_range).
 * Prints, per pair, the median over the rounds of the one-way latency in microseconds.
 * Usage: ampirun -np 1 --vp 2 bench/mpi4_latency [bytes] [iterations] [rounds] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEND, SEND_C, SENDRECV, ISENDRECV, PERSISTENT, PARTITIONED, NKIND };
static const char *names[NKIND] = {"MPI_Send/Recv", "MPI_Send_c/Recv_c", "MPI_Sendrecv",
                                   "MPI_Isendrecv", "MPI_Send_init",     "MPI_Psend_init(8)"};

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double run(int kind, int rank, char *buf, char *rbuf, int bytes, int iters) {
  const int peer = 1 - rank;
  MPI_Request s = MPI_REQUEST_NULL, r = MPI_REQUEST_NULL;
  double t0;
  int i;
  if (kind == PERSISTENT) {
    MPI_Send_init(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &s);
    MPI_Recv_init(rbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r);
  } else if (kind == PARTITIONED) {
    MPI_Psend_init(buf, 8, bytes / 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    MPI_Precv_init(rbuf, 8, bytes / 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (i = 0; i < iters; ++i) {
    /* rank 0 sends first, then receives; rank 1 the other way round */
    int half;
    for (half = 0; half < 2; ++half) {
      const int sending = (half == 0) == (rank == 0);
      switch (kind) {
      case SEND:
        if (sending)
          MPI_Send(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        else
          MPI_Recv(rbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
      case SEND_C:
        if (sending)
          MPI_Send_c(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        else
          MPI_Recv_c(rbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
      case SENDRECV: /* both ranks exchange once per half: counts as one message each way */
      case ISENDRECV:
        if (half == 1) break;
        if (kind == SENDRECV) {
          MPI_Sendrecv(buf, bytes, MPI_BYTE, peer, 1, rbuf, bytes, MPI_BYTE, peer, 1,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Request q;
          MPI_Isendrecv(buf, bytes, MPI_BYTE, peer, 1, rbuf, bytes, MPI_BYTE, peer, 1,
                        MPI_COMM_WORLD, &q);
          MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        break;
      case PERSISTENT:
        if (sending) {
          MPI_Start(&s);
          MPI_Wait(&s, MPI_STATUS_IGNORE);
        } else {
          MPI_Start(&r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        break;
      case PARTITIONED:
        if (sending) {
          MPI_Start(&s);
          MPI_Pready_range(0, 7, s);
          MPI_Wait(&s, MPI_STATUS_IGNORE);
        } else {
          MPI_Start(&r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        break;
      }
    }
  }
  t0 = MPI_Wtime() - t0;
  if (s != MPI_REQUEST_NULL) MPI_Request_free(&s);
  if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  return t0 * 1e6 / (2.0 * iters);
}

int main(int argc, char **argv) {
  int bytes = argc > 1 ? atoi(argv[1]) : 8, iters = argc > 2 ? atoi(argv[2]) : 20000;
  int rounds = argc > 3 ? atoi(argv[3]) : 9, rank, size, k, i;
  double *t[NKIND];
  char *buf, *rbuf;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "mpi4_latency: run with 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  bytes = bytes < 8 ? 8 : bytes / 8 * 8; /* whole partitions */
  buf = calloc((size_t)bytes, 1);
  rbuf = calloc((size_t)bytes, 1);
  for (k = 0; k < NKIND; ++k)
    t[k] = calloc((size_t)rounds, sizeof(double));
  for (k = 0; k < NKIND; ++k)
    run(k, rank, buf, rbuf, bytes, iters / 10 + 1); /* warm-up */
  for (i = 0; i < rounds; ++i)
    for (k = 0; k < NKIND; ++k)
      t[k][i] = run(k, rank, buf, rbuf, bytes, iters);
  if (rank == 0) {
    printf("# mpi4_latency: %d bytes, %d iterations x %d rounds, median one-way us\n", bytes, iters,
           rounds);
    for (k = 0; k < NKIND; ++k) {
      qsort(t[k], (size_t)rounds, sizeof(double), cmp);
      printf("%-20s %8.3f\n", names[k], t[k][rounds / 2]);
    }
  }
  for (k = 0; k < NKIND; ++k)
    free(t[k]);
  free(buf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
