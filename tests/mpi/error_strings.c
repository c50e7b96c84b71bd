/* error_strings: under MPI_ERRORS_RETURN, the code a failed call returns names its own message.
 * MPI_Error_class of it gives the class, MPI_Error_string gives the call, the argument and the
 * value (as MPICH does), each rank its own; the class itself keeps its plain text; a user error
 * handler gets such a code too; after many later errors an old code still has its class, and its
 * string says that the details are gone. */
#include "mpitest.h"

static void string_of(int code, char *s) {
  int len = -1;
  CHECK_MPI(MPI_Error_string(code, s, &len));
  CHECK(len == (int)strlen(s), "resultlen %d for \"%s\"", len, s);
}

static int handler_code;
static void handler(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  handler_code = *code;
}

int main(int argc, char **argv) {
  int rank, size, cls = -1, x = 0;
  char s[MPI_MAX_ERROR_STRING], want[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  const int bad_dest = size + 100 + rank; /* each rank's own value */
  const int rc_rank = MPI_Send(&x, 1, MPI_INT, bad_dest, 0, MPI_COMM_WORLD);
  CHECK(rc_rank != MPI_SUCCESS && rc_rank != MPI_ERR_RANK, "MPI_Send gave %d", rc_rank);
  CHECK_MPI(MPI_Error_class(rc_rank, &cls));
  CHECK(cls == MPI_ERR_RANK, "class %d", cls);
  CHECK(rc_rank <= MPI_ERR_LASTCODE, "code %d past MPI_ERR_LASTCODE", rc_rank);

  const int rc_count = MPI_Recv(&x, -7, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK_MPI(MPI_Error_class(rc_count, &cls));
  CHECK(cls == MPI_ERR_COUNT, "class %d", cls);
  CHECK(rc_count != rc_rank, "two errors, one code %d", rc_count);

  string_of(rc_rank, s);
  snprintf(want, sizeof want, "%d", bad_dest);
  CHECK(strstr(s, "MPI_ERR_RANK") && strstr(s, "MPI_Send") && strstr(s, want),
        "MPI_Error_string of MPI_Send's code: \"%s\" (want MPI_ERR_RANK, MPI_Send, %s)", s, want);
  string_of(rc_count, s);
  CHECK(strstr(s, "MPI_ERR_COUNT") && strstr(s, "MPI_Recv") && strstr(s, "count=-7"),
        "MPI_Error_string of MPI_Recv's code: \"%s\"", s);
  /* The class itself: its text only. */
  string_of(MPI_ERR_RANK, s);
  CHECK(strcmp(s, "MPI_ERR_RANK: invalid rank") == 0, "MPI_Error_string(MPI_ERR_RANK): \"%s\"", s);

  /* A user handler is called with the specific code. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
  handler_code = 0;
  const int rc_tag = MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
  CHECK(handler_code == rc_tag, "handler got %d, call returned %d", handler_code, rc_tag);
  CHECK_MPI(MPI_Error_class(handler_code, &cls));
  CHECK(cls == MPI_ERR_TAG, "class %d", cls);
  string_of(handler_code, s);
  CHECK(strstr(s, "MPI_Send") && strstr(s, "-5"), "handler's code: \"%s\"", s);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&eh));

  /* 100 later errors: the first code keeps its class, its details are gone. */
  for (int i = 0; i < 100; ++i)
    (void)MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  CHECK_MPI(MPI_Error_class(rc_rank, &cls));
  CHECK(cls == MPI_ERR_RANK, "class %d after 100 errors", cls);
  string_of(rc_rank, s);
  CHECK(strstr(s, "MPI_ERR_RANK") && strstr(s, "no longer kept") && !strstr(s, "MPI_Send"),
        "old code: \"%s\"", s);

  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("error_strings");
  MPI_Finalize();
  return 0;
}
