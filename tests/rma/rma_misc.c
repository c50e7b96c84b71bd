/* tests/rma/rma_misc.c — window attributes, names, groups, error handlers (MPI_ERRORS_RETURN and
 * a handler from MPI_Win_create_errhandler, which gets the window), and bad arguments: the right
 * error classes. */
#include "../mpi/mpitest.h"

/* Per rank (the ranks of a process share globals). */
#define MAXR 64
static int calls_of[MAXR];
static MPI_Win win_of[MAXR];
static int code_of[MAXR];

static void on_error(MPI_Win *win, int *code, ...) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  ++calls_of[r];
  win_of[r] = *win;
  code_of[r] = *code;
}
static int deleted_of[MAXR];

static int on_delete(MPI_Win win, int keyval, void *value, void *extra) {
  (void)win, (void)keyval, (void)extra;
  deleted_of[*(int *)value]++;
  return MPI_SUCCESS;
}
#define handler_calls calls_of[rank]
#define handler_win win_of[rank]
#define handler_code code_of[rank]

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int buf[10];
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  void *base = NULL;
  MPI_Aint *wsize = NULL;
  int *unit = NULL, *flavor = NULL, *model = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
  CHECK(flag && base == buf, "MPI_WIN_BASE");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag));
  CHECK(flag && *wsize == sizeof buf, "MPI_WIN_SIZE");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
  CHECK(flag && *unit == 4, "MPI_WIN_DISP_UNIT");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");

  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(len == 0 && name[0] == 0, "a new window has an empty name");
  CHECK_MPI(MPI_Win_set_name(win, "my window"));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(len == 9 && strcmp(name, "my window") == 0, "name '%s'", name);
  CHECK_MPI(MPI_Win_set_info(win, MPI_INFO_NULL));
  /* Info: what was set comes back. */
  MPI_Info hints, used;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "no_locks", "false");
  CHECK_MPI(MPI_Win_set_info(win, hints));
  MPI_Info_free(&hints);
  CHECK_MPI(MPI_Win_get_info(win, &used));
  char value[MPI_MAX_INFO_VAL];
  int found = 0;
  MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL - 1, value, &found);
  CHECK(found && strcmp(value, "false") == 0, "MPI_Win_get_info lost the hint");
  MPI_Info_free(&used);
  /* A user attribute; its delete callback runs at MPI_Win_free. */
  int key = MPI_KEYVAL_INVALID, *got_attr = NULL;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &key, NULL));
  CHECK_MPI(MPI_Win_set_attr(win, key, &rank));
  CHECK_MPI(MPI_Win_get_attr(win, key, &got_attr, &flag));
  CHECK(flag && got_attr == &rank, "user attribute");
  CHECK_MPI(MPI_Win_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID, "free_keyval resets the handle");

  MPI_Group g, wg;
  int gsize, grank, result;
  CHECK_MPI(MPI_Win_get_group(win, &g));
  MPI_Group_size(g, &gsize);
  MPI_Group_rank(g, &grank);
  CHECK(gsize == size && grank == rank, "window group %d/%d", grank, gsize);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_translate_ranks(g, 1, &rank, wg, &result);
  CHECK(result == rank, "translate");
  MPI_Group_free(&g);
  MPI_Group_free(&wg);

  /* Errors are returned under MPI_ERRORS_RETURN. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Win_get_errhandler(win, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "a window starts with MPI_ERRORS_ARE_FATAL");
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int x = 1, rc;
  rc = MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  CHECK(mt_class(rc) == MPI_ERR_RMA_SYNC, "put outside an epoch gave %d", rc);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  rc = MPI_Put(&x, 1, MPI_INT, 0, 10, 1, MPI_INT, win);
  CHECK(mt_class(rc) == MPI_ERR_RMA_RANGE, "put past the window gave %d", rc);
  rc = MPI_Put(&x, 1, MPI_INT, 0, -1, 1, MPI_INT, win);
  CHECK(mt_class(rc) == MPI_ERR_DISP, "negative disp gave %d", rc);
  rc = MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win);
  CHECK(mt_class(rc) == MPI_ERR_RANK, "bad rank gave %d", rc);
  rc = MPI_Put(&x, -1, MPI_INT, 0, 0, 1, MPI_INT, win);
  CHECK(mt_class(rc) == MPI_ERR_COUNT, "negative count gave %d", rc);
  rc = MPI_Put(&x, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT, win);
  CHECK(mt_class(rc) == MPI_ERR_TYPE, "null type gave %d", rc);
  rc = MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win);
  CHECK(mt_class(rc) == MPI_ERR_OP, "accumulate with MPI_NO_OP gave %d", rc);
  double d = 1;
  rc = MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_BAND, win);
  CHECK(mt_class(rc) == MPI_ERR_OP, "BAND on doubles gave %d", rc);
  rc = MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  CHECK(mt_class(rc) == MPI_ERR_RMA_SYNC, "locking twice gave %d", rc);
  rc = MPI_Win_lock(12345, 1 % size, 0, win);
  CHECK(mt_class(rc) == MPI_ERR_LOCKTYPE, "bad lock type gave %d", rc);
  CHECK_MPI(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  rc = MPI_Win_unlock(0, win);
  CHECK(mt_class(rc) == MPI_ERR_RMA_SYNC, "unlocking twice gave %d", rc);
  rc = MPI_Win_attach(win, buf, 4);
  CHECK(mt_class(rc) == MPI_ERR_RMA_FLAVOR, "attach to a non-dynamic window gave %d", rc);
  rc = MPI_Win_complete(win);
  CHECK(mt_class(rc) == MPI_ERR_RMA_SYNC, "complete without start gave %d", rc);
  rc = MPI_Win_fence(1, win);
  CHECK(mt_class(rc) == MPI_ERR_ASSERT, "bad fence assert gave %d", rc);
  MPI_Win bad = MPI_WIN_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  rc = MPI_Win_fence(0, bad);
  CHECK(mt_class(rc) == MPI_ERR_WIN, "MPI_WIN_NULL gave %d", rc);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  /* A user handler gets the window and the code. */
  MPI_Errhandler mine;
  CHECK_MPI(MPI_Win_create_errhandler(on_error, &mine));
  CHECK_MPI(MPI_Win_set_errhandler(win, mine));
  CHECK_MPI(MPI_Errhandler_free(&mine));
  rc = MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  CHECK(handler_calls == 1 && handler_win == win && mt_class(handler_code) == MPI_ERR_RMA_SYNC,
        "user handler: %d calls, code %d", handler_calls, handler_code);
  CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler");
  CHECK(deleted_of[rank] == 0, "delete callback ran early");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(deleted_of[rank] == 1, "delete callback ran %d times at MPI_Win_free", deleted_of[rank]);
  /* A window the program never frees: MPI_Finalize and the end of the process cope. */
  long *lmem;
  MPI_Win leak;
  CHECK_MPI(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &lmem, &leak));
  CHECK_MPI(MPI_Win_fence(0, leak));
  const long lv = rank;
  CHECK_MPI(MPI_Put(&lv, 1, MPI_LONG, (rank + 1) % size, 0, 1, MPI_LONG, leak));
  CHECK_MPI(MPI_Win_fence(0, leak));
  CHECK(*lmem == (rank + size - 1) % size, "put into the unfreed window: %ld", *lmem);
  mt_ok("rma_misc");
  MPI_Finalize();
  return 0;
}
