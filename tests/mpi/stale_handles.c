/* stale_handles: a freed handle used again is an error of the handle's class, even after another
 * object of the same kind took its slot (every handle kind: request, communicator, datatype,
 * group, operation, window, info, error handler, matched message, attribute key). Each case
 * frees an object A, creates B of the same kind (which reuses A's slot), checks that B's handle
 * differs from A's, that a call with A fails with the expected class and leaves B alone, and that
 * B still works. Under MPI_ERRORS_RETURN. */
#include "mpitest.h"

#define EXPECT_CLASS(call, want)                                                                   \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    char buf_[MPI_MAX_ERROR_STRING];                                                               \
    CHECK(rc_ != MPI_SUCCESS && mt_class(rc_) == (want), "%s gave %d (%s), want class %d", #call,  \
          rc_, rc_ == MPI_SUCCESS ? "success" : mt_error_name(rc_, buf_), (want));                 \
  } while (0)

static void my_op(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)in, (void)inout, (void)len, (void)t;
}
static void my_errh(MPI_Comm *c, int *code, ...) {
  (void)c, (void)code;
}

int main(int argc, char **argv) {
  int rank, size, x = 0, n = 0, flag = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  { /* request */
    MPI_Request a, b, stale;
    int in = 0, out = 5;
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &a));
    stale = a;
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, 0, 1, MPI_COMM_SELF));
    CHECK_MPI(MPI_Wait(&a, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, 0, 2, MPI_COMM_SELF, &b));
    CHECK(b != stale, "the new request has the freed one's handle %#x", (unsigned)b);
    MPI_Request s = stale;
    EXPECT_CLASS(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    EXPECT_CLASS(MPI_Cancel(&s), MPI_ERR_REQUEST);
    s = stale;
    EXPECT_CLASS(MPI_Request_free(&s), MPI_ERR_REQUEST);
    out = 6;
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, 0, 2, MPI_COMM_SELF));
    CHECK_MPI(MPI_Wait(&b, MPI_STATUS_IGNORE)); /* B was neither freed nor cancelled */
    CHECK(in == 6, "received %d", in);
  }
  { /* communicator */
    MPI_Comm a, b, stale;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    stale = a;
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    CHECK(b != stale, "the new communicator has the freed one's handle");
    EXPECT_CLASS(MPI_Comm_size(stale, &n), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Barrier(stale), MPI_ERR_COMM);
    MPI_Comm s = stale;
    EXPECT_CLASS(MPI_Comm_free(&s), MPI_ERR_COMM);
    CHECK_MPI(MPI_Comm_size(b, &n));
    CHECK(n == size, "size %d", n);
    CHECK_MPI(MPI_Barrier(b));
    CHECK_MPI(MPI_Comm_free(&b));
  }
  { /* datatype */
    MPI_Datatype a, b, stale;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &a));
    CHECK_MPI(MPI_Type_commit(&a));
    stale = a;
    CHECK_MPI(MPI_Type_free(&a));
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &b));
    CHECK_MPI(MPI_Type_commit(&b));
    CHECK(b != stale, "the new datatype has the freed one's handle");
    EXPECT_CLASS(MPI_Type_size(stale, &n), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Send(&x, 1, stale, 0, 0, MPI_COMM_SELF), MPI_ERR_TYPE);
    CHECK_MPI(MPI_Type_size(b, &n));
    CHECK(n == 3 * (int)sizeof(int), "size %d", n);
    CHECK_MPI(MPI_Type_free(&b));
  }
  { /* group */
    MPI_Group world, a, b, stale;
    const int first = 0;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_MPI(MPI_Group_incl(world, 1, &first, &a));
    stale = a;
    CHECK_MPI(MPI_Group_free(&a));
    CHECK_MPI(MPI_Group_incl(world, 1, &first, &b));
    CHECK(b != stale, "the new group has the freed one's handle");
    EXPECT_CLASS(MPI_Group_size(stale, &n), MPI_ERR_GROUP);
    CHECK_MPI(MPI_Group_size(b, &n));
    CHECK(n == 1, "size %d", n);
    CHECK_MPI(MPI_Group_free(&b));
    CHECK_MPI(MPI_Group_free(&world));
  }
  { /* operation */
    MPI_Op a, b, stale;
    CHECK_MPI(MPI_Op_create(my_op, 1, &a));
    stale = a;
    CHECK_MPI(MPI_Op_free(&a));
    CHECK_MPI(MPI_Op_create(my_op, 0, &b));
    CHECK(b != stale, "the new operation has the freed one's handle");
    EXPECT_CLASS(MPI_Op_commutative(stale, &flag), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(&x, &n, 1, MPI_INT, stale, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_MPI(MPI_Op_commutative(b, &flag));
    CHECK(flag == 0, "B is not commutative, got %d", flag);
    CHECK_MPI(MPI_Op_free(&b));
  }
  { /* window */
    MPI_Win a, b, stale;
    int mem[4] = {0};
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a));
    stale = a;
    CHECK_MPI(MPI_Win_free(&a));
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b));
    CHECK(b != stale, "the new window has the freed one's handle");
    CHECK_MPI(MPI_Win_set_errhandler(b, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Win_fence(0, stale), MPI_ERR_WIN);
    CHECK_MPI(MPI_Win_fence(0, b));
    CHECK_MPI(MPI_Win_fence(0, b));
    CHECK_MPI(MPI_Win_free(&b));
  }
  { /* info */
    MPI_Info a, b, stale;
    CHECK_MPI(MPI_Info_create(&a));
    stale = a;
    CHECK_MPI(MPI_Info_free(&a));
    CHECK_MPI(MPI_Info_create(&b));
    CHECK_MPI(MPI_Info_set(b, "k", "v"));
    CHECK(b != stale, "the new info has the freed one's handle");
    EXPECT_CLASS(MPI_Info_get_nkeys(stale, &n), MPI_ERR_INFO);
    EXPECT_CLASS(MPI_Info_set(stale, "k2", "v2"), MPI_ERR_INFO);
    CHECK_MPI(MPI_Info_get_nkeys(b, &n));
    CHECK(n == 1, "B has %d keys", n);
    CHECK_MPI(MPI_Info_free(&b));
  }
  { /* error handler */
    MPI_Errhandler a, b, stale;
    CHECK_MPI(MPI_Comm_create_errhandler(my_errh, &a));
    stale = a;
    CHECK_MPI(MPI_Errhandler_free(&a));
    CHECK_MPI(MPI_Comm_create_errhandler(my_errh, &b));
    CHECK(b != stale, "the new error handler has the freed one's handle");
    EXPECT_CLASS(MPI_Comm_set_errhandler(MPI_COMM_SELF, stale), MPI_ERR_ARG);
    MPI_Errhandler s = stale;
    EXPECT_CLASS(MPI_Errhandler_free(&s), MPI_ERR_ARG);
    CHECK_MPI(MPI_Errhandler_free(&b));
  }
  { /* matched message */
    MPI_Message a, b, stale;
    int in = 0, out = 7;
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, 0, 3, MPI_COMM_SELF));
    CHECK_MPI(MPI_Mprobe(0, 3, MPI_COMM_SELF, &a, MPI_STATUS_IGNORE));
    stale = a;
    CHECK_MPI(MPI_Mrecv(&in, 1, MPI_INT, &a, MPI_STATUS_IGNORE));
    out = 8;
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, 0, 3, MPI_COMM_SELF));
    CHECK_MPI(MPI_Mprobe(0, 3, MPI_COMM_SELF, &b, MPI_STATUS_IGNORE));
    CHECK(b != stale, "the new message has the freed one's handle");
    MPI_Message s = stale;
    EXPECT_CLASS(MPI_Mrecv(&in, 1, MPI_INT, &s, MPI_STATUS_IGNORE), MPI_ERR_ARG);
    CHECK_MPI(MPI_Mrecv(&in, 1, MPI_INT, &b, MPI_STATUS_IGNORE)); /* still B's message */
    CHECK(in == 8, "received %d", in);
  }
  { /* attribute key */
    int a, b, stale, v = 1;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &a, NULL));
    stale = a;
    CHECK_MPI(MPI_Comm_free_keyval(&a));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &b, NULL));
    CHECK(b != stale, "the new keyval has the freed one's handle");
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, stale, &v), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, b, &v));
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, b));
    CHECK_MPI(MPI_Comm_free_keyval(&b));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("stale_handles");
  MPI_Finalize();
  return 0;
}
