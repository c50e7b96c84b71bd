// The find_package(MPI) test program: C++ (MPI::MPI_CXX) calling into C (rank_of.c, MPI::MPI_C).
#include <mpi.h>

#include <cstdio>

extern "C" int rank_of(MPI_Comm comm);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::printf("find_package hello from rank %d of %d\n", rank_of(MPI_COMM_WORLD), size);
  MPI_Finalize();
  return 0;
}
