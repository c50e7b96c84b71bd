! tests/fortran/f_keyval.f90 — attribute callbacks written in Fortran (`use mpi`): a communicator
! keyval whose copy procedure doubles the value on MPI_Comm_dup and whose delete procedure counts
! (in a module variable, per rank) the values deleted; MPI_COMM_DUP_FN and MPI_COMM_NULL_COPY_FN
! as given; a datatype keyval copied by MPI_Type_dup; MPI_Keyval_create with INTEGER values
! (MPI_Attr_put/get); the extra state handed to the procedures.
module f_keyval_cb
  use mpi
  implicit none
  integer :: deleted = 0, copies = 0
contains
  subroutine copy_double(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    copies = copies + 1
    if (extra /= 77) then
      ierr = MPI_ERR_OTHER
      return
    end if
    val_out = 2 * val_in
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy_double

  subroutine count_delete(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deleted = deleted + int(val)
    ierr = MPI_SUCCESS
  end subroutine count_delete

  subroutine copy1(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
    integer :: oldcomm, keyval, extra, val_in, val_out, ierr
    logical :: flag
    val_out = val_in + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy1
end module f_keyval_cb

program f_keyval
  use mpi
  use f_keyval_cb
  implicit none
  integer :: rank, nranks, ierr, key, key_dup, key_null, tkey, key1, dup, dup2, ttype, ival
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  extra = 77
  call MPI_Comm_create_keyval(copy_double, count_delete, key, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_create_keyval with Fortran procedures')
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key_dup, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key_null, extra, ierr)
  val = 10 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key_dup, val, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key_null, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(copies == 1, 'the copy procedure ran once')
  call MPI_Comm_get_attr(dup, key, val, flag, ierr)
  call check(flag .and. val == 2 * (10 + rank), 'copied value doubled')
  call MPI_Comm_get_attr(dup, key_dup, val, flag, ierr)
  call check(flag .and. val == 10 + rank, 'MPI_COMM_DUP_FN copies the value')
  call MPI_Comm_get_attr(dup, key_null, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copies nothing')
  call MPI_Comm_dup(dup, dup2, ierr)
  call MPI_Comm_get_attr(dup2, key, val, flag, ierr)
  call check(flag .and. val == 4 * (10 + rank), 'copied twice')
  ! Deletions: freeing dup2 and dup deletes 4x and 2x the value, then deleting the original 1x.
  call MPI_Comm_free(dup2, ierr)
  call check(deleted == 4 * (10 + rank), 'delete procedure on MPI_Comm_free')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call check(deleted == 7 * (10 + rank), 'delete procedure on MPI_Comm_delete_attr')
  call MPI_Comm_free_keyval(key, ierr)
  call check(key == MPI_KEYVAL_INVALID, 'MPI_Comm_free_keyval')
  call MPI_Comm_free_keyval(key_dup, ierr)
  call MPI_Comm_free_keyval(key_null, ierr)

  ! A datatype keyval: MPI_Type_dup runs the copy procedure.
  call MPI_Type_create_keyval(copy_double, count_delete, tkey, extra, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, ttype, ierr)
  val = 5
  call MPI_Type_set_attr(ttype, tkey, val, ierr)
  call MPI_Type_dup(ttype, dup, ierr)
  call MPI_Type_get_attr(dup, tkey, val, flag, ierr)
  call check(flag .and. val == 10, 'type attribute copied')
  deleted = 0
  call MPI_Type_free(dup, ierr)
  call MPI_Type_free(ttype, ierr)
  call check(deleted == 15, 'type attributes deleted')
  call MPI_Type_free_keyval(tkey, ierr)

  ! MPI-1: INTEGER extra state and values.
  call MPI_Keyval_create(copy1, MPI_NULL_DELETE_FN, key1, 1000, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, key1, 3 + rank, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Attr_get(dup, key1, ival, flag, ierr)
  call check(flag .and. ival == 1003 + rank, 'MPI_Keyval_create copy procedure')
  call MPI_Comm_free(dup, ierr)
  call MPI_Attr_delete(MPI_COMM_WORLD, key1, ierr)
  call MPI_Keyval_free(key1, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'ok f_keyval (', nranks, ' ranks)'
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

end program f_keyval
