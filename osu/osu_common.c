/* osu/osu_common.c — options, buffers, device selection and output of our OSU-compatible suite
 * (see osu_common.h). No mutable globals: everything lives in the caller's osu_opts. */
#if defined(__linux__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "osu_common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OSU_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

void osu_fail(const char *what, int rc, const char *file, int line) {
  char msg[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, msg);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static int is_pt2pt(enum osu_kind k) {
  return k == OSU_LATENCY || k == OSU_BW || k == OSU_BIBW || k == OSU_MBW_MR || k == OSU_MULTI_LAT;
}
static int has_window(enum osu_kind k) {
  return k == OSU_BW || k == OSU_BIBW || k == OSU_MBW_MR;
}

static void defaults(osu_opts *o, enum osu_kind kind) {
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->src = o->dst = 'H';
  o->window = 64;
  o->print_rate = 1;
  o->mem_limit = (size_t)1 << 30;
  if (is_pt2pt(kind)) {
    o->min_size = 0;
    o->max_size = (size_t)1 << 22;
  } else {
    o->min_size = 1;
    o->max_size = (size_t)1 << 20;
  }
  switch (kind) {
  case OSU_LATENCY:
  case OSU_MULTI_LAT:
    o->iterations = 10000, o->iterations_large = 1000, o->skip = 100, o->skip_large = 10;
    break;
  case OSU_BW:
  case OSU_BIBW:
  case OSU_MBW_MR:
    o->iterations = 100, o->iterations_large = 20, o->skip = 10, o->skip_large = 2;
    break;
  default:
    o->iterations = 1000, o->iterations_large = 100, o->skip = 200, o->skip_large = 10;
    break;
  }
}

static void usage(const osu_opts *o) {
  printf("Usage: %s [options]%s\n", o->name, is_pt2pt(o->kind) ? " [SRC DST]" : "");
  if (is_pt2pt(o->kind))
    printf("\nSRC and DST are buffer types for the source and destination\n"
           "SRC and DST may be `D' or `H' which specifies whether\n"
           "the buffer is allocated on the accelerator device memory or host\n"
           "memory for each mpi rank\n\n");
  printf("Options:\n");
  printf("  -d, --accelerator  TYPE     use accelerator device buffers, which can be of TYPE "
         "`cuda'%s\n",
#ifdef OSU_ENABLE_CUDA
         ""
#else
         " (this build has no CUDA support)"
#endif
  );
  printf("  -m, --message-size [MIN:]MAX  set the minimum and/or the maximum message size to "
         "MIN and/or MAX\n"
         "                              bytes respectively. Examples:\n"
         "                              -m 128      // min = default, max = 128\n"
         "                              -m 2:128    // min = 2, max = 128\n"
         "                              -m 2:       // min = 2, max = default\n");
  printf("  -i, --iterations ITER       number of iterations for timing (default %d)\n",
         o->iterations);
  printf("  -x, --warmup ITER           number of warmup iterations to skip before timing "
         "(default %d)\n",
         o->skip);
  if (has_window(o->kind))
    printf("  -W, --window-size SIZE      set number of messages to send before synchronization "
           "(default 64)\n");
  if (o->kind == OSU_LATENCY || o->kind == OSU_BW)
    printf("      --staging               (ampi extension) send device data through pinned host\n"
           "                              buffers: cudaMemcpy before each send, after each "
           "receive\n");
  if (o->kind == OSU_MBW_MR)
    printf("  -r, --print-rate=[0|1]      print message rate (default 1)\n");
  if (!is_pt2pt(o->kind)) {
    printf("  -f, --full                  print full format listing (MIN/MAX latency and "
           "ITERATIONS\n"
           "                              displayed in addition to AVERAGE latency)\n");
    printf("  -M, --mem-limit SIZE        set per process maximum memory consumption to SIZE "
           "bytes\n"
           "                              (default %zu)\n",
           o->mem_limit);
  }
  printf("  -h, --help                  print this help\n");
  printf("  -v, --version               print version info\n\n");
  fflush(stdout);
}

/* Parses a non-negative decimal number; returns 0 on success. */
static int parse_size(const char *s, size_t *out) {
  if (!s || !*s) return -1;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end != '\0' || s[0] == '-') return -1;
  *out = (size_t)v;
  return 0;
}
static int parse_int(const char *s, int *out, int min) {
  size_t v = 0;
  if (parse_size(s, &v) != 0 || v > INT_MAX || (int)v < min) return -1;
  *out = (int)v;
  return 0;
}

static int bad(const osu_opts *o, int rank, const char *msg, const char *opt, const char *arg) {
  if (rank == 0) {
    fprintf(stderr, "%s [%s%s%s]\n\n", msg, opt, arg ? " " : "", arg ? arg : "");
    usage(o);
  }
  return -1;
}

/* The long names and their short letters; `arg` says whether the option takes a value. */
struct longopt {
  const char *name;
  char letter;
  int arg;
};
static const struct longopt longopts[] = {
    {"help", 'h', 0},       {"version", 'v', 0},     {"message-size", 'm', 1},
    {"iterations", 'i', 1}, {"warmup", 'x', 1},      {"window-size", 'W', 1},
    {"full", 'f', 0},       {"accelerator", 'd', 1}, {"mem-limit", 'M', 1},
    {"print-rate", 'r', 1}, {"staging", 'S', 0},
};

int osu_start(osu_opts *o, const char *name, const char *title, enum osu_kind kind,
              enum osu_procs need, int *argc, char ***argv, int *rank, int *nprocs) {
  OSU_CHECK(MPI_Init(argc, argv));
  OSU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, rank));
  OSU_CHECK(MPI_Comm_size(MPI_COMM_WORLD, nprocs));
  const int rc = osu_parse(o, name, title, kind, *argc, *argv, *rank);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  const int n = *nprocs;
  const char *requirement = NULL;
  if (need == OSU_PROCS_TWO && n != 2)
    requirement = "exactly two processes";
  else if (need == OSU_PROCS_EVEN && (n < 2 || n % 2 != 0))
    requirement = "an even number of processes";
  else if (need == OSU_PROCS_AT_LEAST_TWO && n < 2)
    requirement = "at least two processes";
  if (requirement) {
    if (*rank == 0) fprintf(stderr, "This test requires %s\n", requirement);
    MPI_Finalize();
    return 1;
  }
  return -1;
}

int osu_parse(osu_opts *o, const char *name, const char *title, enum osu_kind kind, int argc,
              char **argv, int rank) {
  defaults(o, kind);
  o->name = name;
  o->title = title;
  int npos = 0;
  char pos[2] = {'H', 'H'};
  int iter_set = 0, skip_set = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    char letter = 0;
    const char *val = NULL;
    if (a[0] == '-' && a[1] == '-' && a[2] != '\0') {
      const char *eq = strchr(a + 2, '=');
      size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
      int takes = 0;
      for (size_t k = 0; k < sizeof longopts / sizeof longopts[0]; ++k)
        if (strlen(longopts[k].name) == len && strncmp(longopts[k].name, a + 2, len) == 0) {
          letter = longopts[k].letter;
          takes = longopts[k].arg;
        }
      if (!letter) return bad(o, rank, "Invalid option", a, NULL);
      if (takes) {
        if (eq)
          val = eq + 1;
        else if (i + 1 < argc)
          val = argv[++i];
        else
          return bad(o, rank, "Option requires an argument", a, NULL);
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      letter = a[1];
      if (strchr("mixWdMr", letter)) {
        if (a[2] != '\0')
          val = a + 2;
        else if (i + 1 < argc)
          val = argv[++i];
        else
          return bad(o, rank, "Option requires an argument", a, NULL);
      } else if (a[2] != '\0') {
        return bad(o, rank, "Invalid option", a, NULL);
      }
    } else {
      /* Positional: the SRC DST buffer placements of the point-to-point tests. */
      if (!is_pt2pt(kind) || npos >= 2 || (strcmp(a, "H") != 0 && strcmp(a, "D") != 0))
        return bad(o, rank, "Invalid argument", a, NULL);
      pos[npos++] = a[0];
      continue;
    }
    switch (letter) {
    case 'h':
      if (rank == 0) usage(o);
      return 1;
    case 'v':
      if (rank == 0) printf("# OSU MPI %s v%s (ampi's implementation)\n", title, OSU_VERSION);
      return 1;
    case 'm': {
      const char *colon = strchr(val, ':');
      size_t lo = o->min_size, hi = o->max_size;
      if (colon) {
        char buf[64];
        size_t n = (size_t)(colon - val);
        if (n >= sizeof buf) return bad(o, rank, "Invalid message size", "-m", val);
        memcpy(buf, val, n);
        buf[n] = '\0';
        if ((n > 0 && parse_size(buf, &lo) != 0) ||
            (colon[1] != '\0' && parse_size(colon + 1, &hi) != 0))
          return bad(o, rank, "Invalid message size", "-m", val);
      } else if (parse_size(val, &hi) != 0) {
        return bad(o, rank, "Invalid message size", "-m", val);
      }
      if (lo > hi) return bad(o, rank, "Min message size is greater than max", "-m", val);
      o->min_size = lo;
      o->max_size = hi;
      break;
    }
    case 'i':
      if (parse_int(val, &o->iterations, 1) != 0)
        return bad(o, rank, "Invalid iterations", "-i", val);
      iter_set = 1;
      break;
    case 'x':
      if (parse_int(val, &o->skip, 0) != 0) return bad(o, rank, "Invalid warmup", "-x", val);
      skip_set = 1;
      break;
    case 'W':
      if (!has_window(kind) || parse_int(val, &o->window, 1) != 0)
        return bad(o, rank, "Invalid window size", "-W", val);
      break;
    case 'f':
      o->full = 1;
      break;
    case 'S':
      if (kind != OSU_LATENCY && kind != OSU_BW) return bad(o, rank, "Invalid option", a, NULL);
      o->staging = 1;
      break;
    case 'r':
      if (kind != OSU_MBW_MR || parse_int(val, &o->print_rate, 0) != 0 || o->print_rate > 1)
        return bad(o, rank, "Invalid print rate", "-r", val);
      break;
    case 'M':
      if (is_pt2pt(kind) || parse_size(val, &o->mem_limit) != 0)
        return bad(o, rank, "Invalid memory limit", "-M", val);
      break;
    case 'd':
      if (strcmp(val, "cuda") != 0)
        return bad(o, rank, "Unsupported accelerator (only cuda is)", "-d", val);
#ifndef OSU_ENABLE_CUDA
      if (rank == 0)
        fprintf(stderr, "CUDA support not enabled.  Please recompile benchmark with CUDA "
                        "support (-DOSU_ENABLE_CUDA).\n");
      return -1;
#else
      o->cuda = 1;
      break;
#endif
    default:
      return bad(o, rank, "Invalid option", a, NULL);
    }
  }
  if (iter_set) o->iterations_large = o->iterations;
  if (skip_set) o->skip_large = o->skip;
  if (npos == 1) return bad(o, rank, "Both SRC and DST are needed", argv[argc - 1], NULL);
  if (npos == 2) {
    o->src = pos[0];
    o->dst = pos[1];
  } else if (o->cuda && is_pt2pt(kind)) {
    o->src = o->dst = 'D';
  }
  if ((o->src == 'D' || o->dst == 'D') && !o->cuda) {
#ifdef OSU_ENABLE_CUDA
    o->cuda = 1;
#else
    if (rank == 0)
      fprintf(stderr, "CUDA support not enabled.  Please recompile benchmark with CUDA "
                      "support (-DOSU_ENABLE_CUDA).\n");
    return -1;
#endif
  }
  if (o->cuda && !is_pt2pt(kind)) o->src = o->dst = 'D';
  if (o->staging && !o->cuda) return bad(o, rank, "--staging needs device buffers", "-d", "cuda");
  return 0;
}

int osu_iters(const osu_opts *o, size_t size) {
  return size >= OSU_LARGE_MESSAGE_SIZE ? o->iterations_large : o->iterations;
}
int osu_skip(const osu_opts *o, size_t size) {
  return size >= OSU_LARGE_MESSAGE_SIZE ? o->skip_large : o->skip;
}

#ifdef OSU_ENABLE_CUDA
/* The node-local rank from the launchers' variables (ampirun, Open MPI, MPICH, MVAPICH, Slurm). */
static int local_rank_from_env(int world_rank) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                                     "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *v = getenv(vars[i]);
    if (v && *v) return atoi(v);
  }
  return world_rank;
}
#endif

void osu_init_device(const osu_opts *o, int world_rank) {
  if (!o->cuda) return;
#ifdef OSU_ENABLE_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    fprintf(stderr, "%s: no CUDA device\n", o->name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* Virtual ranks of one process share the launcher's variables: each process then takes one
   * device, which all its ranks share. */
  int local = local_rank_from_env(world_rank);
  if (cudaSetDevice(local % n) != cudaSuccess) {
    fprintf(stderr, "%s: cudaSetDevice(%d) failed\n", o->name, local % n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
#else
  (void)world_rank;
#endif
}

void *osu_alloc(char placement, size_t bytes) {
  void *p = NULL;
  if (bytes == 0) bytes = 1;
  if (placement == 'D') {
#ifdef OSU_ENABLE_CUDA
    if (cudaMalloc(&p, bytes) != cudaSuccess) p = NULL;
#endif
  } else if (posix_memalign(&p, 4096, bytes) != 0) {
    p = NULL;
  }
  if (!p) {
    fprintf(stderr, "osu: cannot allocate %zu bytes on the %s\n", bytes,
            placement == 'D' ? "device" : "host");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

void osu_fill(void *buf, char placement, int value, size_t bytes) {
  if (bytes == 0) return;
#ifdef OSU_ENABLE_CUDA
  if (placement == 'D') {
    cudaMemset(buf, value, bytes);
    cudaDeviceSynchronize();
    return;
  }
#endif
  (void)placement;
  memset(buf, value, bytes);
}

void osu_free(void *buf, char placement) {
  if (!buf) return;
#ifdef OSU_ENABLE_CUDA
  if (placement == 'D') {
    cudaFree(buf);
    return;
  }
#endif
  (void)placement;
  free(buf);
}

static const char *where(char p) {
  return p == 'D' ? "DEVICE (D)" : "HOST (H)";
}

void osu_print_header(const osu_opts *o, int rank, int pairs) {
  if (rank != 0) return;
  const int w = OSU_FIELD_WIDTH;
  if (!is_pt2pt(o->kind)) printf("\n");
  printf("# OSU MPI%s %s v%s\n", o->cuda ? "-CUDA" : "", o->title, OSU_VERSION);
  if (is_pt2pt(o->kind)) {
    if (o->cuda)
      printf("# Send Buffer on %s and Receive Buffer on %s\n", where(o->src), where(o->dst));
    if (o->staging) printf("# Device data staged through pinned host buffers (--staging)\n");
    if (o->kind == OSU_MBW_MR) {
      printf("# [ pairs: %d ] [ window size: %d ]\n", pairs, o->window);
      if (o->print_rate)
        printf("%-*s%*s%*s\n", 10, "# Size", w, "MB/s", w, "Messages/s");
      else
        printf("%-*s%*s\n", 10, "# Size", w, "MB/s");
    } else if (o->kind == OSU_BW || o->kind == OSU_BIBW) {
      printf("%-*s%*s\n", 10, "# Size", w, "Bandwidth (MB/s)");
    } else {
      printf("%-*s%*s\n", 10, "# Size", w, "Latency (us)");
    }
  } else {
    if (o->kind == OSU_BARRIER)
      printf("# Avg Latency(us)");
    else
      printf("%-*s%*s", 10, "# Size", w, "Avg Latency(us)");
    if (o->full) printf("%*s%*s%*s", w, "Min Latency(us)", w, "Max Latency(us)", 12, "Iterations");
    printf("\n");
  }
  fflush(stdout);
}

void osu_print_pt2pt_row(const osu_opts *o, int rank, size_t size, double value) {
  if (rank != 0) return;
  (void)o;
  printf("%-*zu%*.*f\n", 10, size, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, value);
  fflush(stdout);
}

void osu_print_mbw_row(const osu_opts *o, int rank, size_t size, double mbps, double rate) {
  if (rank != 0) return;
  if (o->print_rate)
    printf("%-*zu%*.*f%*.*f\n", 10, size, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, mbps,
           OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, rate);
  else
    printf("%-*zu%*.*f\n", 10, size, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, mbps);
  fflush(stdout);
}

void osu_print_coll_row(const osu_opts *o, int rank, size_t size, double avg, double min,
                        double max, int iters) {
  if (rank != 0) return;
  const int w = OSU_FIELD_WIDTH, p = OSU_FLOAT_PRECISION;
  if (o->kind == OSU_BARRIER)
    printf("%*.*f", 17, p, avg);
  else
    printf("%-*zu%*.*f", 10, size, w, p, avg);
  if (o->full) printf("%*.*f%*.*f%*d", w, p, min, w, p, max, 12, iters);
  printf("\n");
  fflush(stdout);
}

void osu_coll_stats(double lat, MPI_Comm comm, double *avg, double *min, double *max) {
  int n = 1;
  OSU_CHECK(MPI_Comm_size(comm, &n));
  double sum = 0;
  OSU_CHECK(MPI_Reduce(&lat, min, 1, MPI_DOUBLE, MPI_MIN, 0, comm));
  OSU_CHECK(MPI_Reduce(&lat, max, 1, MPI_DOUBLE, MPI_MAX, 0, comm));
  OSU_CHECK(MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm));
  *avg = sum / n;
}

void *osu_alloc_pinned(size_t bytes) {
#ifdef OSU_ENABLE_CUDA
  void *p = NULL;
  if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess) {
    fprintf(stderr, "osu: cannot allocate %zu bytes of pinned host memory\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
#else
  return osu_alloc('H', bytes);
#endif
}

void osu_free_pinned(void *p) {
#ifdef OSU_ENABLE_CUDA
  if (p) cudaFreeHost(p);
#else
  free(p);
#endif
}

void osu_copy_to_host(void *host, const void *dev, size_t bytes) {
  if (bytes == 0) return;
#ifdef OSU_ENABLE_CUDA
  cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
#else
  memcpy(host, dev, bytes);
#endif
}

void osu_copy_to_device(void *dev, const void *host, size_t bytes) {
  if (bytes == 0) return;
#ifdef OSU_ENABLE_CUDA
  cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
#else
  memcpy(dev, host, bytes);
#endif
}
