/* src/devptr_cache/copy_ring.h — the ring through which a PE hands device-to-device copies into its
 * GPU (contiguous, or one segment of a strided copy) to its resident copy kernel
 * (copy_service.cu, run by copy_service.cpp): page-locked host memory that the kernel reads and
 * writes through its device mapping. Plain C, shared by the kernel (nvcc) and the host side (C++).
 * One producer (the PE's thread), one consumer (the kernel: its block 0 reads the ring, and all
 * of its blocks share each copy); descriptors are finished in order. */
#ifndef AMPI_DEVPTR_CACHE_COPY_RING_H
#define AMPI_DEVPTR_CACHE_COPY_RING_H

#define AMPI_COPY_RING_SLOTS 256

/* One side of a strided segment, in units of the copy (strided_plan.hpp's StridedSide without its
 * base): units per row, rows per slab, units between rows and between slabs, and the segment's
 * first unit in the rectangle's packed order. */
struct ampi_copy_side {
  unsigned long long width, height, pitch, slab, offset;
};

/* One copy, two cache lines: `seq` (written last, with release order) is the descriptor's number
 * + 1, so that the kernel tells a new descriptor from the one a slot held before. `unit` 0: `bytes`
 * contiguous bytes from `src` to `dst`; 1, 2, 4, 8 or 16: a strided segment of `bytes` units of
 * that size, `src` and `dst` the addresses of its rectangles' first units. */
struct ampi_copy_slot {
  unsigned long long src, dst, bytes, unit;
  struct ampi_copy_side dst_side, src_side;
  unsigned long long pad, seq;
};
#define AMPI_COPY_SLOT_FIELDS 14 /* the words before `pad` that the kernel reads (one a thread) */

struct ampi_copy_ring {
  struct ampi_copy_slot slot[AMPI_COPY_RING_SLOTS];
  /* Written by the kernel: the number of descriptors finished (their data visible to later work
   * of the context), and the generation (launch) that last ran out of work and exited. Each on a
   * cache line of its own: the host polls them while the kernel writes them. */
  unsigned long long done, pad_done[7];
  unsigned long long exited, pad_exited[7];
  /* Written by the host: nonzero, the kernel exits at once when it has no descriptor (teardown). */
  unsigned long long stop, pad_stop[7];
};

/* Device memory of a copy kernel of several blocks (AMPI_GPU_COPY_KERNEL_BLOCKS), zeroed once when
 * made. Block 0 alone reads the ring: it copies each descriptor's words into `job` and then tells
 * the other blocks, through `cmd`, to take their share of it or that the launch ends (the launch's
 * generation in the top 24 bits, the descriptor's number in the next 39, then 1: ends there). The
 * last block to finish a descriptor (`arrived`, by slot) writes the ring's `done`, and the last
 * to exit (`exits`, counted over the service's launches) its `exited`. */
struct ampi_copy_grid {
  unsigned long long cmd, pad_cmd[7];
  unsigned long long exits, pad_exits[7];
  unsigned long long arrived[AMPI_COPY_RING_SLOTS];
  unsigned long long job[AMPI_COPY_RING_SLOTS][AMPI_COPY_SLOT_FIELDS];
};

#endif
