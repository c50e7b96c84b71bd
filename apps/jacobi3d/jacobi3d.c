/* apps/jacobi3d/jacobi3d.c — Jacobi3D's driver: the Jacobi method on a 3-D grid of doubles with a
 * 7-point stencil, the domain split into equal cuboid blocks (the split of the ranks into
 * px*py*pz that minimises a block's surface area), one block per rank, halos exchanged with up
 * to six neighbours by non-blocking point-to-point — device buffers passed to MPI directly
 * (GPU-aware, the default) or staged through host memory (--staging) — for a fixed number of
 * iterations; prints the mean time per iteration and the communication time per iteration.
 * Two more ways to exchange the halos:
 *  --datatypes: no pack/unpack kernels and no face buffers: each face is sent from the grid
 *    itself and received into its ghost layer with a subarray datatype of the block (ghosts
 *    included), so the MPI library packs and unpacks (on the device for device memory).
 *  --enqueue (CUDA backend): MPICH's stream-ordered calls (MPIX_Stream on the block's stream,
 *    MPIX_Irecv/Isend_enqueue, MPIX_Waitall_enqueue); packing, unpacking and the sweep are queued
 *    on the same stream and the host never waits for the GPU inside an iteration (only before
 *    the clock starts and stops). The communication time is not measured separately there.
 * The grid lives where the backend puts it (backend.h: CUDA kernels or host loops; the same
 * source builds both). More ranks than GPUs share them: the node-local rank r of n picks device
 * r * devices / n (consecutive ranks, hence the virtual ranks of one process, share a device).
 * --verify checks the result against a serial computation of the whole grid (small grids).
 * --no-exchange runs the sweeps alone: what the time per iteration cannot go below.
 * Per-rank state lives in main's locals: virtual ranks of one process share nothing. */
#include "backend.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
  int gx, gy, gz;
  int iters, warmup;
  int staging;   /* 1: host staging; 0: GPU-aware (device buffers to MPI) */
  int datatypes; /* 1: faces as subarray datatypes of the grid, no pack/unpack kernels */
  int enqueue;   /* 1: MPIX stream enqueue calls on the block's stream (CUDA backend) */
  int ahead;     /* --enqueue: iterations the host may queue ahead of the GPU (0: no bound) */
  int verify;
  int phases; /* 1: time the parts of an iteration (pack, exchange, unpack, sweep) */
  int cyclic; /* device map: 1 local % devices, 0 block (default) */
  int no_exchange; /* 1: sweeps only, no halos (the floor of the time per iteration) */
} options;

static void usage(void) {
  printf("Usage: jacobi3d [options]\n"
         "  -n N              cubic grid of N^3 cells (default 128)\n"
         "  -g XxYxZ          grid of X*Y*Z cells\n"
         "  -i ITERS          timed iterations (default 100)\n"
         "  -w ITERS          warm-up iterations (default 10)\n"
         "  --staging         stage halos through host memory\n"
         "  --gpu-aware       pass device buffers to MPI (default)\n"
         "  --datatypes       send and receive faces in the grid with subarray datatypes\n"
         "  --enqueue         MPIX stream enqueue calls on the block's stream (CUDA backend)\n"
         "  --ahead K         --enqueue: queue at most K iterations ahead of the GPU (default 2;\n"
         "                    0: no bound)\n"
         "  --device-map M    block (default: rank r of n on a node uses device r*devices/n)\n"
         "                    or cyclic (device r %% devices)\n"
         "  --verify          compare with a serial computation (small grids only)\n"
         "  --phases          also print the mean time per iteration of each part: packing,\n"
         "                    the exchange (MPI), unpacking, the sweep (without --enqueue)\n"
         "  --no-exchange     sweeps only, without the halo exchange: the floor of the time per\n"
         "                    iteration with this decomposition (not with --verify or --enqueue)\n"
         "  -h, --help        this help\n");
}

static int parse(options *o, int argc, char **argv, int rank) {
  o->gx = o->gy = o->gz = 128;
  o->iters = 100, o->warmup = 10, o->staging = 0, o->verify = 0, o->cyclic = 0;
  o->datatypes = 0, o->enqueue = 0, o->ahead = 2, o->phases = 0, o->no_exchange = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      if (rank == 0) usage();
      return 1;
    } else if (!strcmp(a, "--staging")) {
      o->staging = 1;
    } else if (!strcmp(a, "--gpu-aware")) {
      o->staging = 0;
    } else if (!strcmp(a, "--datatypes")) {
      o->datatypes = 1;
    } else if (!strcmp(a, "--enqueue")) {
      o->enqueue = 1;
    } else if (!strcmp(a, "--verify")) {
      o->verify = 1;
    } else if (!strcmp(a, "--no-exchange")) {
      o->no_exchange = 1;
    } else if (!strcmp(a, "--phases")) {
      o->phases = 1;
    } else if (!strcmp(a, "--device-map") && v) {
      if (!strcmp(v, "cyclic"))
        o->cyclic = 1;
      else if (!strcmp(v, "block"))
        o->cyclic = 0;
      else
        goto bad;
      ++i;
    } else if (!strcmp(a, "--ahead") && v) {
      o->ahead = atoi(v);
      ++i;
    } else if (!strcmp(a, "-n") && v) {
      o->gx = o->gy = o->gz = atoi(v);
      ++i;
    } else if (!strcmp(a, "-g") && v) {
      if (sscanf(v, "%dx%dx%d", &o->gx, &o->gy, &o->gz) != 3) goto bad;
      ++i;
    } else if (!strcmp(a, "-i") && v) {
      o->iters = atoi(v);
      ++i;
    } else if (!strcmp(a, "-w") && v) {
      o->warmup = atoi(v);
      ++i;
    } else {
      goto bad;
    }
    continue;
  bad:
    if (rank == 0) {
      fprintf(stderr, "jacobi3d: bad argument '%s'\n", a);
      usage();
    }
    return -1;
  }
  if (o->gx < 1 || o->gy < 1 || o->gz < 1 || o->iters < 1 || o->warmup < 0 || o->ahead < 0 ||
      o->ahead > 64) {
    if (rank == 0)
      fprintf(stderr, "jacobi3d: grid sizes and iterations must be positive, --ahead 0..64\n");
    return -1;
  }
  if (o->staging && (o->datatypes || o->enqueue)) {
    if (rank == 0)
      fprintf(stderr, "jacobi3d: --staging goes with neither --datatypes nor --enqueue (both "
                      "pass the grid's device memory to MPI)\n");
    return -1;
  }
  if (o->no_exchange && (o->verify || o->enqueue)) {
    if (rank == 0)
      fprintf(stderr, "jacobi3d: --no-exchange goes with neither --verify (without halos the "
                      "result differs) nor --enqueue\n");
    return -1;
  }
  return 0;
}

/* The split px*py*pz = p with each grid dimension divisible that minimises a block's surface. */
static int decompose(int p, int gx, int gy, int gz, int d[3]) {
  double best = -1;
  for (int px = 1; px <= p; ++px) {
    if (p % px || gx % px) continue;
    for (int py = 1; py <= p / px; ++py) {
      if ((p / px) % py || gy % py) continue;
      int pz = p / px / py;
      if (gz % pz) continue;
      double bx = gx / px, by = gy / py, bz = gz / pz;
      double area = bx * by + by * bz + bx * bz;
      if (best < 0 || area < best) best = area, d[0] = px, d[1] = py, d[2] = pz;
    }
  }
  return best < 0 ? -1 : 0;
}

/* The node-local rank and the number of ranks on this node (MPI_COMM_TYPE_SHARED). */
static void node_rank(int rank, int *local, int *nlocal) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, local);
  MPI_Comm_size(node, nlocal);
  MPI_Comm_free(&node);
}

/* The whole grid computed serially (ghosts included), the same additions in the same order. */
static double *serial(int gx, int gy, int gz, int sweeps) {
  size_t sx = 1, sy = (size_t)gx + 2, sz = sy * ((size_t)gy + 2);
  size_t cells = sz * ((size_t)gz + 2);
  double *u = malloc(cells * sizeof(double)), *v = malloc(cells * sizeof(double));
  if (!u || !v) return free(u), free(v), NULL;
  for (int k = 0; k <= gz + 1; ++k)
    for (int j = 0; j <= gy + 1; ++j)
      for (int i = 0; i <= gx + 1; ++i)
        u[i * sx + j * sy + k * sz] = jb_initial_value(i - 1, j - 1, k - 1);
  memcpy(v, u, cells * sizeof(double));
  for (int s = 0; s < sweeps; ++s) {
    for (int k = 1; k <= gz; ++k)
      for (int j = 1; j <= gy; ++j)
        for (int i = 1; i <= gx; ++i) {
          size_t c = i * sx + j * sy + k * sz;
          v[c] =
              (u[c] + u[c - sx] + u[c + sx] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]) / 7.0;
        }
    double *t = u;
    u = v, v = t;
  }
  free(v);
  return u;
}

int main(int argc, char **argv) {
  /* A GPU backend without a usable device: exit status 77 before MPI_Init (CTest: skipped). */
  if (strcmp(jb_name(), "host") != 0 && jb_device_count() == 0) {
    printf("jacobi3d: no usable %s device: skipped\n", jb_name());
    return 77;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  int rc = parse(&o, argc, argv, rank);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  int d[3];
  if (decompose(size, o.gx, o.gy, o.gz, d) != 0) {
    if (rank == 0)
      fprintf(stderr, "jacobi3d: %d ranks cannot split a %dx%dx%d grid into equal blocks\n", size,
              o.gx, o.gy, o.gz);
    MPI_Finalize();
    return 1;
  }
  const int nx = o.gx / d[0], ny = o.gy / d[1], nz = o.gz / d[2];
  const int c[3] = {rank % d[0], rank / d[0] % d[1], rank / (d[0] * d[1])};
  /* Neighbour of each face (MPI_PROC_NULL at the domain's boundary). */
  int nbr[6];
  for (int f = 0; f < 6; ++f) {
    int dim = f / 2, step = f % 2 ? 1 : -1, cc[3] = {c[0], c[1], c[2]};
    cc[dim] += step;
    nbr[f] =
        (cc[dim] < 0 || cc[dim] >= d[dim]) ? MPI_PROC_NULL : cc[0] + d[0] * (cc[1] + d[1] * cc[2]);
  }
  int local = 0, nlocal = 1;
  node_rank(rank, &local, &nlocal);
  const int ndev = jb_device_count();
  if (ndev == 0 && strcmp(jb_name(), "host") != 0) {
    fprintf(stderr, "jacobi3d: rank %d: no %s device\n", rank, jb_name());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int device = 0;
  if (ndev > 0) device = o.cyclic ? local % ndev : (int)((long)local * ndev / nlocal);
  jb_block *b = jb_create(device, nx, ny, nz, c[0] * nx, c[1] * ny, c[2] * nz, o.gx, o.gy, o.gz);

  if (o.enqueue && !jb_stream(b)) {
    if (rank == 0)
      fprintf(stderr,
              "jacobi3d: --enqueue needs the CUDA backend (jacobi3d_cuda): the MPIX "
              "enqueue calls order MPI on a CUDA stream, and the %s backend has none\n",
              jb_name());
    jb_destroy(b);
    MPI_Finalize();
    return 1;
  }
  /* --datatypes: face f's interior layer (sent) and ghost layer (received) as subarrays of the
   * (nz+2) x (ny+2) x (nx+2) block, C order (x fastest), the layer one cell thick in dimension
   * f / 2 and the interior extent in the other two. */
  MPI_Datatype send_type[6], recv_type[6];
  for (int f = 0; f < 6 && o.datatypes; ++f) {
    const int dim = 2 - f / 2; /* x is the last (fastest) dimension in C order */
    const int n[3] = {nz, ny, nx};
    int sizes[3] = {nz + 2, ny + 2, nx + 2}, sub[3] = {nz, ny, nx}, at[3] = {1, 1, 1};
    sub[dim] = 1;
    at[dim] = f % 2 ? n[dim] : 1;
    MPI_Type_create_subarray(3, sizes, sub, at, MPI_ORDER_C, MPI_DOUBLE, &send_type[f]);
    at[dim] = f % 2 ? n[dim] + 1 : 0;
    MPI_Type_create_subarray(3, sizes, sub, at, MPI_ORDER_C, MPI_DOUBLE, &recv_type[f]);
    MPI_Type_commit(&send_type[f]);
    MPI_Type_commit(&recv_type[f]);
  }
  /* --enqueue: an MPIX stream on the block's CUDA stream and a communicator bound to it. */
  MPI_Comm comm = MPI_COMM_WORLD;
  MPIX_Stream mstream = MPIX_STREAM_NULL;
  if (o.enqueue) {
    void *cs = jb_stream(b);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "type", "cudaStream_t");
    MPIX_Info_set_hex(info, "value", &cs, (int)sizeof cs);
    MPIX_Stream_create(info, &mstream);
    MPI_Info_free(&info);
    MPIX_Stream_comm_create(MPI_COMM_WORLD, mstream, &comm);
  }

  /* What MPI sends and receives: the device buffers, or host copies of them. */
  double *sbuf[6], *rbuf[6];
  size_t count[6];
  for (int f = 0; f < 6; ++f) {
    count[f] = jb_face_count(b, f);
    sbuf[f] = jb_send_buffer(b, f);
    rbuf[f] = jb_recv_buffer(b, f);
    if (o.staging) {
      sbuf[f] = jb_host_alloc(count[f] * sizeof(double));
      rbuf[f] = jb_host_alloc(count[f] * sizeof(double));
    }
  }
  if (rank == 0) {
    printf("# Jacobi3D (%s backend): grid %dx%dx%d, %d ranks as %dx%dx%d blocks of %dx%dx%d\n",
           jb_name(), o.gx, o.gy, o.gz, size, d[0], d[1], d[2], nx, ny, nz);
    printf("# halo exchange: %s; %d iterations after %d warm-up; %d device(s) visible to rank "
           "0, %d rank(s) on its node\n",
           o.staging     ? "host staging"
           : o.datatypes ? (o.enqueue ? "subarray datatypes in the grid, stream-enqueued"
                                      : "subarray datatypes in the grid")
           : o.enqueue   ? "stream-enqueued (MPIX_Isend/Irecv_enqueue)"
           : ndev > 0    ? "GPU-aware (device buffers)"
                         : "direct",
           o.iters, o.warmup, ndev, nlocal);
    if (o.enqueue) printf("# --enqueue: the host queues up to %d iteration(s) ahead\n", o.ahead);
    fflush(stdout);
  }

  MPI_Request req[12];
  double t0 = 0, comm_time = 0;
  /* --phases: packing (with its wait), the exchange, unpacking (with its wait), the sweep. */
  double phase[4] = {0, 0, 0, 0};
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < o.warmup + o.iters; ++it) {
    if (it == o.warmup) {
      jb_sync(b); /* (--enqueue: the warm-up's work is done before the clock starts) */
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      comm_time = 0;
      phase[0] = phase[1] = phase[2] = phase[3] = 0;
    }
    double tc = MPI_Wtime();
    int nreq = 0;
    double *grid = jb_grid(b);
    if (o.no_exchange) {
      jb_update(b);
      jb_sync(b);
      continue;
    }
    if (o.enqueue) {
      /* Everything on the block's stream; the host only queues, at most o.ahead iterations ahead
       * of the GPU: the stream's queue is finite (a launch into a full one blocks the host thread,
       * and with it every virtual rank of the process, whose MPI the queued waits need). The
       * wait is for an iteration queued earlier, never for this one's work. */
      if (o.ahead > 0 && it >= o.ahead) jb_wait_mark(b, it % o.ahead);
      for (int f = 0; f < 6; ++f)
        if (nbr[f] != MPI_PROC_NULL) {
          if (o.datatypes)
            MPIX_Irecv_enqueue(grid, 1, recv_type[f], nbr[f], f ^ 1, comm, &req[nreq++]);
          else
            MPIX_Irecv_enqueue(rbuf[f], (int)count[f], MPI_DOUBLE, nbr[f], f ^ 1, comm,
                               &req[nreq++]);
        }
      for (int f = 0; f < 6; ++f)
        if (nbr[f] != MPI_PROC_NULL) {
          if (o.datatypes) {
            MPIX_Isend_enqueue(grid, 1, send_type[f], nbr[f], f, comm, &req[nreq++]);
          } else {
            jb_pack(b, f);
            MPIX_Isend_enqueue(sbuf[f], (int)count[f], MPI_DOUBLE, nbr[f], f, comm, &req[nreq++]);
          }
        }
      MPIX_Waitall_enqueue(nreq, req, MPI_STATUSES_IGNORE);
      for (int f = 0; f < 6 && !o.datatypes; ++f)
        if (nbr[f] != MPI_PROC_NULL) jb_unpack(b, f);
      jb_update(b);
      if (o.ahead > 0) jb_mark(b, it % o.ahead);
      continue;
    }
    if (o.datatypes) {
      /* The grid is final (the last sweep was waited for): faces straight from and into it. */
      for (int f = 0; f < 6; ++f)
        if (nbr[f] != MPI_PROC_NULL)
          MPI_Irecv(grid, 1, recv_type[f], nbr[f], f ^ 1, comm, &req[nreq++]);
      for (int f = 0; f < 6; ++f)
        if (nbr[f] != MPI_PROC_NULL)
          MPI_Isend(grid, 1, send_type[f], nbr[f], f, comm, &req[nreq++]);
      MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
      comm_time += MPI_Wtime() - tc;
      jb_update(b);
      jb_sync(b);
      continue;
    }
    for (int f = 0; f < 6; ++f)
      if (nbr[f] != MPI_PROC_NULL)
        MPI_Irecv(rbuf[f], (int)count[f], MPI_DOUBLE, nbr[f], f ^ 1, comm, &req[nreq++]);
    for (int f = 0; f < 6; ++f)
      if (nbr[f] != MPI_PROC_NULL) {
        jb_pack(b, f);
        if (o.staging) jb_to_host(b, sbuf[f], jb_send_buffer(b, f), count[f] * sizeof(double));
      }
    jb_sync(b);
    double tp = o.phases ? MPI_Wtime() : 0;
    for (int f = 0; f < 6; ++f)
      if (nbr[f] != MPI_PROC_NULL)
        MPI_Isend(sbuf[f], (int)count[f], MPI_DOUBLE, nbr[f], f, comm, &req[nreq++]);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    double tx = o.phases ? MPI_Wtime() : 0;
    for (int f = 0; f < 6; ++f)
      if (nbr[f] != MPI_PROC_NULL) {
        if (o.staging) jb_to_device(b, jb_recv_buffer(b, f), rbuf[f], count[f] * sizeof(double));
        jb_unpack(b, f);
      }
    jb_sync(b);
    double tu = MPI_Wtime();
    comm_time += tu - tc;
    jb_update(b);
    jb_sync(b);
    if (o.phases) {
      phase[0] += tp - tc, phase[1] += tx - tp, phase[2] += tu - tx;
      phase[3] += MPI_Wtime() - tu;
    }
  }
  jb_sync(b); /* (--enqueue: the clock stops when the GPU is done) */
  double total = MPI_Wtime() - t0;
  double tmax = 0, csum = 0, cmax = 0;
  MPI_Reduce(&total, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&comm_time, &csum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&comm_time, &cmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("Time per iteration (ms): %.4f\n", tmax / o.iters * 1e3);
    if (o.enqueue)
      printf("Communication time per iteration (ms): not measured (--enqueue: on the stream)\n");
    else
      printf("Communication time per iteration (ms): %.4f (max over ranks %.4f)\n",
             csum / size / o.iters * 1e3, cmax / o.iters * 1e3);
    fflush(stdout);
  }
  if (o.phases && !o.enqueue && !o.datatypes) {
    double psum[4];
    MPI_Reduce(phase, psum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("Phases per iteration (ms, mean over ranks): pack %.4f exchange %.4f unpack %.4f "
             "sweep %.4f\n",
             psum[0] / size / o.iters * 1e3, psum[1] / size / o.iters * 1e3,
             psum[2] / size / o.iters * 1e3, psum[3] / size / o.iters * 1e3);
  }

  int status = 0;
  if (o.verify) {
    double err = 0;
    double *mine = malloc((size_t)nx * ny * nz * sizeof(double));
    double *ref = serial(o.gx, o.gy, o.gz, o.warmup + o.iters);
    if (!mine || !ref) {
      err = INFINITY;
    } else {
      jb_download(b, mine);
      size_t sy = (size_t)o.gx + 2, sz = sy * ((size_t)o.gy + 2), n = 0;
      for (int k = 1; k <= nz; ++k)
        for (int j = 1; j <= ny; ++j)
          for (int i = 1; i <= nx; ++i, ++n) {
            size_t g = (size_t)(c[0] * nx + i) + (size_t)(c[1] * ny + j) * sy +
                       (size_t)(c[2] * nz + k) * sz;
            double e = fabs(mine[n] - ref[g]);
            if (!(e <= err)) err = e; /* NaN counts as an error */
          }
    }
    free(mine);
    free(ref);
    double maxerr = 0;
    MPI_Allreduce(&err, &maxerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    status = !(maxerr <= 1e-12);
    if (rank == 0) {
      printf("Verification against the serial computation: max |error| %.3g: %s\n", maxerr,
             status ? "FAILED" : "PASSED");
      if (!status) printf("ok jacobi3d (%d ranks)\n", size);
    }
  }
  for (int f = 0; f < 6 && o.staging; ++f)
    jb_host_free(sbuf[f]), jb_host_free(rbuf[f]);
  for (int f = 0; f < 6 && o.datatypes; ++f)
    MPI_Type_free(&send_type[f]), MPI_Type_free(&recv_type[f]);
  if (o.enqueue) {
    MPI_Comm_free(&comm);
    MPIX_Stream_free(&mstream);
  }
  jb_destroy(b);
  MPI_Finalize();
  return status;
}
