/* tests/io/io_datarep.c — user data representations (MPI_Register_datarep, MPI-3.1 13.5.3).
 * "wide64" stores each int widened to 8 bytes (little-endian int64): every rank writes its
 * interleaved share of a file through a vector filetype (blocks of B ints, every size-th block)
 * collectively, the file's bytes are checked with plain POSIX reads (its size and every int64),
 * then read back collectively and independently; the conversion callbacks see the right counts
 * and positions (in etypes), MPI_File_get_type_extent gives the file's 8 bytes, the individual
 * pointer moves in etypes. "swap32" (the large-count form, MPI_Register_datarep_c) stores ints
 * byte-swapped at their native size; "plain" (MPI_CONVERSION_FN_NULL) stores native bytes. Errors:
 * a name registered twice or a predefined one (MPI_ERR_DUP_DATAREP), an unknown name in
 * MPI_File_set_view (MPI_ERR_UNSUPPORTED_DATAREP), a failing conversion callback. */
#include "io_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#define B 3
#define NB 4 /* blocks per rank */

/* What the callbacks saw, per rank (extra_state points at the rank's own). */
struct seen {
  int writes, reads, extents;
  long long last_count;
  MPI_Offset last_position;
  int fail; /* the next conversion returns MPI_ERR_CONVERSION */
};

static int value(int rank, int i) {
  return -(rank * 100000 + i) - 7; /* negative: the widening must sign-extend */
}

static int int_count(MPI_Datatype type, long long count) {
  int size = 0;
  MPI_Type_size(type, &size);
  return (int)(count * size / (int)sizeof(int));
}

/* ---- wide64: ints as 8-byte little-endian integers (userbuf: contiguous ints) ---- */
static int wide_extent(MPI_Datatype type, MPI_Aint *ext, void *extra) {
  ((struct seen *)extra)->extents++;
  if (type != MPI_INT) return MPI_ERR_TYPE;
  *ext = 8;
  return MPI_SUCCESS;
}
static int wide_write(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                      MPI_Offset position, void *extra) {
  struct seen *s = extra;
  s->writes++;
  s->last_count = count;
  s->last_position = position;
  if (s->fail) return MPI_ERR_CONVERSION;
  const int *in = userbuf;
  unsigned char *out = filebuf;
  for (int i = 0; i < int_count(type, count); ++i) {
    uint64_t v = (uint64_t)(int64_t)in[i];
    for (int b = 0; b < 8; ++b)
      out[8 * i + b] = (unsigned char)(v >> (8 * b));
  }
  return MPI_SUCCESS;
}
static int wide_read(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                     MPI_Offset position, void *extra) {
  struct seen *s = extra;
  s->reads++;
  s->last_count = count;
  s->last_position = position;
  const unsigned char *in = filebuf;
  int *out = userbuf;
  for (int i = 0; i < int_count(type, count); ++i) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b)
      v |= (uint64_t)in[8 * i + b] << (8 * b);
    out[i] = (int)(int64_t)v;
  }
  return MPI_SUCCESS;
}

/* ---- swap32: ints byte-swapped, 4 bytes (the large-count form) ---- */
static int same_extent(MPI_Datatype type, MPI_Aint *ext, void *extra) {
  (void)extra;
  int size = 0;
  MPI_Type_size(type, &size);
  *ext = size;
  return MPI_SUCCESS;
}
static int swap_conv(void *from, MPI_Datatype type, MPI_Count count, void *to, void *extra) {
  struct seen *s = extra;
  s->last_count = (long long)count;
  const unsigned char *in = from;
  unsigned char *out = to;
  for (int i = 0; i < int_count(type, count); ++i)
    for (int b = 0; b < 4; ++b)
      out[4 * i + b] = in[4 * i + 3 - b];
  return MPI_SUCCESS;
}
static int swap_write(void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                      MPI_Offset position, void *extra) {
  ((struct seen *)extra)->writes++;
  ((struct seen *)extra)->last_position = position;
  return swap_conv(userbuf, type, count, filebuf, extra);
}
static int swap_read(void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                     MPI_Offset position, void *extra) {
  ((struct seen *)extra)->reads++;
  ((struct seen *)extra)->last_position = position;
  return swap_conv(filebuf, type, count, userbuf, extra);
}

static void check_wide_file(const char *path, int size) {
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0, "open(%s)", path);
  const long long ints = (long long)size * NB * B;
  CHECK(lseek(fd, 0, SEEK_END) == (off_t)(ints * 8), "file size %lld, expected %lld",
        (long long)lseek(fd, 0, SEEK_END), ints * 8);
  for (long long k = 0; k < ints; ++k) {
    unsigned char b[8];
    CHECK(pread(fd, b, 8, (off_t)(k * 8)) == 8, "pread at %lld", k * 8);
    uint64_t v = 0;
    for (int j = 0; j < 8; ++j)
      v |= (uint64_t)b[j] << (8 * j);
    /* int k of the file: row k / (size*B), owner (k % (size*B)) / B, its block k / (size*B) */
    const int owner = (int)(k % (size * B)) / B;
    const int i = (int)(k / (size * B)) * B + (int)(k % B);
    CHECK((int64_t)v == (int64_t)value(owner, i), "file int64 %lld is %lld, expected %d", k,
          (long long)(int64_t)v, value(owner, i));
  }
  close(fd);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[IO_PATH], path[IO_PATH + 32];
  io_tmpdir(dir);
  struct seen wide = {0}, swap = {0}, plain = {0};

  /* Registration and its errors (every rank registers its own: each is an MPI process). */
  CHECK_MPI(MPI_Register_datarep("wide64", wide_read, wide_write, wide_extent, &wide));
  CHECK_MPI(MPI_Register_datarep_c("swap32", swap_read, swap_write, same_extent, &swap));
  CHECK_MPI(MPI_Register_datarep("plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                 same_extent, &plain));
  CHECK_CLASS(MPI_Register_datarep("wide64", wide_read, wide_write, wide_extent, &wide),
              MPI_ERR_DUP_DATAREP);
  CHECK_CLASS(MPI_Register_datarep_c("swap32", swap_read, swap_write, same_extent, &swap),
              MPI_ERR_DUP_DATAREP);
  CHECK_CLASS(MPI_Register_datarep("external32", wide_read, wide_write, wide_extent, &wide),
              MPI_ERR_DUP_DATAREP);
  CHECK_CLASS(MPI_Register_datarep("native", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                   same_extent, NULL),
              MPI_ERR_DUP_DATAREP);

  /* ---- wide64, collective, through a strided view ---- */
  snprintf(path, sizeof path, "%s/wide", dir);
  MPI_File fh;
  CHECK_MPI(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP);
  MPI_Datatype vec, ftype;
  MPI_Type_vector(1, B, size * B, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(size * B * sizeof(int)), &ftype);
  MPI_Type_commit(&ftype);
  MPI_Type_free(&vec);
  /* disp is in file bytes: block `rank` of 8-byte ints */
  CHECK_MPI(
      MPI_File_set_view(fh, (MPI_Offset)(rank * B * 8), MPI_INT, ftype, "wide64", MPI_INFO_NULL));
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_Offset disp;
  MPI_Datatype et, ft;
  CHECK_MPI(MPI_File_get_view(fh, &disp, &et, &ft, rep));
  CHECK(strcmp(rep, "wide64") == 0, "get_view datarep \"%s\"", rep);
  MPI_Type_free(&ft);
  MPI_Aint fext = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &fext));
  CHECK(fext == 8, "file extent of MPI_INT in wide64: %ld", (long)fext);
  int out[NB * B], in[NB * B];
  for (int i = 0; i < NB * B; ++i)
    out[i] = value(rank, i);
  MPI_Status st;
  /* The first block at an explicit offset (etypes), the rest with the individual pointer. */
  CHECK_MPI(MPI_File_write_at_all(fh, 0, out, B, MPI_INT, &st));
  CHECK(wide.last_count == B && wide.last_position == 0, "write callback count %lld position %lld",
        wide.last_count, (long long)wide.last_position);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == B, "write_at_all count %d", count);
  CHECK_MPI(MPI_File_seek(fh, B, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_write_all(fh, out + B, (NB - 1) * B, MPI_INT, &st));
  CHECK(wide.last_count == (NB - 1) * B && wide.last_position == B,
        "write callback count %lld position %lld", wide.last_count, (long long)wide.last_position);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == NB * B, "pointer after the writes: %lld etypes", (long long)pos);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) check_wide_file(path, size);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Read back: collectively, then block by block independently (explicit offsets). */
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, in, NB * B, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == NB * B, "read_at_all count %d", count);
  CHECK(wide.reads >= 1 && wide.last_count == NB * B, "read callback count %lld", wide.last_count);
  for (int i = 0; i < NB * B; ++i)
    CHECK(in[i] == value(rank, i), "collective read: int %d is %d, expected %d", i, in[i],
          value(rank, i));
  memset(in, 0, sizeof in);
  for (int b = NB - 1; b >= 0; --b) {
    CHECK_MPI(MPI_File_read_at(fh, b * B, in + b * B, B, MPI_INT, &st));
    CHECK(wide.last_position == b * B, "read callback position %lld, expected %d",
          (long long)wide.last_position, b * B);
  }
  for (int i = 0; i < NB * B; ++i)
    CHECK(in[i] == value(rank, i), "independent read: int %d is %d, expected %d", i, in[i],
          value(rank, i));
  /* Past the end of my share: the file ends there, nothing converted. */
  CHECK_MPI(MPI_File_read_at(fh, NB * B, in, B, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 0, "read past the end: count %d", count);
  /* A failing write conversion is the write's error, and nothing is written. */
  wide.fail = 1;
  CHECK_CLASS(MPI_File_write_at(fh, NB * B, out, B, MPI_INT, &st), MPI_ERR_CONVERSION);
  wide.fail = 0;
  CHECK(wide.extents > 0, "the extent function was never called");
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size == (off_t)size * NB * B * 8,
          "the failed write changed the file's size");
    CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  }

  /* ---- swap32 (large-count callbacks), independent, contiguous per rank ---- */
  snprintf(path, sizeof path, "%s/swap", dir);
  CHECK_MPI(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(rank * NB * B * 4), MPI_INT, MPI_INT, "swap32",
                              MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write(fh, out, NB * B, MPI_INT, &st));
  CHECK(swap.writes == 1 && swap.last_count == NB * B,
        "swap32 write callback: %d calls, count %lld", swap.writes, swap.last_count);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  {
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open(%s)", path);
    unsigned char b[NB * B * 4];
    CHECK(pread(fd, b, sizeof b, (off_t)(rank * NB * B * 4)) == (ssize_t)sizeof b, "pread");
    for (int i = 0; i < NB * B; ++i) {
      unsigned char n[4];
      memcpy(n, &out[i], 4);
      CHECK(b[4 * i] == n[3] && b[4 * i + 1] == n[2] && b[4 * i + 2] == n[1] &&
                b[4 * i + 3] == n[0],
            "swap32: int %d is not stored byte-swapped", i);
    }
    close(fd);
  }
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, in, NB * B, MPI_INT, &st));
  for (int i = 0; i < NB * B; ++i)
    CHECK(in[i] == value(rank, i), "swap32 read: int %d is %d", i, in[i]);
  CHECK(swap.reads == 1, "swap32 read callback calls: %d", swap.reads);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));

  /* ---- plain (MPI_CONVERSION_FN_NULL): native bytes ---- */
  snprintf(path, sizeof path, "%s/plain", dir);
  CHECK_MPI(
      MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(
      MPI_File_set_view(fh, (MPI_Offset)(rank * B * 4), MPI_INT, ftype, "plain", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_at_all(fh, 0, out, NB * B, MPI_INT, &st));
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, in, NB * B, MPI_INT, &st));
  for (int i = 0; i < NB * B; ++i)
    CHECK(in[i] == value(rank, i), "plain read: int %d is %d", i, in[i]);
  CHECK(plain.writes == 0 && plain.reads == 0, "MPI_CONVERSION_FN_NULL was called");
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size == (off_t)size * NB * B * 4, "plain file size %lld",
          (long long)sb.st_size);
    int fd = open(path, O_RDONLY), v = 0;
    CHECK(fd >= 0 && pread(fd, &v, 4, 4) == 4 && v == value(0, 1), "plain: native int 1 is %d", v);
    close(fd);
    CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  }
  MPI_Type_free(&ftype);
  io_rmdir(dir);
  if (rank == 0) printf("io_datarep: ok (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
