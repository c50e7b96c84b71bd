! tests/fortran/f_dtype.f90 — derived datatypes from Fortran through mpif.h (no module): a row of a
! column-major array as MPI_Type_vector, a block as MPI_Type_create_subarray (MPI_ORDER_FORTRAN),
! a struct of absolute addresses sent from MPI_BOTTOM, sizes and extents in
! INTEGER(KIND=MPI_ADDRESS_KIND), and names (CHARACTER arguments in and out).
program f_dtype
  implicit none
  include 'mpif.h'
  integer :: rank, n, ierr, next, prev, i, j
  integer :: rowtype, blocktype, structtype, recvtype, tsize, namelen
  integer :: a(4, 5), b(4, 5), sizes(2), subsizes(2), starts(2)
  integer :: blocklens(2), types(2)
  integer(kind=MPI_ADDRESS_KIND) :: displs(2), rdispls(2), lb, extent
  integer :: ival
  double precision :: dval
  ! Written by a call through MPI_BOTTOM, which the compiler cannot see: VOLATILE, as the
  ! standard asks (section 17.1.17), or -O1 keeps the values from before the call.
  integer, volatile :: ival_in
  double precision, volatile :: dval_in
  character(len=MPI_MAX_OBJECT_NAME) :: tname
  character(len=20) :: short

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  next = mod(rank + 1, n)
  prev = mod(rank + n - 1, n)
  do j = 1, 5
    do i = 1, 4
      a(i, j) = rank * 1000 + i * 10 + j
    end do
  end do

  ! Row 2 of a: 5 elements, 4 apart (column-major).
  call MPI_Type_vector(5, 1, 4, MPI_INTEGER, rowtype, ierr)
  call MPI_Type_commit(rowtype, ierr)
  call MPI_Type_size(rowtype, tsize, ierr)
  call check(tsize == 20, 'vector size')
  call MPI_Type_get_extent(rowtype, lb, extent, ierr)
  call check(lb == 0 .and. extent == 4 * 17, 'vector extent')
  b = -1
  call MPI_Sendrecv(a(2, 1), 1, rowtype, next, 1, b(3, 1), 1, rowtype, prev, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  do j = 1, 5
    call check(b(3, j) == prev * 1000 + 20 + j, 'row received')
    call check(b(2, j) == -1, 'row neighbours untouched')
  end do

  ! A 2x3 block starting at (2,2) (0-based starts (1,1)), Fortran order.
  sizes = (/ 4, 5 /)
  subsizes = (/ 2, 3 /)
  starts = (/ 1, 1 /)
  call MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, &
                                blocktype, ierr)
  call MPI_Type_commit(blocktype, ierr)
  b = -1
  call MPI_Sendrecv(a, 1, blocktype, next, 2, b, 1, blocktype, prev, 2, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  do j = 1, 5
    do i = 1, 4
      if (i >= 2 .and. i <= 3 .and. j >= 2 .and. j <= 4) then
        call check(b(i, j) == prev * 1000 + i * 10 + j, 'subarray element')
      else
        call check(b(i, j) == -1, 'outside the subarray')
      end if
    end do
  end do

  ! A struct of two variables at absolute addresses, from and to MPI_BOTTOM.
  ival = rank + 3
  dval = rank * 0.5d0
  call MPI_Get_address(ival, displs(1), ierr)
  call MPI_Get_address(dval, displs(2), ierr)
  blocklens = (/ 1, 1 /)
  types = (/ MPI_INTEGER, MPI_DOUBLE_PRECISION /)
  call MPI_Type_create_struct(2, blocklens, displs, types, structtype, ierr)
  call MPI_Type_commit(structtype, ierr)
  call MPI_Get_address(ival_in, rdispls(1), ierr)
  call MPI_Get_address(dval_in, rdispls(2), ierr)
  call MPI_Type_create_struct(2, blocklens, rdispls, types, recvtype, ierr)
  call MPI_Type_commit(recvtype, ierr)
  ival_in = -1
  dval_in = -1.0d0
  call MPI_Sendrecv(MPI_BOTTOM, 1, structtype, next, 3, MPI_BOTTOM, 1, recvtype, prev, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Sendrecv from and to MPI_BOTTOM')
  call check(ival_in == prev + 3 .and. dval_in == prev * 0.5d0, 'struct received at MPI_BOTTOM')
  call MPI_Type_free(recvtype, ierr)

  ! Names: set with trailing blanks ignored, read back blank-padded (and truncated to fit).
  call MPI_Type_set_name(rowtype, 'row of a   ', ierr)
  call MPI_Type_get_name(rowtype, tname, namelen, ierr)
  call check(tname == 'row of a' .and. namelen == 8, 'MPI_Type_get_name')
  call MPI_Type_get_name(MPI_DOUBLE_PRECISION, tname, namelen, ierr)
  call check(tname == 'MPI_DOUBLE_PRECISION', 'name of MPI_DOUBLE_PRECISION')
  call MPI_Comm_set_name(MPI_COMM_WORLD, 'the world of f_dtype is long', ierr)
  call MPI_Comm_get_name(MPI_COMM_WORLD, short, namelen, ierr)
  call check(short == 'the world of f_dtype' .and. namelen == 28, 'name truncated to fit')

  call MPI_Type_free(rowtype, ierr)
  call MPI_Type_free(blocktype, ierr)
  call MPI_Type_free(structtype, ierr)
  call check(rowtype == MPI_DATATYPE_NULL, 'MPI_Type_free sets MPI_DATATYPE_NULL')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'ok f_dtype (', n, ' ranks)'
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

end program f_dtype
