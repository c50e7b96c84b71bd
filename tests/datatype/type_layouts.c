/* tests/datatype/type_layouts.c — every datatype constructor against hand-computed layouts: the
 * bytes MPI_Pack takes from memory (in type-map order), size, lb/extent, true lb/extent; the
 * predefined types' bounds against the C compiler's own sizeof/offsetof; names; envelope and
 * contents; MPI_Get_elements / MPI_Get_count on partial data; MPI_Pack / MPI_Unpack round trips;
 * external32; MPI_Type_match_size; errors (uncommitted, freeing a predefined type). Each rank
 * runs the same checks (the types are per rank). */
#include "../mpi/mpitest.h"

#include <stddef.h>

#define ORIGIN 1024
#define SPACE 4096

typedef struct {
  long off, len;
} Range;

/* The pattern byte at memory offset `off` from the origin. */
static unsigned char pat(long off) {
  return mt_byte(off + ORIGIN, 5, 9);
}

/* Packs `count` elements of `t` from a patterned buffer and compares with the ranges. */
static void expect_pack(const char *what, MPI_Datatype t, int count, const Range *r, int nr) {
  unsigned char *mem = mt_malloc(SPACE), *packed, *back;
  long expect = 0, i, k, at = 0;
  int size = 0, pos = 0, psize = 0;
  for (i = 0; i < SPACE; ++i)
    mem[i] = pat(i - ORIGIN);
  for (k = 0; k < nr; ++k)
    expect += r[k].len;
  CHECK_MPI(MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize));
  CHECK(psize == expect, "%s: MPI_Pack_size %d, expected %ld", what, psize, expect);
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK((long)size * count == expect, "%s: size %d x %d, expected %ld bytes", what, size, count,
        expect);
  packed = mt_malloc((size_t)expect + 8);
  CHECK_MPI(MPI_Pack(mem + ORIGIN, count, t, packed, (int)expect + 8, &pos, MPI_COMM_WORLD));
  CHECK(pos == expect, "%s: position %d after MPI_Pack, expected %ld", what, pos, expect);
  for (k = 0; k < nr; ++k)
    for (i = 0; i < r[k].len; ++i, ++at)
      CHECK(packed[at] == pat(r[k].off + i),
            "%s: packed byte %ld is memory byte %ld? got 0x%02x, expected 0x%02x", what, at,
            r[k].off + i, packed[at], pat(r[k].off + i));
  /* Unpack into a zeroed buffer: exactly the ranges come back, nothing else is written. */
  back = mt_malloc(SPACE);
  memset(back, 0, SPACE);
  pos = 0;
  CHECK_MPI(MPI_Unpack(packed, (int)expect, &pos, back + ORIGIN, count, t, MPI_COMM_WORLD));
  CHECK(pos == expect, "%s: position %d after MPI_Unpack", what, pos);
  for (k = 0; k < nr; ++k)
    for (i = 0; i < r[k].len; ++i) {
      CHECK(back[ORIGIN + r[k].off + i] == pat(r[k].off + i), "%s: unpacked byte %ld", what,
            r[k].off + i);
      back[ORIGIN + r[k].off + i] = 0;
    }
  for (i = 0; i < SPACE; ++i)
    CHECK(back[i] == 0, "%s: MPI_Unpack wrote byte %ld outside the type map", what, i - ORIGIN);
  free(mem);
  free(packed);
  free(back);
}

static void expect_bounds(const char *what, MPI_Datatype t, long size, long lb, long extent,
                          long tlb, long textent) {
  int s = 0;
  MPI_Aint a = 0, b = 0;
  MPI_Count cs = 0, ca = 0, cb = 0;
  CHECK_MPI(MPI_Type_size(t, &s));
  CHECK(s == size, "%s: size %d, expected %ld", what, s, size);
  CHECK_MPI(MPI_Type_size_x(t, &cs));
  CHECK(cs == size, "%s: size_x %lld", what, cs);
  CHECK_MPI(MPI_Type_get_extent(t, &a, &b));
  CHECK(a == lb && b == extent, "%s: lb %ld extent %ld, expected %ld %ld", what, (long)a, (long)b,
        lb, extent);
  CHECK_MPI(MPI_Type_get_extent_x(t, &ca, &cb));
  CHECK(ca == lb && cb == extent, "%s: extent_x", what);
  CHECK_MPI(MPI_Type_get_true_extent(t, &a, &b));
  CHECK(a == tlb && b == textent, "%s: true lb %ld extent %ld, expected %ld %ld", what, (long)a,
        (long)b, tlb, textent);
  CHECK_MPI(MPI_Type_get_true_extent_x(t, &ca, &cb));
  CHECK(ca == tlb && cb == textent, "%s: true_extent_x", what);
}

static void expect_name(MPI_Datatype t, const char *name) {
  char buf[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Type_get_name(t, buf, &len));
  CHECK(strcmp(buf, name) == 0 && len == (int)strlen(name), "name \"%s\" (%d), expected \"%s\"",
        buf, len, name);
}

struct short_int {
  short v;
  int i;
};
struct double_int {
  double v;
  int i;
};
struct long_int {
  long v;
  int i;
};
struct float_int {
  float v;
  int i;
};
struct ldouble_int {
  long double v;
  int i;
};

static void predefined_types(void) {
#define PLAIN(t, ctype, name)                                                                      \
  do {                                                                                             \
    expect_bounds(name, t, (long)sizeof(ctype), 0, (long)sizeof(ctype), 0, (long)sizeof(ctype));   \
    expect_name(t, name);                                                                          \
  } while (0)
#define PAIR(t, st, name)                                                                          \
  do {                                                                                             \
    expect_bounds(name, t, (long)(sizeof(((st *)0)->v) + sizeof(int)), 0, (long)sizeof(st), 0,     \
                  (long)(offsetof(st, i) + sizeof(int)));                                          \
    expect_name(t, name);                                                                          \
  } while (0)
  PLAIN(MPI_CHAR, char, "MPI_CHAR");
  PLAIN(MPI_SIGNED_CHAR, signed char, "MPI_SIGNED_CHAR");
  PLAIN(MPI_UNSIGNED_CHAR, unsigned char, "MPI_UNSIGNED_CHAR");
  PLAIN(MPI_BYTE, unsigned char, "MPI_BYTE");
  PLAIN(MPI_SHORT, short, "MPI_SHORT");
  PLAIN(MPI_INT, int, "MPI_INT");
  PLAIN(MPI_UNSIGNED, unsigned, "MPI_UNSIGNED");
  PLAIN(MPI_LONG, long, "MPI_LONG");
  PLAIN(MPI_LONG_LONG, long long, "MPI_LONG_LONG_INT");
  PLAIN(MPI_FLOAT, float, "MPI_FLOAT");
  PLAIN(MPI_DOUBLE, double, "MPI_DOUBLE");
  PLAIN(MPI_LONG_DOUBLE, long double, "MPI_LONG_DOUBLE");
  PLAIN(MPI_INT64_T, int64_t, "MPI_INT64_T");
  PLAIN(MPI_AINT, MPI_Aint, "MPI_AINT");
  PLAIN(MPI_PACKED, unsigned char, "MPI_PACKED");
  PLAIN(MPI_2INT, struct float_int, "MPI_2INT");
  PAIR(MPI_SHORT_INT, struct short_int, "MPI_SHORT_INT");
  PAIR(MPI_DOUBLE_INT, struct double_int, "MPI_DOUBLE_INT");
  PAIR(MPI_LONG_INT, struct long_int, "MPI_LONG_INT");
  PAIR(MPI_FLOAT_INT, struct float_int, "MPI_FLOAT_INT");
  PAIR(MPI_LONG_DOUBLE_INT, struct ldouble_int, "MPI_LONG_DOUBLE_INT");
#undef PLAIN
#undef PAIR
  {
    /* The padded pairs pack their data bytes only. */
    const Range si[] = {{0, 2}, {4, 4}, {8, 2}, {12, 4}};
    const Range di[] = {{0, 12}, {16, 12}};
    expect_pack("MPI_SHORT_INT x2", MPI_SHORT_INT, 2, si, 4);
    expect_pack("MPI_DOUBLE_INT x2", MPI_DOUBLE_INT, 2, di, 2);
  }
}

static void constructors(void) {
  MPI_Datatype t, u, v;
  {
    const Range r[] = {{0, 24}};
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("contiguous(3, INT)", t, 12, 0, 12, 0, 12);
    expect_pack("contiguous(3, INT) x2", t, 2, r, 1);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free did not set MPI_DATATYPE_NULL");
  }
  {
    const Range r[] = {{0, 8}, {16, 8}, {32, 8}, {40, 8}, {56, 8}, {72, 8}};
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("vector(3,2,4,INT)", t, 24, 0, 40, 0, 40);
    expect_pack("vector(3,2,4,INT) x2", t, 2, r, 6);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const Range r[] = {{0, 8}, {-12, 8}};
    CHECK_MPI(MPI_Type_create_hvector(2, 1, -12, MPI_DOUBLE, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("hvector(2,1,-12,DOUBLE)", t, 16, -12, 20, -12, 20);
    expect_pack("hvector(2,1,-12,DOUBLE)", t, 1, r, 2);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const int bl[] = {2, 1, 3}, disp[] = {5, 0, 10};
    const Range r[] = {{10, 4}, {0, 2}, {20, 6}, {26 + 10, 4}, {26, 2}, {26 + 20, 6}};
    CHECK_MPI(MPI_Type_indexed(3, bl, disp, MPI_SHORT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("indexed(SHORT)", t, 12, 0, 26, 0, 26);
    expect_pack("indexed(SHORT) x2", t, 2, r, 6);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const int bl[] = {1, 2};
    const MPI_Aint disp[] = {4, 20};
    const Range r[] = {{4, 4}, {20, 8}};
    CHECK_MPI(MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("hindexed(INT)", t, 12, 4, 24, 4, 24);
    expect_pack("hindexed(INT)", t, 1, r, 2);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const int disp[] = {4, 0, 8};
    const Range r[] = {{4, 2}, {0, 2}, {8, 2}};
    CHECK_MPI(MPI_Type_create_indexed_block(3, 2, disp, MPI_CHAR, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("indexed_block(CHAR)", t, 6, 0, 10, 0, 10);
    expect_pack("indexed_block(CHAR)", t, 1, r, 3);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const MPI_Aint disp[] = {0, 100};
    const Range r[] = {{0, 3}, {100, 3}};
    CHECK_MPI(MPI_Type_create_hindexed_block(2, 3, disp, MPI_CHAR, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("hindexed_block(CHAR)", t, 6, 0, 103, 0, 103);
    expect_pack("hindexed_block(CHAR)", t, 1, r, 2);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* {char at 0, double at 8, int at 16}: 13 data bytes, ub 20 padded to 24 (double alignment). */
    const int bl[] = {1, 1, 1};
    const MPI_Aint disp[] = {0, 8, 16};
    const MPI_Datatype ty[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    const Range r[] = {{0, 1}, {8, 12}, {24, 1}, {32, 12}};
    CHECK_MPI(MPI_Type_create_struct(3, bl, disp, ty, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("struct{char,double,int}", t, 13, 0, 24, 0, 20);
    expect_pack("struct{char,double,int} x2", t, 2, r, 4);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const int bl[] = {1, 1};
    const MPI_Aint disp[] = {0, 8};
    const MPI_Datatype ty[] = {MPI_DOUBLE, MPI_CHAR};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, ty, &t));
    expect_bounds("struct{double,char}", t, 9, 0, 16, 0, 9);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const int sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 2};
    const Range rc[] = {{28, 12}, {48, 12}};
    const Range rf[] = {{36, 8}, {52, 8}, {68, 8}};
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("subarray C", t, 24, 0, 80, 28, 32);
    expect_pack("subarray C", t, 1, rc, 2);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("subarray Fortran", t, 24, 0, 80, 36, 40);
    expect_pack("subarray Fortran", t, 1, rf, 3);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* 4 x 6 ints over a 2 x 2 grid: rows by block, columns cyclic by 2; process 1 is (0, 1). */
    const int gs[] = {4, 6}, dist[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
              darg[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[] = {2, 2};
    const int g1[] = {5}, d1[] = {MPI_DISTRIBUTE_CYCLIC}, a1[] = {MPI_DISTRIBUTE_DFLT_DARG},
              p1[] = {2};
    const Range rc[] = {{8, 8}, {32, 8}};
    const Range rf[] = {{32, 8}, {48, 8}};
    const Range r1[] = {{0, 4}, {8, 4}, {16, 4}};
    CHECK_MPI(MPI_Type_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("darray C", t, 16, 0, 96, 8, 32);
    expect_pack("darray C", t, 1, rc, 2);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("darray Fortran", t, 16, 0, 96, 32, 24);
    expect_pack("darray Fortran", t, 1, rf, 2);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_create_darray(2, 0, 1, g1, d1, a1, p1, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("darray cyclic", t, 12, 0, 20, 0, 20);
    expect_pack("darray cyclic", t, 1, r1, 3);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    const Range r[] = {{0, 8}, {16, 8}};
    const Range rv[] = {{0, 8}, {32, 8}};
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &u));
    CHECK_MPI(MPI_Type_create_resized(u, -4, 16, &t));
    CHECK_MPI(MPI_Type_free(&u)); /* t still uses it */
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("resized(contig(2,INT),-4,16)", t, 8, -4, 16, 0, 8);
    expect_pack("resized x2", t, 2, r, 2);
    CHECK_MPI(MPI_Type_vector(2, 1, 2, t, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    expect_bounds("vector(2,1,2,resized)", v, 16, -4, 48, 0, 40);
    expect_pack("vector(2,1,2,resized)", v, 1, rv, 2);
    CHECK_MPI(MPI_Type_dup(v, &u));
    expect_bounds("dup(vector)", u, 16, -4, 48, 0, 40);
    expect_pack("dup(vector)", u, 1, rv, 2);
    CHECK_MPI(MPI_Type_free(&u));
    CHECK_MPI(MPI_Type_free(&v));
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("contiguous(0)", t, 0, 0, 0, 0, 0);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* A contiguous type of a padded pair keeps the padding out of the packed form. */
    const Range r[] = {{0, 2}, {4, 4}, {8, 2}, {12, 4}, {16, 2}, {20, 4}};
    CHECK_MPI(MPI_Type_contiguous(3, MPI_SHORT_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_bounds("contiguous(3, SHORT_INT)", t, 18, 0, 24, 0, 24);
    expect_pack("contiguous(3, SHORT_INT)", t, 1, r, 6);
    CHECK_MPI(MPI_Type_free(&t));
  }
}

static void envelope_contents(void) {
  MPI_Datatype vec, st, got[2];
  int ni, na, nd, comb, ints[8];
  MPI_Aint aints[4];
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope %d %d %d %d",
        ni, na, nd, comb);
  CHECK_MPI(MPI_Type_get_contents(vec, 8, 4, 2, ints, aints, got));
  CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && got[0] == MPI_INT, "vector contents");
  {
    const int bl[] = {1, 2};
    const MPI_Aint disp[] = {0, 64};
    const MPI_Datatype ty[] = {MPI_CHAR, vec};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, ty, &st));
  }
  CHECK_MPI(MPI_Type_free(&vec));
  CHECK_MPI(MPI_Type_get_envelope(st, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2, "struct envelope");
  CHECK_MPI(MPI_Type_get_contents(st, 8, 4, 2, ints, aints, got));
  CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && aints[0] == 0 && aints[1] == 64 &&
            got[0] == MPI_CHAR,
        "struct contents");
  /* The derived input comes back as a new handle to an equal type. */
  CHECK_MPI(MPI_Type_get_envelope(got[1], &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_VECTOR, "contents' vector combiner %d", comb);
  expect_bounds("contents' vector", got[1], 24, 0, 40, 0, 40);
  CHECK_MPI(MPI_Type_free(&got[1]));
  CHECK_MPI(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named envelope");
  /* Names of derived types. */
  expect_name(st, "");
  CHECK_MPI(MPI_Type_set_name(st, "my struct"));
  expect_name(st, "my struct");
  CHECK_MPI(MPI_Type_free(&st));
}

static void elements_and_count(void) {
  MPI_Datatype t;
  MPI_Status st;
  int n = -5;
  MPI_Count nx = -5;
  const int bl[] = {1, 1, 1};
  const MPI_Aint disp[] = {0, 8, 16};
  const MPI_Datatype ty[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  CHECK_MPI(MPI_Type_create_struct(3, bl, disp, ty, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  memset(&st, 0, sizeof st);
  /* 2 whole elements + char + double = 26 + 9 bytes. */
  CHECK_MPI(MPI_Status_set_elements(&st, MPI_BYTE, 35));
  CHECK_MPI(MPI_Get_elements(&st, t, &n));
  CHECK(n == 8, "elements %d, expected 8", n);
  CHECK_MPI(MPI_Get_elements_x(&st, t, &nx));
  CHECK(nx == 8, "elements_x %lld", nx);
  CHECK_MPI(MPI_Get_count(&st, t, &n));
  CHECK(n == MPI_UNDEFINED, "count %d, expected MPI_UNDEFINED", n);
  CHECK_MPI(MPI_Status_set_elements(&st, MPI_BYTE, 31)); /* ends inside the double */
  CHECK_MPI(MPI_Get_elements(&st, t, &n));
  CHECK(n == MPI_UNDEFINED, "elements %d, expected MPI_UNDEFINED", n);
  CHECK_MPI(MPI_Status_set_elements(&st, MPI_BYTE, 26));
  CHECK_MPI(MPI_Get_count(&st, t, &n));
  CHECK(n == 2, "count %d, expected 2", n);
  /* set_elements with the type itself: 4 predefined elements = 1 struct + 1 char. */
  CHECK_MPI(MPI_Status_set_elements(&st, t, 4));
  CHECK_MPI(MPI_Get_elements(&st, MPI_BYTE, &n));
  CHECK(n == 14, "bytes for 4 elements %d, expected 14", n);
  CHECK_MPI(MPI_Get_elements(&st, t, &n));
  CHECK(n == 4, "elements %d", n);
  CHECK_MPI(MPI_Type_free(&t));
  /* A value-index pair is two elements (MPI defines the pairs as structs). */
  CHECK_MPI(MPI_Status_set_elements(&st, MPI_BYTE, 12 + 8)); /* a pair and a double */
  CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n));
  CHECK(n == 3, "MPI_DOUBLE_INT elements %d, expected 3", n);
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
  CHECK(n == MPI_UNDEFINED, "MPI_DOUBLE_INT count %d", n);
  CHECK_MPI(MPI_Status_set_elements(&st, MPI_SHORT_INT, 5)); /* 2 pairs and a short */
  CHECK_MPI(MPI_Get_elements(&st, MPI_BYTE, &n));
  CHECK(n == 14, "bytes of 5 MPI_SHORT_INT elements %d, expected 14", n);
  CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
  CHECK_MPI(MPI_Test_cancelled(&st, &n));
  CHECK(n, "MPI_Status_set_cancelled");
}

static void pack_round_trip(void) {
  double d[6] = {1.5, -2, 3.25, 4, 5, 6.125}, d2[6] = {0};
  int iv[4] = {7, 8, 9, 10}, iv2[4] = {0}, pos = 0, s1, s2, i;
  char buf[256];
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  CHECK_MPI(MPI_Pack_size(1, every_other, MPI_COMM_WORLD, &s1));
  CHECK_MPI(MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, &s2));
  CHECK(s1 == 24 && s2 == 16, "pack sizes %d %d", s1, s2);
  CHECK_MPI(MPI_Pack(d, 1, every_other, buf, sizeof buf, &pos, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(iv, 4, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
  CHECK(pos == 40, "position %d", pos);
  pos = 0;
  CHECK_MPI(MPI_Unpack(buf, 40, &pos, d2, 1, every_other, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(buf, 40, &pos, iv2, 4, MPI_INT, MPI_COMM_WORLD));
  for (i = 0; i < 6; ++i)
    CHECK(d2[i] == (i % 2 ? 0 : d[i]), "d2[%d]=%g", i, d2[i]);
  for (i = 0; i < 4; ++i)
    CHECK(iv2[i] == iv[i], "iv2[%d]", i);
  /* Too little room: MPI_ERR_TRUNCATE, position unchanged. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  pos = 30;
  CHECK(mt_class(MPI_Pack(iv, 4, MPI_INT, buf, 40, &pos, MPI_COMM_WORLD)) == MPI_ERR_TRUNCATE,
        "MPI_Pack past outsize");
  CHECK(pos == 30, "position moved");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Type_free(&every_other));
}

static void external32(void) {
  int iv[2] = {1, 0x01020304}, back[2] = {0};
  double dv = 1.0, db = 0;
  unsigned char out[32];
  const unsigned char ei[8] = {0, 0, 0, 1, 1, 2, 3, 4};
  const unsigned char ed[8] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
  MPI_Aint pos = 0, size = 0;
  CHECK_MPI(MPI_Pack_external_size("external32", 2, MPI_INT, &size));
  CHECK(size == 8, "external size %ld", (long)size);
  CHECK_MPI(MPI_Pack_external("external32", iv, 2, MPI_INT, out, sizeof out, &pos));
  CHECK_MPI(MPI_Pack_external("external32", &dv, 1, MPI_DOUBLE, out, sizeof out, &pos));
  CHECK(pos == 16 && memcmp(out, ei, 8) == 0 && memcmp(out + 8, ed, 8) == 0,
        "external32 bytes wrong");
  pos = 0;
  CHECK_MPI(MPI_Unpack_external("external32", out, 16, &pos, back, 2, MPI_INT));
  CHECK_MPI(MPI_Unpack_external("external32", out, 16, &pos, &db, 1, MPI_DOUBLE));
  CHECK(back[0] == 1 && back[1] == 0x01020304 && db == 1.0, "external32 round trip");
}

static void misc(void) {
  MPI_Datatype t;
  int x[3];
  MPI_Aint a0, a1;
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
  CHECK(t == MPI_REAL8, "match_size REAL 8");
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
  CHECK(t == MPI_INTEGER4, "match_size INTEGER 4");
  CHECK_MPI(MPI_Get_address(&x[0], &a0));
  CHECK_MPI(MPI_Get_address(&x[2], &a1));
  CHECK(MPI_Aint_diff(a1, a0) == 2 * (MPI_Aint)sizeof(int), "MPI_Aint_diff");
  CHECK(MPI_Aint_add(a0, 8) == a1, "MPI_Aint_add");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  t = MPI_INT;
  CHECK(mt_class(MPI_Type_free(&t)) == MPI_ERR_TYPE, "freeing MPI_INT");
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK(mt_class(MPI_Send(x, 1, t, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE,
        "MPI_Send with an uncommitted type");
  CHECK(mt_class(MPI_Type_vector(-1, 1, 1, MPI_INT, &t)) == MPI_ERR_COUNT, "negative count");
  CHECK(mt_class(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t)) == MPI_ERR_TYPE, "NULL oldtype");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Type_free(&t));
}

static int count_delete(MPI_Datatype t, int keyval, void *value, void *extra) {
  (void)t;
  (void)keyval;
  (void)value;
  ++*(int *)extra;
  return MPI_SUCCESS;
}

static void attributes(void) {
  int deleted = 0, key = MPI_KEYVAL_INVALID, flag = -1, v1 = 11, v2 = 22;
  int *got = NULL;
  MPI_Datatype t, d;
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, count_delete, &key, &deleted));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_get_attr(t, key, &got, &flag));
  CHECK(!flag, "attribute before it was set");
  CHECK_MPI(MPI_Type_set_attr(t, key, &v1));
  CHECK_MPI(MPI_Type_dup(t, &d)); /* MPI_TYPE_DUP_FN copies the value */
  CHECK_MPI(MPI_Type_get_attr(d, key, &got, &flag));
  CHECK(flag && got == &v1, "attribute of the duplicate");
  CHECK_MPI(MPI_Type_set_attr(t, key, &v2)); /* replaces: the old value's delete runs */
  CHECK(deleted == 1, "delete callbacks %d after replacing", deleted);
  CHECK_MPI(MPI_Type_get_attr(t, key, &got, &flag));
  CHECK(flag && got == &v2, "replaced attribute");
  CHECK_MPI(MPI_Type_free(&t));
  CHECK(deleted == 2, "delete callbacks %d after MPI_Type_free", deleted);
  CHECK_MPI(MPI_Type_delete_attr(d, key));
  CHECK(deleted == 3, "delete callbacks %d after MPI_Type_delete_attr", deleted);
  CHECK_MPI(MPI_Type_get_attr(d, key, &got, &flag));
  CHECK(!flag, "attribute after delete");
  CHECK_MPI(MPI_Type_free(&d));
  CHECK_MPI(MPI_Type_set_attr(MPI_INT, key, &v1)); /* predefined types hold attributes too */
  CHECK_MPI(MPI_Type_get_attr(MPI_INT, key, &got, &flag));
  CHECK(flag && got == &v1, "attribute on MPI_INT");
  CHECK_MPI(MPI_Type_delete_attr(MPI_INT, key));
  CHECK_MPI(MPI_Type_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID && deleted == 4, "free_keyval: key %d deleted %d", key, deleted);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  predefined_types();
  constructors();
  envelope_contents();
  elements_and_count();
  pack_round_trip();
  external32();
  misc();
  attributes();
  MPI_Barrier(MPI_COMM_WORLD);
  mt_ok("type_layouts");
  MPI_Finalize();
  return 0;
}
