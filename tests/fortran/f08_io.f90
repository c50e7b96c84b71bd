! tests/fortran/f08_io.f90 — MPI-IO through `use mpi_f08`: every rank writes its block of a shared
! file collectively at explicit offsets (MPI_File_write_at_all), one through a file view of a
! derived type (every rank's integers interleaved) from a non-contiguous array section, then
! reads back another rank's block and its own view; MPI_File handles, MPI_Offset kinds, the
! status count, MPI_File_get_size, MPI_File_delete. The file's name comes from the first
! argument (a scratch directory given by CTest), else the current directory.
program f08_io
  use mpi_f08
  implicit none
  integer, parameter :: n = 6
  integer :: rank, nranks, i, cnt, other, ierr
  integer :: block(n), back(n), wide(2, n)
  type(MPI_File) :: fh
  type(MPI_Status) :: status
  type(MPI_Datatype) :: filetype
  integer(kind=MPI_OFFSET_KIND) :: offset, fsize
  character(len=256) :: dir
  character(len=:), allocatable :: path

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  dir = '.'
  if (command_argument_count() >= 1) call get_command_argument(1, dir)
  path = trim(dir) // '/f08_io.dat'

  call MPI_File_open(MPI_COMM_WORLD, path, ior(MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, &
                     fh, ierr)
  call check(ierr == MPI_SUCCESS .and. fh /= MPI_FILE_NULL, 'MPI_File_open')
  block = [(rank * 100 + i, i = 1, n)]
  offset = int(rank, MPI_OFFSET_KIND) * n * 4
  call MPI_File_write_at_all(fh, offset, block, n, MPI_INTEGER, status)
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == n, 'write_at_all count')
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  other = mod(rank + 1, nranks)
  offset = int(other, MPI_OFFSET_KIND) * n * 4
  call MPI_File_read_at(fh, offset, back, n, MPI_INTEGER, status)
  call check(all(back == [(other * 100 + i, i = 1, n)]), 'read_at of the next rank''s block')
  call MPI_File_get_size(fh, fsize)
  call check(fsize == int(nranks, MPI_OFFSET_KIND) * n * 4, 'MPI_File_get_size')

  ! Second part of the file: each rank sees every nranks-th integer (a vector file type), and
  ! writes them from the second row of a 2 x n array (a non-contiguous section).
  call MPI_Type_vector(n, 1, nranks, MPI_INTEGER, filetype)
  call MPI_Type_commit(filetype)
  offset = int(nranks, MPI_OFFSET_KIND) * n * 4 + rank * 4
  call MPI_File_set_view(fh, offset, MPI_INTEGER, filetype, 'native', MPI_INFO_NULL)
  wide(1, :) = -7
  wide(2, :) = [(rank * 1000 + i, i = 1, n)]
  offset = 0
  call MPI_File_write_at_all(fh, offset, wide(2, :), n, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  wide = 0
  call MPI_File_read_at_all(fh, offset, wide(1, :), n, MPI_INTEGER, status)
  call check(all(wide(1, :) == [(rank * 1000 + i, i = 1, n)]), 'read through the view')
  call check(all(wide(2, :) == 0), 'read into the section only')
  ! The view interleaves the ranks: read the whole second part as plain integers.
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  if (rank == 0) then
    block = 0
    offset = int(nranks, MPI_OFFSET_KIND) * n
    call MPI_File_read_at(fh, offset, block, min(n, nranks * n), MPI_INTEGER, status)
    do i = 1, n
      call check(block(i) == mod(i - 1, nranks) * 1000 + (i - 1) / nranks + 1, 'interleaved file')
    end do
  end if
  call MPI_File_close(fh)
  call check(fh == MPI_FILE_NULL, 'MPI_File_close')
  call MPI_Type_free(filetype)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call MPI_File_delete(path, MPI_INFO_NULL)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'ok f08_io (', nranks, ' ranks)'
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

end program f08_io
