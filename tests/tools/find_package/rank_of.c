/* The C part of the find_package(MPI) test program. */
#include <mpi.h>

int rank_of(MPI_Comm comm) {
  int rank = -1;
  MPI_Comm_rank(comm, &rank);
  return rank;
}
