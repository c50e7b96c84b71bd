/* tests/privatize/priv_osu_pingpong.c — a ping-pong written the way the OSU micro-benchmarks are:
 * options and buffers in globals, options parsed with getopt_long before MPI_Init, the trailing
 * argument found through optind, exit() after MPI_Finalize. Ranks 2k and 2k+1 play ping-pong;
 * every rank checks that it parsed the full options (the CTest run passes
 * "-i 50 tail --warmup=5 -m 1024 -v") and rank 0 checks that every rank did. */
#include <mpi.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options_t {
  int iterations, warmup, max_size, validate, parsed;
  char tail[32];
};
struct options_t options = {1000, 200, 1 << 22, 0, 0, ""}; /* OSU's defaults */
char *s_buf, *r_buf;

static void fail(const char *what) {
  fprintf(stderr, "FAIL priv_osu_pingpong: %s\n", what);
  fflush(stderr);
  exit(1);
}

static int process_options(int argc, char **argv) {
  static struct option long_options[] = {{"iterations", required_argument, 0, 'i'},
                                         {"warmup", required_argument, 0, 'x'},
                                         {"message-size", required_argument, 0, 'm'},
                                         {"validation", no_argument, 0, 'v'},
                                         {0, 0, 0, 0}};
  int c, index;
  while ((c = getopt_long(argc, argv, "+:i:x:m:vh", long_options, &index)) != -1) {
    switch (c) {
    case 'i':
      options.iterations = atoi(optarg);
      break;
    case 'x':
      options.warmup = atoi(optarg);
      break;
    case 'm':
      options.max_size = atoi(optarg);
      break;
    case 'v':
      options.validate = 1;
      break;
    default:
      return -1;
    }
    ++options.parsed;
  }
  if (optind < argc) snprintf(options.tail, sizeof options.tail, "%s", argv[optind]);
  return 0;
}

int main(int argc, char **argv) {
  /* A "+" optstring stops at the first non-option: only "-i 50" comes before "tail". Then parse
   * the rest as OSU would not, with a second getopt_long pass from the tail on. */
  if (process_options(argc, argv) != 0) fail("bad options");
  if (options.iterations != 50 || options.parsed != 1 || strcmp(options.tail, "tail") != 0)
    fail("first pass: -i 50 then the tail");
  int rest_argc = argc - optind;
  char **rest_argv = argv + optind; /* "tail --warmup=5 -m 1024 -v": argv[0] is skipped */
  optind = 1;
  if (process_options(rest_argc, rest_argv) != 0) fail("bad options in the second pass");
  if (options.warmup != 5 || options.max_size != 1024 || !options.validate || options.parsed != 4)
    fail("second pass: --warmup=5 -m 1024 -v");

  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2) fail("needs an even number of ranks");
  s_buf = malloc((size_t)options.max_size);
  r_buf = malloc((size_t)options.max_size);
  const int peer = rank ^ 1;
  for (int bytes = 1; bytes <= options.max_size; bytes *= 4) {
    for (int i = 0; i < options.warmup + options.iterations; ++i) {
      memset(s_buf, (rank * 31 + i + bytes) & 0x7f, (size_t)bytes);
      if (rank % 2 == 0) {
        MPI_Send(s_buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(r_buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(r_buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(s_buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      }
      if (options.validate) {
        const char want = (char)((peer * 31 + i + bytes) & 0x7f);
        for (int k = 0; k < bytes; ++k)
          if (r_buf[k] != want) fail("received data");
      }
    }
  }
  /* Every rank's parsed options, gathered at rank 0. */
  int mine[5] = {options.iterations, options.warmup, options.max_size, options.validate,
                 options.parsed};
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      int theirs[5];
      MPI_Recv(theirs, 5, MPI_INT, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (memcmp(theirs, mine, sizeof mine) != 0) fail("a rank did not see its options");
    }
  } else {
    MPI_Send(mine, 5, MPI_INT, 0, 2, MPI_COMM_WORLD);
  }
  free(s_buf);
  free(r_buf);
  MPI_Finalize();
  if (rank == 0) printf("ok priv_osu_pingpong (%d ranks)\n", size);
  exit(EXIT_SUCCESS);
}
