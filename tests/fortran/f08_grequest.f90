! tests/fortran/f08_grequest.f90 — generalized requests with query, free and cancel procedures
! written in Fortran (`use mpi_f08`): MPI_Wait on a completed one returns the status the query
! procedure set, with the extra state handed to every procedure, and the free procedure runs once;
! MPI_Cancel calls the cancel procedure with complete = .FALSE.; MPI_Test before completion does
! not complete it.
module f08_grequest_cb
  use mpi_f08
  implicit none
  integer :: frees = 0, cancels = 0, queries = 0
contains
  subroutine query(extra, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    type(MPI_Status) :: status
    integer :: ierror
    queries = queries + 1
    status%MPI_SOURCE = int(extra)
    status%MPI_TAG = 42
    call MPI_Status_set_elements(status, MPI_INTEGER, 3)
    call MPI_Status_set_cancelled(status, .false.)
    ierror = MPI_SUCCESS
  end subroutine query

  subroutine free_fn(extra, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierror
    frees = frees + int(extra)
    ierror = MPI_SUCCESS
  end subroutine free_fn

  subroutine cancel_fn(extra, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierror
    if (.not. complete) cancels = cancels + int(extra)
    ierror = MPI_SUCCESS
  end subroutine cancel_fn
end module f08_grequest_cb

program f08_grequest
  use mpi_f08
  use f08_grequest_cb
  implicit none
  integer :: rank, nranks, cnt
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  extra = 5 + rank
  call MPI_Grequest_start(query, free_fn, cancel_fn, extra, req)
  call check(req /= MPI_REQUEST_NULL, 'MPI_Grequest_start')
  call MPI_Test(req, flag, status)
  call check(.not. flag .and. req /= MPI_REQUEST_NULL, 'not complete before MPI_Grequest_complete')
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, status)
  call check(req == MPI_REQUEST_NULL, 'MPI_Wait frees it')
  call check(status%MPI_SOURCE == 5 + rank .and. status%MPI_TAG == 42, 'status from the query')
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == 3, 'count set by the query')
  call check(queries >= 1 .and. frees == 5 + rank, 'free procedure ran once with the extra state')

  call MPI_Grequest_start(query, free_fn, cancel_fn, extra, req)
  call MPI_Cancel(req)
  call check(cancels == 5 + rank, 'cancel procedure with complete = .false.')
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(frees == 2 * (5 + rank), 'second free')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'ok f08_grequest (', nranks, ' ranks)'
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

end program f08_grequest
