/* tests/gpu/gpu_typed.c — point-to-point calls that make the library itself read or write device
 * memory: non-contiguous datatypes on device buffers (device to host, host to device, device to
 * device; the gaps of a strided receive keep their bytes), MPI_Bsend from a device buffer,
 * MPI_Sendrecv_replace on a device buffer, and MPI_Pack/MPI_Unpack between device and host.
 * Rank r pairs with r ^ 1 (an even number of ranks). Every value is checked against one computed
 * here. Exits 77 (skipped) before MPI_Init where there is no GPU. */
#include "gpu_mpi_test.h"

#include <string.h>

#define N 256 /* ints of a strided buffer: N/2 elements, every other int */

static int val(int r, int i) {
  return r * 10000 + i;
}

static void pair_tests(int peer);

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int peer = rank ^ 1;
  if (peer < size) pair_tests(peer); /* an odd number of ranks: the last one has no partner */
  return finish("gpu_typed");
}

static void pair_tests(int peer) {
  MPI_Datatype strided;
  MPI_Type_vector(N / 2, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int h[N], *d = dev_ints(N), *d2 = dev_ints(N);

  /* 1. Strided device send -> contiguous host receive, and back: contiguous host send ->
   *    strided device receive whose gaps (odd ints) keep -1. */
  for (int i = 0; i < N; ++i)
    h[i] = val(rank, i);
  to_dev(d, h, N);
  int got[N / 2];
  MPI_Sendrecv(d, 1, strided, peer, 1, got, N / 2, MPI_INT, peer, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int k = 0; k < N / 2; ++k)
    if (got[k] != val(peer, 2 * k)) {
      EXPECT(0, "strided device -> host: [%d] = %d", k, got[k]);
      break;
    }
  for (int i = 0; i < N; ++i)
    h[i] = -1;
  to_dev(d2, h, N);
  for (int k = 0; k < N / 2; ++k)
    got[k] = val(rank, 5000 + k);
  MPI_Sendrecv(got, N / 2, MPI_INT, peer, 2, d2, 1, strided, peer, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  from_dev(h, d2, N);
  for (int i = 0; i < N; ++i) {
    const int want = i % 2 ? -1 : val(peer, 5000 + i / 2);
    if (h[i] != want) {
      EXPECT(0, "host -> strided device: [%d] = %d, want %d", i, h[i], want);
      break;
    }
  }

  /* 2. Strided device -> strided device, non-blocking, the receive posted first. */
  for (int i = 0; i < N; ++i)
    h[i] = -2;
  to_dev(d2, h, N);
  MPI_Request r[2];
  MPI_Irecv(d2, 1, strided, peer, 3, MPI_COMM_WORLD, &r[0]);
  MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 9, NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE); /* both receives are posted */
  MPI_Isend(d, 1, strided, peer, 3, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  from_dev(h, d2, N);
  for (int i = 0; i < N; ++i) {
    const int want = i % 2 ? -2 : val(peer, i);
    if (h[i] != want) {
      EXPECT(0, "strided device -> strided device: [%d] = %d, want %d", i, h[i], want);
      break;
    }
  }

  /* 3. MPI_Bsend from a device buffer (contiguous and strided). */
  int bufsize = 2 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  void *attached = malloc((size_t)bufsize);
  MPI_Buffer_attach(attached, bufsize);
  MPI_Bsend(d, N, MPI_INT, peer, 4, MPI_COMM_WORLD);
  MPI_Bsend(d, 1, strided, peer, 5, MPI_COMM_WORLD);
  int whole[N];
  MPI_Recv(whole, N, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(got, N / 2, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < N; ++i)
    if (whole[i] != val(peer, i)) {
      EXPECT(0, "bsend from device: [%d] = %d", i, whole[i]);
      break;
    }
  for (int k = 0; k < N / 2; ++k)
    if (got[k] != val(peer, 2 * k)) {
      EXPECT(0, "strided bsend from device: [%d] = %d", k, got[k]);
      break;
    }
  MPI_Buffer_detach(&attached, &bufsize);
  free(attached);

  /* 4. Sendrecv_replace on a strided device buffer. */
  for (int i = 0; i < N; ++i)
    h[i] = val(rank, i);
  to_dev(d2, h, N);
  MPI_Sendrecv_replace(d2, 1, strided, peer, 6, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  from_dev(h, d2, N);
  for (int i = 0; i < N; ++i) {
    const int want = i % 2 ? val(rank, i) : val(peer, i);
    if (h[i] != want) {
      EXPECT(0, "sendrecv_replace: [%d] = %d, want %d", i, h[i], want);
      break;
    }
  }

  /* 5. MPI_Pack from a strided device buffer into host memory, MPI_Unpack into device memory. */
  char packed[N * sizeof(int)];
  int pos = 0;
  MPI_Pack(d, 1, strided, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
  EXPECT(pos == (int)(N / 2 * sizeof(int)), "MPI_Pack position %d", pos);
  for (int i = 0; i < N; ++i)
    h[i] = -3;
  to_dev(d2, h, N);
  pos = 0;
  MPI_Unpack(packed, (int)sizeof packed, &pos, d2, 1, strided, MPI_COMM_WORLD);
  from_dev(h, d2, N);
  for (int i = 0; i < N; ++i) {
    const int want = i % 2 ? -3 : val(rank, i);
    if (h[i] != want) {
      EXPECT(0, "pack/unpack: [%d] = %d, want %d", i, h[i], want);
      break;
    }
  }

  MPI_Type_free(&strided);
  dev_free(d);
  dev_free(d2);
}
