! tests/fortran/f08_stop.f90 — gfortran's STOP and ERROR STOP codes become the job's exit status
! under ampirun, with several ranks per process. Argument "error": the last rank ends with
! `ERROR STOP 3` while the others wait in a barrier (the job must end, status 3); "stop": every
! rank finalizes, then rank 0 ends with `STOP 4` (status 4).
program f08_stop
  use mpi_f08
  implicit none
  integer :: rank, nranks
  character(len=16) :: mode

  call get_command_argument(1, mode)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  if (mode == 'error') then
    if (rank == nranks - 1) error stop 3
    call MPI_Barrier(MPI_COMM_WORLD)
    print '(a)', 'FAIL: the barrier completed without the stopped rank'
  end if
  call MPI_Finalize()
  if (rank == 0) stop 4
end program f08_stop
