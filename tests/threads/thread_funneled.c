/* tests/threads/thread_funneled.c — MPI_Init_thread(MPI_THREAD_FUNNELED) provides FUNNELED (ampi
 * provides what is asked for); a thread that the rank creates may still ask MPI_Is_thread_main
 * and MPI_Query_thread, but any other MPI call from it ends the job with an error naming the
 * thread level, instead of racing with the rank. Run with a pattern on that message. */
#include "mpitest.h"

#include <pthread.h>

static void *thread_body(void *arg) {
  int rank = -1, is_main = -1, level = -1;
  (void)arg;
  /* Asking about threads is fine from any thread. */
  CHECK_MPI(MPI_Is_thread_main(&is_main));
  CHECK(is_main == 0, "MPI_Is_thread_main is %d in a created thread", is_main);
  CHECK_MPI(MPI_Query_thread(&level));
  CHECK(level == MPI_THREAD_FUNNELED, "MPI_Query_thread in a thread says %d", level);
  printf("thread questions ok\n");
  fflush(stdout);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* erroneous: the job ends here */
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1, level = -1, is_main = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  CHECK(provided == MPI_THREAD_FUNNELED, "provided %d, expected MPI_THREAD_FUNNELED", provided);
  CHECK_MPI(MPI_Query_thread(&level));
  CHECK(level == MPI_THREAD_FUNNELED, "MPI_Query_thread says %d", level);
  CHECK_MPI(MPI_Is_thread_main(&is_main));
  CHECK(is_main == 1, "MPI_Is_thread_main is %d in the main thread", is_main);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (mt_world_rank() == 0) {
    printf("levels ok\n");
    fflush(stdout);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread_body, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(0, "the thread's MPI call must end the job");
  MPI_Finalize();
  return 0;
}
