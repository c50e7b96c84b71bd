/* osu/osu_mbw_mr.c — our osu_mbw_mr: aggregate bandwidth and message rate of N/2 pairs, rank i
 * (i < N/2) streaming windows (-W) of non-blocking sends to rank i + N/2, each window answered by
 * a short acknowledgement. OSU 7's options and output (MB/s and Messages/s). */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank = 0, nprocs = 0;
  osu_opts o;
  const int rc = osu_start(&o, "osu_mbw_mr", "Multiple Bandwidth / Message Rate Test", OSU_MBW_MR,
                           OSU_PROCS_EVEN, &argc, &argv, &rank, &nprocs);
  if (rc >= 0) return rc;
  osu_init_device(&o, rank);
  const int pairs = nprocs / 2, sender = rank < pairs;
  const int peer = sender ? rank + pairs : rank - pairs, w = o.window;
  const char place = sender ? o.src : o.dst;
  const size_t bytes = o.max_size < 4 ? 4 : o.max_size;
  char *s = osu_alloc(place, bytes), *r = osu_alloc(place, bytes);
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)w);
  if (!req) MPI_Abort(MPI_COMM_WORLD, 1);
  osu_print_header(&o, rank, pairs);
  for (size_t size = o.min_size ? o.min_size : 1; size <= o.max_size; size *= 2) {
    osu_fill(s, place, 'a', size);
    osu_fill(r, place, 'b', size);
    const int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters + skip; ++i) {
      if (i == skip) t0 = MPI_Wtime();
      if (sender) {
        for (int j = 0; j < w; ++j)
          OSU_CHECK(MPI_Isend(s, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[j]));
        OSU_CHECK(MPI_Waitall(w, req, MPI_STATUSES_IGNORE));
        OSU_CHECK(MPI_Recv(r, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      } else {
        for (int j = 0; j < w; ++j)
          OSU_CHECK(MPI_Irecv(r, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[j]));
        OSU_CHECK(MPI_Waitall(w, req, MPI_STATUSES_IGNORE));
        OSU_CHECK(MPI_Send(s, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD));
      }
    }
    /* The senders' mean time; the receivers contribute nothing. */
    double t = sender ? MPI_Wtime() - t0 : 0.0, sum = 0.0;
    OSU_CHECK(MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0) {
      double mean = sum / pairs;
      double rate = (double)pairs * iters * w / mean;
      osu_print_mbw_row(&o, rank, size, rate * (double)size / 1e6, rate);
    }
  }
  free(req);
  osu_free(s, place);
  osu_free(r, place);
  OSU_CHECK(MPI_Finalize());
  return 0;
}
