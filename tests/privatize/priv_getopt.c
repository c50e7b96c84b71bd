/* tests/privatize/priv_getopt.c — getopt's state is per rank for the whole life of the rank: every
 * rank parses its options with getopt_long AFTER MPI_Init, one getopt call at a time with a
 * blocking MPI call (a barrier or a ring exchange) between successive calls, so that the other
 * ranks of its process parse meanwhile; ranks start out of step (rank r waits r % 3 barriers
 * first), so they switch in the middle of different clusters. Each rank logs what every call
 * returned (the option, optind, optarg, optopt) and what is left of argv (GNU permutation), and
 * compares the log with what glibc gives a lone process (written below, as a one-rank run
 * prints it). Three parses: the command line with getopt_long (clusters "-ab", "-cVALUE",
 * "-c VALUE", "--long=x", "--long x", abbreviations, optional arguments, an unknown option, "--",
 * non-options between options); a second argv after `optind = 0` with ":abc:d" (a missing
 * argument); the rank's permuted argv again with getopt after `optind = 1`. Nothing is kept in
 * globals, so it also checks AMPI_PRIVATIZE=off (one copy of the program for all ranks).
 *   usage: priv_getopt -ab in1 -cVALUE --long=x in2 -c VAL2 --long y -d --flag -ba -x in3 --opt
 *                      --opt=z --lo=w -- -a rest */
#include <mpi.h>

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What a lone process logs (glibc 2.36; one rank per process gives the same). */
static const char *const kExpected[3] = {
    "a,1,-,0 b,2,-,0 c,4,VALUE,0 L,5,x,0 c,8,VAL2,0 L,10,y,0 d,11,-,0 0,12,-,0 b,12,-,0 "
    "a,13,-,0 ?,14,-,120 O,16,-,120 O,17,z,120 L,18,w,120 -1,16,-,120 | in1 in2 in3 -a rest",
    "d,2,-,120 b,2,-,120 c,4,ARG,120 ?,5,-,120 d,6,-,120 :,7,-,99 -1,5,-,99 | f1 f2",
    "a,1,-,99 b,2,-,99 c,3,VALUE,99 ?,3,-,45 ?,3,-,108 ?,3,-,111 ?,3,-,110 ?,3,-,103 "
    "?,3,-,61 ?,4,-,120 c,6,VAL2,120 ?,6,-,45 ?,6,-,108 ?,6,-,111 ?,6,-,110 ?,7,-,103 "
    "d,9,-,103 ?,9,-,45 ?,9,-,102 ?,9,-,108 a,9,-,108 ?,10,-,103 b,10,-,103 a,11,-,103 "
    "?,12,-,120 ?,12,-,45 ?,12,-,111 ?,12,-,112 ?,13,-,116 ?,13,-,45 ?,13,-,111 ?,13,-,112 "
    "?,13,-,116 ?,13,-,61 ?,14,-,122 ?,14,-,45 ?,14,-,108 ?,14,-,111 ?,14,-,61 ?,15,-,119 "
    "-1,15,-,119 | y in1 in2 in3 -a rest"};

typedef struct {
  char text[2048];
  size_t used;
} Log;

static void put(Log *log, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(log->text + log->used, sizeof log->text - log->used, fmt, ap);
  va_end(ap);
  if (n > 0) log->used += (size_t)n;
  if (log->used >= sizeof log->text) log->used = sizeof log->text - 1;
}

/* A blocking MPI call that lets the other ranks run: a barrier, or an exchange with both ring
 * neighbours. */
static void let_others_run(int step, int rank, int size) {
  if (step % 2 == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    int out = rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, step, &in, 1, MPI_INT,
                 (rank + size - 1) % size, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

/* Steps of a parse: every rank makes this many blocking calls, whatever its parse does, so that
 * the calls of all ranks match even when a parse goes wrong. */
enum { kSteps = 80 };

/* One parse, in kSteps steps, each ending with a blocking call: from step `delay` on, one getopt
 * call per step (logged) until it returns -1. `kind`: 0 getopt_long, 1 getopt. */
static void parse(Log *log, int kind, int argc, char **argv, const char *optstring,
                  const struct option *longopts, int delay, int rank, int size) {
  int done = 0;
  for (int step = 0; step < kSteps; ++step) {
    if (step >= delay && !done) {
      int index = -1;
      const int c = kind == 0 ? getopt_long(argc, argv, optstring, longopts, &index)
                              : getopt(argc, argv, optstring);
      if (c > ' ' && c < 127)
        put(log, "%c,%d,%s,%d ", c, optind, optarg ? optarg : "-", optopt);
      else
        put(log, "%d,%d,%s,%d ", c, optind, optarg ? optarg : "-", optopt);
      done = c == -1 || step == kSteps - 1;
    }
    let_others_run(step, rank, size);
  }
  put(log, "|");
  for (int i = optind; i < argc; ++i)
    put(log, " %s", argv[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int flag = 0; /* set by --flag (a local: AMPI_PRIVATIZE=off shares the globals) */
  const struct option longopts[] = {{"long", required_argument, NULL, 'L'},
                                    {"flag", no_argument, &flag, 7},
                                    {"opt", optional_argument, NULL, 'O'},
                                    {NULL, 0, NULL, 0}};
  char p2[] = "p2", f1[] = "f1", dbc[] = "-dbc", arg[] = "ARG", f2[] = "f2", xd[] = "-xd",
       c[] = "-c";
  char *argv2[] = {p2, f1, dbc, arg, f2, xd, c, NULL};
  Log logs[3];
  memset(logs, 0, sizeof logs);
  int bad = 0;

  opterr = 0; /* unknown options: no message */
  /* Ranks out of step: rank r starts its k-th parse (r + k) % 3 steps late. */
  parse(&logs[0], 0, argc, argv, "abc:d", longopts, rank % 3, rank, size);
  if (flag != 7) {
    ++bad;
    fprintf(stderr, "rank %d: --flag did not set its flag\n", rank);
  }
  optind = 0; /* glibc: start afresh (a new argv) */
  parse(&logs[1], 0, 7, argv2, ":abc:d", longopts, (rank + 1) % 3, rank, size);
  optind = 1; /* the permuted argv again, with plain getopt */
  parse(&logs[2], 1, argc, argv, "abc:d", NULL, (rank + 2) % 3, rank, size);

  for (int k = 0; k < 3; ++k) {
    if (strcmp(logs[k].text, kExpected[k]) != 0) {
      ++bad;
      fprintf(stderr, "rank %d, parse %d:\n  got      %s\n  expected %s\n", rank, k + 1,
              logs[k].text, kExpected[k]);
    }
  }
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      printf("ok priv_getopt (%d ranks)\n", size);
    else
      printf("FAILED priv_getopt: %d wrong parses\n", total);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
