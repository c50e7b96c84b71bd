/* tests/comm/comm_attrs.c — communicator attributes: copy callbacks run on dup (counted, with
 * the old communicator's handle; MPI_COMM_NULL_COPY_FN drops, MPI_COMM_DUP_FN copies the value),
 * delete callbacks run on replace, delete_attr, free and (for MPI_COMM_SELF) MPI_Finalize; a
 * freed keyval lives on while values use it; callback errors make dup and free fail; the MPI-1
 * names; the predefined attributes; and the errors for bad keyvals. The counters live on each
 * rank's stack and reach the callbacks through extra_state. */
#include "mpitest.h"

struct counts {
  int copies, deletes;
  MPI_Comm expect_comm; /* the communicator the next callback must name (or MPI_COMM_NULL) */
  int fail;             /* when set, the callbacks return MPI_ERR_OTHER */
  void *last_deleted;
};

static int count_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  struct counts *c = extra;
  (void)keyval;
  if (c->expect_comm != MPI_COMM_NULL && oldcomm != c->expect_comm) return MPI_ERR_COMM;
  if (c->fail) return MPI_ERR_OTHER;
  ++c->copies;
  *(void **)out = (char *)in + 1; /* the copy is a different value: in + 1 */
  *flag = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  struct counts *c = extra;
  (void)keyval;
  if (c->expect_comm != MPI_COMM_NULL && comm != c->expect_comm) return MPI_ERR_COMM;
  if (c->fail) return MPI_ERR_OTHER;
  ++c->deletes;
  c->last_deleted = value;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  int rank, size, flag, k1, k2, k3, k4, kself, rc;
  char base[16];
  void *v;
  struct counts c1 = {0, 0, MPI_COMM_NULL, 0, 0}, c2 = {0, 0, MPI_COMM_NULL, 0, 0};
  struct counts cself = {0, 0, MPI_COMM_NULL, 0, 0};
  MPI_Comm d, d2, d3;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  CHECK_MPI(MPI_Comm_create_keyval(count_copy, count_delete, &k1, &c1));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &k2, &c2));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k3, NULL));
  CHECK(k1 != k2 && k2 != k3 && k1 != MPI_KEYVAL_INVALID, "distinct keyvals");

  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_get_attr(d, k1, &v, &flag));
  CHECK(flag == 0, "no value before set");
  CHECK_MPI(MPI_Comm_set_attr(d, k1, &base[0]));
  CHECK_MPI(MPI_Comm_set_attr(d, k2, &base[5]));
  CHECK_MPI(MPI_Comm_set_attr(d, k3, (void *)(size_t)(1000 + rank)));
  CHECK_MPI(MPI_Comm_get_attr(d, k1, &v, &flag));
  CHECK(flag == 1 && v == &base[0], "k1 on d");

  /* dup: k1 copied through count_copy (value + 1), k2 dropped, k3 copied as is. */
  c1.expect_comm = d;
  CHECK_MPI(MPI_Comm_dup(d, &d2));
  c1.expect_comm = MPI_COMM_NULL;
  CHECK(c1.copies == 1 && c2.copies == 0, "copies %d %d", c1.copies, c2.copies);
  CHECK_MPI(MPI_Comm_get_attr(d2, k1, &v, &flag));
  CHECK(flag == 1 && v == &base[1], "k1 on the dup is the copy callback's value");
  CHECK_MPI(MPI_Comm_get_attr(d2, k2, &v, &flag));
  CHECK(flag == 0, "MPI_COMM_NULL_COPY_FN: not copied");
  CHECK_MPI(MPI_Comm_get_attr(d2, k3, &v, &flag));
  CHECK(flag == 1 && v == (void *)(size_t)(1000 + rank), "MPI_COMM_DUP_FN copies the value");

  /* Replacing a value deletes the old one; delete_attr deletes; a second delete_attr fails. */
  CHECK_MPI(MPI_Comm_set_attr(d, k1, &base[2]));
  CHECK(c1.deletes == 1 && c1.last_deleted == &base[0], "replace deleted the old value");
  c1.expect_comm = d;
  CHECK_MPI(MPI_Comm_delete_attr(d, k1));
  c1.expect_comm = MPI_COMM_NULL;
  CHECK(c1.deletes == 2 && c1.last_deleted == &base[2], "delete_attr");
  CHECK_MPI(MPI_Comm_get_attr(d, k1, &v, &flag));
  CHECK(flag == 0, "deleted");
  CHECK(mt_class(MPI_Comm_delete_attr(d, k1)) == MPI_ERR_KEYVAL, "deleting an absent attribute");

  /* free(d2): its k1 copy is deleted (k2 was never on it). */
  CHECK_MPI(MPI_Comm_free(&d2));
  CHECK(c1.deletes == 3 && c1.last_deleted == &base[1] && c2.deletes == 0, "free(d2): %d %d",
        c1.deletes, c2.deletes);

  /* A copy callback error: dup fails with it, no communicator, nothing left attached. */
  CHECK_MPI(MPI_Comm_set_attr(d, k1, &base[3]));
  c1.fail = 1;
  d2 = MPI_COMM_WORLD;
  rc = MPI_Comm_dup(d, &d2);
  CHECK(mt_class(rc) == MPI_ERR_OTHER && d2 == MPI_COMM_NULL, "dup with a failing copy: %d", rc);
  /* A delete callback error: free fails and the communicator stays usable. */
  rc = MPI_Comm_free(&d);
  CHECK(mt_class(rc) == MPI_ERR_OTHER && d != MPI_COMM_NULL, "free with a failing delete: %d", rc);
  CHECK_MPI(MPI_Barrier(d));
  c1.fail = 0;

  /* Freeing a keyval while a value uses it: the handle becomes MPI_KEYVAL_INVALID, the value's
   * delete callback still runs when the communicator is freed. */
  k4 = k1;
  CHECK_MPI(MPI_Comm_free_keyval(&k1));
  CHECK(k1 == MPI_KEYVAL_INVALID, "free_keyval sets MPI_KEYVAL_INVALID");
  CHECK(mt_class(MPI_Comm_set_attr(d, k4, &base[0])) == MPI_ERR_KEYVAL, "set with a freed keyval");
  {
    const int before1 = c1.deletes, before2 = c2.deletes;
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK(c1.deletes == before1 + 1 && c1.last_deleted == &base[3], "free after free_keyval");
    CHECK(c2.deletes == before2 + 1 && c2.last_deleted == &base[5], "k2 deleted on free");
  }

  /* The MPI-1 names. */
  CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k1, NULL));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Attr_put(d, k1, &base[7]));
  CHECK_MPI(MPI_Comm_dup(d, &d2));
  CHECK_MPI(MPI_Attr_get(d2, k1, &v, &flag));
  CHECK(flag && v == &base[7], "MPI_DUP_FN through MPI_Attr_get");
  CHECK_MPI(MPI_Attr_delete(d2, k1));
  CHECK_MPI(MPI_Attr_get(d2, k1, &v, &flag));
  CHECK(!flag, "MPI_Attr_delete");
  CHECK_MPI(MPI_Keyval_free(&k1));
  CHECK(k1 == MPI_KEYVAL_INVALID, "MPI_Keyval_free");
  CHECK_MPI(MPI_Comm_free(&d2));
  CHECK_MPI(MPI_Comm_free(&d));

  /* Many keyvals and communicators: each dup copies each attribute once. */
  {
    int keys[10], i;
    struct counts many = {0, 0, MPI_COMM_NULL, 0, 0};
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (i = 0; i < 10; ++i) {
      CHECK_MPI(MPI_Comm_create_keyval(count_copy, count_delete, &keys[i], &many));
      CHECK_MPI(MPI_Comm_set_attr(d, keys[i], &base[i]));
    }
    CHECK_MPI(MPI_Comm_dup(d, &d2));
    CHECK_MPI(MPI_Comm_dup(d2, &d3));
    CHECK(many.copies == 20, "20 copies, got %d", many.copies);
    CHECK_MPI(MPI_Comm_get_attr(d3, keys[4], &v, &flag));
    CHECK(flag && v == &base[6], "twice copied: value + 2");
    CHECK_MPI(MPI_Comm_free(&d3));
    CHECK_MPI(MPI_Comm_free(&d2));
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK(many.deletes == 30, "30 deletes, got %d", many.deletes);
    for (i = 0; i < 10; ++i)
      CHECK_MPI(MPI_Comm_free_keyval(&keys[i]));
  }

  /* Predefined attributes. */
  {
    int *p;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    CHECK(flag && *p >= 32767, "MPI_TAG_UB %d", flag ? *p : -1);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag));
    CHECK(flag && (*p == MPI_PROC_NULL || (*p >= 0 && *p < size)), "MPI_HOST");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag));
    CHECK(flag && (*p == MPI_ANY_SOURCE || *p == MPI_PROC_NULL || (*p >= 0 && *p < size)),
          "MPI_IO");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag));
    CHECK(!flag || *p == 0 || *p == 1, "MPI_WTIME_IS_GLOBAL");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag));
    CHECK(!flag || *p >= size, "MPI_UNIVERSE_SIZE %d < %d", flag ? *p : -1, size);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag));
    CHECK(!flag || *p >= 0, "MPI_APPNUM");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    CHECK(flag && *p >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");
    {
      int cls = 0, code = 0;
      CHECK_MPI(MPI_Add_error_class(&cls));
      CHECK_MPI(MPI_Add_error_code(cls, &code));
      CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
      CHECK(flag && *p == code, "MPI_LASTUSEDCODE %d after adding code %d", *p, code);
    }
    CHECK(mt_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &base[0])) == MPI_ERR_KEYVAL,
          "MPI_TAG_UB is read-only");
    CHECK(mt_class(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB)) == MPI_ERR_KEYVAL,
          "MPI_TAG_UB cannot be deleted");
    k1 = MPI_TAG_UB;
    CHECK(mt_class(MPI_Comm_free_keyval(&k1)) == MPI_ERR_KEYVAL, "freeing MPI_TAG_UB");
    CHECK(mt_class(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &p, &flag)) == MPI_ERR_KEYVAL,
          "an unknown keyval");
  }

  CHECK_MPI(MPI_Comm_free_keyval(&k2));
  CHECK_MPI(MPI_Comm_free_keyval(&k3));

  /* MPI_Finalize deletes MPI_COMM_SELF's attributes first. */
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kself, &cself));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kself, &base[9]));
  CHECK_MPI(MPI_Comm_free_keyval(&kself));
  CHECK(cself.deletes == 0, "not deleted before finalize");
  MPI_Finalize();
  if (cself.deletes != 1 || cself.last_deleted != &base[9]) {
    fprintf(stderr, "FAIL [rank %d] MPI_Finalize ran %d delete callbacks on MPI_COMM_SELF\n", rank,
            cself.deletes);
    return 1;
  }
  if (rank == 0) printf("ok comm_attrs (%d ranks)\n", size);
  return 0;
}
