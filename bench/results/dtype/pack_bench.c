/* bench/results/dtype/pack_bench.c — MPI_Pack and MPI_Unpack time of the common derived-type
 * shapes, so that the compact layouts (issue 20) can be compared with the flattened block lists
 * they replaced: each case prints, for pack and for unpack, the median over 7 timed batches of
 * the time of one call, in microseconds. Built and run against two builds by pack_compare.sh
 * (same directory).
 *
 *   pack_bench                  every case, timed
 *   pack_bench CASE N           only CASE, N untimed packs then N unpacks (for an instruction
 *                               count under callgrind: pack_instructions.sh) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static const char *only; /* the one case to run, or NULL */
static int only_reps;

static void run(const char *name, void *buf, int count, MPI_Datatype t, void *out) {
  double times[7];
  int size, i, k, reps, pos, unpack;
  if (only && strcmp(only, name) != 0) return;
  MPI_Type_size(t, &size);
  if (only) {
    for (k = 0; k < only_reps; ++k) {
      pos = 0;
      MPI_Pack(buf, count, t, out, size * count, &pos, MPI_COMM_SELF);
    }
    for (k = 0; k < only_reps; ++k) {
      pos = 0;
      MPI_Unpack(out, size * count, &pos, buf, count, t, MPI_COMM_SELF);
    }
    return;
  }
  reps = (int)(8.0 * 1024 * 1024 / ((double)size * count)) + 1;
  for (unpack = 0; unpack < 2; ++unpack) {
    for (i = 0; i < 7; ++i) {
      const double t0 = MPI_Wtime();
      for (k = 0; k < reps; ++k) {
        pos = 0;
        if (unpack)
          MPI_Unpack(out, size * count, &pos, buf, count, t, MPI_COMM_SELF);
        else
          MPI_Pack(buf, count, t, out, size * count, &pos, MPI_COMM_SELF);
      }
      times[i] = (MPI_Wtime() - t0) / reps * 1e6;
    }
    qsort(times, 7, sizeof times[0], cmp);
    printf("%-6s %-28s %10.2f\n", unpack ? "unpack" : "pack", name, times[3]);
  }
}

int main(int argc, char **argv) {
  const size_t n = 1 << 21; /* doubles: 16 MiB */
  double *buf = malloc(n * sizeof(double));
  char *out = malloc(n * sizeof(double));
  MPI_Datatype t, s, st;
  size_t i;
  if (argc >= 3) {
    only = argv[1];
    only_reps = atoi(argv[2]);
  }
  MPI_Init(&argc, &argv);
  for (i = 0; i < n; ++i)
    buf[i] = (double)i;
  run("contig_1MiB", buf, 1 << 20, MPI_BYTE, out);
  MPI_Type_vector(1 << 17, 1, 2, MPI_DOUBLE, &t); /* 1 MiB of single doubles */
  MPI_Type_commit(&t);
  run("vector_1dbl_x131072", buf, 1, t, out);
  MPI_Type_free(&t);
  MPI_Type_vector(1 << 13, 16, 32, MPI_DOUBLE, &t); /* 1 MiB in 128-byte blocks */
  MPI_Type_commit(&t);
  run("vector_16dbl_x8192", buf, 1, t, out);
  MPI_Type_free(&t);
  MPI_Type_vector(64, 1, 2, MPI_DOUBLE, &t); /* small vector, many elements */
  MPI_Type_commit(&t);
  run("vector_1dbl_x64_count2048", buf, 2048, t, out);
  MPI_Type_free(&t);
  MPI_Type_vector(1, 1, 2, MPI_DOUBLE, &t); /* a vector of one double: contiguous */
  MPI_Type_commit(&t);
  run("vector_1x1dbl_count131072", buf, 1 << 17, t, out);
  MPI_Type_free(&t);
  {
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, d, ty, &s);
    MPI_Type_commit(&s);
    run("struct_int_dbl_count65536", buf, 1 << 16, s, out);
    MPI_Type_contiguous(100, s, &st);
    MPI_Type_commit(&st);
    run("contig100_struct_count655", buf, 655, st, out);
    MPI_Type_free(&st);
    MPI_Type_free(&s);
  }
  {
    int bl[3] = {1, 1, 1};
    MPI_Aint d[3] = {0, 4, 8};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(3, bl, d, ty, &s);
    MPI_Type_commit(&s);
    run("struct_char_int_dbl_count65536", buf, 1 << 16, s, out);
    MPI_Type_free(&s);
  }
  {
    int sizes[2] = {1024, 1024}, sub[2] = {512, 256}, starts[2] = {100, 300};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    run("subarray_512x256_dbl", buf, 1, t, out);
    MPI_Type_free(&t);
  }
  {
    int bl[4] = {3, 1, 5, 2};
    int disp[4] = {0, 5, 9, 20};
    MPI_Type_indexed(4, bl, disp, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    run("indexed4_dbl_count40000", buf, 40000, t, out);
    MPI_Type_free(&t);
  }
  MPI_Type_vector(1 << 20, 1, 2, MPI_BYTE, &t); /* 1 MiB of single bytes */
  MPI_Type_commit(&t);
  run("vector_1byte_x1M", buf, 1, t, out);
  MPI_Type_free(&t);
  MPI_Finalize();
  free(buf);
  free(out);
  return 0;
}
