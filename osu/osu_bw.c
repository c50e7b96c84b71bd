/* osu/osu_bw.c — our osu_bw (and osu_bibw when built with OSU_BUILD_BIBW): streaming bandwidth from
 * rank 0 to rank 1 with a window (-W) of non-blocking sends, the receiver answering each window
 * with a short acknowledgement; bibw streams both ways at once. OSU 7's options and output. */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef OSU_BUILD_BIBW
#define NAME "osu_bibw"
#define TITLE "Bi-Directional Bandwidth Test"
#define KIND OSU_BIBW
#else
#define NAME "osu_bw"
#define TITLE "Bandwidth Test"
#define KIND OSU_BW
#endif

int main(int argc, char **argv) {
  int rank = 0, nprocs = 0;
  osu_opts o;
  const int rc = osu_start(&o, NAME, TITLE, KIND, OSU_PROCS_TWO, &argc, &argv, &rank, &nprocs);
  if (rc >= 0) return rc;
  osu_init_device(&o, rank);
  const char place = rank == 0 ? o.src : o.dst;
  const size_t bytes = o.max_size < 4 ? 4 : o.max_size;
  char *s = osu_alloc(place, bytes), *r = osu_alloc(place, bytes);
  MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)o.window);
  if (!req) MPI_Abort(MPI_COMM_WORLD, 1);
  const int peer = 1 - rank, w = o.window;
  /* --staging (osu_bw): MPI sees pinned host copies of the device buffers; the sender copies
   * each message of a window out before sending, the receiver each one in after receiving. */
  const int stage = o.staging && place == 'D';
  char *hs = stage ? osu_alloc_pinned(bytes) : s, *hr = stage ? osu_alloc_pinned(bytes) : r;
  osu_print_header(&o, rank, 1);
  for (size_t size = o.min_size ? o.min_size : 1; size <= o.max_size; size *= 2) {
    osu_fill(s, place, 'a', size);
    osu_fill(r, place, 'b', size);
    const int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters + skip; ++i) {
      if (i == skip) t0 = MPI_Wtime();
#ifdef OSU_BUILD_BIBW
      for (int j = 0; j < w; ++j)
        OSU_CHECK(MPI_Irecv(r, (int)size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &req[j]));
      for (int j = 0; j < w; ++j)
        OSU_CHECK(MPI_Isend(s, (int)size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &req[w + j]));
      OSU_CHECK(MPI_Waitall(2 * w, req, MPI_STATUSES_IGNORE));
#else
      if (rank == 0) {
        for (int j = 0; j < w && stage; ++j)
          osu_copy_to_host(hs, s, size);
        for (int j = 0; j < w; ++j)
          OSU_CHECK(MPI_Isend(hs, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[j]));
        OSU_CHECK(MPI_Waitall(w, req, MPI_STATUSES_IGNORE));
        OSU_CHECK(MPI_Recv(hr, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      } else {
        for (int j = 0; j < w; ++j)
          OSU_CHECK(MPI_Irecv(hr, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[j]));
        OSU_CHECK(MPI_Waitall(w, req, MPI_STATUSES_IGNORE));
        for (int j = 0; j < w && stage; ++j)
          osu_copy_to_device(r, hr, size);
        OSU_CHECK(MPI_Send(hs, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD));
      }
#endif
    }
    double t = MPI_Wtime() - t0;
#ifdef OSU_BUILD_BIBW
    double mb = (double)size / 1e6 * iters * w * 2;
#else
    double mb = (double)size / 1e6 * iters * w;
#endif
    osu_print_pt2pt_row(&o, rank, size, mb / t);
  }
  free(req);
  if (stage) osu_free_pinned(hs), osu_free_pinned(hr);
  osu_free(s, place);
  osu_free(r, place);
  OSU_CHECK(MPI_Finalize());
  return 0;
}
