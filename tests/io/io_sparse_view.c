/* tests/io/io_sparse_view.c — a view whose filetype spans a huge extent with few runs: each rank's
 * filetype is two blocks of 8 bytes, the second 16 GiB after the first (MPI_Type_create_hindexed).
 * Setting the view must cost the runs, not the extent (the first flatten() packed a buffer of the
 * whole extent: 16 GiB here, and HDF5's t_shapesame spent 73% of its time there); the write and
 * read back go through it, the sparse file is checked with pread at both places. */
#include "io_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#define FAR ((MPI_Aint)1 << 34)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[IO_PATH], path[IO_PATH + 32];
  io_tmpdir(dir);
  snprintf(path, sizeof path, "%s/sparse", dir);
  MPI_File fh;
  CHECK_MPI(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  int blocks[2] = {8, 8};
  MPI_Aint disps[2] = {(MPI_Aint)rank * 8, FAR + (MPI_Aint)rank * 8};
  MPI_Datatype ftype;
  MPI_Type_create_hindexed(2, blocks, disps, MPI_BYTE, &ftype);
  MPI_Type_commit(&ftype);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ftype, "native", MPI_INFO_NULL));
  MPI_Offset byte = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, 9, &byte));
  CHECK(byte == FAR + rank * 8 + 1, "byte offset of stream byte 9: %lld", (long long)byte);
  unsigned char out[16], in[16];
  for (int i = 0; i < 16; ++i)
    out[i] = (unsigned char)(rank * 16 + i + 1);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, 0, out, 16, MPI_BYTE, &st));
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_at(fh, 0, in, 16, MPI_BYTE, &st));
  CHECK(memcmp(in, out, 16) == 0, "independent read back differs");
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, in, 16, MPI_BYTE, &st));
  CHECK(memcmp(in, out, 16) == 0, "collective read back differs");
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0, "open(%s)", path);
  CHECK(pread(fd, in, 8, rank * 8) == 8 && memcmp(in, out, 8) == 0, "the first block differs");
  CHECK(pread(fd, in, 8, (off_t)(FAR + rank * 8)) == 8 && memcmp(in, out + 8, 8) == 0,
        "the block 16 GiB further differs");
  struct stat sb;
  CHECK(fstat(fd, &sb) == 0 && sb.st_size == (off_t)(FAR + size * 8), "file size %lld",
        (long long)sb.st_size);
  close(fd);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&ftype);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  io_rmdir(dir);
  if (rank == 0) printf("io_sparse_view: ok (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
