/* bench/comm_create.c — the cost of making communicators and of collectives on an
 * intercommunicator: MPI_Comm_dup + free, MPI_Comm_split + free, MPI_Comm_idup + wait + free,
 * MPI_Intercomm_create + free (halves of WORLD), and MPI_Barrier / 8-byte MPI_Allreduce on that
 * intercommunicator. Prints "<what> <median us per call>" from rank 0 (median of 9 batches), or
 * "<what> n/a" where the library refuses the call (a build without intercommunicators).
 * Usage: comm_create [iterations per batch, default 200]. Any MPI (ampi, Open MPI, MPICH). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

enum { kBatches = 9 };

int main(int argc, char **argv) {
  int rank, size, n = argc > 1 ? atoi(argv[1]) : 200;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char *names[] = {"dup",           "split",           "idup", "intercomm_create",
                         "inter_barrier", "inter_allreduce8"};
  MPI_Comm half, ic = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
  const int inter_ok =
      size >= 2 && MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < size / 2 ? size / 2 : 0, 5,
                                        &ic) == MPI_SUCCESS;
  for (int w = 0; w < 6; ++w) {
    double t[kBatches];
    int ok = w < 3 || inter_ok;
    if (w == 2) { /* idup may be refused */
      MPI_Comm d;
      MPI_Request r;
      ok = MPI_Comm_idup(MPI_COMM_WORLD, &d, &r) == MPI_SUCCESS;
      if (ok) {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Comm_free(&d);
      }
    }
    for (int b = 0; ok && b < kBatches; ++b) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < n; ++i) {
        MPI_Comm d;
        MPI_Request r;
        long x = i, y = 0;
        switch (w) {
        case 0:
          MPI_Comm_dup(MPI_COMM_WORLD, &d);
          MPI_Comm_free(&d);
          break;
        case 1:
          MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &d);
          MPI_Comm_free(&d);
          break;
        case 2:
          MPI_Comm_idup(MPI_COMM_WORLD, &d, &r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
          MPI_Comm_free(&d);
          break;
        case 3:
          MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < size / 2 ? size / 2 : 0, 6, &d);
          MPI_Comm_free(&d);
          break;
        case 4:
          MPI_Barrier(ic);
          break;
        default:
          MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, ic);
          break;
        }
      }
      t[b] = (MPI_Wtime() - t0) * 1e6 / n;
    }
    if (rank == 0) {
      if (ok) {
        qsort(t, kBatches, sizeof t[0], cmp);
        printf("%s %.2f\n", names[w], t[kBatches / 2]);
      } else
        printf("%s n/a\n", names[w]);
      fflush(stdout);
    }
  }
  if (ic != MPI_COMM_NULL) MPI_Comm_free(&ic);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
