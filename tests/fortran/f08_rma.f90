! tests/fortran/f08_rma.f90 — one-sided communication through `use mpi_f08`: MPI_Win_create on an
! array, MPI_Put/MPI_Get/MPI_Accumulate between fences, MPI_Win_allocate's TYPE(C_PTR) base
! (C_F_POINTER), passive target with MPI_Win_lock, and the window attributes. The window's memory
! is read and written directly between synchronizations: MPI_F_sync_reg tells the compiler it may
! have changed (as the standard's section on registers and RMA asks).
program f08_rma
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: rank, nranks, next, prev, i, ierr
  integer :: local(8), got(4)
  integer, pointer :: shared(:)
  type(MPI_Win) :: win, win2
  type(c_ptr) :: base
  integer(kind=MPI_ADDRESS_KIND) :: size, disp, attr
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)

  local = -1
  size = 8 * 4
  call MPI_Win_create(local, size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call check(ierr == MPI_SUCCESS .and. win /= MPI_WIN_NULL, 'MPI_Win_create')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, attr, flag)
  call check(flag .and. attr == 4, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_fence(0, win)
  got = [(rank * 10 + i, i = 1, 4)]
  disp = 2
  call MPI_Put(got, 4, MPI_INTEGER, next, disp, 4, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(local)
  call check(all(local(3:6) == [(prev * 10 + i, i = 1, 4)]), 'MPI_Put')
  call check(all(local([1, 2, 7, 8]) == -1), 'MPI_Put left the rest')
  got = 0
  call MPI_Get(got, 4, MPI_INTEGER, prev, disp, 4, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  ! prev's window holds what prev's prev put.
  call check(all(got == [(mod(prev + nranks - 1, nranks) * 10 + i, i = 1, 4)]), 'MPI_Get')
  local(1) = 0
  call MPI_F_sync_reg(local)
  call MPI_Win_fence(0, win)
  disp = 0
  call MPI_Accumulate(rank + 1, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(local)
  if (rank == 0) call check(local(1) == nranks * (nranks + 1) / 2, 'MPI_Accumulate')
  call MPI_Win_free(win)
  call check(win == MPI_WIN_NULL, 'MPI_Win_free')

  ! MPI_Win_allocate: the base arrives as TYPE(C_PTR); passive target with a lock.
  size = 4 * nranks
  call MPI_Win_allocate(size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win2)
  call c_f_pointer(base, shared, [nranks])
  shared = 0
  call MPI_Barrier(MPI_COMM_WORLD)
  disp = rank
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win2)
  call MPI_Put(rank + 7, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win2)
  call MPI_Win_unlock(0, win2)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win2)
    call MPI_F_sync_reg(shared)
    call check(all(shared == [(i + 7, i = 0, nranks - 1)]), 'MPI_Win_allocate + lock/Put')
    call MPI_Win_unlock(0, win2)
  end if
  call MPI_Win_free(win2)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'ok f08_rma (', nranks, ' ranks)'
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

end program f08_rma
