/* tests/datatype/type_reference.c — randomly nested derived types checked against a reference
 * packer of the test's own: each type is built twice, once with the MPI constructors and once as
 * the plain list of the byte offsets its type map covers, in order (this file's `Ref`). Then
 * MPI_Pack must produce the bytes the list reads, MPI_Unpack must write what it writes (and
 * nothing else), size, extent and true extent must agree, and a send of the type to the next
 * rank, received as bytes, and a receive of bytes into the type, must match too (messages of up
 * to a few hundred KiB, so that the sends pack in pieces that start inside an element).
 *
 * The types cover contiguous, hvector (negative and zero strides too), hindexed, struct (given
 * explicit bounds with MPI_Type_create_resized, so that no padding rule is involved), resized,
 * subarray and darray, nested up to four deep, with counts above and below the point where the
 * library stops copying an input into a new type's layout (1024 pieces) and refers to it instead.
 */
#include "../mpi/mpitest.h"

#include <stdint.h>

typedef struct {
  long *off; /* byte offsets from the element's start, in type-map order */
  size_t n;
  long lb, extent;
} Ref;

typedef struct {
  uint64_t s;
} Rng;

static unsigned next(Rng *r, unsigned n) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((r->s >> 33) % n);
}

static Ref ref_new(size_t n) {
  Ref r;
  r.off = malloc(sizeof(long) * (n ? n : 1));
  CHECK(r.off != NULL, "no memory");
  r.n = 0;
  r.lb = 0;
  r.extent = 0;
  return r;
}

/* Appends a copy of t at disp; keeps lb/ub (in lb, extent as ub until ref_done). */
static void ref_add(Ref *r, const Ref *t, long disp, int *first) {
  size_t i;
  for (i = 0; i < t->n; ++i)
    r->off[r->n++] = disp + t->off[i];
  if (*first || disp + t->lb < r->lb) r->lb = disp + t->lb;
  if (*first || disp + t->lb + t->extent > r->extent) r->extent = disp + t->lb + t->extent;
  *first = 0;
}

static void ref_done(Ref *r, int first) {
  if (first) r->lb = r->extent = 0;
  r->extent -= r->lb;
}

static Ref ref_basic(MPI_Datatype t) {
  int size, i;
  Ref r;
  MPI_Type_size(t, &size);
  r = ref_new((size_t)size);
  for (i = 0; i < size; ++i)
    r.off[r.n++] = i;
  r.extent = size;
  return r;
}

typedef struct {
  MPI_Datatype t;
  Ref ref;
} Both;

static const long kMaxBytes = 1 << 16; /* of one element of a generated type */

static Both gen(Rng *g, int depth);

static Both basic(Rng *g) {
  static const MPI_Datatype kinds[3] = {MPI_BYTE, MPI_INT, MPI_DOUBLE};
  Both b;
  b.t = kinds[next(g, 3)];
  b.ref = ref_basic(b.t);
  return b;
}

/* A count that is sometimes above the library's inline limit (1024 pieces). */
static int some_count(Rng *g, size_t child_bytes) {
  static const int counts[] = {1, 2, 3, 5, 17, 65, 130, 300, 1100};
  int c;
  do
    c = counts[next(g, sizeof counts / sizeof counts[0])];
  while (c > 1 && (long)(c * child_bytes) > kMaxBytes);
  return c;
}

static void free_type(MPI_Datatype *t) {
  int ni, na, nt, comb;
  MPI_Type_get_envelope(*t, &ni, &na, &nt, &comb);
  if (comb != MPI_COMBINER_NAMED) MPI_Type_free(t);
}

static Both gen(Rng *g, int depth) {
  Both in, out;
  int first = 1, i, k;
  if (depth == 0 || next(g, 5) == 0) return basic(g);
  in = gen(g, depth - 1);
  switch (next(g, 8)) {
  case 0: { /* contiguous */
    const int n = some_count(g, in.ref.n);
    CHECK_MPI(MPI_Type_contiguous(n, in.t, &out.t));
    out.ref = ref_new(in.ref.n * (size_t)n);
    for (i = 0; i < n; ++i)
      ref_add(&out.ref, &in.ref, (long)i * in.ref.extent, &first);
    break;
  }
  case 1:
  case 2: { /* hvector: gaps, touching, overlapping, zero and negative strides */
    const int count = some_count(g, in.ref.n);
    const int bl = (int)next(g, 3) + 1;
    static const int mult[] = {0, 1, 2, 3, -2};
    long stride = in.ref.extent * bl * mult[next(g, 5)] + (long)next(g, 3) * 4;
    if (count * bl * (long)in.ref.n > kMaxBytes) stride = in.ref.extent * bl;
    if (count * bl * (long)in.ref.n > kMaxBytes) { /* too large: keep the input */
      out = in;
      return out;
    }
    CHECK_MPI(MPI_Type_create_hvector(count, bl, stride, in.t, &out.t));
    out.ref = ref_new(in.ref.n * (size_t)(count * bl));
    for (i = 0; i < count; ++i)
      for (k = 0; k < bl; ++k)
        ref_add(&out.ref, &in.ref, i * stride + (long)k * in.ref.extent, &first);
    break;
  }
  case 3: { /* hindexed, regular in parts (folded into strided pieces) and irregular */
    const int count = some_count(g, in.ref.n);
    int *bls = malloc(sizeof(int) * (size_t)count), total = 0;
    MPI_Aint *disps = malloc(sizeof(MPI_Aint) * (size_t)count);
    long at = 0;
    for (i = 0; i < count; ++i) {
      bls[i] = (int)next(g, 3);
      total += bls[i];
      at += next(g, 2) ? (long)bls[i] * in.ref.extent + (long)next(g, 3) * 8 : 16;
      disps[i] = at;
    }
    if ((long)total * (long)in.ref.n > kMaxBytes) {
      free(bls);
      free(disps);
      out = in;
      return out;
    }
    CHECK_MPI(MPI_Type_create_hindexed(count, bls, disps, in.t, &out.t));
    out.ref = ref_new(in.ref.n * (size_t)total);
    for (i = 0; i < count; ++i)
      for (k = 0; k < bls[i]; ++k)
        ref_add(&out.ref, &in.ref, disps[i] + (long)k * in.ref.extent, &first);
    free(bls);
    free(disps);
    break;
  }
  case 4: { /* struct of the input and a basic type, given explicit bounds */
    Both other = basic(g);
    MPI_Datatype s, types[2];
    int bls[2];
    MPI_Aint disps[2];
    types[0] = in.t;
    types[1] = other.t;
    bls[0] = (int)next(g, 2) + 1;
    bls[1] = (int)next(g, 4) + 1;
    disps[0] = 8;
    disps[1] = next(g, 2) ? -16 : 8 + bls[0] * in.ref.extent;
    CHECK_MPI(MPI_Type_create_struct(2, bls, disps, types, &s));
    out.ref = ref_new(in.ref.n * (size_t)bls[0] + other.ref.n * (size_t)bls[1]);
    for (k = 0; k < bls[0]; ++k)
      ref_add(&out.ref, &in.ref, disps[0] + (long)k * in.ref.extent, &first);
    for (k = 0; k < bls[1]; ++k)
      ref_add(&out.ref, &other.ref, disps[1] + (long)k * other.ref.extent, &first);
    ref_done(&out.ref, first);
    CHECK_MPI(MPI_Type_create_resized(s, out.ref.lb, out.ref.extent, &out.t));
    MPI_Type_free(&s);
    free(other.ref.off);
    free_type(&in.t);
    free(in.ref.off);
    return out;
  }
  case 5: { /* resized: lb moved, extent grown or shrunk (copies overlap: fine for packing) */
    const long lb = -(long)next(g, 3) * 4;
    long ext = in.ref.extent + (long)next(g, 5) * 4 - 4;
    if (ext <= 0) ext = in.ref.extent;
    CHECK_MPI(MPI_Type_create_resized(in.t, lb, ext, &out.t));
    out.ref = ref_new(in.ref.n);
    ref_add(&out.ref, &in.ref, 0, &first);
    out.ref.lb = lb;
    out.ref.extent = ext;
    free_type(&in.t);
    free(in.ref.off);
    return out;
  }
  case 6:
  case 7: { /* subarray (C or Fortran order) or a cyclic darray of a 3-d array */
    int sizes[3], sub[3], starts[3], d, order = next(g, 2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    int picked[3][40], npicked[3], idx[3];
    long stride[3];
    const int darray = next(g, 2);
    size_t n = 1;
    for (d = 0; d < 3; ++d) {
      sizes[d] = (int)next(g, 30) + 1 + (d == 2 ? 9 : 0);
      sub[d] = (int)next(g, (unsigned)sizes[d]) + 1;
      starts[d] = (int)next(g, (unsigned)(sizes[d] - sub[d] + 1));
    }
    if (darray) {
      int dist[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC};
      int dargs[3] = {2, MPI_DISTRIBUTE_DFLT_DARG, 3}, psizes[3] = {2, 1, 2};
      const int rank = (int)next(g, 4), coord[3] = {rank / 2, 0, rank % 2};
      for (d = 0; d < 3; ++d) {
        int j;
        npicked[d] = 0;
        for (j = 0; j < sizes[d]; ++j)
          if (dist[d] == MPI_DISTRIBUTE_NONE || (j / dargs[d]) % psizes[d] == coord[d])
            picked[d][npicked[d]++] = j;
      }
      for (d = 0; d < 3; ++d)
        n *= (size_t)npicked[d];
      if ((long)(n * in.ref.n) > kMaxBytes) {
        out = in;
        return out;
      }
      CHECK_MPI(
          MPI_Type_create_darray(4, rank, 3, sizes, dist, dargs, psizes, order, in.t, &out.t));
    } else {
      for (d = 0; d < 3; ++d) {
        int j;
        npicked[d] = sub[d];
        for (j = 0; j < sub[d]; ++j)
          picked[d][j] = starts[d] + j;
      }
      for (d = 0; d < 3; ++d)
        n *= (size_t)npicked[d];
      if ((long)(n * in.ref.n) > kMaxBytes) {
        out = in;
        return out;
      }
      CHECK_MPI(MPI_Type_create_subarray(3, sizes, sub, starts, order, in.t, &out.t));
    }
    /* Strides of each dimension in bytes; the array's slowest dimension first in the walk. */
    if (order == MPI_ORDER_C) {
      stride[2] = in.ref.extent;
      stride[1] = stride[2] * sizes[2];
      stride[0] = stride[1] * sizes[1];
    } else {
      stride[0] = in.ref.extent;
      stride[1] = stride[0] * sizes[0];
      stride[2] = stride[1] * sizes[1];
    }
    out.ref = ref_new(n * in.ref.n);
    {
      /* C order: dimension 2 fastest; Fortran: dimension 0 fastest. */
      const int slow = order == MPI_ORDER_C ? 0 : 2, mid = 1, fast = order == MPI_ORDER_C ? 2 : 0;
      for (idx[0] = 0; idx[0] < npicked[slow]; ++idx[0])
        for (idx[1] = 0; idx[1] < npicked[mid]; ++idx[1])
          for (idx[2] = 0; idx[2] < npicked[fast]; ++idx[2])
            ref_add(&out.ref, &in.ref,
                    picked[slow][idx[0]] * stride[slow] + picked[mid][idx[1]] * stride[mid] +
                        picked[fast][idx[2]] * stride[fast],
                    &first);
    }
    out.ref.lb = 0;
    out.ref.extent = stride[order == MPI_ORDER_C ? 0 : 2] * sizes[order == MPI_ORDER_C ? 0 : 2];
    free_type(&in.t);
    free(in.ref.off);
    return out;
  }
  }
  ref_done(&out.ref, first);
  free_type(&in.t);
  free(in.ref.off);
  return out;
}

typedef struct {
  unsigned char *mem; /* allocation */
  unsigned char *buf; /* the address MPI is given */
  size_t span;
} Span;

/* A buffer that holds `count` elements of r (every offset reached). */
static Span span_of(const Ref *r, int count) {
  long lo = 0, hi = 0;
  size_t i;
  Span s;
  int c;
  for (c = 0; c < count; ++c)
    for (i = 0; i < r->n; ++i) {
      const long o = c * r->extent + r->off[i];
      if ((c == 0 && i == 0) || o < lo) lo = o;
      if ((c == 0 && i == 0) || o + 1 > hi) hi = o + 1;
    }
  s.span = (size_t)(hi - lo);
  s.mem = malloc(s.span ? s.span : 1);
  CHECK(s.mem != NULL, "no memory for %zu bytes", s.span);
  s.buf = s.mem - lo;
  return s;
}

static void fill(Span *s, unsigned seed) {
  size_t i;
  for (i = 0; i < s->span; ++i)
    s->mem[i] = (unsigned char)(i * 131 + seed * 7 + 1);
}

/* The reference: packs / unpacks `count` elements by the offset list. */
static void ref_pack(const Ref *r, int count, const unsigned char *buf, unsigned char *out) {
  size_t i, k = 0;
  int c;
  for (c = 0; c < count; ++c)
    for (i = 0; i < r->n; ++i)
      out[k++] = buf[c * r->extent + r->off[i]];
}

static void ref_unpack(const Ref *r, int count, const unsigned char *in, unsigned char *buf) {
  size_t i, k = 0;
  int c;
  for (c = 0; c < count; ++c)
    for (i = 0; i < r->n; ++i)
      buf[c * r->extent + r->off[i]] = in[k++];
}

/* Whether the element copies overlap (a receive into such a type is erroneous). */
static int overlaps(const Ref *r, int count, const Span *s) {
  unsigned char *seen = calloc(s->span ? s->span : 1, 1);
  size_t i;
  int c, dup = 0;
  const long lo = (long)(s->mem - s->buf);
  for (c = 0; c < count && !dup; ++c)
    for (i = 0; i < r->n && !dup; ++i) {
      const long o = c * r->extent + r->off[i] - lo;
      if (seen[o]) dup = 1;
      seen[o] = 1;
    }
  free(seen);
  return dup;
}

/* The bytes `count` elements of r span. */
static long span_bytes(const Ref *r, int count) {
  long lo = 0, hi = 0;
  size_t i;
  int c;
  for (c = 0; c < count; ++c)
    for (i = 0; i < r->n; ++i) {
      const long o = c * r->extent + r->off[i];
      if ((c == 0 && i == 0) || o < lo) lo = o;
      if ((c == 0 && i == 0) || o + 1 > hi) hi = o + 1;
    }
  return hi - lo;
}

static void one(Rng *g, int iter, int to, int from, int rank) {
  Both b = gen(g, 4);
  int count = (int)next(g, 3) + 1;
  /* Strides multiply through the levels: keep the buffers at a few MiB. */
  while (span_bytes(&b.ref, count) > (4l << 20)) {
    free_type(&b.t);
    free(b.ref.off);
    b = gen(g, 4);
    count = (int)next(g, 3) + 1;
  }
  MPI_Count size = 0, lb = 0, extent = 0;
  MPI_Datatype t;
  Span src, dst, exp;
  unsigned char *packed, *want;
  size_t total = b.ref.n * (size_t)count, i;
  int pos = 0, n = 0, psize = 0, send_count;
  MPI_Status st;
  /* Every rank draws the same types (same seed); rank `from`'s data differ by seed. */
  if (b.t == MPI_BYTE || b.t == MPI_INT || b.t == MPI_DOUBLE)
    CHECK_MPI(MPI_Type_dup(b.t, &t));
  else
    t = b.t;
  CHECK_MPI(MPI_Type_commit(&t));
  CHECK_MPI(MPI_Type_size_x(t, &size));
  CHECK_MPI(MPI_Type_get_extent_x(t, &lb, &extent));
  CHECK((size_t)size == b.ref.n, "iteration %d: size %lld, reference %zu", iter, (long long)size,
        b.ref.n);
  CHECK(lb == b.ref.lb && extent == b.ref.extent,
        "iteration %d: lb %lld extent %lld, reference %ld %ld", iter, (long long)lb,
        (long long)extent, b.ref.lb, b.ref.extent);
  if (b.ref.n) {
    long tlo = b.ref.off[0], thi = b.ref.off[0] + 1;
    MPI_Count tlb = 0, text = 0;
    for (i = 0; i < b.ref.n; ++i) {
      if (b.ref.off[i] < tlo) tlo = b.ref.off[i];
      if (b.ref.off[i] + 1 > thi) thi = b.ref.off[i] + 1;
    }
    CHECK_MPI(MPI_Type_get_true_extent_x(t, &tlb, &text));
    CHECK(tlb == tlo && text == thi - tlo,
          "iteration %d: true lb %lld extent %lld, reference %ld %ld", iter, (long long)tlb,
          (long long)text, tlo, thi - tlo);
  }
  src = span_of(&b.ref, count);
  dst = span_of(&b.ref, count);
  exp = span_of(&b.ref, count);
  fill(&src, (unsigned)rank + 1);
  packed = malloc(total + 1);
  want = malloc(total + 1);
  CHECK(packed && want, "no memory");
  /* MPI_Pack against the reference. */
  ref_pack(&b.ref, count, src.buf, want);
  CHECK_MPI(MPI_Pack_size(count, t, MPI_COMM_SELF, &psize));
  CHECK(psize >= (int)total, "iteration %d: MPI_Pack_size %d < %zu", iter, psize, total);
  CHECK_MPI(MPI_Pack(src.buf, count, t, packed, (int)total, &pos, MPI_COMM_SELF));
  CHECK(pos == (int)total, "iteration %d: packed %d of %zu bytes", iter, pos, total);
  for (i = 0; i < total && packed[i] == want[i]; ++i) {
  }
  CHECK(i == total, "iteration %d: packed byte %zu of %zu is %u, reference %u", iter, i, total,
        packed[i], want[i]);
  /* MPI_Unpack into a buffer of other bytes: exactly the reference's writes. */
  if (!overlaps(&b.ref, count, &dst)) {
    fill(&dst, 99);
    fill(&exp, 99);
    ref_unpack(&b.ref, count, want, exp.buf);
    pos = 0;
    CHECK_MPI(MPI_Unpack(want, (int)total, &pos, dst.buf, count, t, MPI_COMM_SELF));
    CHECK(memcmp(dst.mem, exp.mem, dst.span) == 0, "iteration %d: MPI_Unpack wrote other bytes",
          iter);
    /* Bytes from the previous rank, received into the type. */
    fill(&exp, 99);
    fill(&dst, 99);
    fill(&src, (unsigned)from + 1);
    ref_pack(&b.ref, count, src.buf, want);
    ref_unpack(&b.ref, count, want, exp.buf);
    fill(&src, (unsigned)rank + 1);
    ref_pack(&b.ref, count, src.buf, packed);
    CHECK_MPI(MPI_Sendrecv(packed, (int)total, MPI_BYTE, to, iter, dst.buf, count, t, from, iter,
                           MPI_COMM_WORLD, &st));
    CHECK(memcmp(dst.mem, exp.mem, dst.span) == 0, "iteration %d: received into the type wrong",
          iter);
  }
  /* The type sent, received as bytes: the previous rank's packed form. */
  send_count = count;
  fill(&src, (unsigned)from + 1);
  ref_pack(&b.ref, count, src.buf, want);
  fill(&src, (unsigned)rank + 1);
  memset(packed, 0, total + 1);
  CHECK_MPI(MPI_Sendrecv(src.buf, send_count, t, to, iter + 100000, packed, (int)total + 1,
                         MPI_BYTE, from, iter + 100000, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
  CHECK(n == (int)total, "iteration %d: received %d of %zu bytes", iter, n, total);
  CHECK(memcmp(packed, want, total) == 0, "iteration %d: sent type arrived wrong", iter);
  free(packed);
  free(want);
  free(src.mem);
  free(dst.mem);
  free(exp.mem);
  free(b.ref.off);
  MPI_Type_free(&t);
}

int main(int argc, char **argv) {
  int rank, size, iter;
  Rng g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g.s = 12345;
  for (iter = 0; iter < 600; ++iter)
    one(&g, iter, (rank + 1) % size, (rank + size - 1) % size, rank);
  mt_ok("type_reference");
  MPI_Finalize();
  return 0;
}
