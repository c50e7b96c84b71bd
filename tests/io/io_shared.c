/* tests/io/io_shared.c — MPI-IO group 4: the shared file pointer (write_shared from every rank:
 * each record lands exactly once; seek_shared, get_position_shared; write_ordered/read_ordered in
 * rank order), non-blocking forms completed by MPI_Wait/MPI_Waitall/MPI_Test (iwrite_at, iread_at,
 * iwrite/iread, iwrite_at_all, iread_all, iwrite_shared), split collectives (_begin/_end),
 * atomic mode (set/get_atomicity, then overlapping writes: each int is one writer's), and
 * MPI_File_get_type_extent. */
#include "io_test.h"

#define REC 16 /* ints per record */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[IO_PATH], path[IO_PATH + 32];
  io_tmpdir(dir);
  snprintf(path, sizeof path, "%s/shared", dir);
  MPI_File fh;
  MPI_Status st;
  int count;
  CHECK_MPI(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

  /* write_shared: 3 records per rank, each [rank, k, ...]; every record once, none torn. */
  for (int k = 0; k < 3; ++k) {
    int rec[REC];
    for (int i = 0; i < REC; ++i)
      rec[i] = rank * 1000 + k * 100 + i;
    CHECK_MPI(MPI_File_write_shared(fh, rec, REC, MPI_INT, &st));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset sp = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &sp));
  CHECK(sp == (MPI_Offset)3 * size * REC * (MPI_Offset)sizeof(int), "shared pointer %lld", sp);
  int nrec = 3 * size;
  int *all = malloc(sizeof(int) * (size_t)(nrec * REC));
  CHECK_MPI(MPI_File_read_at(fh, 0, all, nrec * REC * (int)sizeof(int), MPI_BYTE, &st));
  int *seen = calloc((size_t)(size * 3), sizeof(int));
  for (int r = 0; r < nrec; ++r) {
    const int *rec = all + r * REC;
    const int who = rec[0] / 1000, k = (rec[0] % 1000) / 100;
    CHECK(who >= 0 && who < size && k >= 0 && k < 3, "record %d is garbage (%d)", r, rec[0]);
    for (int i = 0; i < REC; ++i)
      CHECK(rec[i] == rec[0] + i, "record %d torn at %d", r, i);
    seen[who * 3 + k]++;
  }
  for (int i = 0; i < 3 * size; ++i)
    CHECK(seen[i] == 1, "record %d written %d times", i, seen[i]);
  free(seen);
  free(all);

  /* seek_shared, then ordered writes: rank order after the pointer. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_get_position_shared(fh, &sp));
  CHECK(sp == 0, "after seek_shared: %lld", sp);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  int mine[3] = {rank, rank, rank};
  const int n = rank % 3 + 1; /* ranks write 1..3 ints */
  CHECK_MPI(MPI_File_write_ordered(fh, mine, n, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == n, "write_ordered count %d", count);
  int expect_total = 0;
  for (int r = 0; r < size; ++r)
    expect_total += r % 3 + 1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &sp));
  CHECK(sp == expect_total, "shared pointer after ordered write %lld, expected %d", sp,
        expect_total);
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  int back[3] = {-1, -1, -1};
  CHECK_MPI(MPI_File_read_ordered(fh, back, n, MPI_INT, &st));
  for (int i = 0; i < n; ++i)
    CHECK(back[i] == rank, "read_ordered got %d", back[i]);

  /* Split collectives. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  int two[2] = {rank + 7, rank + 8};
  CHECK_MPI(MPI_File_write_at_all_begin(fh, 2 * rank, two, 2, MPI_INT));
  CHECK_CLASS(MPI_File_write_at_all_begin(fh, 2 * rank, two, 2, MPI_INT), MPI_ERR_OTHER);
  CHECK_MPI(MPI_File_write_at_all_end(fh, two, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 2, "split write count %d", count);
  int rd[2] = {0, 0};
  CHECK_MPI(MPI_File_seek(fh, 2 * ((rank + 1) % size), MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all_begin(fh, rd, 2, MPI_INT));
  CHECK_MPI(MPI_File_read_all_end(fh, rd, &st));
  CHECK(rd[0] == (rank + 1) % size + 7 && rd[1] == (rank + 1) % size + 8, "split read %d %d", rd[0],
        rd[1]);
  CHECK_CLASS(MPI_File_read_all_end(fh, rd, &st), MPI_ERR_OTHER);
  int ord[2] = {0, 0};
  CHECK_MPI(MPI_File_write_ordered_begin(fh, two, 2, MPI_INT));
  CHECK_MPI(MPI_File_write_ordered_end(fh, two, &st));
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_ordered_begin(fh, ord, 2, MPI_INT));
  CHECK_MPI(MPI_File_read_ordered_end(fh, ord, &st));
  CHECK(ord[0] == rank + 7 && ord[1] == rank + 8, "split ordered %d %d", ord[0], ord[1]);

  /* Non-blocking forms. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_size(fh, 0));
  MPI_Request req[4];
  int a[4] = {rank, rank + 1, rank + 2, rank + 3};
  CHECK_MPI(MPI_File_iwrite_at(fh, 4 * rank, a, 2, MPI_INT, &req[0]));
  CHECK_MPI(MPI_File_seek(fh, 4 * rank + 2, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iwrite(fh, a + 2, 2, MPI_INT, &req[1]));
  MPI_Status sts[2];
  CHECK_MPI(MPI_Waitall(2, req, sts));
  MPI_Get_count(&sts[1], MPI_INT, &count);
  CHECK(count == 2, "iwrite's status count %d", count);
  MPI_Barrier(MPI_COMM_WORLD);
  int b[4] = {0, 0, 0, 0};
  const int peer = (rank + size - 1) % size;
  CHECK_MPI(MPI_File_iread_at(fh, 4 * peer, b, 4, MPI_INT, &req[0]));
  int done = 0;
  while (!done)
    CHECK_MPI(MPI_Test(&req[0], &done, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 4, "iread_at count %d", count);
  for (int i = 0; i < 4; ++i)
    CHECK(b[i] == peer + i, "iread_at got %d", b[i]);
  int c[4] = {rank * 10, rank * 10 + 1, rank * 10 + 2, rank * 10 + 3};
  CHECK_MPI(MPI_File_iwrite_at_all(fh, 4 * rank, c, 4, MPI_INT, &req[0]));
  CHECK_MPI(MPI_Wait(&req[0], &st));
  CHECK_MPI(MPI_File_seek(fh, 4 * peer, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iread_all(fh, b, 4, MPI_INT, &req[0]));
  CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  for (int i = 0; i < 4; ++i)
    CHECK(b[i] == peer * 10 + i, "iread_all got %d", b[i]);
  CHECK_MPI(MPI_File_iread(fh, b, 1, MPI_INT, &req[0]));
  CHECK_MPI(MPI_Wait(&req[0], &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == (peer == size - 1 ? 0 : 1), "iread at the next rank's data: %d ints", count);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
  CHECK_MPI(MPI_File_iwrite_shared(fh, &rank, 1, MPI_INT, &req[0]));
  CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset fsz = 0;
  MPI_File_get_size(fh, &fsz);
  CHECK(fsz == (MPI_Offset)sizeof(int) * 5 * size, "size after iwrite_shared %lld", fsz);

  /* Atomic mode: every rank writes its rank over the same 64 ints, several times; each int is
   * one whole value, and with atomicity all 64 are the same writer's. */
  int flag = -1;
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0, "atomicity on by default");
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1, "atomicity not set");
  int big[64];
  for (int it = 0; it < 5; ++it) {
    for (int i = 0; i < 64; ++i)
      big[i] = rank;
    CHECK_MPI(MPI_File_write_at(fh, 1000, big, 64, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read_at(fh, 1000, big, 64, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 1; i < 64; ++i)
      CHECK(big[i] == big[0], "atomic mode: mixed writers %d %d", big[0], big[i]);
  }
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));

  MPI_Aint ext = 0;
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &v);
  MPI_Type_commit(&v);
  CHECK_MPI(MPI_File_get_type_extent(fh, v, &ext));
  CHECK(ext == 4 * (MPI_Aint)sizeof(double), "type extent %ld", (long)ext);
  MPI_Type_free(&v);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  io_rmdir(dir);
  mt_ok("io_shared");
  MPI_Finalize();
  return 0;
}
