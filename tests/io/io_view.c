/* tests/io/io_view.c — MPI-IO group 2: views and independent access. Each rank writes its
 * interleaved share of a file through a vector filetype (blocks of B ints, every size-th block)
 * from a non-contiguous memory type, with explicit offsets and with its individual file pointer
 * (seek, get_position, get_byte_offset); every byte of the file is then checked by reading it
 * back with the default view (and rank 0 with plain POSIX reads). Also: an etype of 2 ints, a
 * struct filetype with a hole, get_view handing back the types, reads past the end of the file,
 * "external32" (the file holds big-endian ints), and the large-count (_c) forms. */
#include "io_test.h"

#include <fcntl.h>
#include <stdint.h>

#define B 3
#define NB 5 /* blocks per rank */

static int value(int rank, int i) {
  return rank * 100000 + i;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[IO_PATH], path[IO_PATH + 32];
  io_tmpdir(dir);
  snprintf(path, sizeof path, "%s/view", dir);
  MPI_File fh;
  CHECK_MPI(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

  /* Filetype: B ints at block `rank` of every row of size*B ints. */
  MPI_Datatype vec, ftype;
  MPI_Type_vector(1, B, size * B, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(size * B * sizeof(int)), &ftype);
  MPI_Type_commit(&ftype);
  MPI_Type_free(&vec);
  /* Memory: every other int of a buffer of 2*NB*B ints. */
  MPI_Datatype mtype;
  MPI_Type_vector(NB * B, 1, 2, MPI_INT, &mtype);
  MPI_Type_commit(&mtype);
  int mem[2 * NB * B];
  for (int i = 0; i < NB * B; ++i) {
    mem[2 * i] = value(rank, i);
    mem[2 * i + 1] = -1;
  }
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(rank * B * sizeof(int)), MPI_INT, ftype, "native",
                              MPI_INFO_NULL));
  /* The first two blocks at explicit offsets (in etypes), the rest through the pointer. */
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at(fh, 0, mem, 1, mtype, &st));
  int count = -1;
  MPI_Get_count(&st, mtype, &count);
  CHECK(count == 1, "write_at count %d", count);
  MPI_Offset pos = -1, byte = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 0, "explicit-offset write moved the pointer to %lld", pos);
  CHECK_MPI(MPI_File_get_byte_offset(fh, B + 1, &byte));
  CHECK(byte == (MPI_Offset)(((size + rank) * B + 1) * sizeof(int)), "byte offset %lld", byte);
  /* Rewrite blocks 2.. with the individual pointer, after a seek. */
  CHECK_MPI(MPI_File_seek(fh, 2 * B, MPI_SEEK_SET));
  MPI_Datatype tail;
  MPI_Type_vector((NB - 2) * B, 1, 2, MPI_INT, &tail);
  MPI_Type_commit(&tail);
  CHECK_MPI(MPI_File_write(fh, mem + 2 * 2 * B, 1, tail, &st));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == NB * B, "pointer after write %lld, expected %d", pos, NB * B);
  CHECK_MPI(MPI_File_seek(fh, -B, MPI_SEEK_CUR));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == (NB - 1) * B, "SEEK_CUR gave %lld", pos);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == NB * B, "SEEK_END gave %lld", pos);

  /* get_view: the displacement, types (a new handle for the derived filetype), datarep. */
  MPI_Offset disp;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &disp, &et, &ft, rep));
  CHECK(disp == (MPI_Offset)(rank * B * sizeof(int)) && et == MPI_INT && strcmp(rep, "native") == 0,
        "get_view: disp %lld rep %s", disp, rep);
  int tsize;
  MPI_Type_size(ft, &tsize);
  CHECK(tsize == B * (int)sizeof(int), "get_view's filetype has size %d", tsize);
  MPI_Type_free(&ft);

  /* Read my blocks back through the view into the strided memory type. */
  int back[2 * NB * B];
  for (int i = 0; i < 2 * NB * B; ++i)
    back[i] = -7;
  CHECK_MPI(MPI_File_read_at(fh, 0, back, 1, mtype, &st));
  for (int i = 0; i < NB * B; ++i)
    CHECK(back[2 * i] == value(rank, i) && back[2 * i + 1] == -7, "read back [%d] = %d", i,
          back[2 * i]);

  /* Everyone checks the whole file with the default view. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  const int total = size * NB * B;
  int *all = malloc(sizeof(int) * (size_t)(total + 8));
  CHECK_MPI(MPI_File_read_at(fh, 0, all, total + 8, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == total, "read past the end: count %d, expected %d", count, total);
  for (int k = 0; k < total; ++k) {
    const int row = k / (size * B), r = (k / B) % size, i = row * B + k % B;
    CHECK(all[k] == value(r, i), "file int %d is %d, expected %d", k, all[k], value(r, i));
  }
  if (rank == 0) { /* the bytes on disk, without MPI */
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open");
    int *raw = malloc(sizeof(int) * (size_t)total);
    CHECK(pread(fd, raw, sizeof(int) * (size_t)total, 0) == (ssize_t)(sizeof(int) * (size_t)total),
          "pread");
    CHECK(memcmp(raw, all, sizeof(int) * (size_t)total) == 0, "file differs from MPI's read");
    free(raw);
    close(fd);
  }
  free(all);
  MPI_Barrier(MPI_COMM_WORLD);

  /* An etype of 2 ints and a struct filetype with a hole: [int int][hole 8][int int], extent 24;
   * offsets count etypes. */
  MPI_Datatype pair, sft;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int bl[2] = {1, 1};
  MPI_Aint dl[2] = {0, 16};
  MPI_Datatype ty[2] = {pair, pair};
  MPI_Type_create_struct(2, bl, dl, ty, &sft);
  MPI_Type_commit(&sft);
  MPI_File_set_size(fh, 0);
  CHECK_MPI(MPI_File_set_view(fh, 0, pair, sft, "native", MPI_INFO_NULL));
  if (rank == 0) {
    int d[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_MPI(MPI_File_write_at(fh, 1, d, 3, pair, &st)); /* etypes 1,2,3 */
    MPI_Offset b = -1;
    MPI_File_get_byte_offset(fh, 3, &b);
    CHECK(b == 40, "struct view: byte offset of etype 3 is %lld", b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  int got[12];
  memset(got, 0, sizeof got);
  CHECK_MPI(MPI_File_read_at(fh, 0, got, 12, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  /* etype 1 is bytes 16..23; etype 2 bytes 24..31; etype 3 bytes 40..47 */
  const int expect[12] = {0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 5, 6};
  CHECK(count == 12, "struct view file holds %d ints", count);
  for (int i = 0; i < 12; ++i)
    CHECK(got[i] == expect[i], "struct view: int %d is %d", i, got[i]);
  MPI_Type_free(&sft);
  MPI_Type_free(&pair);
  MPI_Barrier(MPI_COMM_WORLD);

  /* external32: big-endian on disk. */
  MPI_File_set_size(fh, 0);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT32_T, MPI_INT32_T, "external32", MPI_INFO_NULL));
  int32_t x = 0x01020304 + rank;
  CHECK_MPI(MPI_File_write_at(fh, rank, &x, 1, MPI_INT32_T, &st));
  MPI_Barrier(MPI_COMM_WORLD);
  int32_t y = 0;
  CHECK_MPI(MPI_File_read_at(fh, (rank + 1) % size, &y, 1, MPI_INT32_T, &st));
  CHECK(y == 0x01020304 + (rank + 1) % size, "external32 round trip: %x", (unsigned)y);
  MPI_Aint ext = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT32_T, &ext));
  CHECK(ext == 4, "external32 extent of int32 %ld", (long)ext);
  if (rank == 0) {
    int fd = open(path, O_RDONLY);
    unsigned char raw[4];
    CHECK(pread(fd, raw, 4, 0) == 4, "pread");
    CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4, "external32 is not big-endian");
    close(fd);
  }
  /* The large-count forms (MPI-4 _c): same calls with MPI_Count counts. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  int cw[3] = {rank, rank * 2, rank * 3}, cr[3] = {0, 0, 0};
  CHECK_MPI(MPI_File_write_at_c(fh, (MPI_Offset)3 * rank, cw, (MPI_Count)3, MPI_INT, &st));
  MPI_Count ccount = 0;
  MPI_Get_count_c(&st, MPI_INT, &ccount);
  CHECK(ccount == 3, "write_at_c count %lld", (long long)ccount);
  CHECK_MPI(MPI_File_read_at_c(fh, (MPI_Offset)3 * rank, cr, (MPI_Count)3, MPI_INT, &st));
  CHECK(memcmp(cw, cr, sizeof cw) == 0, "read_at_c differs");
  MPI_Count cext = 0;
  CHECK_MPI(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &cext));
  CHECK(cext == (MPI_Count)sizeof(double), "get_type_extent_c %lld", (long long)cext);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Type_free(&ftype);
  MPI_Type_free(&mtype);
  MPI_Type_free(&tail);
  io_rmdir(dir);
  mt_ok("io_view");
  MPI_Finalize();
  return 0;
}
