! tests/fortran/f_errors.f90 — error codes in Fortran's ierror (`use mpi`): with MPI_ERRORS_RETURN
! a bad rank, tag, datatype or communicator gives the right class (MPI_Error_class) and a message
! (MPI_Error_string, a CHARACTER output); a call without a Fortran binding says so
! (MPI_ERR_UNSUPPORTED_OPERATION); predefined attributes read through their Fortran keys; info
! keys and values as CHARACTER arguments.
program f_errors
  use mpi
  implicit none
  integer :: rank, n, ierr, eclass, rlen, info, nkeys
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub, extra
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=MPI_MAX_INFO_VAL) :: val
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  external :: no_copy, no_delete

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_set_errhandler')

  call MPI_Send(rank, 1, MPI_INTEGER, n, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, eclass, ierr)
  call check(eclass == MPI_ERR_RANK, 'bad rank gives MPI_ERR_RANK')
  call MPI_Send(rank, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, eclass, ierr)
  call check(eclass == MPI_ERR_TAG, 'bad tag gives MPI_ERR_TAG')
  call MPI_Send(rank, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, eclass, ierr)
  call check(eclass == MPI_ERR_TYPE, 'MPI_DATATYPE_NULL gives MPI_ERR_TYPE')
  call MPI_Send(rank, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, eclass, ierr)
  call check(eclass == MPI_ERR_COUNT, 'negative count gives MPI_ERR_COUNT')
  call MPI_Error_string(MPI_ERR_RANK, msg, rlen, ierr)
  call check(ierr == MPI_SUCCESS .and. rlen > 0 .and. len_trim(msg) == rlen, 'MPI_Error_string')

  ! No Fortran binding yet (conversion procedures written in Fortran): the error names the call.
  extra = 0
  call MPI_Register_datarep('f_errors_rep', no_copy, no_delete, no_copy, extra, ierr)
  call MPI_Error_class(ierr, eclass, ierr)
  call check(eclass == MPI_ERR_UNSUPPORTED_OPERATION, 'MPI_Register_datarep from Fortran')

  ! Predefined attributes through their Fortran keys.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. tag_ub >= 32767, 'MPI_TAG_UB attribute')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, tag_ub, flag, ierr)
  call check(flag .and. tag_ub >= n, 'MPI_UNIVERSE_SIZE attribute')

  ! Info: CHARACTER keys and values (trailing blanks are not part of them).
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'color  ', 'blue sky   ', ierr)
  call MPI_Info_get(info, 'color', MPI_MAX_INFO_VAL, val, flag, ierr)
  call check(flag .and. val == 'blue sky', 'MPI_Info_get')
  call MPI_Info_get(info, 'shape', MPI_MAX_INFO_VAL, val, flag, ierr)
  call check(.not. flag, 'MPI_Info_get of a missing key')
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  call check(nkeys == 1, 'MPI_Info_get_nkeys')
  call MPI_Info_free(info, ierr)
  call check(info == MPI_INFO_NULL, 'MPI_Info_free')
  call MPI_Get_processor_name(host, rlen, ierr)
  call check(rlen > 0 .and. len_trim(host) == rlen, 'MPI_Get_processor_name')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'ok f_errors (', n, ' ranks)'
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

end program f_errors

subroutine no_copy()
end subroutine no_copy

subroutine no_delete()
end subroutine no_delete
