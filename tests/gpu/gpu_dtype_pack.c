/* tests/gpu/gpu_dtype_pack.c — device-side packing of non-contiguous datatypes (src/p2p/
 * device_pack.hpp) against host packing, for every constructor: vector (wide rows and a narrow
 * column), hvector, indexed, indexed_block, struct of one type, a 3-D subarray's faces (one
 * narrow, one wide) and resized, each with one and with several elements. For each type:
 *  - MPI_Pack from a device buffer (to device memory and to host memory) gives the bytes that
 *    MPI_Pack from the same data in host memory gives;
 *  - MPI_Unpack into a device buffer (from device and from host memory) writes what MPI_Unpack
 *    writes into host memory, and leaves the gaps as they were;
 *  - rank r sends the type from device memory to r ^ 1, which receives it into device memory
 *    with the same type (gaps checked) and as contiguous bytes (against host packing).
 * Run between ranks of one process (same PE: packed straight into the receive, or left unexpected)
 * and of two (CUDA IPC), with device packing on (the default) and off (AMPI_GPU_DEVICE_PACK=0, the
 * host staging it falls back to); with --spread, between ranks of one process on two GPUs (with
 * and without peer access). Exits 77 (skipped) before MPI_Init where there is no GPU (with
 * --spread: fewer than two). */
#include "gpu_mpi_test.h"

#include <stdlib.h>
#include <string.h>

#define SPAN (64 * 1024) /* bytes of every test buffer; all types below fit in it */

static unsigned char pattern(int r, size_t i) {
  return (unsigned char)(r * 37 + i * 7 + (i >> 8) * 3);
}

static void check_type(const char *name, MPI_Datatype t, int count, int peer) {
  int packsize = 0, typesize = 0;
  MPI_Type_size(t, &typesize);
  MPI_Pack_size(count, t, MPI_COMM_WORLD, &packsize);
  unsigned char *h = malloc(SPAN), *ref = malloc(packsize), *got = malloc(SPAN);
  unsigned char *h_unpacked = malloc(SPAN);
  unsigned char *d = (unsigned char *)dev_ints(SPAN / 4);
  unsigned char *d2 = (unsigned char *)dev_ints(SPAN / 4);
  unsigned char *dp = (unsigned char *)dev_ints((size_t)packsize / 4 + 1);
  for (size_t i = 0; i < SPAN; ++i)
    h[i] = pattern(rank, i);
  to_dev_bytes(d, h, SPAN);
  int pos = 0;
  MPI_Pack(h, count, t, ref, packsize, &pos, MPI_COMM_WORLD); /* host packing: the reference */
  EXPECT(pos == typesize * count, "%s: host pack size %d", name, pos);

  /* Pack from device memory into device memory, and into host memory. */
  pos = 0;
  MPI_Pack(d, count, t, dp, packsize, &pos, MPI_COMM_WORLD);
  EXPECT(pos == typesize * count, "%s: device pack size %d", name, pos);
  from_dev_bytes(got, dp, (size_t)pos);
  EXPECT(memcmp(got, ref, (size_t)pos) == 0, "%s: device -> device pack differs", name);
  pos = 0;
  memset(got, 0, (size_t)packsize);
  MPI_Pack(d, count, t, got, packsize, &pos, MPI_COMM_WORLD);
  EXPECT(memcmp(got, ref, (size_t)pos) == 0, "%s: device -> host pack differs", name);

  /* Unpack into device memory whose gaps hold 0xee: from device memory and from host memory. */
  memset(h_unpacked, 0xee, SPAN);
  pos = 0;
  MPI_Unpack(ref, packsize, &pos, h_unpacked, count, t, MPI_COMM_WORLD);
  for (int from_host = 0; from_host < 2; ++from_host) {
    memset(got, 0xee, SPAN);
    to_dev_bytes(d2, got, SPAN);
    to_dev_bytes(dp, ref, (size_t)packsize);
    pos = 0;
    MPI_Unpack(from_host ? (void *)ref : (void *)dp, packsize, &pos, d2, count, t, MPI_COMM_WORLD);
    from_dev_bytes(got, d2, SPAN);
    EXPECT(memcmp(got, h_unpacked, SPAN) == 0, "%s: unpack %s -> device differs", name,
           from_host ? "host" : "device");
  }

  /* Sent from device memory to the peer: received typed into device memory (gaps 0xee) and as
   * contiguous bytes into device memory. */
  if (peer < size) {
    unsigned char *peer_h = malloc(SPAN), *peer_ref = malloc(packsize), *want = malloc(SPAN);
    for (size_t i = 0; i < SPAN; ++i)
      peer_h[i] = pattern(peer, i);
    pos = 0;
    MPI_Pack(peer_h, count, t, peer_ref, packsize, &pos, MPI_COMM_WORLD);
    memset(want, 0xee, SPAN);
    pos = 0;
    MPI_Unpack(peer_ref, packsize, &pos, want, count, t, MPI_COMM_WORLD);
    for (int round = 0; round < 2; ++round) {
      memset(got, 0xee, SPAN);
      to_dev_bytes(d2, got, SPAN);
      MPI_Request rq[2];
      /* Round 0: the receive is posted first; round 1: the send may find no receive yet. */
      if (round == 0) MPI_Irecv(d2, count, t, peer, 7, MPI_COMM_WORLD, &rq[0]);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Isend(d, count, t, peer, 7, MPI_COMM_WORLD, &rq[1]);
      if (round == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Irecv(d2, count, t, peer, 7, MPI_COMM_WORLD, &rq[0]);
      }
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      from_dev_bytes(got, d2, SPAN);
      EXPECT(memcmp(got, want, SPAN) == 0,
             "%s: typed device send -> typed device receive "
             "differs (round %d)",
             name, round);
    }
    MPI_Sendrecv(d, count, t, peer, 8, dp, packsize, MPI_BYTE, peer, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    from_dev_bytes(got, dp, (size_t)packsize);
    EXPECT(memcmp(got, peer_ref, (size_t)packsize) == 0,
           "%s: typed device send -> contiguous device receive differs", name);
    free(peer_h), free(peer_ref), free(want);
  }
  dev_free(d), dev_free(d2), dev_free(dp);
  free(h), free(ref), free(got), free(h_unpacked);
}

static void check(const char *name, MPI_Datatype t, int peer) {
  MPI_Type_commit(&t);
  char n2[96];
  check_type(name, t, 1, peer);
  snprintf(n2, sizeof n2, "%s x3", name);
  check_type(n2, t, 3, peer);
  MPI_Type_free(&t);
}

int main(int argc, char **argv) {
  if (gpu_init() != 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  /* --spread: rank r works on GPU r % (the GPUs there are), so that ranks of one process on two
   * PEs copy between two GPUs' layouts (peer access, DevPtrCache::reachable); skipped with one. */
  int spread = argc > 1 && strcmp(argv[1], "--spread") == 0, ngpus = 0;
  GPU_CHECK(cu.DeviceGetCount(&ngpus));
  if (spread && ngpus < 2) {
    printf("one GPU: skipped\n");
    return 77;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (spread) {
    int dev;
    CUcontext ctx;
    GPU_CHECK(cu.DeviceGet(&dev, rank % ngpus));
    GPU_CHECK(cu.DevicePrimaryCtxRetain(&ctx, dev));
    GPU_CHECK(cu.CtxSetCurrent(ctx));
  }
  const int peer = rank ^ 1;
  MPI_Datatype t;
  /* (Every type's extent times 3 stays inside SPAN.) */
  MPI_Type_vector(16, 16, 40, MPI_INT, &t); /* rows of 64 bytes: one 2-D copy */
  check("vector rows", t, peer);
  MPI_Type_vector(512, 1, 4, MPI_DOUBLE, &t); /* a column of doubles: 8-byte rows */
  check("vector column", t, peer);
  MPI_Type_create_hvector(8, 3, 52, MPI_INT, &t);
  check("hvector", t, peer);
  {
    int bl[3] = {2, 1, 3}, disp[3] = {0, 5, 9};
    MPI_Type_indexed(3, bl, disp, MPI_INT, &t);
    check("indexed", t, peer);
  }
  {
    int disp[4] = {1, 4, 10, 20};
    MPI_Type_create_indexed_block(4, 2, disp, MPI_DOUBLE, &t);
    check("indexed_block", t, peer);
  }
  {
    int bl[3] = {1, 4, 2};
    MPI_Aint disp[3] = {0, 16, 48};
    MPI_Datatype ty[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Type_create_struct(3, bl, disp, ty, &t);
    check("struct of ints", t, peer);
  }
  {
    /* Faces of a 10 x 12 x 14 block of doubles (C order, x fastest), interior 8 x 10 x 12. */
    int sizes[3] = {10, 12, 14};
    int xs[3] = {8, 10, 1}, xa[3] = {1, 1, 12}; /* x face: 8-byte rows, 3-D */
    MPI_Type_create_subarray(3, sizes, xs, xa, MPI_ORDER_C, MPI_DOUBLE, &t);
    check("subarray x face", t, peer);
    int ys[3] = {8, 1, 12}, ya[3] = {1, 0, 1}; /* y face (a ghost layer): 96-byte rows */
    MPI_Type_create_subarray(3, sizes, ys, ya, MPI_ORDER_C, MPI_DOUBLE, &t);
    check("subarray y face", t, peer);
    int zs[3] = {1, 10, 12}, za[3] = {8, 1, 1}; /* z face */
    MPI_Type_create_subarray(3, sizes, zs, za, MPI_ORDER_C, MPI_DOUBLE, &t);
    check("subarray z face", t, peer);
  }
  {
    MPI_Datatype v;
    MPI_Type_vector(4, 2, 5, MPI_INT, &v);
    MPI_Type_create_resized(v, -8, 96, &t); /* a negative lower bound, a wider extent */
    MPI_Type_free(&v);
    check("resized vector", t, peer);
  }
  return finish("gpu_dtype_pack");
}
