/* bench/io_strided.c — a strided collective write and read of one file (plain MPI-IO C; any MPI
 * builds it): N ranks, every rank writes every N-th block of BLOCK bytes of a file of SIZE bytes
 * (a resized vector filetype as its view) with MPI_File_write_all, syncs, then reads it back with
 * MPI_File_read_all and checks every byte. Prints the bandwidths of the slowest rank (file size /
 * time between barriers) of each of ROUNDS runs and their median.
 *
 *   io_strided FILE [SIZE_MIB=1024] [BLOCK=65536] [ROUNDS=3]
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: io_strided FILE [SIZE_MIB] [BLOCK] [ROUNDS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *path = argv[1];
  const long long total = (argc > 2 ? atoll(argv[2]) : 1024) << 20;
  const long long block = argc > 3 ? atoll(argv[3]) : 65536;
  const int rounds = argc > 4 ? atoi(argv[4]) : 3;
  const long long blocks = total / block / size; /* my blocks */
  const size_t mine = (size_t)(blocks * block);
  unsigned char *buf = malloc(mine), *back = malloc(mine);
  for (size_t i = 0; i < mine; ++i)
    buf[i] = (unsigned char)(rank * 31 + i * 7 + i / 4096);
  MPI_Datatype vec, ftype;
  MPI_Type_vector(1, (int)block, (int)(block * size), MPI_BYTE, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(block * size), &ftype);
  MPI_Type_commit(&ftype);
  double *wbw = malloc(sizeof(double) * rounds), *rbw = malloc(sizeof(double) * rounds);
  const double mib = (double)(blocks * block * size) / (1 << 20);
  for (int r = 0; r < rounds; ++r) {
    MPI_File fh;
    if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, (MPI_Offset)(rank * block), MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Status st;
    int rc = MPI_File_write_all(fh, buf, (int)mine, MPI_BYTE, &st);
    MPI_File_sync(fh);
    double t1 = MPI_Wtime() - t0, tw;
    MPI_Allreduce(&t1, &tw, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    memset(back, 0, mine);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    rc |= MPI_File_read_all(fh, back, (int)mine, MPI_BYTE, &st);
    t1 = MPI_Wtime() - t0;
    double tr;
    MPI_Allreduce(&t1, &tr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int bad = rc != MPI_SUCCESS || memcmp(buf, back, mine) != 0, anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_File_close(&fh);
    if (anybad) {
      if (rank == 0) fprintf(stderr, "io_strided: data read back differs\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    wbw[r] = mib / tw;
    rbw[r] = mib / tr;
    if (rank == 0)
      printf("round %d: %d ranks, %.0f MiB, block %lld B: write %.1f MiB/s, read %.1f MiB/s\n", r,
             size, mib, block, wbw[r], rbw[r]);
  }
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  qsort(wbw, (size_t)rounds, sizeof(double), cmp);
  qsort(rbw, (size_t)rounds, sizeof(double), cmp);
  if (rank == 0)
    printf("median: write %.1f MiB/s read %.1f MiB/s\n", wbw[rounds / 2], rbw[rounds / 2]);
  MPI_Type_free(&ftype);
  free(buf);
  free(back);
  free(wbw);
  free(rbw);
  MPI_Finalize();
  return 0;
}
