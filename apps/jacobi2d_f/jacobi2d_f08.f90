! apps/jacobi2d_f/jacobi2d_f08.f90 — jacobi2d.f90 (next to it) written with `use mpi_f08`: the
! same 2D heat (Jacobi) solver, NX x NY grid split into slabs of rows, one per rank. A halo row is
! strided in Fortran's column-major order; here it is passed as what it is, the array section
! u(i, :), which the library packs and unpacks (MPI_Sendrecv of NY+2 MPI_DOUBLE_PRECISION, no
! derived datatype); handles are TYPE(MPI_Comm) ..., ierror is left out.
!
! Usage: jacobi2d_f08 [NX NY ITERATIONS [--verify]]   (default 64 48 100)
! --verify: rank 0 gathers the grid (MPI_Gatherv) and compares it, and every iteration's largest
! change, with a serial computation of the whole grid; the same operations in the same order give
! bit-identical results, so any difference is an error. Prints PASSED or FAILED (exit status 1).
program jacobi2d_f08
  use mpi_f08
  implicit none
  integer :: nx = 64, ny = 48, iters = 100
  logical :: verify = .false.
  integer :: rank, nranks, up, down, it, i, r, lo, nloc, rows_before
  double precision, allocatable :: u(:, :), unew(:, :), whole(:, :), serial(:, :), snew(:, :)
  double precision, allocatable :: packed(:), gathered(:), changes(:)
  integer, allocatable :: counts(:), displs(:)
  double precision :: change, schange, t0, t1
  logical :: ok
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  if (command_argument_count() >= 3) then
    call get_command_argument(1, arg)
    read (arg, *) nx
    call get_command_argument(2, arg)
    read (arg, *) ny
    call get_command_argument(3, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 4) then
    call get_command_argument(4, arg)
    verify = arg == '--verify'
  end if
  if (nx < nranks) then
    if (rank == 0) print '(a)', 'jacobi2d_f08: fewer rows than ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if

  ! Rows lo+1 .. lo+nloc of the interior 1..nx are mine; rows 0 and nloc+1 of u are halos (or
  ! the boundary), columns 0 and ny+1 the boundary.
  call slab(rank, lo, nloc)
  up = merge(MPI_PROC_NULL, rank - 1, rank == 0)
  down = merge(MPI_PROC_NULL, rank + 1, rank == nranks - 1)
  allocate(u(0:nloc + 1, 0:ny + 1), unew(0:nloc + 1, 0:ny + 1), changes(iters))
  call initial(u)
  unew = u

  t0 = MPI_Wtime()
  do it = 1, iters
    ! My first row goes up, the row below me comes into my last halo; and the other way.
    call MPI_Sendrecv(u(1, :), ny + 2, MPI_DOUBLE_PRECISION, up, 1, u(nloc + 1, :), ny + 2, &
                      MPI_DOUBLE_PRECISION, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(nloc, :), ny + 2, MPI_DOUBLE_PRECISION, down, 2, u(0, :), ny + 2, &
                      MPI_DOUBLE_PRECISION, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call sweep(u, unew, nloc, change)
    call MPI_Allreduce(MPI_IN_PLACE, change, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
    changes(it) = change
    u(1:nloc, 1:ny) = unew(1:nloc, 1:ny)
  end do
  t1 = MPI_Wtime()
  if (rank == 0) print '(a,i0,a,i0,a,i0,a,i0,a,es12.5,a,f8.4,a)', 'jacobi2d_f08: ', nx, 'x', ny, &
    ', ', iters, ' iterations, ', nranks, ' ranks: last change ', changes(iters), ', ', &
    t1 - t0, ' s'

  if (verify) then
    ! Gather the interiors (row-slabs packed column by column) on rank 0.
    allocate(packed(max(1, nloc * ny)), counts(nranks), displs(nranks))
    packed(1:nloc * ny) = reshape(u(1:nloc, 1:ny), (/ nloc * ny /))
    rows_before = 0
    do r = 0, nranks - 1
      call slab(r, lo, i)
      counts(r + 1) = i * ny
      displs(r + 1) = rows_before * ny
      rows_before = rows_before + i
    end do
    allocate(gathered(nx * ny))
    call MPI_Gatherv(packed, nloc * ny, MPI_DOUBLE_PRECISION, gathered, counts, displs, &
                     MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
    if (rank == 0) then
      allocate(whole(0:nx + 1, 0:ny + 1), serial(0:nx + 1, 0:ny + 1), snew(0:nx + 1, 0:ny + 1))
      call initial_whole(whole)
      do r = 0, nranks - 1
        call slab(r, lo, i)
        whole(lo + 1:lo + i, 1:ny) = reshape(gathered(displs(r + 1) + 1:displs(r + 1) + i * ny), &
                                             (/ i, ny /))
      end do
      call initial_whole(serial)
      snew = serial
      ok = .true.
      do it = 1, iters
        call sweep(serial, snew, nx, schange)
        if (schange /= changes(it)) ok = .false.
        serial(1:nx, 1:ny) = snew(1:nx, 1:ny)
      end do
      if (any(whole /= serial)) ok = .false.
      if (ok) then
        print '(a)', 'jacobi2d_f08: PASSED (grid and changes equal the serial computation)'
      else
        print '(a,es12.5)', 'jacobi2d_f08: FAILED: largest difference ', maxval(abs(whole - serial))
        flush(6)
        call MPI_Abort(MPI_COMM_WORLD, 1)
      end if
    end if
  end if
  ! The main program's allocatables live as long as its (per-rank) data: free them, or the
  ! sanitizer build reports them once the rank's copy of the program is unloaded.
  if (allocated(whole)) deallocate(whole, serial, snew)
  if (allocated(gathered)) deallocate(gathered)
  if (allocated(packed)) deallocate(packed, counts, displs)
  deallocate(u, unew, changes)
  call MPI_Finalize()

contains

  ! The rows of rank r: the first nx mod nranks ranks have one more.
  subroutine slab(r, first, count)
    integer, intent(in) :: r
    integer, intent(out) :: first, count
    count = nx / nranks + merge(1, 0, r < mod(nx, nranks))
    first = r * (nx / nranks) + min(r, mod(nx, nranks))
  end subroutine slab

  ! Boundary: 1 on column 0, 0 elsewhere; interior 0.
  subroutine initial(a)
    double precision, intent(out) :: a(0:, 0:)
    a = 0.0d0
    a(:, 0) = 1.0d0
  end subroutine initial

  subroutine initial_whole(a)
    double precision, intent(out) :: a(0:, 0:)
    call initial(a)
  end subroutine initial_whole

  ! One Jacobi step over rows 1..rows, columns 1..ny; the largest change.
  subroutine sweep(a, anew, rows, largest)
    double precision, intent(in) :: a(0:, 0:)
    double precision, intent(inout) :: anew(0:, 0:)
    integer, intent(in) :: rows
    double precision, intent(out) :: largest
    integer :: i, j
    largest = 0.0d0
    do j = 1, ny
      do i = 1, rows
        anew(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
        largest = max(largest, abs(anew(i, j) - a(i, j)))
      end do
    end do
  end subroutine sweep

end program jacobi2d_f08
