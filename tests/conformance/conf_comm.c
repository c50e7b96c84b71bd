/* tests/conformance/conf_comm.c — communicators, groups and attributes (MPI-4.1 chapter 7),
 * derived datatypes and packing (chapter 5), and error classes under MPI_ERRORS_RETURN (chapter 9),
 * each checked against what the standard's text says the call returns. */
#include "../mpi/mpitest.h"

#include <stdint.h>

static int deleted; /* delete-callback calls; each rank has its own copy of the program */

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  deleted += (int)(intptr_t)value;
  return MPI_SUCCESS;
}

static void comms_and_groups(int rank, int size) {
  MPI_Comm half, dup;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
  int hr, hs;
  CHECK_MPI(MPI_Comm_rank(half, &hr));
  CHECK_MPI(MPI_Comm_size(half, &hs));
  CHECK(hs == (size + 1 - rank % 2) / 2, "split size %d", hs);
  CHECK(hr == hs - 1 - rank / 2, "split rank %d (key orders by descending world rank)", hr);
  CHECK_MPI(MPI_Comm_dup(half, &dup));
  int cmp;
  CHECK_MPI(MPI_Comm_compare(half, dup, &cmp));
  CHECK(cmp == MPI_CONGRUENT, "dup compares %d", cmp);
  MPI_Group wg, hg;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Comm_group(half, &hg));
  int in = hr, out = -1;
  CHECK_MPI(MPI_Group_translate_ranks(hg, 1, &in, wg, &out));
  CHECK(out == rank, "translate_ranks: %d", out);
  MPI_Group u, x;
  CHECK_MPI(MPI_Group_union(hg, wg, &u));
  CHECK_MPI(MPI_Group_intersection(hg, wg, &x));
  int us, xs;
  MPI_Group_size(u, &us);
  MPI_Group_size(x, &xs);
  CHECK(us == size && xs == hs, "union %d intersection %d", us, xs);
  /* MPI_Comm_create with the group of the even ranks: odd ranks get MPI_COMM_NULL. */
  MPI_Group evens;
  int range[1][3] = {{0, size - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(wg, 1, range, &evens));
  MPI_Comm sub;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &sub));
  CHECK((sub != MPI_COMM_NULL) == (rank % 2 == 0), "Comm_create: member %d got %s", rank,
        sub == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
  if (sub != MPI_COMM_NULL) {
    int s;
    CHECK_MPI(MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, sub));
    int want = 0;
    for (int r = 0; r < size; r += 2)
      want += r;
    CHECK(s == want, "sum over the new communicator %d, not %d", s, want);
    MPI_Comm_free(&sub);
  }
  MPI_Group_free(&evens);
  MPI_Group_free(&u);
  MPI_Group_free(&x);
  MPI_Group_free(&wg);
  MPI_Group_free(&hg);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  CHECK(half == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
}

static void attributes(void) {
  MPI_Comm c;
  int key, flag = 0;
  void *v = NULL;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key, NULL));
  deleted = 0;
  CHECK_MPI(MPI_Comm_set_attr(c, key, (void *)(intptr_t)3));
  CHECK_MPI(MPI_Comm_set_attr(c, key, (void *)(intptr_t)5)); /* replaces: deletes the 3 */
  CHECK(deleted == 3, "replacing called delete with %d", deleted);
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(c, &d)); /* MPI_COMM_DUP_FN copies the value */
  CHECK_MPI(MPI_Comm_get_attr(d, key, &v, &flag));
  CHECK(flag && (intptr_t)v == 5, "copied attribute %d %ld", flag, (long)(intptr_t)v);
  /* Freeing the keyval leaves its values attached; they may still be got and deleted through
   * the old handle's value (MPI-4.1 7.7.2: the keyval is freed when no attribute uses it). */
  int key_copy = key;
  CHECK_MPI(MPI_Comm_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
  CHECK_MPI(MPI_Comm_get_attr(c, key_copy, &v, &flag));
  CHECK(flag && (intptr_t)v == 5, "attribute of a freed keyval: %d", flag);
  CHECK_MPI(MPI_Comm_delete_attr(c, key_copy));
  CHECK(deleted == 8, "delete after free_keyval: %d", deleted);
  CHECK_MPI(MPI_Comm_free(&d)); /* runs the callback on the copy */
  CHECK(deleted == 13, "free of the duplicate: %d", deleted);
  CHECK_MPI(MPI_Comm_free(&c));
  /* Predefined attribute. */
  int *ub = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
  CHECK(flag && *ub >= 32767, "MPI_TAG_UB %d", ub ? *ub : -1);
}

static void datatypes(int rank, int size) {
  /* A vector type sent and received as contiguous ints. */
  int mat[4][4], col[4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      mat[i][j] = rank * 100 + i * 4 + j;
  MPI_Datatype column;
  CHECK_MPI(MPI_Type_vector(4, 1, 4, MPI_INT, &column));
  CHECK_MPI(MPI_Type_commit(&column));
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_MPI(MPI_Sendrecv(&mat[0][1], 1, column, right, 0, col, 4, MPI_INT, left, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  for (int i = 0; i < 4; ++i)
    CHECK(col[i] == left * 100 + i * 4 + 1, "column element %d: %d", i, col[i]);
  MPI_Aint lb, extent;
  CHECK_MPI(MPI_Type_get_extent(column, &lb, &extent));
  CHECK(lb == 0 && extent == (MPI_Aint)(13 * sizeof(int)), "vector extent %ld", (long)extent);
  /* A struct of absolute addresses, packed from MPI_BOTTOM (MPI-4.1 5.1.12). */
  struct {
    double d;
    char pad[3];
    int i;
  } s = {1.5, {0}, rank};
  int blens[2] = {1, 1};
  MPI_Aint addrs[2];
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT}, abs_t;
  CHECK_MPI(MPI_Get_address(&s.d, &addrs[0]));
  CHECK_MPI(MPI_Get_address(&s.i, &addrs[1]));
  CHECK_MPI(MPI_Type_create_struct(2, blens, addrs, types, &abs_t));
  CHECK_MPI(MPI_Type_commit(&abs_t));
  char packed[64];
  int pos = 0, psize = 0;
  CHECK_MPI(MPI_Pack_size(1, abs_t, MPI_COMM_WORLD, &psize));
  CHECK(psize >= 12 && psize <= 64, "Pack_size %d", psize);
  CHECK_MPI(MPI_Pack(MPI_BOTTOM, 1, abs_t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK(pos == 12, "packed %d bytes", pos);
  s.d = 0;
  s.i = -1;
  pos = 0;
  CHECK_MPI(MPI_Unpack(packed, sizeof packed, &pos, MPI_BOTTOM, 1, abs_t, MPI_COMM_WORLD));
  CHECK(s.d == 1.5 && s.i == rank, "unpacked %g %d", s.d, s.i);
  /* Get_elements counts predefined elements of a partial message. */
  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  int three[3] = {1, 2, 3}, got[4];
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(three, 3, MPI_INT, right, 1, got, 2, pair, left, 1, MPI_COMM_WORLD, &st));
  int n = 0;
  CHECK_MPI(MPI_Get_count(&st, pair, &n));
  CHECK(n == MPI_UNDEFINED, "Get_count of 1.5 pairs: %d", n);
  CHECK_MPI(MPI_Get_elements(&st, pair, &n));
  CHECK(n == 3, "Get_elements: %d", n);
  MPI_Type_free(&pair);
  MPI_Type_free(&abs_t);
  /* A type of 2^24 separate blocks: its size and bounds are what the standard says, whether or
   * not the library can move its data (it may refuse with MPI_ERR_TYPE, never run out of memory).
   */
  if (rank == 0) {
    MPI_Datatype four, many;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &four));
    CHECK_MPI(MPI_Type_vector(1 << 24, 1, 3, four, &many));
    CHECK_MPI(MPI_Type_commit(&many));
    MPI_Count sz = 0, lbx = 0, ext = 0;
    CHECK_MPI(MPI_Type_size_x(many, &sz));
    CHECK(sz == (MPI_Count)16 << 24, "size of the large vector: %lld", (long long)sz);
    CHECK_MPI(MPI_Type_get_extent_x(many, &lbx, &ext));
    CHECK(lbx == 0 && ext == ((MPI_Count)3 * ((1 << 24) - 1) + 1) * 16, "extent %lld",
          (long long)ext);
    MPI_Type_free(&many);
    MPI_Type_free(&four);
  }
  MPI_Type_free(&column);
}

static void errors(int size) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  int v = 0;
  CHECK(mt_class(MPI_Send(&v, 1, MPI_INT, size, 0, c)) == MPI_ERR_RANK, "bad rank");
  CHECK(mt_class(MPI_Send(&v, -1, MPI_INT, 0, 0, c)) == MPI_ERR_COUNT, "bad count");
  CHECK(mt_class(MPI_Send(&v, 1, MPI_INT, 0, -5, c)) == MPI_ERR_TAG, "bad tag");
  CHECK(mt_class(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, c)) == MPI_ERR_TYPE, "bad type");
  CHECK(mt_class(MPI_Allreduce(&v, &v, 1, MPI_INT, MPI_OP_NULL, c)) == MPI_ERR_OP ||
            mt_class(MPI_Allreduce(&v, &v, 1, MPI_INT, MPI_OP_NULL, c)) == MPI_ERR_BUFFER,
        "bad op");
  int cls = 0;
  CHECK_MPI(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
  CHECK(cls == MPI_ERR_TRUNCATE, "Error_class %d", cls);
  MPI_Comm_free(&c);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  comms_and_groups(rank, size);
  attributes();
  datatypes(rank, size);
  errors(size);
  mt_ok("conf_comm");
  MPI_Finalize();
  return 0;
}
