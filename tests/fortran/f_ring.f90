! tests/fortran/f_ring.f90 — point-to-point from Fortran (`use mpi`): a token ring with statuses
! read by field, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE (COMMON blocks recognized in every
! rank's copy of the program), non-blocking exchanges completed by MPI_Waitall/MPI_Waitany
! (indices from 1), MPI_Sendrecv, MPI_Probe and MPI_Get_count.
program f_ring
  use mpi
  implicit none
  integer :: rank, nranks, ierr, token, next, prev, i, idx, cnt, flag_count
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2)
  integer :: sendv(3), recvv(3), left(3), right(3)
  logical :: flag

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)

  ! The ring: rank 0 starts with 100, each rank adds its rank.
  if (rank == 0) then
    token = 100
    call MPI_Send(token, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD, ierr)
    call MPI_Recv(token, 1, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, status, ierr)
    call check(status(MPI_SOURCE) == prev, 'status(MPI_SOURCE)')
    call check(status(MPI_TAG) == 5, 'status(MPI_TAG)')
    call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
    call check(cnt == 1, 'MPI_Get_count')
    call check(token == 100 + nranks * (nranks - 1) / 2, 'ring token')
  else
    call MPI_Recv(token, 1, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Recv with MPI_STATUS_IGNORE')
    token = token + rank
    call MPI_Send(token, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD, ierr)
  end if

  ! Both neighbours at once, statuses ignored.
  sendv = (/ rank, rank * 2, rank * 3 /)
  call MPI_Irecv(left, 3, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sendv, 3, MPI_INTEGER, next, 6, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Waitall with MPI_STATUSES_IGNORE')
  call check(all(left == (/ prev, prev * 2, prev * 3 /)), 'Isend/Irecv data')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')

  ! The same with statuses kept.
  call MPI_Irecv(right, 3, MPI_INTEGER, next, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sendv, 3, MPI_INTEGER, prev, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(statuses(MPI_SOURCE, 1) == next .and. statuses(MPI_TAG, 1) == 7, 'Waitall statuses')
  call check(all(right == (/ next, next * 2, next * 3 /)), 'second exchange data')

  ! MPI_Waitany gives a Fortran index (1 or 2).
  call MPI_Irecv(recvv, 3, MPI_INTEGER, prev, 8, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sendv, 3, MPI_INTEGER, next, 8, MPI_COMM_WORLD, reqs(2), ierr)
  do i = 1, 2
    call MPI_Waitany(2, reqs, idx, status, ierr)
    call check(idx == 1 .or. idx == 2, 'MPI_Waitany index from 1')
    if (idx == 1) call check(status(MPI_SOURCE) == prev, 'Waitany status')
  end do
  call MPI_Waitany(2, reqs, idx, status, ierr)
  call check(idx == MPI_UNDEFINED, 'MPI_Waitany on no active request')

  ! MPI_Sendrecv, then a probe and MPI_Test's LOGICAL flag.
  call MPI_Sendrecv(sendv, 3, MPI_INTEGER, next, 9, recvv, 3, MPI_INTEGER, prev, 9, &
                    MPI_COMM_WORLD, status, ierr)
  call check(all(recvv == left) .and. status(MPI_SOURCE) == prev, 'MPI_Sendrecv')
  call MPI_Isend(rank, 1, MPI_INTEGER, next, 10, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Probe(prev, 10, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(cnt == 1 .and. status(MPI_SOURCE) == prev, 'MPI_Probe')
  call MPI_Recv(token, 1, MPI_INTEGER, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(token == prev, 'probed message')
  flag = .false.
  flag_count = 0
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, MPI_STATUS_IGNORE, ierr)
    flag_count = flag_count + 1
  end do
  call check(reqs(1) == MPI_REQUEST_NULL, 'MPI_Test completes the request')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'ok f_ring (', nranks, ' ranks)'
  call MPI_Finalize(ierr)

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. cond) then
      print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
      flush(6)
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check

end program f_ring
