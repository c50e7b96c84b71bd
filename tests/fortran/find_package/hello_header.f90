! Built by the find_package(MPI COMPONENTS Fortran) project and the pkg-config test: mpif.h.
program hello_header
  implicit none
  include 'mpif.h'
  integer :: rank, n, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  print '(a,i0,a,i0)', 'fortran header hello from rank ', rank, ' of ', n
  call MPI_Finalize(ierr)
end program hello_header
