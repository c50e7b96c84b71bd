/* bad_args_fatal: erroneous calls under the default error handler, MPI_ERRORS_ARE_FATAL, one case
 * per job: `bad_args_fatal <case>`. The last rank makes the bad call; the other ranks wait in
 * MPI_Barrier, which it never reaches. The job must end with a non-zero status and one line on
 * stderr of the form
 *   ampi: rank R: MPI_Xxx: <class text>: <detail naming the argument> (MPI_ERR_XXX)
 * (checked by expect_run.sh, see CMakeLists.txt). Without an argument the program lists the cases
 * and ends normally. */
#include "mpitest.h"

typedef int (*CaseFn)(int size);

static int send_dest(int size) {
  int b[2] = {1, 2};
  return MPI_Send(b, 2, MPI_INT, size, 0, MPI_COMM_WORLD);
}

static int recv_tag(int size) {
  int b[2];
  return MPI_Recv(b, 2, MPI_INT, size - 1, -5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int bcast_root(int size) {
  int b[2] = {1, 2};
  return MPI_Bcast(b, 2, MPI_INT, size, MPI_COMM_WORLD);
}

static int allreduce_op(int size) {
  int s[2] = {1, 2}, r[2];
  (void)size;
  return MPI_Allreduce(s, r, 2, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
}

static int allreduce_sum_byte(int size) {
  unsigned char s[2] = {1, 2}, r[2];
  (void)size;
  return MPI_Allreduce(s, r, 2, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD);
}

static int barrier_comm_null(int size) {
  (void)size;
  return MPI_Barrier(MPI_COMM_NULL);
}

static int wait_request(int size) {
  MPI_Request r = (MPI_Request)12345;
  (void)size;
  return MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static int waitall_request(int size) {
  MPI_Request r[2] = {MPI_REQUEST_NULL, (MPI_Request)12345};
  (void)size;
  return MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}

static int isend_count(int size) {
  int b[2] = {1, 2};
  MPI_Request r;
  return MPI_Isend(b, -1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, &r);
}

static int recv_truncate(int size) {
  int out[8] = {1, 2, 3, 4, 5, 6, 7, 8}, in[4];
  MPI_Request r;
  /* to itself: 32 bytes into a 16-byte buffer */
  MPI_Isend(out, 8, MPI_INT, size - 1, 5, MPI_COMM_WORLD, &r);
  return MPI_Recv(in, 4, MPI_INT, size - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int reduce_type(int size) {
  int s[2] = {1, 2}, r[2];
  (void)size;
  return MPI_Reduce(s, r, 2, MPI_DATATYPE_NULL, MPI_SUM, 0, MPI_COMM_WORLD);
}

static int comm_free_world(int size) {
  MPI_Comm w = MPI_COMM_WORLD;
  (void)size;
  return MPI_Comm_free(&w);
}

static int comm_rank_null(int size) {
  (void)size;
  return MPI_Comm_rank(MPI_COMM_WORLD, NULL);
}

static int group_incl_rank(int size) {
  MPI_Group g, n;
  int ranks[1];
  ranks[0] = size;
  MPI_Comm_group(MPI_COMM_WORLD, &g);
  return MPI_Group_incl(g, 1, ranks, &n);
}

static int type_size_null(int size) {
  int s;
  (void)size;
  return MPI_Type_size(MPI_DATATYPE_NULL, &s);
}

static int get_attr_keyval(int size) {
  void *v;
  int flag;
  (void)size;
  return MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &flag);
}

static int sendrecv_source(int size) {
  int out[2] = {1, 2}, in[2];
  return MPI_Sendrecv(out, 2, MPI_INT, size - 1, 0, in, 2, MPI_INT, size, 0, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
}

static const struct {
  const char *name;
  CaseFn fn;
} kCases[] = {
    {"send_dest", send_dest},
    {"recv_tag", recv_tag},
    {"bcast_root", bcast_root},
    {"allreduce_op", allreduce_op},
    {"allreduce_sum_byte", allreduce_sum_byte},
    {"barrier_comm_null", barrier_comm_null},
    {"wait_request", wait_request},
    {"waitall_request", waitall_request},
    {"isend_count", isend_count},
    {"recv_truncate", recv_truncate},
    {"reduce_type", reduce_type},
    {"comm_free_world", comm_free_world},
    {"comm_rank_null", comm_rank_null},
    {"group_incl_rank", group_incl_rank},
    {"type_size_null", type_size_null},
    {"get_attr_keyval", get_attr_keyval},
    {"sendrecv_source", sendrecv_source},
};
#define NCASES ((int)(sizeof kCases / sizeof kCases[0]))

int main(int argc, char **argv) {
  int rank, size, i, rc;
  CaseFn fn = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0)
      for (i = 0; i < NCASES; ++i)
        printf("bad_args_fatal case: %s\n", kCases[i].name);
    mt_ok("bad_args_fatal");
    MPI_Finalize();
    return 0;
  }
  for (i = 0; i < NCASES; ++i)
    if (strcmp(argv[1], kCases[i].name) == 0) fn = kCases[i].fn;
  CHECK(fn != NULL, "unknown case '%s'", argv[1]);
  if (rank == size - 1) {
    printf("bad_args_fatal: rank %d of %d runs case %s\n", rank, size, argv[1]);
    fflush(stdout);
    rc = fn(size);
    /* Not reached with MPI_ERRORS_ARE_FATAL. */
    fprintf(stderr, "bad_args_fatal: NOT REACHED: case %s returned %d on rank %d\n", argv[1], rc,
            rank);
    fflush(stderr);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != size - 1) {
    fprintf(stderr, "bad_args_fatal: NOT REACHED: rank %d left the barrier\n", rank);
    fflush(stderr);
  }
  MPI_Finalize();
  return 0;
}
