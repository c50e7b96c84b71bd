/* tests/api/header.c — compiled (never run) as C99 and as C++11 with warnings as errors by the
 * tests api.header_c and api.header_cxx: mpi.h, the MPI-4 additions included, must be valid in
 * both, and the large-count functions must take the standard's types. */
#include <mpi.h>

int ampi_header_check(void);
int ampi_header_check(void) {
  int (*send_c)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm) = MPI_Send_c;
  int (*gatherv_c)(const void *, MPI_Count, MPI_Datatype, void *, const MPI_Count[],
                   const MPI_Aint[], MPI_Datatype, int, MPI_Comm) = MPI_Gatherv_c;
  int (*psend)(const void *, int, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Info,
               MPI_Request *) = MPI_Psend_init;
  return (send_c != 0) + (gatherv_c != 0) + (psend != 0) + MPI_VERSION;
}
