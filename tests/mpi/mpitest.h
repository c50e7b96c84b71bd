/* tests/mpi/mpitest.h — small helpers shared by the MPI test programs in this directory.
 *
 * The programs are plain C99 MPI programs. Under ampi every rank is a user-level thread of one
 * process, so these helpers keep no mutable global state: everything lives on the caller's stack.
 *
 *   CHECK(cond, fmt, ...)   on failure print "FAIL [rank R] file:line: cond: <message>" to stderr
 *                           and end the job with MPI_Abort(MPI_COMM_WORLD, 1)
 *   CHECK_MPI(call)         the call must return MPI_SUCCESS
 *   mt_ok(name)             rank 0 of MPI_COMM_WORLD prints "ok <name> (<size> ranks)"
 *   mt_skip(name, why)      rank 0 prints "skipped <name>: <why>"
 */
#ifndef AMPI_TESTS_MPI_MPITEST_H
#define AMPI_TESTS_MPI_MPITEST_H

#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int mt_world_rank(void) {
  int initialized = 0, finalized = 0, rank = -1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

static inline void mt_fail(const char *file, int line, const char *expr, const char *fmt, ...) {
  va_list ap;
  int initialized = 0, finalized = 0;
  fflush(stdout);
  fprintf(stderr, "FAIL [rank %d] %s:%d: %s: ", mt_world_rank(), file, line, expr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

static inline const char *mt_error_name(int code, char *buf) {
  int len = 0;
  if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS)
    snprintf(buf, MPI_MAX_ERROR_STRING, "(not an error code)");
  return buf;
}

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) mt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                  \
  } while (0)

#define CHECK_MPI(call)                                                                            \
  do {                                                                                             \
    int mt_rc_ = (call);                                                                           \
    if (mt_rc_ != MPI_SUCCESS) {                                                                   \
      char mt_buf_[MPI_MAX_ERROR_STRING];                                                          \
      mt_fail(__FILE__, __LINE__, #call, "returned %d (%s)", mt_rc_,                               \
              mt_error_name(mt_rc_, mt_buf_));                                                     \
    }                                                                                              \
  } while (0)

/* The error class of a return code (the code itself when MPI_Error_class fails). */
static inline int mt_class(int code) {
  int cls = code;
  if (MPI_Error_class(code, &cls) != MPI_SUCCESS) return code;
  return cls;
}

static inline void mt_ok(const char *name) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    printf("ok %s (%d ranks)\n", name, size);
    fflush(stdout);
  }
}

static inline void mt_skip(const char *name, const char *why) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("skipped %s: %s\n", name, why);
    fflush(stdout);
  }
}

/* Deterministic test pattern: byte i of a message identified by (a, b). */
static inline unsigned char mt_byte(long i, int a, int b) {
  return (unsigned char)((unsigned long)i * 131u + (unsigned long)a * 31u + (unsigned long)b * 7u +
                         ((unsigned long)i >> 8) * 17u);
}

static inline void mt_fill(unsigned char *buf, long n, int a, int b) {
  long i;
  for (i = 0; i < n; ++i)
    buf[i] = mt_byte(i, a, b);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long mt_verify(const unsigned char *buf, long n, int a, int b) {
  long i;
  for (i = 0; i < n; ++i)
    if (buf[i] != mt_byte(i, a, b)) return i;
  return -1;
}

static inline void *mt_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "FAIL [rank %d]: out of memory (%zu bytes)\n", mt_world_rank(), n);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
  }
  return p;
}

#endif
