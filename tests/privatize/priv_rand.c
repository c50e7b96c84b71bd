/* tests/privatize/priv_rand.c — rand/random, the drand48 family and strtok keep their state per
 * rank: each rank draws one value (or token) at a time with a blocking MPI call (a barrier or an
 * exchange with its ring neighbours) after each, so that the other ranks of its process draw
 * meanwhile, and compares every value with what glibc's reentrant functions give on private
 * state (random_r & co, strtok_r: what a lone process gets). Covered: rand() without srand (seed
 * 1; its first values as glibc documents them), srand/srandom with per-rank seeds, initstate and
 * setstate switching between state arrays (and their return values), the drand48 family unseeded
 * and seeded, seed48's return value (the previous seed), erand48/nrand48/jrand48 with the rank's
 * lcong48 parameters, strtok across blocking calls, and a thread the rank creates drawing from
 * the rank's state (alone, then at the same time as the rank: together they draw the reference's
 * values, each once). Nothing is kept in globals, so it also runs with AMPI_PRIVATIZE=off. */
#define _GNU_SOURCE
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kDraws = 24 };

typedef struct {
  int rank, size, step, bad;
} Ctx;

/* A blocking MPI call that lets the other ranks of the process run. */
static void let_others_run(Ctx *x) {
  if (x->step++ % 2 == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    int out = x->rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (x->rank + 1) % x->size, 0, &in, 1, MPI_INT,
                 (x->rank + x->size - 1) % x->size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

static void check(Ctx *x, int ok, const char *what, int i, double got, double want) {
  if (ok) return;
  if (x->bad++ < 10)
    fprintf(stderr, "rank %d: %s #%d: got %.17g, expected %.17g\n", x->rank, what, i, got, want);
}

static int32_t next_random(struct random_data *d) {
  int32_t v = 0;
  random_r(d, &v);
  return v;
}

/* A thread of the rank: draws `n` values of rand() into `out`. */
typedef struct {
  int n;
  int *out;
} Draws;

static void *draw_thread(void *p) {
  Draws *d = p;
  for (int i = 0; i < d->n; ++i)
    d->out[i] = rand();
  return NULL;
}

static int cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void test_random(Ctx *x) {
  /* The default state, as glibc sets it up: "as if from initstate(1, table, 128)". */
  int32_t table[32];
  struct random_data ref;
  memset(&ref, 0, sizeof ref);
  initstate_r(1, (char *)table, sizeof table, &ref);
  static const int kGlibcFirst[5] = {1804289383, 846930886, 1681692777, 1714636915, 1957747793};
  for (int i = 0; i < kDraws; ++i) {
    const int v = rand(), want = next_random(&ref);
    check(x, v == want, "rand() unseeded", i, v, want);
    if (i < 5)
      check(x, v == kGlibcFirst[i], "rand() unseeded (glibc's values)", i, v, kGlibcFirst[i]);
    let_others_run(x);
  }

  /* srand with a seed of its own per rank. */
  srand(100u + (unsigned)x->rank);
  srandom_r(100u + (unsigned)x->rank, &ref);
  for (int i = 0; i < kDraws; ++i) {
    const int v = rand(), want = next_random(&ref);
    check(x, v == want, "rand() after srand", i, v, want);
    let_others_run(x);
  }
  srandom(7u * (unsigned)x->rank + 1u);
  srandom_r(7u * (unsigned)x->rank + 1u, &ref);
  for (int i = 0; i < kDraws / 2; ++i) {
    const long v = random(), want = next_random(&ref);
    check(x, v == want, "random() after srandom", i, (double)v, (double)want);
    let_others_run(x);
  }

  /* initstate/setstate: a small state array of the rank's, back to the default one, again. */
  int32_t mine[16], mine_ref[16], big[64], big_ref[64];
  struct random_data small_ref, big_data_ref;
  memset(&small_ref, 0, sizeof small_ref);
  memset(&big_data_ref, 0, sizeof big_data_ref);
  char *const original = initstate(11u + (unsigned)x->rank, (char *)mine, sizeof mine);
  initstate_r(11u + (unsigned)x->rank, (char *)mine_ref, sizeof mine_ref, &small_ref);
  check(x, original != NULL, "initstate() returned NULL", 0, 0, 1);
  for (int i = 0; i < kDraws / 2; ++i) {
    const long v = random(), want = next_random(&small_ref);
    check(x, v == want, "random() after initstate", i, (double)v, (double)want);
    let_others_run(x);
  }
  char *const was = setstate(original); /* back to the default array: its sequence goes on */
  check(x, was == (char *)mine, "setstate() returned another array", 0, 0, 1);
  for (int i = 0; i < kDraws / 2; ++i) {
    const long v = random(), want = next_random(&ref);
    check(x, v == want, "random() after setstate(original)", i, (double)v, (double)want);
    let_others_run(x);
  }
  check(x, setstate((char *)mine) == original, "setstate() returned another array", 1, 0, 1);
  for (int i = 0; i < kDraws / 2; ++i) {
    const int v = rand(), want = next_random(&small_ref);
    check(x, v == want, "rand() after setstate(mine)", i, v, want);
    let_others_run(x);
  }
  check(x, initstate(5u, (char *)big, sizeof big) == (char *)mine, "initstate() returned", 2, 0, 1);
  initstate_r(5u, (char *)big_ref, sizeof big_ref, &big_data_ref);
  for (int i = 0; i < kDraws / 2; ++i) {
    const long v = random(), want = next_random(&big_data_ref);
    check(x, v == want, "random() after initstate(big)", i, (double)v, (double)want);
    let_others_run(x);
  }
  check(x, initstate(1u, (char *)big, 4) == NULL, "initstate(4 bytes) did not fail", 0, 0, 1);
  setstate(original); /* leave the rank on its default array */

  /* A thread of the rank draws from the rank's state: alone, then with the rank at once. */
  srand(4242u + (unsigned)x->rank);
  srandom_r(4242u + (unsigned)x->rank, &ref);
  int alone[8];
  Draws d = {8, alone};
  pthread_t t;
  if (pthread_create(&t, NULL, draw_thread, &d) != 0 || pthread_join(t, NULL) != 0)
    MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < 8; ++i) {
    const int want = next_random(&ref);
    check(x, alone[i] == want, "rand() in the rank's thread", i, alone[i], want);
  }
  enum { kBoth = 20000 };
  int *got = malloc(sizeof(int) * 2 * kBoth), *want = malloc(sizeof(int) * 2 * kBoth);
  if (!got || !want) MPI_Abort(MPI_COMM_WORLD, 2);
  Draws td = {kBoth, got + kBoth};
  if (pthread_create(&t, NULL, draw_thread, &td) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < kBoth; ++i)
    got[i] = rand();
  pthread_join(t, NULL);
  for (int i = 0; i < 2 * kBoth; ++i)
    want[i] = next_random(&ref);
  qsort(got, 2 * kBoth, sizeof(int), cmp_int);
  qsort(want, 2 * kBoth, sizeof(int), cmp_int);
  check(x, memcmp(got, want, sizeof(int) * 2 * kBoth) == 0,
        "rand() from the rank and its thread at once: not the reference's values", 0, 0, 1);
  free(want);
  free(got);
  /* And the rank goes on where both left off. */
  for (int i = 0; i < 4; ++i) {
    const int v = rand(), w = next_random(&ref);
    check(x, v == w, "rand() after the thread", i, v, w);
    let_others_run(x);
  }
}

static void test_drand48(Ctx *x) {
  struct drand48_data ref;
  memset(&ref, 0, sizeof ref); /* glibc's initial state */
  for (int i = 0; i < kDraws / 2; ++i) {
    long v = lrand48(), want = 0;
    lrand48_r(&ref, &want);
    check(x, v == want, "lrand48() unseeded", i, (double)v, (double)want);
    let_others_run(x);
  }
  srand48(1000 + x->rank);
  srand48_r(1000 + x->rank, &ref);
  for (int i = 0; i < kDraws; ++i) {
    double dv = 0, dw = 0;
    long lv = 0, lw = 0;
    switch (i % 3) {
    case 0:
      dv = drand48();
      drand48_r(&ref, &dw);
      check(x, dv == dw, "drand48()", i, dv, dw);
      break;
    case 1:
      lv = lrand48();
      lrand48_r(&ref, &lw);
      check(x, lv == lw, "lrand48()", i, (double)lv, (double)lw);
      break;
    default:
      lv = mrand48();
      mrand48_r(&ref, &lw);
      check(x, lv == lw, "mrand48()", i, (double)lv, (double)lw);
    }
    let_others_run(x);
  }
  /* seed48 returns the previous x: the rank's, wherever the other ranks are. */
  unsigned short seed[3] = {0x1234, 0x5678, (unsigned short)(0x9abc + x->rank)};
  unsigned short before[3];
  memcpy(before, ref.__x, sizeof before); /* the reference's x: what seed48 must return */
  const unsigned short *old = seed48(seed);
  seed48_r(seed, &ref);
  for (int i = 0; i < 3; ++i)
    check(x, old[i] == before[i], "seed48() return value", i, old[i], before[i]);
  let_others_run(x);
  for (int i = 0; i < kDraws / 2; ++i) {
    double v = drand48(), w = 0;
    drand48_r(&ref, &w);
    check(x, v == w, "drand48() after seed48", i, v, w);
    let_others_run(x);
  }

  /* lcong48: the rank's a and c serve erand48/nrand48/jrand48 on the caller's xsubi. */
  unsigned short param[7] = {1, 2, (unsigned short)(3 + x->rank), 0xe66d, 0xdeec, 0x5, 0x1b};
  unsigned short param_ref[7];
  memcpy(param_ref, param, sizeof param);
  lcong48(param);
  lcong48_r(param_ref, &ref);
  unsigned short xs[3] = {7, 8, (unsigned short)(9 + x->rank)}, xs_ref[3];
  memcpy(xs_ref, xs, sizeof xs);
  for (int i = 0; i < kDraws; ++i) {
    double dv = 0, dw = 0;
    long lv = 0, lw = 0;
    switch (i % 4) {
    case 0:
      dv = erand48(xs);
      erand48_r(xs_ref, &ref, &dw);
      check(x, dv == dw, "erand48() after lcong48", i, dv, dw);
      break;
    case 1:
      lv = nrand48(xs);
      nrand48_r(xs_ref, &ref, &lw);
      check(x, lv == lw, "nrand48() after lcong48", i, (double)lv, (double)lw);
      break;
    case 2:
      lv = jrand48(xs);
      jrand48_r(xs_ref, &ref, &lw);
      check(x, lv == lw, "jrand48() after lcong48", i, (double)lv, (double)lw);
      break;
    default:
      dv = drand48();
      drand48_r(&ref, &dw);
      check(x, dv == dw, "drand48() after lcong48", i, dv, dw);
    }
    let_others_run(x);
  }
}

static void test_seed48_return(Ctx *x) {
  /* seed48's result is the x before the call: after srand48(s), x is (s's 32 bits, 0x330e). */
  srand48(0x12345678L + x->rank);
  let_others_run(x);
  unsigned short s[3] = {1, 2, 3};
  const unsigned short *old = seed48(s);
  const unsigned short want[3] = {0x330e, (unsigned short)((0x12345678L + x->rank) & 0xffff),
                                  (unsigned short)((0x12345678L + x->rank) >> 16)};
  for (int i = 0; i < 3; ++i)
    check(x, old[i] == want[i], "seed48() return value", i, old[i], want[i]);
  let_others_run(x);
  const unsigned short *again = seed48(s);
  for (int i = 0; i < 3; ++i)
    check(x, again[i] == s[i], "seed48() return value after seed48", i, again[i], s[i]);
}

static void test_strtok(Ctx *x) {
  char text[128], copy[128];
  snprintf(text, sizeof text, ",r%d;a,,b;;c%d,d,e;%d,,", x->rank, x->rank, 10 * x->rank);
  memcpy(copy, text, sizeof text);
  char *save = NULL;
  const char *delims[2] = {",;", ";"};
  for (int i = 0; i < 12; ++i) { /* 7 or 8 tokens, then NULL: as many blocking calls anyway */
    const char *d = delims[i % 5 == 3];
    char *tok = strtok(i == 0 ? text : NULL, d);
    char *want = strtok_r(i == 0 ? copy : NULL, d, &save);
    const int ok = (tok == NULL && want == NULL) ||
                   (tok && want && tok - text == want - copy && strcmp(tok, want) == 0);
    if (!ok && x->bad++ < 10)
      fprintf(stderr, "rank %d: strtok #%d: got \"%s\", expected \"%s\"\n", x->rank, i,
              tok ? tok : "(null)", want ? want : "(null)");
    let_others_run(x);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Ctx x = {0, 1, 0, 0};
  MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &x.size);
  /* Ranks out of step: odd ranks begin with one blocking call of their own... */
  if (x.rank % 2) let_others_run(&x);
  test_random(&x);
  test_drand48(&x);
  test_seed48_return(&x);
  test_strtok(&x);
  /* ...and even ones end with it; every rank then makes as many calls. */
  if (x.rank % 2 == 0) let_others_run(&x);
  int total = 0;
  MPI_Reduce(&x.bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (x.rank == 0) {
    if (total == 0)
      printf("ok priv_rand (%d ranks)\n", x.size);
    else
      printf("FAILED priv_rand: %d wrong values\n", total);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
