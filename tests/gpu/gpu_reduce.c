/* tests/gpu/gpu_reduce.c — reductions of device buffers against the same reductions of host
 * buffers, for every predefined operation on every predefined C type it is defined for (pair
 * types of MINLOC/MAXLOC included; MPI_DOUBLE_INT and MPI_LONG_DOUBLE, which have no device
 * kernel, check the host-staging fallback): MPI_Reduce (and in place at the root), MPI_Allreduce
 * (and in place, and MPI_Iallreduce), MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Scan,
 * MPI_Exscan and MPI_Reduce_local, plus a large MPI_Allreduce and MPI_Reduce (the ring
 * algorithms). Values are small integers, so that every order of the operations gives the same
 * bits. The device results are copied back and compared byte for byte with the host results.
 * Run with device kernels (default) and with AMPI_GPU_DEVICE_REDUCE=0 (host staging).
 * Exits 77 (skipped) before MPI_Init where there is no GPU. */
#include "gpu_mpi_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  float v;
  int i;
} float_int;
typedef struct {
  int v, i;
} int2;
typedef struct {
  double v;
  int i;
} double_int;

enum kind { INT, UINT, FLOAT, BOOL, PAIR_F, PAIR_I, PAIR_D, LDOUBLE };
typedef struct {
  MPI_Datatype t;
  const char *name;
  size_t size; /* C size of one element */
  enum kind kind;
} type_t;

static const type_t types[] = {
    {MPI_CHAR, "MPI_CHAR", 1, INT},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, INT},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, UINT},
    {MPI_BYTE, "MPI_BYTE", 1, UINT},
    {MPI_SHORT, "MPI_SHORT", sizeof(short), INT},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(short), UINT},
    {MPI_INT, "MPI_INT", sizeof(int), INT},
    {MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(int), UINT},
    {MPI_LONG, "MPI_LONG", sizeof(long), INT},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(long), UINT},
    {MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long), INT},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", sizeof(long long), UINT},
    {MPI_INT8_T, "MPI_INT8_T", 1, INT},
    {MPI_INT16_T, "MPI_INT16_T", 2, INT},
    {MPI_INT32_T, "MPI_INT32_T", 4, INT},
    {MPI_INT64_T, "MPI_INT64_T", 8, INT},
    {MPI_UINT8_T, "MPI_UINT8_T", 1, UINT},
    {MPI_UINT16_T, "MPI_UINT16_T", 2, UINT},
    {MPI_UINT32_T, "MPI_UINT32_T", 4, UINT},
    {MPI_UINT64_T, "MPI_UINT64_T", 8, UINT},
    {MPI_FLOAT, "MPI_FLOAT", sizeof(float), FLOAT},
    {MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), FLOAT},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), LDOUBLE},
    {MPI_C_BOOL, "MPI_C_BOOL", sizeof(bool), BOOL},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(float_int), PAIR_F},
    {MPI_2INT, "MPI_2INT", sizeof(int2), PAIR_I},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(double_int), PAIR_D},
};
static const struct {
  MPI_Op op;
  const char *name;
} ops[] = {{MPI_SUM, "SUM"},   {MPI_PROD, "PROD"}, {MPI_MAX, "MAX"},       {MPI_MIN, "MIN"},
           {MPI_LAND, "LAND"}, {MPI_LOR, "LOR"},   {MPI_LXOR, "LXOR"},     {MPI_BAND, "BAND"},
           {MPI_BOR, "BOR"},   {MPI_BXOR, "BXOR"}, {MPI_MAXLOC, "MAXLOC"}, {MPI_MINLOC, "MINLOC"}};

/* Element i of rank r: small integers (PROD: ones and a few twos, so nothing overflows). */
static long value(int r, int i, MPI_Op op) {
  if (op == MPI_PROD) return (i + r) % 7 == 0 ? 2 : 1;
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return (i * 3 + r) % 4 != 0;
  return (r * 7 + i * 3) % 11;
}

static void fill(const type_t *t, void *buf, int n, int r, MPI_Op op) {
  memset(buf, 0, (size_t)n * t->size);
  for (int i = 0; i < n; ++i) {
    const long v = value(r, i, op);
    char *p = (char *)buf + (size_t)i * t->size;
    switch (t->kind) {
    case INT:
    case UINT:
      if (t->size == 1)
        *(int8_t *)p = (int8_t)v;
      else if (t->size == 2)
        *(int16_t *)p = (int16_t)v;
      else if (t->size == 4)
        *(int32_t *)p = (int32_t)v;
      else
        *(int64_t *)p = (int64_t)v;
      break;
    case FLOAT:
      if (t->size == sizeof(float))
        *(float *)p = (float)v;
      else
        *(double *)p = (double)v;
      break;
    case LDOUBLE:
      *(long double *)p = (long double)v;
      break;
    case BOOL:
      *(bool *)p = v != 0;
      break;
    case PAIR_F:
      ((float_int *)p)->v = (float)v, ((float_int *)p)->i = r;
      break;
    case PAIR_I:
      ((int2 *)p)->v = (int)v, ((int2 *)p)->i = r;
      break;
    case PAIR_D:
      ((double_int *)p)->v = (double)v, ((double_int *)p)->i = r;
      break;
    }
  }
}

static void *dalloc(size_t bytes) {
  return dev_ints((bytes + sizeof(int) - 1) / sizeof(int));
}

/* Compares the device buffer's first `bytes` with the host result. */
static void check(const char *what, const type_t *t, const char *op, const void *host,
                  const void *d, size_t bytes) {
  char *got = malloc(bytes ? bytes : 1);
  from_dev_bytes(got, d, bytes);
  /* long double: the 6 bytes of padding of the x87 format are not data. */
  size_t unit = t->kind == LDOUBLE ? 10 : t->size;
  for (size_t e = 0; e < bytes / t->size; ++e) {
    const char *a = (const char *)host + e * t->size, *b = got + e * t->size;
    int same = t->kind == PAIR_D ? ((const double_int *)a)->v == ((const double_int *)b)->v &&
                                       ((const double_int *)a)->i == ((const double_int *)b)->i
                                 : memcmp(a, b, unit) == 0;
    if (!same) {
      EXPECT(0, "%s %s %s: element %zu differs from the host reduction", what, op, t->name, e);
      break;
    }
  }
  free(got);
}

static int checks;

/* Every collective for one (type, op) with `n` elements per rank. */
static void one(const type_t *t, const char *opname, MPI_Op op, int n) {
  const size_t bytes = (size_t)n * t->size, all = bytes * (size_t)size;
  char *hs = malloc(all), *hr = malloc(all), *hio = malloc(all);
  void *ds = dalloc(all), *dr = dalloc(all);
  int root = size - 1;

  /* MPI_Reduce_local: host and device (inbuf = rank's data, inout = rank+1's). */
  fill(t, hs, n, rank, op);
  fill(t, hio, n, rank + 1, op);
  to_dev_bytes(ds, hs, bytes);
  to_dev_bytes(dr, hio, bytes);
  MPI_Reduce_local(hs, hio, n, t->t, op);
  MPI_Reduce_local(ds, dr, n, t->t, op);
  check("MPI_Reduce_local", t, opname, hio, dr, bytes);

  /* MPI_Allreduce, out of place and in place; MPI_Iallreduce. */
  MPI_Allreduce(hs, hr, n, t->t, op, MPI_COMM_WORLD);
  MPI_Allreduce(ds, dr, n, t->t, op, MPI_COMM_WORLD);
  check("MPI_Allreduce", t, opname, hr, dr, bytes);
  to_dev_bytes(dr, hs, bytes);
  MPI_Allreduce(MPI_IN_PLACE, dr, n, t->t, op, MPI_COMM_WORLD);
  check("MPI_Allreduce(MPI_IN_PLACE)", t, opname, hr, dr, bytes);
  MPI_Request req;
  MPI_Iallreduce(ds, dr, n, t->t, op, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  check("MPI_Iallreduce", t, opname, hr, dr, bytes);

  /* MPI_Reduce to the last rank, out of place and in place at the root. */
  MPI_Reduce(hs, hr, n, t->t, op, root, MPI_COMM_WORLD);
  MPI_Reduce(ds, dr, n, t->t, op, root, MPI_COMM_WORLD);
  if (rank == root) check("MPI_Reduce", t, opname, hr, dr, bytes);
  to_dev_bytes(dr, hs, bytes);
  if (rank == root)
    MPI_Reduce(MPI_IN_PLACE, dr, n, t->t, op, root, MPI_COMM_WORLD);
  else
    MPI_Reduce(dr, NULL, n, t->t, op, root, MPI_COMM_WORLD);
  if (rank == root) check("MPI_Reduce(MPI_IN_PLACE)", t, opname, hr, dr, bytes);

  /* MPI_Scan and MPI_Exscan (rank 0's MPI_Exscan result is undefined). */
  MPI_Scan(hs, hr, n, t->t, op, MPI_COMM_WORLD);
  MPI_Scan(ds, dr, n, t->t, op, MPI_COMM_WORLD);
  check("MPI_Scan", t, opname, hr, dr, bytes);
  MPI_Exscan(hs, hr, n, t->t, op, MPI_COMM_WORLD);
  MPI_Exscan(ds, dr, n, t->t, op, MPI_COMM_WORLD);
  if (rank > 0) check("MPI_Exscan", t, opname, hr, dr, bytes);

  /* MPI_Reduce_scatter_block (n elements each) and MPI_Reduce_scatter (rank i: i+1 elements),
   * out of place and in place, over size blocks of input. */
  fill(t, hs, n * size, rank, op);
  to_dev_bytes(ds, hs, all);
  MPI_Reduce_scatter_block(hs, hr, n, t->t, op, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(ds, dr, n, t->t, op, MPI_COMM_WORLD);
  check("MPI_Reduce_scatter_block", t, opname, hr, dr, bytes);
  to_dev_bytes(dr, hs, all);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, dr, n, t->t, op, MPI_COMM_WORLD);
  check("MPI_Reduce_scatter_block(MPI_IN_PLACE)", t, opname, hr, dr, bytes);
  int *counts = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i)
    counts[i] = i + 1;
  MPI_Reduce_scatter(hs, hr, counts, t->t, op, MPI_COMM_WORLD);
  MPI_Reduce_scatter(ds, dr, counts, t->t, op, MPI_COMM_WORLD);
  check("MPI_Reduce_scatter", t, opname, hr, dr, (size_t)(rank + 1) * t->size);
  free(counts);

  checks += 11;
  free(hs), free(hr), free(hio);
  dev_free(ds), dev_free(dr);
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int pairs = 0;
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ++ti)
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; ++oi) {
      const type_t *t = &types[ti];
      /* Defined for this type? MPI_Reduce_local on host data says (MPI_ERR_OP if not). */
      char a[64], b[64];
      memset(a, 0, sizeof a), memset(b, 0, sizeof b);
      if (MPI_Reduce_local(a, b, 1, t->t, ops[oi].op) != MPI_SUCCESS) continue;
      ++pairs;
      one(t, ops[oi].name, ops[oi].op, 37);
    }
  /* Large enough for the ring algorithms (reduce-scatter + allgather; Rabenseifner). */
  one(&types[21], "SUM", MPI_SUM, 1 << 17);
  one(&types[20], "MAX", MPI_MAX, 1 << 17);
  if (rank == 0)
    printf("gpu_reduce: %d (type, operation) pairs, %d checks per rank\n", pairs, checks);
  EXPECT(pairs >= 150, "only %d (type, operation) pairs are defined", pairs);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return finish("gpu_reduce");
}
