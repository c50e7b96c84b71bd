/* tests/mpi/mpi4.c — MPI 4 calls beyond large counts: MPI_Isendrecv / MPI_Isendrecv_replace (data
 * and statuses), partitioned point-to-point (partitions made ready in reverse and in a list,
 * MPI_Parrived, two rounds of one request, MPI_PROC_NULL), MPI_Info_create_env and
 * MPI_Info_get_string (truncation and the length it reports), MPI_Type_get_value_index, the
 * status field functions, MPI_Comm_split_type's hardware types, MPI_ERRORS_ABORT beside created
 * error handlers, and the errors these raise on bad arguments. */
#include "mpitest.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NP 8 /* partitions */
#define PC 3 /* elements per partition */

static void check_isendrecv(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[4], in[4], i, flag = 0;
  MPI_Request rq;
  MPI_Status st;
  for (i = 0; i < 4; ++i) {
    out[i] = rank * 10 + i;
    in[i] = -1;
  }
  CHECK_MPI(MPI_Isendrecv(out, 4, MPI_INT, right, 5, in, 4, MPI_INT, left, 5, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(rq == MPI_REQUEST_NULL, "MPI_Wait left the Isendrecv request set");
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5, "Isendrecv status: source %d tag %d",
        st.MPI_SOURCE, st.MPI_TAG);
  {
    int n = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 4, "Isendrecv count %d", n);
  }
  for (i = 0; i < 4; ++i)
    CHECK(in[i] == left * 10 + i, "Isendrecv in[%d]=%d", i, in[i]);
  /* _replace: the same buffer goes right and comes from the left; tested until done. */
  for (i = 0; i < 4; ++i)
    out[i] = rank * 100 + i;
  CHECK_MPI(MPI_Isendrecv_replace(out, 4, MPI_INT, right, 6, left, 6, MPI_COMM_WORLD, &rq));
  while (!flag)
    CHECK_MPI(MPI_Test(&rq, &flag, &st));
  for (i = 0; i < 4; ++i)
    CHECK(out[i] == left * 100 + i, "Isendrecv_replace out[%d]=%d", i, out[i]);
  /* MPI_PROC_NULL on both sides completes at once with the MPI_PROC_NULL status. */
  CHECK_MPI(MPI_Isendrecv(out, 4, MPI_INT, MPI_PROC_NULL, 0, in, 4, MPI_INT, MPI_PROC_NULL, 0,
                          MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Isendrecv from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
}

static void check_partitioned(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int sbuf[NP * PC], rbuf[NP * PC], i, round;
  MPI_Request sr, rr;
  CHECK_MPI(MPI_Precv_init(rbuf, NP, PC, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &rr));
  CHECK_MPI(MPI_Psend_init(sbuf, NP, PC, MPI_INT, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &sr));
  /* An ordinary message with the same tag must not meet the partitioned receive. */
  for (round = 0; round < 2; ++round) {
    int plain = rank, got = -1, flag = 0;
    for (i = 0; i < NP * PC; ++i)
      rbuf[i] = -1;
    CHECK_MPI(MPI_Start(&rr));
    CHECK_MPI(MPI_Start(&sr));
    CHECK_MPI(MPI_Sendrecv(&plain, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(got == left, "the plain message with the partitioned tag gave %d", got);
    if (round == 0) {
      for (i = NP - 1; i >= 0; --i) { /* fill and mark ready back to front */
        int k;
        for (k = 0; k < PC; ++k)
          sbuf[i * PC + k] = rank * 1000 + round * 100 + i * PC + k;
        CHECK_MPI(MPI_Pready(i, sr));
      }
    } else {
      int list[NP / 2];
      for (i = 0; i < NP * PC; ++i)
        sbuf[i] = rank * 1000 + round * 100 + i;
      CHECK_MPI(MPI_Pready_range(0, NP / 2 - 1, sr));
      for (i = 0; i < NP / 2; ++i)
        list[i] = NP - 1 - i;
      CHECK_MPI(MPI_Pready_list(NP / 2, list, sr));
    }
    for (i = 0; i < NP; ++i) { /* every partition arrives (polling, as a consumer would) */
      flag = 0;
      while (!flag)
        CHECK_MPI(MPI_Parrived(rr, i, &flag));
    }
    CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    for (i = 0; i < NP * PC; ++i)
      CHECK(rbuf[i] == left * 1000 + round * 100 + i, "round %d: rbuf[%d]=%d", round, i, rbuf[i]);
  }
  CHECK_MPI(MPI_Request_free(&sr));
  CHECK_MPI(MPI_Request_free(&rr));
  /* Errors: a wildcard source, 0 partitions, a partition out of range, one made ready twice. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  {
    int cls = 0, e;
    e = MPI_Precv_init(rbuf, NP, PC, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &rr);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_RANK, "Precv_init(MPI_ANY_SOURCE) gave class %d", cls);
    e = MPI_Psend_init(sbuf, 0, PC, MPI_INT, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &sr);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_ARG, "Psend_init(partitions=0) gave class %d", cls);
    CHECK_MPI(MPI_Psend_init(sbuf, NP, PC, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &sr));
    CHECK_MPI(MPI_Start(&sr));
    e = MPI_Pready(NP, sr);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_ARG, "Pready(partition=NP) gave class %d", cls);
    CHECK_MPI(MPI_Pready(0, sr));
    CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&sr));
    (void)size;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void check_info(int argc, char **argv) {
  MPI_Info env;
  char buf[8];
  int len, flag = 0;
  char *fake[] = {"prog", "a", "bc", NULL};
  (void)argc;
  (void)argv;
  CHECK_MPI(MPI_Info_create_env(3, fake, &env));
  len = 0;
  CHECK_MPI(MPI_Info_get_string(env, "argv", &len, NULL, &flag));
  CHECK(flag && len == 5, "Info_get_string(argv) length query: flag %d len %d", flag, len);
  len = 3;
  CHECK_MPI(MPI_Info_get_string(env, "argv", &len, buf, &flag));
  CHECK(flag && len == 5 && strcmp(buf, "a ") == 0, "truncated argv: '%s' len %d", buf, len);
  len = (int)sizeof buf;
  CHECK_MPI(MPI_Info_get_string(env, "command", &len, buf, &flag));
  CHECK(flag && strcmp(buf, "prog") == 0 && len == 5, "command: '%s' len %d", buf, len);
  len = (int)sizeof buf;
  CHECK_MPI(MPI_Info_get_string(env, "maxprocs", &len, buf, &flag));
  CHECK(flag, "MPI_Info_create_env has no maxprocs");
  len = 7;
  CHECK_MPI(MPI_Info_get_string(env, "no such key", &len, buf, &flag));
  CHECK(!flag && len == 7, "a missing key: flag %d len %d", flag, len);
  CHECK_MPI(MPI_Info_free(&env));
}

static int handler_calls = 0;
static void count_errors(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  (void)code;
  ++handler_calls;
}

/* MPI_ERRORS_ABORT is a predefined handler of its own: set and got back, and never the handle of
 * a handler the program creates (which is called, not taken for MPI_ERRORS_ABORT). */
static void check_errors_abort(void) {
  MPI_Comm dup;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL, mine;
  int rank;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT));
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &eh));
  CHECK(eh == MPI_ERRORS_ABORT, "MPI_Comm_get_errhandler did not give MPI_ERRORS_ABORT back");
  CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &mine));
  CHECK(mine != MPI_ERRORS_ABORT && mine != MPI_ERRORS_RETURN && mine != MPI_ERRORS_ARE_FATAL,
        "a created error handler has a predefined handler's handle");
  CHECK_MPI(MPI_Comm_set_errhandler(dup, mine));
  MPI_Comm_rank(dup, &rank);
  MPI_Send(&rank, 1, MPI_INT, -5, 0, dup); /* a bad rank: the program's handler, once */
  CHECK(handler_calls == 1, "the created handler ran %d times", handler_calls);
  CHECK_MPI(MPI_Errhandler_free(&mine));
  CHECK_MPI(MPI_Comm_free(&dup));
}

static void check_status_fields(void) {
  MPI_Status st;
  int v = 0;
  memset(&st, 0, sizeof st);
  CHECK_MPI(MPI_Status_set_source(&st, 3));
  CHECK_MPI(MPI_Status_set_tag(&st, 44));
  CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
  CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 44 && st.MPI_ERROR == MPI_ERR_TAG,
        "MPI_Status_set_*: %d %d %d", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
  CHECK_MPI(MPI_Status_get_source(&st, &v));
  CHECK(v == 3, "MPI_Status_get_source gave %d", v);
  CHECK_MPI(MPI_Status_get_tag(&st, &v));
  CHECK(v == 44, "MPI_Status_get_tag gave %d", v);
  CHECK_MPI(MPI_Status_get_error(&st, &v));
  CHECK(v == MPI_ERR_TAG, "MPI_Status_get_error gave %d", v);
}

static void check_value_index(void) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
  CHECK(t == MPI_DOUBLE_INT, "value_index(double, int) is not MPI_DOUBLE_INT");
  CHECK_MPI(MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &t));
  CHECK(t == MPI_SHORT_INT, "value_index(short, int) is not MPI_SHORT_INT");
  CHECK_MPI(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
  CHECK(t == MPI_2INT, "value_index(int, int) is not MPI_2INT");
  CHECK_MPI(MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &t));
  CHECK(t == MPI_DATATYPE_NULL, "value_index(char, int) is not MPI_DATATYPE_NULL");
}

/* MPI_Comm_split_type with MPI 4's hardware types. The shared-memory level is the ranks of this
 * host, as MPI_COMM_TYPE_SHARED gives them (the whole job when it runs on one host; the test also
 * runs across simulated hosts, tests/multihost), and "core" (one PE) is strictly smaller exactly
 * when the host has more than one PE of the job. */
static void check_split_type(int world_size) {
  MPI_Comm shared, core, unguided, none, host;
  MPI_Info info;
  int ssize = 0, csize = 0, flag = 0, len, size = 0;
  char value[64];
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  CHECK_MPI(MPI_Comm_size(host, &size));
  CHECK(size >= 1 && size <= world_size, "MPI_COMM_TYPE_SHARED: size %d of %d", size, world_size);
  CHECK_MPI(MPI_Comm_free(&host));
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &shared));
  CHECK(shared != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
  CHECK_MPI(MPI_Comm_size(shared, &ssize));
  CHECK(ssize == size, "HW_GUIDED mpi_shared_memory: size %d, not %d", ssize, size);
  CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "core"));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &core));
  CHECK(core != MPI_COMM_NULL, "HW_GUIDED core gave MPI_COMM_NULL");
  CHECK_MPI(MPI_Comm_size(core, &csize));
  CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "no such level"));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &none));
  CHECK(none == MPI_COMM_NULL, "HW_GUIDED with an unknown level did not give MPI_COMM_NULL");
  CHECK_MPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &unguided));
  if (size < world_size) { /* several hosts: the coarsest level that splits is the host */
    MPI_Info used;
    int usize = 0;
    CHECK(unguided != MPI_COMM_NULL, "HW_UNGUIDED over several hosts gave MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_size(unguided, &usize));
    CHECK(usize == size, "HW_UNGUIDED: size %d, not the host's %d", usize, size);
    CHECK_MPI(MPI_Comm_get_info(unguided, &used));
    len = (int)sizeof value;
    CHECK_MPI(MPI_Info_get_string(used, "mpi_hw_resource_type", &len, value, &flag));
    CHECK(flag && strcmp(value, "mpi_shared_memory") == 0, "HW_UNGUIDED's level: flag %d '%s'",
          flag, flag ? value : "");
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Comm_free(&unguided));
  } else if (csize == size) {
    CHECK(unguided == MPI_COMM_NULL, "HW_UNGUIDED on one PE did not give MPI_COMM_NULL");
  } else {
    MPI_Info used;
    int usize = 0;
    CHECK(unguided != MPI_COMM_NULL, "HW_UNGUIDED over several PEs gave MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_size(unguided, &usize));
    CHECK(usize == csize, "HW_UNGUIDED: size %d, not the PE's %d", usize, csize);
    CHECK_MPI(MPI_Comm_get_info(unguided, &used));
    len = (int)sizeof value;
    CHECK_MPI(MPI_Info_get_string(used, "mpi_hw_resource_type", &len, value, &flag));
    CHECK(flag && strcmp(value, "core") == 0, "HW_UNGUIDED's level: flag %d '%s'", flag,
          flag ? value : "");
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Comm_free(&unguided));
  }
  CHECK_MPI(MPI_Comm_free(&shared));
  CHECK_MPI(MPI_Comm_free(&core));
  CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_isendrecv(rank, size);
  check_partitioned(rank, size);
  check_info(argc, argv);
  check_value_index();
  check_status_fields();
  check_errors_abort();
  check_split_type(size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("ok mpi4 (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
