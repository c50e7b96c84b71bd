! tests/fortran/f08_keyval.f90 — attribute callbacks written in Fortran through `use mpi_f08`
! (the procedures take TYPE(MPI_Comm) and TYPE(MPI_Win)): a communicator keyval copied by
! MPI_Comm_dup and deleted by MPI_Comm_free, MPI_COMM_DUP_FN, a window keyval's delete procedure
! run by MPI_Win_free.
module f08_keyval_cb
  use mpi_f08
  implicit none
  integer :: deleted = 0
contains
  subroutine copy_plus(oldcomm, keyval, extra, val_in, val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    val_out = val_in + extra
    flag = oldcomm /= MPI_COMM_NULL
    ierror = MPI_SUCCESS
  end subroutine copy_plus

  subroutine comm_delete(comm, keyval, val, extra, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deleted = deleted + int(val)
    ierror = MPI_SUCCESS
  end subroutine comm_delete

  subroutine win_delete(win, keyval, val, extra, ierror)
    type(MPI_Win) :: win
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deleted = deleted + int(val) * 100
    ierror = MPI_SUCCESS
  end subroutine win_delete
end module f08_keyval_cb

program f08_keyval
  use mpi_f08
  use f08_keyval_cb
  implicit none
  integer :: rank, nranks, key, key_dup, wkey, buf(4)
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  type(MPI_Comm) :: dup
  type(MPI_Win) :: win
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  extra = 1000
  call MPI_Comm_create_keyval(copy_plus, comm_delete, key, extra)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key_dup, extra)
  val = rank + 1
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key_dup, val)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, key, val, flag)
  call check(flag .and. val == 1001 + rank, 'copy procedure with extra state')
  call MPI_Comm_get_attr(dup, key_dup, val, flag)
  call check(flag .and. val == rank + 1, 'MPI_COMM_DUP_FN')
  call MPI_Comm_free(dup)
  call check(deleted == 1001 + rank, 'delete procedure on MPI_Comm_free')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key)
  call check(deleted == 1002 + 2 * rank, 'delete procedure on MPI_Comm_delete_attr')
  call MPI_Comm_free_keyval(key)
  call MPI_Comm_free_keyval(key_dup)

  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, wkey, extra)
  call MPI_Win_create(buf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  val = 3
  call MPI_Win_set_attr(win, wkey, val)
  deleted = 0
  call MPI_Win_free(win)
  call check(deleted == 300, 'window delete procedure')
  call MPI_Win_free_keyval(wkey)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'ok f08_keyval (', nranks, ' ranks)'
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

end program f08_keyval
