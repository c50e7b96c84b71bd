! tests/fortran/f_coll.f90 — collectives from Fortran (`use mpi`): broadcast, gathers and
! scatters, all-to-all, scans, and reductions on the Fortran datatypes the standard allows them on
! (INTEGER, INTEGER8, REAL, DOUBLE PRECISION, REAL8, COMPLEX, DOUBLE COMPLEX with SUM/PROD/MAX;
! LOGICAL with LAND/LOR/LXOR; 2INTEGER, 2REAL, 2DOUBLE_PRECISION with MAXLOC/MINLOC), with
! MPI_IN_PLACE where the standard accepts it.
program f_coll
  use mpi
  implicit none
  integer :: rank, n, ierr, i, root
  integer :: ival, isum, ibuf(4)
  integer, allocatable :: all_ranks(:), a2a_send(:), a2a_recv(:)
  integer(kind=8) :: i8
  real :: rmax
  real(kind=8) :: r8
  double precision :: dsum(3)
  complex :: csum
  double complex :: zsum
  logical :: land, lor, lxor
  integer :: pair_i(2)
  real :: pair_r(2)
  double precision :: pair_d(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  root = n - 1

  ! Broadcast from the last rank.
  ibuf = 0
  if (rank == root) ibuf = (/ 1, 2, 3, 4 /)
  call MPI_Bcast(ibuf, 4, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call check(all(ibuf == (/ 1, 2, 3, 4 /)), 'MPI_Bcast')

  ! Reductions.
  ival = rank + 1
  call MPI_Allreduce(ival, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(isum == n * (n + 1) / 2, 'Allreduce INTEGER SUM')
  i8 = int(rank, 8) * 3000000000_8
  call MPI_Allreduce(MPI_IN_PLACE, i8, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(i8 == int(n - 1, 8) * 3000000000_8, 'Allreduce INTEGER8 MAX in place')
  rmax = real(rank) * 1.5
  call MPI_Allreduce(MPI_IN_PLACE, rmax, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(rmax == real(n - 1) * 1.5, 'Allreduce REAL MAX in place')
  r8 = 2.0d0
  call MPI_Allreduce(MPI_IN_PLACE, r8, 1, MPI_REAL8, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(r8 == 2.0d0 ** n, 'Allreduce REAL8 PROD in place')
  dsum = (/ dble(rank), 1.0d0, -dble(rank) /)
  call MPI_Allreduce(MPI_IN_PLACE, dsum, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(dsum == (/ dble(n * (n - 1) / 2), dble(n), -dble(n * (n - 1) / 2) /)), &
             'Allreduce DOUBLE PRECISION SUM in place')
  csum = cmplx(real(rank), 1.0)
  call MPI_Allreduce(MPI_IN_PLACE, csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(csum == cmplx(real(n * (n - 1) / 2), real(n)), 'Allreduce COMPLEX SUM')
  zsum = dcmplx(0.0d0, 1.0d0)
  call MPI_Allreduce(MPI_IN_PLACE, zsum, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(zsum == (0.0d0, 1.0d0) ** n, 'Allreduce DOUBLE COMPLEX PROD')
  land = rank >= 0
  lor = rank == root
  lxor = .true.
  call MPI_Allreduce(MPI_IN_PLACE, land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, lxor, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
  call check(land .and. lor, 'Allreduce LOGICAL LAND/LOR')
  call check(lxor .eqv. (mod(n, 2) == 1), 'Allreduce LOGICAL LXOR')

  ! MAXLOC/MINLOC on the pair types: value, then index.
  pair_i = (/ mod(rank * 7, 5), rank /)
  call MPI_Allreduce(MPI_IN_PLACE, pair_i, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(pair_i(1) == 0 .and. pair_i(2) == 0, 'MINLOC 2INTEGER')
  pair_r = (/ real(rank), real(rank) /)
  call MPI_Allreduce(MPI_IN_PLACE, pair_r, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(pair_r(1) == real(n - 1) .and. pair_r(2) == real(n - 1), 'MAXLOC 2REAL')
  pair_d = (/ -dble(rank), dble(rank) /)
  call MPI_Allreduce(MPI_IN_PLACE, pair_d, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, &
                     MPI_COMM_WORLD, ierr)
  call check(pair_d(1) == -dble(n - 1) .and. pair_d(2) == dble(n - 1), 'MINLOC 2DOUBLE_PRECISION')

  ! Reduce to a root that passes MPI_IN_PLACE.
  ival = rank
  if (rank == root) then
    call MPI_Reduce(MPI_IN_PLACE, ival, 1, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    call check(ival == n * (n - 1) / 2, 'Reduce in place at the root')
  else
    call MPI_Reduce(ival, isum, 1, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  end if

  ! Gather, Allgather in place, Scatter, Alltoall.
  allocate(all_ranks(n), a2a_send(n), a2a_recv(n))
  all_ranks = -1
  call MPI_Gather(rank * 10, 1, MPI_INTEGER, all_ranks, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(all(all_ranks == (/ (i * 10, i = 0, n - 1) /)), 'MPI_Gather')
  all_ranks = -1
  all_ranks(rank + 1) = rank + 7
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all_ranks, 1, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  call check(all(all_ranks == (/ (i + 7, i = 0, n - 1) /)), 'MPI_Allgather in place')
  if (rank == 0) all_ranks = (/ (i * i, i = 0, n - 1) /)
  call MPI_Scatter(all_ranks, 1, MPI_INTEGER, ival, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(ival == rank * rank, 'MPI_Scatter')
  a2a_send = (/ (rank * 100 + i, i = 0, n - 1) /)
  call MPI_Alltoall(a2a_send, 1, MPI_INTEGER, a2a_recv, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(a2a_recv == (/ (i * 100 + rank, i = 0, n - 1) /)), 'MPI_Alltoall')

  ! Scans.
  call MPI_Scan(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(isum == (rank + 1) * (rank + 2) / 2, 'MPI_Scan')
  isum = -5
  call MPI_Exscan(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank > 0) call check(isum == rank * (rank + 1) / 2, 'MPI_Exscan')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'ok f_coll (', n, ' ranks)'
  ! The main program's allocatables live as long as its (per-rank) data: free them, or the
  ! sanitizer build reports them once the rank's copy of the program is unloaded.
  deallocate(all_ranks, a2a_send, a2a_recv)
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

end program f_coll
