/* tests/conformance/conf_suite.c — one check per class of failure that MPICH's own test suite
 * (test/mpi, issue 20) found in ampi, written from the MPI standard's text (never the suite's
 * code): each function names the class it guards. Run at 1, 2, 4 and 9 ranks in one process and
 * over two processes like the other conformance programs. */
#include "../mpi/mpitest.h"

#include <stdint.h>

/* Keyvals: a delete callback that frees its keyval, then the program freeing its own copy of the
 * handle. The standard lets a keyval be freed while values still use it (MPI-4.1 7.7.2: "the
 * keyval is freed only when all attributes using it are deleted"); a second free of that live
 * keyval must not take away the reference an attached value holds (MPICH and Open MPI accept it).
 */
static int keyval_deletes;
static int free_own_keyval(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)value;
  (void)extra;
  ++keyval_deletes;
  return MPI_Comm_free_keyval(&keyval);
}

static void keyval_freed_twice(void) {
  int key = MPI_KEYVAL_INVALID, copy, handle;
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &dup));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_own_keyval, &key, NULL));
  copy = handle = key;
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, key, (void *)(intptr_t)7));
  CHECK_MPI(MPI_Comm_set_attr(dup, key, NULL));
  CHECK_MPI(MPI_Comm_free(&dup)); /* the callback frees the keyval */
  CHECK(keyval_deletes == 1, "delete callback ran %d times", keyval_deletes);
  CHECK_MPI(MPI_Comm_free_keyval(&key)); /* again: still alive, MPI_COMM_SELF holds a value */
  CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
  CHECK_MPI(MPI_Comm_free_keyval(&copy));
  CHECK(keyval_deletes == 1, "freeing the keyval ran the delete callback (%d)", keyval_deletes);
  /* The value on MPI_COMM_SELF is intact; deleting it runs the callback (which frees again). */
  void *v = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_SELF, handle, &v, &flag));
  CHECK(flag && (intptr_t)v == 7, "value of the freed keyval: flag %d value %ld", flag,
        (long)(intptr_t)v);
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_SELF, handle));
  CHECK(keyval_deletes == 2, "delete_attr ran the callback %d times in all", keyval_deletes);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  keyval_freed_twice();
  mt_ok("conf_suite");
  MPI_Finalize();
  return 0;
}
