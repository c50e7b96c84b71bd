/* tests/io/io_fatal.c — a fatal file error handler ends the job with a message that names the call
 * and the error class: MPI_ERRORS_ARE_FATAL set on MPI_FILE_NULL, which a failed MPI_File_open
 * raises through (CTest passes on the message and fails on "NOT REACHED"). */
#include "io_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char dir[IO_PATH], missing[IO_PATH + 32];
  io_tmpdir(dir);
  snprintf(missing, sizeof missing, "%s/missing", dir);
  io_rmdir(dir); /* empty: the file is never made */
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL));
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  printf("NOT REACHED\n");
  MPI_Finalize();
  return 0;
}
