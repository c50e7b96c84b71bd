/* tests/gpu/gpu_mpi_test.h — what the MPI GPU tests that check values share: EXPECT (a failed
 * check prints the rank and counts), device buffers of ints (copies from the host wait until the
 * data is on the device: another process may read it on a stream of its own), and the end of a
 * test (the failures of all ranks summed, exit status 1 if any). */
#ifndef AMPI_TESTS_GPU_MPI_TEST_H
#define AMPI_TESTS_GPU_MPI_TEST_H
#include "gpu_test.h"

#include <mpi.h>

static int rank, size, failures;

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      ++failures;                                                                                  \
      fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                          \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

static inline int *dev_ints(size_t count) {
  CUdeviceptr d = 0;
  GPU_CHECK(cu.MemAlloc(&d, count ? count * sizeof(int) : 1));
  return (int *)d;
}
static inline void dev_free(const void *d) {
  GPU_CHECK(cu.MemFree((CUdeviceptr)d));
}
static inline void to_dev_bytes(void *d, const void *h, size_t bytes) {
  GPU_CHECK(cu.MemcpyHtoD((CUdeviceptr)d, h, bytes));
  GPU_CHECK(cu.CtxSynchronize()); /* from pageable memory the copy may still be in flight */
}
static inline void from_dev_bytes(void *h, const void *d, size_t bytes) {
  GPU_CHECK(cu.MemcpyDtoH(h, (CUdeviceptr)d, bytes));
}
static inline void to_dev(int *d, const int *h, size_t count) {
  to_dev_bytes(d, h, count * sizeof(int));
}
static inline void from_dev(int *h, const int *d, size_t count) {
  from_dev_bytes(h, d, count * sizeof(int));
}

/* Sums the failures of all ranks, prints the verdict (rank 0), finalizes; the exit status. */
static inline int finish(const char *name) {
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %s (%d failures)\n", name, total ? "FAILED" : "ok", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
#endif
