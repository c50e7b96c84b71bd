! tests/fortran/f08_p2p.f90 — point-to-point and a collective through `use mpi_f08`: handle types
! and their == and /=, TYPE(MPI_Status) read by component, wildcards (MPI_ANY_SOURCE,
! MPI_ANY_TAG), MPI_STATUS(ES)_IGNORE, optional ierror, non-contiguous array sections sent and
! received by blocking calls (packed and unpacked by the library), and refused with MPI_ERR_BUFFER
! by a nonblocking one; the large-count overload (INTEGER(KIND=MPI_COUNT_KIND) counts); the
! PMPI_ and _f08ts specific names; MPI_Allreduce with MPI_IN_PLACE and MPI_Bcast of a section.
program f08_p2p
  use mpi_f08
  implicit none
  integer :: rank, nranks, ierr, next, prev, i, cnt, token, errclass
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: dup
  integer :: grid(6, 5), got(6, 5), col(5), row(6), sums(3)
  double precision :: dsec(10), dback(10)
  integer(kind=MPI_COUNT_KIND) :: bigcount
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  call check(MPI_COMM_WORLD /= MPI_COMM_NULL .and. MPI_COMM_WORLD == MPI_COMM_WORLD, 'handle ==, /=')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(ierr == MPI_SUCCESS .and. dup /= MPI_COMM_WORLD .and. dup /= MPI_COMM_NULL, 'MPI_Comm_dup')

  ! A ring with wildcards: the status says who sent and with which tag.
  if (rank == 0) then
    token = 100
    call MPI_Send(token, 1, MPI_INTEGER, next, 5, dup)
    call MPI_Recv(token, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, status, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Recv ierror')
    call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == 5, 'status components')
    call MPI_Get_count(status, MPI_INTEGER, cnt)
    call check(cnt == 1, 'MPI_Get_count')
    call check(token == 100 + nranks * (nranks - 1) / 2, 'ring token')
  else
    call MPI_Recv(token, 1, MPI_INTEGER, prev, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE)
    token = token + rank
    call MPI_Send(token, 1, MPI_INTEGER, next, 5, dup)
  end if

  ! Non-contiguous sections: a row of a column-major array (stride 6) is sent, received into a
  ! column of another rank's array and, the other way, a column into a row.
  grid = reshape([(i + 100 * rank, i = 1, 30)], [6, 5])
  got = -1
  call MPI_Sendrecv(grid(2, :), 5, MPI_INTEGER, next, 7, got(:, 3), 5, MPI_INTEGER, prev, 7, &
                    dup, status)
  call check(all(got(1:5, 3) == [(2 + 6 * (i - 1) + 100 * prev, i = 1, 5)]), 'row section sent')
  call check(got(6, 3) == -1 .and. all(got(:, [1, 2, 4, 5]) == -1), 'only the section written')
  got = -1
  call MPI_Sendrecv(grid(1:5, 4), 5, MPI_INTEGER, next, 8, got(3, 1:5), 5, MPI_INTEGER, prev, 8, &
                    dup, MPI_STATUS_IGNORE)
  call check(all(got(3, :) == [(18 + i + 100 * prev, i = 1, 5)]), 'column into a row section')
  call check(count(got == -1) == 25, 'row section received, nothing else')
  ! A section of stride 3 of doubles, through the specific names of the standard.
  dsec = [(dble(i) + rank, i = 1, 10)]
  dback = 0
  call MPI_Sendrecv_f08ts(dsec(1:10:3), 4, MPI_DOUBLE_PRECISION, next, 9, dback(2:8:2), 4, &
                          MPI_DOUBLE_PRECISION, prev, 9, dup, status, ierr)
  call check(all(dback(2:8:2) == [1d0, 4d0, 7d0, 10d0] + prev), 'strided doubles')
  call check(all(dback(1:9:2) == 0) .and. dback(10) == 0, 'strided receive left the rest')
  call PMPI_Barrier(dup)

  ! Nonblocking with statuses, completed by MPI_Waitall; MPI_Test's LOGICAL flag.
  row = rank
  call MPI_Irecv(col, 5, MPI_INTEGER, prev, 10, dup, reqs(1))
  call MPI_Isend(row, 5, MPI_INTEGER, next, 10, dup, reqs(2))
  call MPI_Waitall(2, reqs, statuses)
  call check(statuses(1)%MPI_SOURCE == prev .and. statuses(1)%MPI_TAG == 10, 'Waitall statuses')
  call check(all(col == prev), 'Isend/Irecv data')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
  call MPI_Isend(rank, 1, MPI_INTEGER, next, 11, dup, reqs(1))
  call MPI_Recv(token, 1, MPI_INTEGER, prev, 11, dup, MPI_STATUS_IGNORE)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, MPI_STATUS_IGNORE)
  end do
  call check(token == prev .and. reqs(1) == MPI_REQUEST_NULL, 'MPI_Test')

  ! A nonblocking call cannot take a section (the library would have to keep a copy past the
  ! call): MPI_ERR_BUFFER, returned under MPI_ERRORS_RETURN, and no request started.
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Isend(grid(1, :), 5, MPI_INTEGER, next, 12, dup, reqs(1), ierr)
  call check(ierr /= MPI_SUCCESS, 'Isend of a section refused')
  call MPI_Error_class(ierr, errclass)
  call check(errclass == MPI_ERR_BUFFER, 'refusal is MPI_ERR_BUFFER')
  call check(reqs(1) == MPI_REQUEST_NULL, 'no request for the refused Isend')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  ! The large-count overload: the same generic name with INTEGER(KIND=MPI_COUNT_KIND) counts.
  bigcount = 3
  sums = rank
  call MPI_Sendrecv_replace(sums, bigcount, MPI_INTEGER, next, 13, prev, 13, dup, status)
  call check(all(sums == prev), 'MPI_Sendrecv_replace (large count)')
  call MPI_Get_count(status, MPI_INTEGER, bigcount)
  call check(bigcount == 3, 'MPI_Get_count (large count)')

  ! Collectives: MPI_IN_PLACE, and MPI_Bcast of a section (inout: packed, then unpacked).
  sums = [rank, 1, 2 * rank]
  call MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_INTEGER, MPI_SUM, dup)
  call check(all(sums == [nranks * (nranks - 1) / 2, nranks, nranks * (nranks - 1)]), 'Allreduce')
  grid = 0
  if (rank == 0) grid(4, :) = [11, 12, 13, 14, 15]
  call MPI_Bcast(grid(4, :), 5, MPI_INTEGER, 0, dup)
  call check(all(grid(4, :) == [11, 12, 13, 14, 15]) .and. count(grid == 0) == 25, 'Bcast section')

  call MPI_Comm_free(dup)
  call check(dup == MPI_COMM_NULL, 'MPI_Comm_free')
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'ok f08_p2p (', nranks, ' ranks)'
  call MPI_Finalize()

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
      flush(6)
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check

end program f08_p2p
