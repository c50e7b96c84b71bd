! tests/fortran/f_rma.f90 — one-sided communication from Fortran (`use mpi`): a window on an
! array (MPI_Win_create, displacements in INTEGER(KIND=MPI_ADDRESS_KIND)), MPI_Put/MPI_Get/
! MPI_Accumulate in fence epochs, passive target with MPI_Win_lock, the window attributes
! (MPI_WIN_SIZE, MPI_WIN_DISP_UNIT: the Fortran keys), and MPI_Win_allocate's base address
! received as a TYPE(C_PTR).
program f_rma
  use mpi
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: rank, n, ierr, next, prev, win, win2, i
  integer :: local(4), got(4), one
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp, attr
  logical :: flag
  type(c_ptr) :: base
  double precision, pointer :: shared(:)
  double precision :: val

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  next = mod(rank + 1, n)
  prev = mod(rank + n - 1, n)

  local = -1
  winsize = 4 * 4
  call MPI_Win_create(local, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, attr, flag, ierr)
  call check(flag .and. attr == 16, 'MPI_WIN_SIZE attribute')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, attr, flag, ierr)
  call check(flag .and. attr == 4, 'MPI_WIN_DISP_UNIT attribute')

  ! Put my rank into element 2 of the next rank's array.
  call MPI_Win_fence(0, win, ierr)
  disp = 1
  call MPI_Put(rank, 1, MPI_INTEGER, next, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(local(2) == prev, 'MPI_Put')

  ! Every rank adds 1 to element 1 of rank 0; then get it back.
  if (rank == 0) local(1) = 0
  call MPI_Win_fence(0, win, ierr)
  one = 1
  disp = 0
  call MPI_Accumulate(one, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  got = 0
  call MPI_Get(got, 2, MPI_INTEGER, 0, disp, 2, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(got(1) == n, 'MPI_Accumulate then MPI_Get')

  ! Passive target: write element 4 of the previous rank under an exclusive lock.
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, prev, 0, win, ierr)
  disp = 3
  one = rank + 50 ! origin buffers must stay until the epoch ends: no expression temporaries
  call MPI_Put(one, 1, MPI_INTEGER, prev, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(prev, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win, ierr)
  call check(local(4) == next + 50, 'MPI_Put under MPI_Win_lock')
  call MPI_Win_unlock(rank, win, ierr)
  call MPI_Win_free(win, ierr)
  call check(win == MPI_WIN_NULL, 'MPI_Win_free')

  ! MPI_Win_allocate: memory of the library, seen through a Fortran pointer.
  winsize = 8 * 8
  call MPI_Win_allocate(winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, base, win2, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_allocate')
  call c_f_pointer(base, shared, (/ 8 /))
  shared = 0.0d0
  call MPI_Win_fence(0, win2, ierr)
  val = dble(rank) + 0.25d0
  do i = 0, 7
    disp = i
    call MPI_Put(val, 1, MPI_DOUBLE_PRECISION, next, disp, 1, &
                 MPI_DOUBLE_PRECISION, win2, ierr)
  end do
  call MPI_Win_fence(0, win2, ierr)
  call check(all(shared == dble(prev) + 0.25d0), 'MPI_Put into MPI_Win_allocate memory')
  call MPI_Win_free(win2, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'ok f_rma (', n, ' ranks)'
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

end program f_rma
