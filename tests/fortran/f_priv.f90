! tests/fortran/f_priv.f90 — privatization of a Fortran program's globals: a COMMON block, a
! module variable, a SAVE'd local and a DATA-initialized COMMON variable are per rank when ranks
! share a process (each rank runs its own copy of the program, src/privatize). Every rank stores
! its rank in each, lets the others run (ring exchanges, barriers), and checks that it still
! reads its own values; the sentinels (MPI_IN_PLACE) keep working in every copy.
module f_priv_state
  implicit none
  integer :: module_value = -1
  double precision :: module_array(16)
end module f_priv_state

block data f_priv_init
  integer :: initialized
  common /f_priv_data/ initialized
  data initialized /7/
end block data f_priv_init

program f_priv
  use mpi
  use f_priv_state
  implicit none
  integer :: rank, n, ierr, round, token, total
  integer :: common_value, initialized
  common /f_priv_common/ common_value
  common /f_priv_data/ initialized

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call check(initialized == 7, 'DATA initial value seen once per rank')
  call check(module_value == -1, 'module initial value')
  call check(counter() == 1, 'SAVE counter starts at 0 in every rank')
  initialized = initialized + rank
  common_value = rank * 3
  module_value = rank + 1000
  module_array = dble(rank)

  do round = 1, 3
    ! Let every other rank of the process run between the writes and the checks.
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, n), round, token, 1, MPI_INTEGER, &
                      mod(rank + n - 1, n), round, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(token == mod(rank + n - 1, n), 'ring token')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call check(common_value == rank * 3, 'COMMON block is per rank')
    call check(module_value == rank + 1000, 'module variable is per rank')
    call check(all(module_array == dble(rank)), 'module array is per rank')
    call check(initialized == 7 + rank, 'DATA-initialized COMMON is per rank')
    call check(counter() == round + 1, 'SAVE local is per rank')
  end do

  total = 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(total == n, 'MPI_IN_PLACE in every copy')
  if (rank == 0) print '(a,i0,a)', 'ok f_priv (', n, ' ranks)'
  call MPI_Finalize(ierr)

contains

  integer function counter()
    integer, save :: calls = 0
    calls = calls + 1
    counter = calls
  end function counter

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

end program f_priv
