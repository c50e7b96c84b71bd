! tests/fortran/f_fixed.f -- a FORTRAN 77 style program (fixed form, mpif.h): mpif.h must be
! valid fixed-form source. Sums the ranks with MPI_REDUCE and MPI_ALLREDUCE (MPI_IN_PLACE) and
! times itself with MPI_WTIME (a DOUBLE PRECISION function declared by mpif.h).
      PROGRAM FFIXED
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP, IERR, ISUM, ISTAT(MPI_STATUS_SIZE)
      DOUBLE PRECISION T0, T1
      CALL MPI_INIT(IERR)
      T0 = MPI_WTIME()
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      ISUM = RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (ISUM .NE. NP * (NP - 1) / 2) THEN
        PRINT *, 'FAIL rank', RANK, ': MPI_ALLREDUCE gave', ISUM
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      IF (RANK .EQ. 0 .AND. NP .GT. 1) THEN
        CALL MPI_RECV(ISUM, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD,
     &                ISTAT, IERR)
        IF (ISUM .NE. 42 .OR. ISTAT(MPI_SOURCE) .NE. 1) THEN
          PRINT *, 'FAIL: MPI_RECV gave', ISUM
          CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
        END IF
      ELSE IF (RANK .EQ. 1) THEN
        CALL MPI_SEND(42, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, IERR)
      END IF
      T1 = MPI_WTIME()
      IF (T1 .LT. T0) THEN
        PRINT *, 'FAIL: MPI_WTIME went back'
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      IF (RANK .EQ. 0) WRITE (*, '(A,I0,A)') 'ok f_fixed (', NP,
     &    ' ranks)'
      CALL MPI_FINALIZE(IERR)
      END
