! bench/pingpong_f08.f90 — bench/pingpong_f.f90 through `use mpi_f08` (the same loop, calls and
! arguments; the status kept is a TYPE(MPI_Status)): what the mpi_f08 layer (module procedure,
! CFI descriptor of the choice buffer) costs over the `mpi` module (bench/fortran_f08_overhead.sh).
!   usage: pingpong_f [bytes [iterations [batches [modes]]]]   (default 8, 200000, 9, 0)
!   modes: 0 both, 1 MPI_STATUS_IGNORE only, 2 the status array only
program pingpong_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, ierr, n = 8, iters = 200000, batches = 9, b, i, per, mode, modes = 0
  type(MPI_Status) :: status
  character, allocatable :: buf(:)
  double precision :: t(64), t0, tmp
  character(len=32) :: arg
  character(len=8), parameter :: names(2) = (/ 'ignore  ', 'status  ' /)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) batches
  end if
  if (command_argument_count() >= 4) then
    call get_command_argument(4, arg)
    read (arg, *) modes
  end if
  batches = min(max(batches, 1), 64)
  allocate(buf(max(n, 1)))
  buf = 'x'
  per = max(iters / batches, 10)
  do mode = 1, 2
    if (modes /= 0 .and. mode /= modes) cycle
    do b = 1, batches
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t0 = MPI_Wtime()
      do i = 1, per
        if (rank == 0) then
          call MPI_Send(buf, n, MPI_CHARACTER, 1, 7, MPI_COMM_WORLD, ierr)
          if (mode == 1) then
            call MPI_Recv(buf, n, MPI_CHARACTER, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
          else
            call MPI_Recv(buf, n, MPI_CHARACTER, 1, 7, MPI_COMM_WORLD, status, ierr)
          end if
        else if (rank == 1) then
          if (mode == 1) then
            call MPI_Recv(buf, n, MPI_CHARACTER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
          else
            call MPI_Recv(buf, n, MPI_CHARACTER, 0, 7, MPI_COMM_WORLD, status, ierr)
          end if
          call MPI_Send(buf, n, MPI_CHARACTER, 0, 7, MPI_COMM_WORLD, ierr)
        end if
      end do
      t(b) = (MPI_Wtime() - t0) / per / 2 * 1d6
    end do
    ! Median: a small insertion sort.
    do b = 2, batches
      tmp = t(b)
      i = b - 1
      do while (i >= 1)
        if (t(i) <= tmp) exit
        t(i + 1) = t(i)
        i = i - 1
      end do
      t(i + 1) = tmp
    end do
    if (rank == 0) print '(a,a,i0,a,f10.3)', trim(names(mode)), ' bytes=', n, ' latency_us=', &
                                               t(batches / 2 + 1)
  end do
  call MPI_Finalize(ierr)
end program pingpong_f08
