/* tests/io/io_coll.c — MPI-IO group 3: collective reads and writes (_all, _at_all) through
 * two-phase aggregation. Every rank writes every size-th block of a file collectively (a strided
 * view), under several hint settings: the default aggregators, cb_nodes=1 and 2, and a small
 * cb_buffer_size so that the aggregators work in many rounds; then the file is read back
 * collectively with a different decomposition (each rank a contiguous slice of other ranks'
 * data) and every int is checked, and independently with the strided view; every rank also
 * reads the same end of the file and past it (overlapping pieces). One rank takes part with no
 * data. Blocks are odd-sized (not a multiple of the rounds' sizes). */
#include "io_test.h"

#define BLOCK 37 /* ints */
#define ROWS 29

static int value(int rank, int i) {
  return rank * 1000003 + i * 7 + 1;
}

static void run(const char *path, const char *cb_nodes, const char *cb_buffer_size, int use_at) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Info info;
  MPI_Info_create(&info);
  if (cb_nodes) MPI_Info_set(info, "cb_nodes", cb_nodes);
  if (cb_buffer_size) MPI_Info_set(info, "cb_buffer_size", cb_buffer_size);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  MPI_Datatype vec, ftype;
  MPI_Type_vector(1, BLOCK, size * BLOCK, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(size * BLOCK * sizeof(int)), &ftype);
  MPI_Type_commit(&ftype);
  MPI_Type_free(&vec);
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(rank * BLOCK * sizeof(int)), MPI_INT, ftype,
                              "native", MPI_INFO_NULL));
  const int n = ROWS * BLOCK;
  int *mine = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i)
    mine[i] = value(rank, i);
  MPI_Status st;
  /* The last rank writes its rows in two calls (the second with nothing to write for others). */
  if (use_at) {
    CHECK_MPI(MPI_File_write_at_all(fh, 0, mine, n, MPI_INT, &st));
  } else {
    CHECK_MPI(MPI_File_write_all(fh, mine, n / 2, MPI_INT, &st));
    CHECK_MPI(MPI_File_write_all(fh, mine + n / 2, n - n / 2, MPI_INT, &st));
  }
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == (use_at ? n : n - n / 2), "write count %d", count);
  MPI_Offset fsize = 0;
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == (MPI_Offset)sizeof(int) * n * size, "file size %lld", fsize);

  /* Read back: default view, rank r reads the r-th contiguous slice (rank size-1 the rest),
   * and rank 0 reads nothing when there are several ranks. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  const int total = n * size;
  const int reader = size > 1 ? size - 1 : 1, first = size > 1 ? 1 : 0;
  const int per = total / reader;
  const int lo = rank < first ? 0 : (rank - first) * per;
  const int cnt = rank < first ? 0 : (rank == size - 1 ? total - lo : per);
  int *slice = malloc(sizeof(int) * (size_t)(cnt + 1));
  CHECK_MPI(MPI_File_read_at_all(fh, lo, slice, cnt, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == cnt, "read count %d, expected %d", count, cnt);
  for (int k = 0; k < cnt; ++k) {
    const int g = lo + k, row = g / (size * BLOCK), r = (g / BLOCK) % size;
    const int i = row * BLOCK + g % BLOCK;
    CHECK(slice[k] == value(r, i), "int %d of the file is %d, expected %d (rank %d's %d)", g,
          slice[k], value(r, i), r, i);
  }
  free(slice);
  /* Every rank reads the same ints collectively, the last 1500 of the file and 20 past its end:
   * the pieces of all ranks overlap (several rounds of the small buffers), and the read stops at
   * the end of the file. */
  {
    const int want = total < 1500 ? total : 1500, at = total - want;
    int *same = malloc(sizeof(int) * (size_t)(want + 20));
    CHECK_MPI(MPI_File_read_at_all(fh, at, same, want + 20, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == want, "overlapping read_at_all got %d ints, expected %d", count, want);
    for (int k = 0; k < want; ++k) {
      const int g = at + k, row = g / (size * BLOCK), r = (g / BLOCK) % size;
      const int i = row * BLOCK + g % BLOCK;
      CHECK(same[k] == value(r, i), "overlapping read: int %d of the file is %d, expected %d", g,
            same[k], value(r, i));
    }
    free(same);
  }
  /* Read collectively through the strided view, with the individual pointer. */
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(rank * BLOCK * sizeof(int)), MPI_INT, ftype,
                              "native", MPI_INFO_NULL));
  int *back = calloc((size_t)n, sizeof(int));
  CHECK_MPI(MPI_File_read_all(fh, back, n, MPI_INT, &st));
  CHECK(memcmp(back, mine, sizeof(int) * n) == 0, "read_all through the view differs");
  MPI_Offset pos;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == n, "position after read_all %lld", pos);
  /* Past the end: nothing more. */
  CHECK_MPI(MPI_File_read_all(fh, back, 5, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 0, "read_all past the end got %d ints", count);
  free(back);
  free(mine);
  MPI_Type_free(&ftype);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char dir[IO_PATH], path[IO_PATH + 32];
  io_tmpdir(dir);
  snprintf(path, sizeof path, "%s/coll", dir);
  run(path, NULL, NULL, 1);
  run(path, "1", "4096", 1);
  run(path, "2", "1000", 0);
  run(path, NULL, "8192", 0);
  io_rmdir(dir);
  mt_ok("io_coll");
  MPI_Finalize();
  return 0;
}
