/* tests/datatype/type_huge.c — datatypes of 2^30 separate blocks (issue 20) move their data with
 * memory that does not grow with the count: a send type of 2^30 one-byte blocks is sent (to the
 * next rank, or to itself) into a contiguous buffer, packed with MPI_Pack and unpacked again, and
 * the process's peak resident set (getrusage) must stay within the data buffers plus a margin. An
 * expanded list of the blocks would take 16 to 24 bytes each, 16 GiB or more.
 *
 * To keep the test's own memory at 1 GiB per rank, the send type reads an 8 KiB buffer: 4096
 * single bytes two apart (a vector), resized to extent 0 so that 2^18 copies of it lie on top of
 * each other (legal in a send). Its packed form is those 4096 bytes 2^18 times over. Only rank 0
 * of each process allocates the large buffer (ranks of one process share its memory). The
 * vector of 2^30 bytes with stride 2 that the issue names is built and queried too (moving its
 * data would need a 2 GiB buffer). */
#define _POSIX_C_SOURCE 200809L
#include "../mpi/mpitest.h"

#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

#define INNER 4096
#define COPIES (1 << 18) /* INNER * COPIES = 2^30 blocks */
#define TOTAL ((size_t)INNER * COPIES)

/* AddressSanitizer's shadow memory: one byte for every 8 the program touches (the macro as the
 * rest of the project tests it). */
#if defined(__SANITIZE_ADDRESS__)
#define SHADOW_MIB(mib) ((mib) / 8)
#else
#define SHADOW_MIB(mib) 0
#endif

static long peak_rss_mib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024; /* KiB on Linux */
}

static unsigned char pattern(size_t i) {
  return (unsigned char)(i * 7 + 3);
}

/* The send type: 2^30 one-byte blocks over `src` (2 * INNER bytes). */
static MPI_Datatype huge_type(void) {
  MPI_Datatype vec, flat, all;
  CHECK_MPI(MPI_Type_vector(INNER, 1, 2, MPI_BYTE, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, 0, &flat));
  CHECK_MPI(MPI_Type_contiguous(COPIES, flat, &all));
  CHECK_MPI(MPI_Type_commit(&all));
  MPI_Type_free(&vec);
  MPI_Type_free(&flat);
  return all;
}

/* Every byte of the packed form: the 4096 even bytes of src, over and over. */
static void check_stream(const unsigned char *got, const unsigned char *src, const char *what) {
  size_t i;
  for (i = 0; i < TOTAL; ++i)
    if (got[i] != src[2 * (i % INNER)]) break;
  CHECK(i == TOTAL, "%s: byte %zu is %u, expected %u", what, i, got[i],
        i < TOTAL ? src[2 * (i % INNER)] : 0u);
}

static void queries(void) {
  MPI_Datatype v;
  MPI_Count size = 0, lb = 0, extent = 0, tlb = 0, textent = 0, elems = 0;
  MPI_Status st;
  int count = 0;
  CHECK_MPI(MPI_Type_vector(1 << 30, 1, 2, MPI_BYTE, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  CHECK_MPI(MPI_Type_size_x(v, &size));
  CHECK_MPI(MPI_Type_get_extent_x(v, &lb, &extent));
  CHECK_MPI(MPI_Type_get_true_extent_x(v, &tlb, &textent));
  CHECK(size == (MPI_Count)1 << 30, "size %lld", (long long)size);
  CHECK(lb == 0 && extent == ((MPI_Count)2 << 30) - 1, "lb %lld extent %lld", (long long)lb,
        (long long)extent);
  CHECK(tlb == 0 && textent == extent, "true lb %lld extent %lld", (long long)tlb,
        (long long)textent);
  CHECK_MPI(MPI_Status_set_elements_x(&st, v, (MPI_Count)1 << 30));
  CHECK_MPI(MPI_Get_elements_x(&st, v, &elems));
  CHECK(elems == (MPI_Count)1 << 30, "elements %lld", (long long)elems);
  CHECK_MPI(MPI_Get_count(&st, v, &count));
  CHECK(count == 1, "count %d", count);
  MPI_Type_free(&v);
}

int main(int argc, char **argv) {
  int rank, size, local = 0, i, pos = 0, count = 0;
  MPI_Status st;
  unsigned char src[2 * INNER], *big = NULL;
  MPI_Datatype t;
  MPI_Count tsize = 0;
  long before;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Ranks of a process other than its first (by pid) stay out of the way. */
  {
    long me = (long)getpid(), *pids = malloc(sizeof(long) * (size_t)size);
    CHECK(pids != NULL, "no memory");
    CHECK_MPI(MPI_Allgather(&me, 1, MPI_LONG, pids, 1, MPI_LONG, MPI_COMM_WORLD));
    for (i = 0; i < rank; ++i)
      if (pids[i] == me) local = 1;
    free(pids);
  }
  queries();
  for (i = 0; i < 2 * INNER; ++i)
    src[i] = pattern((size_t)i);
  t = huge_type();
  CHECK_MPI(MPI_Type_size_x(t, &tsize));
  CHECK(tsize == (MPI_Count)TOTAL, "size of the huge type %lld", (long long)tsize);
  /* The first rank of each process takes part; with one process it sends to itself. */
  {
    MPI_Comm movers;
    int mrank, msize;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, local == 0 ? 0 : MPI_UNDEFINED, rank, &movers));
    if (local == 0) {
      MPI_Comm_rank(movers, &mrank);
      MPI_Comm_size(movers, &msize);
      before = peak_rss_mib();
      big = malloc(TOTAL);
      CHECK(big != NULL, "no memory for %zu bytes", TOTAL);
      memset(big, 0, TOTAL);
      {
        /* The receive first: within a process the send then packs straight into it. */
        MPI_Request rq;
        CHECK_MPI(
            MPI_Irecv(big, (int)TOTAL, MPI_BYTE, (mrank + msize - 1) % msize, 5, movers, &rq));
        CHECK_MPI(MPI_Send(src, 1, t, (mrank + 1) % msize, 5, movers));
        CHECK_MPI(MPI_Wait(&rq, &st));
      }
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == (int)TOTAL, "received %d bytes", count);
      check_stream(big, src, "sent and received");
      /* MPI_Pack into the same buffer, then MPI_Unpack back into a cleared source. */
      memset(big, 0, TOTAL);
      CHECK_MPI(MPI_Pack_size(1, t, movers, &count));
      CHECK(count >= (int)TOTAL, "MPI_Pack_size %d", count);
      CHECK_MPI(MPI_Pack(src, 1, t, big, (int)TOTAL, &pos, movers));
      CHECK(pos == (int)TOTAL, "packed %d bytes", pos);
      check_stream(big, src, "packed");
      {
        unsigned char back[2 * INNER];
        MPI_Datatype one;
        memset(back, 0xee, sizeof back);
        /* Unpacking the last 4096 bytes through the vector (no overlap in a receive). */
        CHECK_MPI(MPI_Type_vector(INNER, 1, 2, MPI_BYTE, &one));
        CHECK_MPI(MPI_Type_commit(&one));
        pos = (int)(TOTAL - INNER);
        CHECK_MPI(MPI_Unpack(big, (int)TOTAL, &pos, back, 1, one, movers));
        for (i = 0; i < 2 * INNER; ++i)
          CHECK(back[i] == (i % 2 ? 0xee : src[i]), "unpacked byte %d: %u", i, back[i]);
        MPI_Type_free(&one);
      }
      free(big);
      {
        /* The data buffer is 1 GiB, and a send between processes packs a non-contiguous type
         * into a staging copy of its bytes (1 GiB more); the type itself must add nothing that
         * grows with its 2^30 blocks (a list of them: 16 GiB or more). Under AddressSanitizer
         * its shadow adds a byte per 8 touched (256 MiB for 2 GiB): not ours, and it had left
         * the 256 MiB of slack 0-1 MiB (peak 2359-2360 MiB against 2359). */
        const long data = msize > 1 ? 2048 : 1024;
        const long peak = peak_rss_mib(), limit = before + data + 256 + SHADOW_MIB(data);
        CHECK(peak <= limit, "peak RSS %ld MiB, more than %ld MiB (before: %ld MiB)", peak, limit,
              before);
        printf("rank %d: peak RSS %ld MiB (before the 1 GiB buffer: %ld MiB)\n", rank, peak,
               before);
      }
      MPI_Comm_free(&movers);
    }
  }
  MPI_Type_free(&t);
  mt_ok("type_huge");
  MPI_Finalize();
  return 0;
}
