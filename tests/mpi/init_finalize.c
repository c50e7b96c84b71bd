/* init_finalize: the environment functions.
 *  - MPI_Initialized / MPI_Finalized before MPI_Init (0, 0), between (1, 0), after
 *    MPI_Finalize (1, 1);
 *  - MPI_Init_thread with the level given as argv[1] (0..3, default MPI_THREAD_FUNNELED):
 *    provided is a valid level, at most the level asked for (MPI-3.1 12.4.3: provided == required
 *    where possible, else the highest supported level), the same on every rank;
 *    MPI_Query_thread gives provided; MPI_Is_thread_main is true;
 *  - MPI_Get_version == 3.1 (and MPI_VERSION / MPI_SUBVERSION), MPI_Get_library_version,
 *    MPI_Get_processor_name;
 *  - MPI_Wtime never goes back (also across blocking calls), MPI_Wtick in (0, 1];
 *  - MPI_Alloc_mem / MPI_Free_mem. */
#include "mpitest.h"

static const char *level_name(int l) {
  switch (l) {
  case MPI_THREAD_SINGLE:
    return "MPI_THREAD_SINGLE";
  case MPI_THREAD_FUNNELED:
    return "MPI_THREAD_FUNNELED";
  case MPI_THREAD_SERIALIZED:
    return "MPI_THREAD_SERIALIZED";
  case MPI_THREAD_MULTIPLE:
    return "MPI_THREAD_MULTIPLE";
  }
  return "(not a thread level)";
}

int main(int argc, char **argv) {
  static const int kLevels[4] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
  int initialized = -1, finalized = -1, provided = -1, queried = -1, is_main = -1, required;
  int rank, size, version = 0, subversion = 0, len = -1, i;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];
  double t0, t1, tick;

  CHECK_MPI(MPI_Initialized(&initialized));
  CHECK_MPI(MPI_Finalized(&finalized));
  if (initialized != 0 || finalized != 0) {
    fprintf(stderr, "FAIL: before MPI_Init: MPI_Initialized %d, MPI_Finalized %d\n", initialized,
            finalized);
    return 1;
  }
  /* MPI_Get_version may be called before MPI_Init. */
  CHECK_MPI(MPI_Get_version(&version, &subversion));
  if (version != 3 || subversion != 1) {
    fprintf(stderr, "FAIL: MPI_Get_version before MPI_Init: %d.%d\n", version, subversion);
    return 1;
  }

  /* The level asked for: argv[1] (0..3) when given, else MPI_THREAD_FUNNELED. */
  required = MPI_THREAD_FUNNELED;
  if (argc > 1) required = kLevels[atoi(argv[1]) & 3];
  CHECK_MPI(MPI_Init_thread(&argc, &argv, required, &provided));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
        "provided %d is not a thread level", provided);
  CHECK(provided <= required, "asked for %s, provided %s", level_name(required),
        level_name(provided));
  CHECK_MPI(MPI_Query_thread(&queried));
  CHECK(queried == provided, "MPI_Query_thread %s, MPI_Init_thread provided %s",
        level_name(queried), level_name(provided));
  CHECK_MPI(MPI_Is_thread_main(&is_main));
  CHECK(is_main, "MPI_Is_thread_main is false in the rank's main");
  {
    /* Same level on every rank. */
    int lo = provided, hi = provided;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == hi, "ranks got different thread levels (%d..%d) for the same request", lo, hi);
  }

  CHECK_MPI(MPI_Initialized(&initialized));
  CHECK_MPI(MPI_Finalized(&finalized));
  CHECK(initialized == 1 && finalized == 0, "after MPI_Init: initialized %d finalized %d",
        initialized, finalized);

  CHECK_MPI(MPI_Get_version(&version, &subversion));
  CHECK(version == 3 && subversion == 1, "MPI_Get_version %d.%d", version, subversion);
  CHECK(MPI_VERSION == 3 && MPI_SUBVERSION == 1, "MPI_VERSION %d.%d", MPI_VERSION, MPI_SUBVERSION);
  CHECK_MPI(MPI_Get_library_version(lib, &len));
  CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (int)strlen(lib) == len,
        "MPI_Get_library_version: length %d", len);
  CHECK_MPI(MPI_Get_processor_name(host, &len));
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(host) == len,
        "MPI_Get_processor_name: length %d", len);

  tick = MPI_Wtick();
  CHECK(tick > 0 && tick <= 1.0, "MPI_Wtick %g", tick);
  t0 = MPI_Wtime();
  for (i = 0; i < 10000; ++i) {
    t1 = MPI_Wtime();
    CHECK(t1 >= t0, "MPI_Wtime went back from %.9f to %.9f", t0, t1);
    t0 = t1;
    if (i % 1000 == 0) {
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* other ranks run in between */
      t1 = MPI_Wtime();
      CHECK(t1 >= t0, "MPI_Wtime went back across MPI_Barrier: %.9f -> %.9f", t0, t1);
      t0 = t1;
    }
  }
  {
    void *mem = NULL;
    CHECK_MPI(MPI_Alloc_mem(1 << 16, MPI_INFO_NULL, &mem));
    CHECK(mem != NULL, "MPI_Alloc_mem returned NULL");
    memset(mem, rank, 1 << 16);
    CHECK_MPI(MPI_Free_mem(mem));
  }

  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("init_finalize");
  CHECK_MPI(MPI_Finalize());
  CHECK_MPI(MPI_Initialized(&initialized));
  CHECK_MPI(MPI_Finalized(&finalized));
  if (initialized != 1 || finalized != 1) {
    fprintf(stderr, "FAIL [rank %d]: after MPI_Finalize: MPI_Initialized %d, MPI_Finalized %d\n",
            rank, initialized, finalized);
    return 1;
  }
  CHECK_MPI(MPI_Get_version(&version, &subversion));
  return 0;
}
