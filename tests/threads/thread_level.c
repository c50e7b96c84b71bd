/* tests/threads/thread_level.c — MPI_Init_thread(MPI_THREAD_MULTIPLE) provides MULTIPLE,
 * MPI_Query_thread agrees, MPI_Is_thread_main is true in the rank's main thread and false in a
 * thread it created (which may call MPI: it asks for its rank and the thread level). */
#include "mpitest.h"

#include <pthread.h>

struct answers {
  int is_main;
  int level;
  int initialized;
  int rank;
};

static void *thread_body(void *arg) {
  struct answers *a = arg;
  CHECK_MPI(MPI_Is_thread_main(&a->is_main));
  CHECK_MPI(MPI_Query_thread(&a->level));
  CHECK_MPI(MPI_Initialized(&a->initialized));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &a->rank));
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1, level = -1, is_main = -1, rank, size;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d, expected MPI_THREAD_MULTIPLE (%d)", provided,
        MPI_THREAD_MULTIPLE);
  CHECK_MPI(MPI_Query_thread(&level));
  CHECK(level == MPI_THREAD_MULTIPLE, "MPI_Query_thread says %d", level);
  CHECK_MPI(MPI_Is_thread_main(&is_main));
  CHECK(is_main == 1, "MPI_Is_thread_main is %d in the main thread", is_main);
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

  struct answers a = {-1, -1, -1, -1};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_body, &a) == 0, "pthread_create failed");
  CHECK(pthread_join(t, NULL) == 0, "pthread_join failed");
  CHECK(a.is_main == 0, "MPI_Is_thread_main is %d in a created thread", a.is_main);
  CHECK(a.level == MPI_THREAD_MULTIPLE, "MPI_Query_thread in a thread says %d", a.level);
  CHECK(a.initialized == 1, "MPI_Initialized in a thread says %d", a.initialized);
  CHECK(a.rank == rank, "MPI_Comm_rank in a thread says %d, the rank is %d", a.rank, rank);

  CHECK_MPI(MPI_Is_thread_main(&is_main));
  CHECK(is_main == 1, "MPI_Is_thread_main is %d in the main thread after the join", is_main);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  mt_ok("thread_level");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
