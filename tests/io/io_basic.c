/* tests/io/io_basic.c — MPI-IO group 1: open/close/delete, sizes, group, amode, sync, hints
 * (cb_nodes, cb_buffer_size, striping_factor/unit reported back), amode checks, the modes
 * DELETE_ON_CLOSE / EXCL / UNIQUE_OPEN / SEQUENTIAL / APPEND, error classes, error handlers
 * (MPI_ERRORS_RETURN by default on files and on MPI_FILE_NULL, which new files inherit; a handler
 * of MPI_File_create_errhandler gets the file), MPI_File_c2f/f2c, MPI_Register_datarep. */
#include "io_test.h"

#define MAXR 64
static int calls_of[MAXR];
static MPI_File file_of[MAXR];
static int code_of[MAXR];

static void on_error(MPI_File *fh, int *code, ...) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  ++calls_of[r];
  file_of[r] = *fh;
  code_of[r] = *code;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(rank < MAXR, "at most %d ranks", MAXR);
  char dir[IO_PATH], path[IO_PATH + 32], missing[IO_PATH + 32];
  io_tmpdir(dir);
  snprintf(path, sizeof path, "%s/basic", dir);
  snprintf(missing, sizeof missing, "%s/no/such/file", dir);
  MPI_File fh;

  /* Default handlers: MPI_ERRORS_RETURN on MPI_FILE_NULL. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "MPI_FILE_NULL's errhandler is not MPI_ERRORS_RETURN");

  /* Opening a missing file, bad amodes. */
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_NO_SUCH_FILE);
  CHECK(fh == MPI_FILE_NULL, "fh not MPI_FILE_NULL after a failed open");
  CHECK_CLASS(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
      MPI_ERR_AMODE);
  CHECK_CLASS(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
      MPI_ERR_AMODE);
  CHECK_CLASS(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh),
      MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, 0, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  CHECK_CLASS(MPI_File_get_size(MPI_FILE_NULL, NULL), MPI_ERR_FILE);

  /* Create with hints. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "1");
  MPI_Info_set(info, "cb_buffer_size", "65536");
  MPI_Info_set(info, "striping_factor", "4");
  MPI_Info_set(info, "striping_unit", "131072");
  MPI_Info_set(info, "some_unknown_hint", "whatever");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_EXCL,
                          info, &fh));
  MPI_Info_free(&info);
  MPI_Info used;
  CHECK_MPI(MPI_File_get_info(fh, &used));
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "1") == 0, "cb_nodes reported as %s", flag ? value : "(none)");
  MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "65536") == 0, "cb_buffer_size reported as %s", flag ? value : "-");
  MPI_Info_get(used, "striping_factor", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "4") == 0, "striping_factor reported as %s", flag ? value : "-");
  MPI_Info_get(used, "striping_unit", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "131072") == 0, "striping_unit reported as %s", flag ? value : "-");
  MPI_Info_free(&used);
  /* set_info changes cb_buffer_size. */
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "1048576");
  CHECK_MPI(MPI_File_set_info(fh, info));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_File_get_info(fh, &used));
  MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "1048576") == 0, "cb_buffer_size after set_info: %s", value);
  MPI_Info_free(&used);

  /* A file's default handler is MPI_ERRORS_RETURN; errors come back with their class. */
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "a file's errhandler is not MPI_ERRORS_RETURN");
  int amode = 0;
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_EXCL), "amode %d", amode);
  MPI_Group g, wg;
  int cmp;
  CHECK_MPI(MPI_File_get_group(fh, &g));
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_compare(g, wg, &cmp);
  CHECK(cmp == MPI_IDENT, "file group differs from MPI_COMM_WORLD's");
  MPI_Group_free(&g);
  MPI_Group_free(&wg);

  /* Fortran handles. */
  MPI_Fint ff = MPI_File_c2f(fh);
  CHECK(ff != 0 && MPI_File_f2c(ff) == fh, "c2f/f2c do not round-trip");
  CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL, "FILE_NULL c2f");

  /* Sizes. */
  MPI_Offset sz = -1;
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 0, "new file has size %lld", sz);
  CHECK_MPI(MPI_File_set_size(fh, 12345));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 12345, "size after set_size %lld", sz);
  CHECK_MPI(MPI_File_preallocate(fh, 1000)); /* smaller: no change */
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 12345, "size after a smaller preallocate %lld", sz);
  CHECK_MPI(MPI_File_preallocate(fh, 40000));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 40000, "size after preallocate %lld", sz);
  CHECK_MPI(MPI_File_set_size(fh, 100));
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_CLASS(MPI_File_set_size(fh, -1), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
  int one = 1;
  CHECK_CLASS(MPI_File_write_at(fh, -1, &one, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_write_at(fh, 0, &one, -1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_File_write_at(fh, 0, &one, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE),
              MPI_ERR_TYPE);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP);

  /* A handler of the program's: gets the file and the code. */
  MPI_Errhandler mine;
  CHECK_MPI(MPI_File_create_errhandler(on_error, &mine));
  CHECK_MPI(MPI_File_set_errhandler(fh, mine));
  calls_of[rank] = 0;
  MPI_File_set_size(fh, -5);
  CHECK(calls_of[rank] == 1 && file_of[rank] == fh && io_class(code_of[rank]) == MPI_ERR_ARG,
        "handler called %d times (code class %d)", calls_of[rank], io_class(code_of[rank]));
  CHECK_MPI(MPI_File_call_errhandler(fh, MPI_ERR_IO));
  CHECK(calls_of[rank] == 2 && code_of[rank] == MPI_ERR_IO, "call_errhandler did not call it");
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "close did not set MPI_FILE_NULL");

  /* EXCL on an existing file; RDONLY writes; WRONLY reads. */
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_EXCL,
                            MPI_INFO_NULL, &fh),
              MPI_ERR_FILE_EXISTS);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 100, "size after reopen %lld", sz);
  CHECK_CLASS(MPI_File_write_at(fh, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY);
  CHECK_CLASS(MPI_File_set_size(fh, 10), MPI_ERR_READ_ONLY);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_CLASS(MPI_File_read_at(fh, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
  CHECK_MPI(MPI_File_close(&fh));

  /* MPI_FILE_NULL's handler is inherited by files opened later, and gets open's errors. */
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
  calls_of[rank] = 0;
  MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(calls_of[rank] == 1 && file_of[rank] == MPI_FILE_NULL &&
            io_class(code_of[rank]) == MPI_ERR_NO_SUCH_FILE,
        "MPI_FILE_NULL's handler not called on open (%d calls)", calls_of[rank]);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path,
                          MPI_MODE_RDWR | MPI_MODE_APPEND | MPI_MODE_UNIQUE_OPEN |
                              MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == mine, "a new file did not inherit MPI_FILE_NULL's handler");
  MPI_Errhandler_free(&eh);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 100, "MPI_MODE_APPEND: position %lld, expected 100", pos);
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 100, "MPI_MODE_APPEND: shared position %lld, expected 100", pos);
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_File_close(&fh)); /* deletes it */
  CHECK(access(path, F_OK) != 0, "MPI_MODE_DELETE_ON_CLOSE left the file");
  MPI_Errhandler_free(&mine);

  /* SEQUENTIAL: only shared-pointer accesses. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path,
                          MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                          &fh));
  CHECK_CLASS(MPI_File_write_at(fh, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE),
              MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_MPI(MPI_File_write_ordered(fh, &rank, 1, MPI_INT, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == (MPI_Offset)(size * sizeof(int)), "sequential file size %lld", sz);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  /* A data representation needs its extent function (io_datarep tests the rest). */
  CHECK_CLASS(
      MPI_Register_datarep("mine", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, NULL, NULL),
      MPI_ERR_ARG);
  io_rmdir(dir);
  mt_ok("io_basic");
  MPI_Finalize();
  return 0;
}
