/* osu/osu_multi_lat.c — our osu_multi_lat: N/2 pairs (rank i with rank i + N/2) ping-pong at
 * once; prints the one-way latency averaged over all ranks. OSU 7's options and output. */
#include "osu_common.h"

#include <stdio.h>

int main(int argc, char **argv) {
  int rank = 0, nprocs = 0;
  osu_opts o;
  const int rc = osu_start(&o, "osu_multi_lat", "Multi Latency Test", OSU_MULTI_LAT, OSU_PROCS_EVEN,
                           &argc, &argv, &rank, &nprocs);
  if (rc >= 0) return rc;
  osu_init_device(&o, rank);
  const int pairs = nprocs / 2, first = rank < pairs;
  const int peer = first ? rank + pairs : rank - pairs;
  const char place = first ? o.src : o.dst;
  char *s = osu_alloc(place, o.max_size), *r = osu_alloc(place, o.max_size);
  osu_print_header(&o, rank, pairs);
  for (size_t size = o.min_size; size <= o.max_size; size = size ? size * 2 : 1) {
    osu_fill(s, place, 'a', size);
    osu_fill(r, place, 'b', size);
    const int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters + skip; ++i) {
      if (i == skip) t0 = MPI_Wtime();
      if (first) {
        OSU_CHECK(MPI_Send(s, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD));
        OSU_CHECK(MPI_Recv(r, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      } else {
        OSU_CHECK(MPI_Recv(r, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OSU_CHECK(MPI_Send(s, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD));
      }
    }
    double lat = (MPI_Wtime() - t0) * 1e6 / (2.0 * iters), sum = 0.0;
    OSU_CHECK(MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    osu_print_pt2pt_row(&o, rank, size, sum / nprocs);
  }
  osu_free(s, place);
  osu_free(r, place);
  OSU_CHECK(MPI_Finalize());
  return 0;
}
