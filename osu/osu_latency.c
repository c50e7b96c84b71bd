/* osu/osu_latency.c — our osu_latency: one-way latency of a blocking ping-pong between ranks 0
 * and 1 (MPI_Send/MPI_Recv), half the round-trip time, per message size. OSU 7's options and
 * output; buffers on the host or (-d cuda, H/D placement) on the GPU. */
#include "osu_common.h"

#include <stdio.h>

int main(int argc, char **argv) {
  int rank = 0, nprocs = 0;
  osu_opts o;
  const int rc = osu_start(&o, "osu_latency", "Latency Test", OSU_LATENCY, OSU_PROCS_TWO, &argc,
                           &argv, &rank, &nprocs);
  if (rc >= 0) return rc;
  osu_init_device(&o, rank);
  const char place = rank == 0 ? o.src : o.dst;
  char *s = osu_alloc(place, o.max_size), *r = osu_alloc(place, o.max_size);
  const int peer = 1 - rank;
  /* --staging: MPI sees pinned host copies of the device buffers. */
  const int stage = o.staging && place == 'D';
  char *hs = stage ? osu_alloc_pinned(o.max_size) : s,
       *hr = stage ? osu_alloc_pinned(o.max_size) : r;
  osu_print_header(&o, rank, 1);
  for (size_t size = o.min_size; size <= o.max_size; size = size ? size * 2 : 1) {
    osu_fill(s, place, 'a', size);
    osu_fill(r, place, 'b', size);
    const int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters + skip; ++i) {
      if (i == skip) t0 = MPI_Wtime();
      if (rank == 0) {
        if (stage) osu_copy_to_host(hs, s, size);
        OSU_CHECK(MPI_Send(hs, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD));
        OSU_CHECK(MPI_Recv(hr, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (stage) osu_copy_to_device(r, hr, size);
      } else {
        OSU_CHECK(MPI_Recv(hr, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (stage) osu_copy_to_device(r, hr, size);
        if (stage) osu_copy_to_host(hs, s, size);
        OSU_CHECK(MPI_Send(hs, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD));
      }
    }
    double t = MPI_Wtime() - t0;
    osu_print_pt2pt_row(&o, rank, size, t * 1e6 / (2.0 * iters));
  }
  if (stage) osu_free_pinned(hs), osu_free_pinned(hr);
  osu_free(s, place);
  osu_free(r, place);
  OSU_CHECK(MPI_Finalize());
  return 0;
}
