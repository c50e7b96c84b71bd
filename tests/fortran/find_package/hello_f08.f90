! Built by the find_package(MPI COMPONENTS Fortran) project and through pkg-config: `use mpi_f08`.
program hello_f08
  use mpi_f08
  implicit none
  integer :: rank, n
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  print '(a,i0,a,i0)', 'fortran f08 hello from rank ', rank, ' of ', n
  call MPI_Finalize()
end program hello_f08
