/* osu/osu_common.h — what every program of our OSU-compatible suite shares: the options (OSU 7's
 * command line, parsed by our own argv walker, not getopt, so several virtual ranks of one process
 * parse their own copies independently), buffers on the host or, when built with OSU_ENABLE_CUDA,
 * on the GPU through the CUDA runtime, and the header and row printers (OSU 7's columns, widths
 * and precision, so scripts that read OSU's output read ours).
 *
 * Nothing here keeps mutable state in globals: every benchmark holds its state in locals and in an
 * osu_opts passed around, so several ranks of one process do not share it. Plain C99 + MPI. */
#ifndef OSU_COMMON_H
#define OSU_COMMON_H

#include <mpi.h>
#include <stddef.h>

#define OSU_VERSION "7.4"
#define OSU_FIELD_WIDTH 20
#define OSU_FLOAT_PRECISION 2
#define OSU_LARGE_MESSAGE_SIZE 8192

/* What a program measures: decides the defaults, the accepted options and the header. */
enum osu_kind {
  OSU_LATENCY,   /* osu_latency */
  OSU_BW,        /* osu_bw */
  OSU_BIBW,      /* osu_bibw */
  OSU_MBW_MR,    /* osu_mbw_mr */
  OSU_MULTI_LAT, /* osu_multi_lat */
  OSU_BARRIER,   /* osu_barrier (no sizes) */
  OSU_COLL       /* bcast, reduce, allreduce, allgather, alltoall */
};

typedef struct osu_opts {
  const char *name;  /* program name, e.g. "osu_latency" */
  const char *title; /* e.g. "Latency Test": the header is "# OSU MPI<accel> <title> v7.4" */
  enum osu_kind kind;
  size_t min_size, max_size;
  int iterations, iterations_large; /* timed iterations below / from OSU_LARGE_MESSAGE_SIZE */
  int skip, skip_large;             /* warm-up iterations */
  int window;                       /* -W: messages in flight (bw, bibw, mbw_mr) */
  int full;                         /* -f: min, max, iterations columns */
  int cuda;                         /* -d cuda */
  char src, dst;                    /* buffer placement of rank 0 / rank 1: 'H' or 'D' */
  int print_rate;                   /* osu_mbw_mr -r: print Messages/s too (default 1) */
  size_t mem_limit;                 /* -M: per-rank buffer limit of the collectives */
  int staging; /* --staging (our extension, osu_latency/osu_bw): device data sent through pinned
                  host buffers, cudaMemcpy before each send and after each receive */
} osu_opts;

/* Fills *o with the defaults of `kind` and parses argv. Returns 0 to run, 1 when the program
 * should end successfully without running (-h, -v), -1 on bad usage (message printed by rank 0). */
int osu_parse(osu_opts *o, const char *name, const char *title, enum osu_kind kind, int argc,
              char **argv, int rank);

/* How many processes a benchmark needs. */
enum osu_procs { OSU_PROCS_TWO, OSU_PROCS_EVEN, OSU_PROCS_AT_LEAST_TWO };

/* The start every benchmark shares: MPI_Init, *rank and *nprocs, osu_parse, the check of the
 * process count against `need`. Returns -1 when the benchmark should run; otherwise the exit
 * status that main returns (MPI is finalized then). */
int osu_start(osu_opts *o, const char *name, const char *title, enum osu_kind kind,
              enum osu_procs need, int *argc, char ***argv, int *rank, int *nprocs);

/* Selects the GPU of this rank (when -d cuda): the node-local rank modulo the device count, the
 * node-local rank taken from the launchers' variables, else the world rank. Aborts on failure. */
void osu_init_device(const osu_opts *o, int world_rank);

/* Buffers: placement 'H' (page-aligned host memory) or 'D' (cudaMalloc). Abort on failure. */
void *osu_alloc(char placement, size_t bytes);
void osu_fill(void *buf, char placement, int value, size_t bytes);
void osu_free(void *buf, char placement);

/* Pinned host memory and synchronous copies for --staging (plain host memory without CUDA). */
void *osu_alloc_pinned(size_t bytes);
void osu_free_pinned(void *p);
void osu_copy_to_host(void *host, const void *dev, size_t bytes);
void osu_copy_to_device(void *dev, const void *host, size_t bytes);

/* Iterations and warm-up for one message size. */
int osu_iters(const osu_opts *o, size_t size);
int osu_skip(const osu_opts *o, size_t size);

/* Output (rank 0 only; the others return at once). */
void osu_print_header(const osu_opts *o, int rank, int pairs);
void osu_print_pt2pt_row(const osu_opts *o, int rank, size_t size, double value);
void osu_print_mbw_row(const osu_opts *o, int rank, size_t size, double mbps, double rate);
void osu_print_coll_row(const osu_opts *o, int rank, size_t size, double avg, double min,
                        double max, int iters);

/* Reduces this rank's latency (us) to avg/min/max at rank 0 of comm. */
void osu_coll_stats(double lat, MPI_Comm comm, double *avg, double *min, double *max);

/* MPI_Abort with a message when an MPI call fails. */
#define OSU_CHECK(call)                                                                            \
  do {                                                                                             \
    int osu_rc_ = (call);                                                                          \
    if (osu_rc_ != MPI_SUCCESS) osu_fail(#call, osu_rc_, __FILE__, __LINE__);                      \
  } while (0)
void osu_fail(const char *what, int rc, const char *file, int line);

#endif
