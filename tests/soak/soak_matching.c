/* soak_matching: a bounded soak test of point-to-point matching (plain C99 MPI).
 *
 *   soak_matching [total_messages [seed [messages_per_rank_per_round [poll]]]]
 *     total_messages  messages sent in the whole job (default 1000000)
 *     seed            default 1, printed at start. Each rank has two generators seeded from it:
 *                     one for the traffic (every message's destination, tag, size, mode, phase)
 *                     and the phase-1 receive patterns, which a run with the same seed and rank
 *                     count repeats exactly; one for the phase-2 choices and completion methods,
 *                     whose sequence also depends on timing (what has completed when)
 *     per round       average number of messages one rank sends in one round (default 100)
 *     poll            1: every blocking call is replaced by a polling loop (MPI_Test*, MPI_Iprobe)
 *                     with a 60 s watchdog that prints what is still missing (for diagnosing
 *                     a hang); default 0
 *
 * The job runs in rounds. In each round every rank plans k messages (random destination, tag,
 * size 0 B .. 256 KiB with sizes at and around the eager limits 8 KiB / 64 KiB, send mode and
 * "phase"), publishes its count row through MPI_Allreduce on the flattened count matrix and sends
 * each destination the list of (sequence number, tag, size, phase) it will receive (control
 * communicator). Every message of 32 B or more starts with a header (sender, destination,
 * per-(sender,destination) sequence number, tag, size, checksum of the whole message); a shorter
 * message (0..31 B) carries a fixed byte pattern and is identified by (source, tag, size).
 *
 * Phase 1 (communicator c1 = Comm_split of WORLD with the ranks reversed; deterministic matching):
 *   the receiver pre-posts, before a barrier, one receive per incoming phase-1 message: first the
 *   source-specific ones ((s,t) and (s,ANY_TAG), randomly interleaved across sources), then the
 *   ANY_SOURCE pool ((ANY,t) then (ANY,ANY)); decoy receives (any pattern) are posted in between
 *   and cancelled before the barrier (they must report cancelled), and one (ANY, DEAD_TAG) receive
 *   stays posted all round and is cancelled at its end. A local model of MPI matching (per sender:
 *   messages arrive in send order and take the first free matching receive in posting order, else
 *   fall through to the pool) decides which receive gets which message, and patterns are adjusted
 *   until every receive is satisfiable. After the barrier the senders send with every mode
 *   (Send, Ssend, Rsend, Bsend, Isend, Issend, Irsend, Ibsend; ready mode is legal because every
 *   message meets a posted receive). Every source-specific receive must get exactly the message
 *   the model says; pool receives must get the messages the model sends to the pool.
 * Phase 2 (communicator c2 = Comm_dup of WORLD; dynamic matching): messages are sent with
 *   Isend/Issend/Ibsend (some requests freed with MPI_Request_free) before the barrier; the
 *   receiver then loops, choosing at random: post an Irecv (up to a random number of outstanding
 *   receives), a blocking Recv, Probe+Recv, Iprobe loop+Recv, a receive that nothing can match
 *   (later cancelled: must report cancelled), MPI_Cancel of an outstanding receive (either outcome
 *   is legal; a cancelled receive must not consume a message), Iprobe of a pattern nothing can
 *   match (must say no), and completions with Wait/Waitany/Waitsome/Waitall/Test/Testany/
 *   Testsome/Testall/Request_get_status. A new pattern (s,t), (s,ANY), (ANY,t) or (ANY,ANY) is
 *   used only if it cannot starve: #unreceived messages matching it > #outstanding receives whose
 *   pattern shares an unreceived message with it (pigeonhole: earlier receives can take at most
 *   that many of them), so the loop ends without deadlock under any timing.
 *
 * Checks on every received message: MPI_SOURCE / MPI_TAG / MPI_Get_count against the header and
 * the receive's pattern, the checksum, that it was announced, is of this phase and was not
 * received before. At the end of each phase, MPI's non-overtaking rule: for two messages a, b of
 * one sender (b sent before a) received by receives Ra, Rb, Ra posted before Rb is an error if
 * Ra's pattern matches b (covers "per (sender, tag) sequence numbers increase" and "per sender
 * with ANY_TAG"). Every failure prints the seed, round, phase and details, then MPI_Abort.
 */
#include <mpi.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 32                 /* header size; shorter messages carry no header */
#define MAGIC 0x4b414f53u      /* "SOAK" */
#define NHOT 8                 /* most tags are 0..NHOT-1 */
#define DEAD_TAG 4321          /* never sent */
#define CAP 16                 /* most outstanding receives in phase 2 */
#define MAXSIZE 262144u        /* largest message */
#define BSEND_BUF (1 << 20)    /* MPI_Buffer_attach size per rank */
#define BSEND_BUDGET (1 << 18) /* buffered bytes per rank per round */
#define BSEND_MAX 4096u        /* largest buffered message */
#define WATCHDOG 60.0          /* seconds without progress in a polling loop */
#define ANYP (-1)              /* pattern wildcard (source or tag) */
#define ABSENT (-2)            /* tag index of a tag that no message of the round has */

/* ---- random numbers: xoshiro256**, one generator per purpose and rank --------------------- */
typedef struct {
  uint64_t s[4];
} rng_t;

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static uint64_t rotl64(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}
static void rng_seed(rng_t *r, uint64_t seed) {
  int i;
  for (i = 0; i < 4; ++i) {
    seed += 0x9E3779B97F4A7C15ULL;
    r->s[i] = mix64(seed);
  }
}
static uint64_t rnext(rng_t *r) {
  uint64_t *s = r->s, res = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl64(s[3], 45);
  return res;
}
/* uniform in [0, n), n > 0 */
static uint32_t rbelow(rng_t *r, uint32_t n) {
  return (uint32_t)(((rnext(r) >> 32) * (uint64_t)n) >> 32);
}

/* ---- messages ---------------------------------------------------------------------------------
 */
typedef struct {
  uint32_t magic;
  int32_t sender; /* world ranks */
  int32_t dest;
  uint32_t seq; /* per (sender, dest), counting from 0 over the whole run */
  int32_t tag;
  uint32_t size; /* of the whole message, header included */
  uint64_t sum;  /* checksum of the whole message with this field zero */
} hdr_t;

typedef struct { /* what a receiver is told about each message it will get */
  uint32_t seq;
  int32_t tag;
  uint32_t size;
  int32_t phase;
} desc_t;

enum {
  M_SEND,
  M_SSEND,
  M_RSEND,
  M_BSEND,
  M_ISEND,
  M_ISSEND,
  M_IRSEND,
  M_IBSEND,
  M_ISEND_FREE,
  NMODES
};
static const char *const mode_name[NMODES] = {"Send",   "Ssend",  "Rsend",  "Bsend",     "Isend",
                                              "Issend", "Irsend", "Ibsend", "Isend+free"};

typedef struct { /* a message this rank sends */
  int dest, tag, phase, mode;
  uint32_t size, seq;
  unsigned char *buf;
} out_t;

typedef struct { /* a message this rank receives */
  int s;         /* sender (world rank) */
  uint32_t seq;
  int tag;
  uint32_t size;
  int phase;
  int consumed;
  int post;       /* post index of the receive that got it */
  int psrc, ptag; /* that receive's pattern (world rank / tag, ANYP) */
  int model_post; /* phase 1: post index the model predicts (-1: the ANY_SOURCE pool) */
  int ti;         /* phase 2: tag index */
  int pos2;       /* phase 2: position in the list of unreceived messages */
  int hl_fixed;
} in_t;

typedef struct {
  int src, tag; /* world rank / tag, or ANYP */
  int ti;       /* phase 2: tag index, ANYP, or ABSENT */
} pat_t;

enum { K_SPEC, K_POOL, K_DECOY, K_DEAD };
typedef struct { /* a phase-1 receive */
  pat_t p;
  int kind;
  size_t bufsize;
  unsigned char *buf;
  MPI_Request rq;
} r1_t;

typedef struct { /* a phase-2 outstanding receive */
  int active, dead, post;
  pat_t p;
  size_t bufsize;
  unsigned char *buf;
} slot_t;

/* ---- statistics -------------------------------------------------------------------------------
 */
enum {
  ST_SENT,
  ST_SENT_BYTES,
  ST_RECV,
  ST_RECV_BYTES,
  ST_ZERO,
  ST_HEADERLESS,
  ST_OVER_8K,
  ST_OVER_64K,
  ST_TO_SELF,
  ST_P1,
  ST_P1_ST,
  ST_P1_SANY,
  ST_P1_POOL_T,
  ST_P1_POOL_ANY,
  ST_P1_WIDENED,
  ST_P1_MODEL,
  ST_DECOY,
  ST_DEAD1,
  ST_P2,
  ST_P2_ST,
  ST_P2_SANY,
  ST_P2_ANYT,
  ST_P2_ANYANY,
  ST_P2_IRECV,
  ST_P2_RECV,
  ST_P2_PROBE,
  ST_P2_IPROBE,
  ST_P2_NEG_IPROBE,
  ST_DEAD2,
  ST_CANCEL_TRY,
  ST_CANCEL_OK,
  ST_LATE,
  ST_ORDER_PAIRS,
  ST_MODE0,
  ST_N = ST_MODE0 + NMODES
};
static const char *const st_name[ST_MODE0] = {"messages sent",
                                              "bytes sent",
                                              "messages received",
                                              "bytes received",
                                              "0-byte messages",
                                              "messages < 32 B (no header)",
                                              "messages > 8 KiB",
                                              "messages > 64 KiB",
                                              "messages to self",
                                              "phase-1 messages",
                                              "phase-1 receives (s,t)",
                                              "phase-1 receives (s,ANY)",
                                              "phase-1 receives (ANY,t)",
                                              "phase-1 receives (ANY,ANY)",
                                              "phase-1 patterns widened by model",
                                              "phase-1 matches checked against the model",
                                              "phase-1 decoys cancelled",
                                              "phase-1 dead receives cancelled",
                                              "phase-2 messages",
                                              "phase-2 receives (s,t)",
                                              "phase-2 receives (s,ANY)",
                                              "phase-2 receives (ANY,t)",
                                              "phase-2 receives (ANY,ANY)",
                                              "phase-2 Irecv",
                                              "phase-2 blocking Recv",
                                              "phase-2 Probe+Recv",
                                              "phase-2 Iprobe+Recv",
                                              "phase-2 Iprobe of nothing",
                                              "phase-2 dead receives cancelled",
                                              "phase-2 MPI_Cancel of live receives",
                                              "  ... of which cancelled",
                                              "phase-2 sends issued during the receive loop",
                                              "ordering pairs checked"};

/* ---- the state of one rank (ranks are threads of one process: no mutable globals) ------------ */
typedef struct {
  int rank, size, poll, round, phase, nrounds;
  unsigned long long seed;
  int tag_ub, tag_hi;
  MPI_Comm ctrl, c1, c2;
  rng_t prng;         /* the plan and the phase-1 patterns: reproducible from the seed */
  rng_t drng;         /* choices in phase 2 and completion methods: depend on timing */
  uint32_t *next_seq; /* [size] next sequence number to each destination */
  uint32_t *seq_base; /* [size] next sequence number expected from each sender */
  int *mat;           /* [size*size] counts of the round */
  int *in_off, *in_cnt;
  in_t *in;
  int nin;
  /* phase 2: counts of unreceived messages, by (sender, tag index) */
  int T, *tags, *cnt_st, *cnt_s, *cnt_t, tot2, *rem, nrem;
  double last_progress;
  long long st[ST_N];
} S;

static void fail(S *c, const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fprintf(stderr,
          "soak_matching FAIL [rank %d of %d, seed %llu, round %d of %d, phase %d]: ", c->rank,
          c->size, c->seed, c->round, c->nrounds, c->phase);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

#define MC(call)                                                                                   \
  do {                                                                                             \
    int mc_rc_ = (call);                                                                           \
    if (mc_rc_ != MPI_SUCCESS) {                                                                   \
      char mc_b_[MPI_MAX_ERROR_STRING];                                                            \
      int mc_l_ = 0;                                                                               \
      mc_b_[0] = 0;                                                                                \
      MPI_Error_string(mc_rc_, mc_b_, &mc_l_);                                                     \
      fail(c, "line %d: %s returned %d (%s)", __LINE__, #call, mc_rc_, mc_b_);                     \
    }                                                                                              \
  } while (0)

#define REQUIRE(cond, ...)                                                                         \
  do {                                                                                             \
    if (!(cond)) fail(c, __VA_ARGS__);                                                             \
  } while (0)

static void *xmalloc(S *c, size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) fail(c, "out of memory (%zu bytes)", n);
  return p;
}

static int pat_match(int psrc, int ptag, int s, int t) {
  return (psrc == ANYP || psrc == s) && (ptag == ANYP || ptag == t);
}

static const char *pat_str(char *b, int psrc, int ptag) {
  char s[16], t[16];
  if (psrc == ANYP)
    strcpy(s, "ANY");
  else
    snprintf(s, sizeof s, "%d", psrc);
  if (ptag == ANYP)
    strcpy(t, "ANY");
  else
    snprintf(t, sizeof t, "%d", ptag);
  sprintf(b, "(src %s, tag %s)", s, t);
  return b;
}

/* ---- payload ----------------------------------------------------------------------------------
 */
static uint64_t csum(const unsigned char *p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
  }
  w = 0;
  memcpy(&w, p + i, n - i);
  h = (h ^ w) * 0x100000001b3ULL;
  return mix64(h);
}

static unsigned char tiny_byte(int s, int d, int tag, uint32_t size, uint32_t j) {
  return (unsigned char)(s * 37 + d * 101 + tag * 13 + (int)size * 7 + (int)j * 59 + 1);
}

static void build_msg(S *c, unsigned char *buf, uint32_t size, int dest, uint32_t seq, int tag) {
  hdr_t h;
  uint64_t x;
  size_t i;
  if (size < HDR) {
    for (i = 0; i < size; ++i)
      buf[i] = tiny_byte(c->rank, dest, tag, size, (uint32_t)i);
    return;
  }
  h.magic = MAGIC;
  h.sender = c->rank;
  h.dest = dest;
  h.seq = seq;
  h.tag = tag;
  h.size = size;
  h.sum = 0;
  memcpy(buf, &h, HDR);
  x = mix64(c->seed ^ ((uint64_t)c->rank << 42) ^ ((uint64_t)dest << 21) ^ seq) | 1;
  for (i = HDR; i + 8 <= size; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    memcpy(buf + i, &x, 8);
  }
  for (; i < size; ++i)
    buf[i] = (unsigned char)(x >> (8 * (i & 7)));
  h.sum = csum(buf, size);
  memcpy(buf + offsetof(hdr_t, sum), &h.sum, 8);
}

static uint32_t pick_size(rng_t *r) {
  static const uint32_t edges[] = {32,    33,    4096,  8191,  8192,   8193,
                                   16384, 65535, 65536, 65537, 131072, MAXSIZE};
  uint32_t x = rbelow(r, 1000);
  if (x < 20) return 0;
  if (x < 40) return 1 + rbelow(r, HDR - 1);
  if (x < 60) return edges[rbelow(r, sizeof edges / sizeof edges[0])];
  if (x < 680) return 32 + rbelow(r, 993);
  if (x < 880) return 1025 + rbelow(r, 16384 - 1024);
  if (x < 970) return 16385 + rbelow(r, 98304 - 16384);
  return 98305 + rbelow(r, MAXSIZE - 98304);
}

/* ---- polling replacements for blocking calls (poll mode) --------------------------------------
 */
static void watchdog(S *c, double t0, const char *what);

static void xwait(S *c, MPI_Request *r, MPI_Status *st, const char *what) {
  int f = 0;
  double t0;
  if (!c->poll) {
    MC(MPI_Wait(r, st));
    return;
  }
  t0 = MPI_Wtime();
  for (;;) {
    MC(MPI_Test(r, &f, st));
    if (f) return;
    watchdog(c, t0, what);
  }
}

static void xwaitall(S *c, int n, MPI_Request *r, MPI_Status *st, const char *what) {
  int f = 0;
  double t0;
  if (!c->poll) {
    MC(MPI_Waitall(n, r, st));
    return;
  }
  t0 = MPI_Wtime();
  for (;;) {
    MC(MPI_Testall(n, r, &f, st));
    if (f) return;
    watchdog(c, t0, what);
  }
}

static void xwaitany(S *c, int n, MPI_Request *r, int *idx, MPI_Status *st, const char *what) {
  int f = 0;
  double t0;
  if (!c->poll) {
    MC(MPI_Waitany(n, r, idx, st));
    return;
  }
  t0 = MPI_Wtime();
  for (;;) {
    MC(MPI_Testany(n, r, idx, &f, st));
    if (f) return;
    watchdog(c, t0, what);
  }
}

static void xwaitsome(S *c, int n, MPI_Request *r, int *out, int *idx, MPI_Status *st,
                      const char *what) {
  double t0;
  if (!c->poll) {
    MC(MPI_Waitsome(n, r, out, idx, st));
    return;
  }
  t0 = MPI_Wtime();
  for (;;) {
    MC(MPI_Testsome(n, r, out, idx, st));
    if (*out != 0) return;
    watchdog(c, t0, what);
  }
}

static void xprobe(S *c, int src, int tag, MPI_Comm comm, MPI_Status *st, const char *what) {
  int f = 0;
  double t0;
  if (!c->poll) {
    MC(MPI_Probe(src, tag, comm, st));
    return;
  }
  t0 = MPI_Wtime();
  for (;;) {
    MC(MPI_Iprobe(src, tag, comm, &f, st));
    if (f) return;
    watchdog(c, t0, what);
  }
}

static void xrecv(S *c, void *buf, int n, int src, int tag, MPI_Comm comm, MPI_Status *st) {
  MPI_Request r;
  if (!c->poll) {
    MC(MPI_Recv(buf, n, MPI_BYTE, src, tag, comm, st));
    return;
  }
  MC(MPI_Irecv(buf, n, MPI_BYTE, src, tag, comm, &r));
  xwait(c, &r, st, "MPI_Recv (polled)");
}

/* ---- validation of one received message ------------------------------------------------------ */
static void p2_remove(S *c, int d) {
  in_t *m = &c->in[d];
  int last = c->rem[--c->nrem];
  c->rem[m->pos2] = last;
  c->in[last].pos2 = m->pos2;
  m->pos2 = -1;
  c->cnt_st[m->s * c->T + m->ti]--;
  c->cnt_s[m->s]--;
  c->cnt_t[m->ti]--;
  c->tot2--;
}

/* Checks a completed receive (pattern psrc/ptag in world ranks, posted as number `post` of its
 * phase) and marks the message received. Returns its index in c->in. */
static int validate(S *c, int psrc, int ptag, int post, unsigned char *buf, size_t bufsize,
                    const MPI_Status *st, const char *how) {
  int src = st->MPI_SOURCE, tag = st->MPI_TAG, n = -1, w, d = -1, i;
  char pb[64];
  in_t *m;
  MC(MPI_Get_count(st, MPI_BYTE, &n));
  REQUIRE(src >= 0 && src < c->size, "%s: receive #%d %s: status MPI_SOURCE %d out of range", how,
          post, pat_str(pb, psrc, ptag), src);
  w = c->phase == 1 ? c->size - 1 - src : src;
  REQUIRE(tag >= 0 && tag <= c->tag_ub, "%s: receive #%d %s: status MPI_TAG %d out of range", how,
          post, pat_str(pb, psrc, ptag), tag);
  REQUIRE(n >= 0 && (size_t)n <= bufsize,
          "%s: receive #%d %s: Get_count %d (buffer %zu) from world rank %d tag %d", how, post,
          pat_str(pb, psrc, ptag), n, bufsize, w, tag);
  REQUIRE(pat_match(psrc, ptag, w, tag),
          "%s: receive #%d %s got a message it does not match: source %d (world %d), tag %d, %d B",
          how, post, pat_str(pb, psrc, ptag), src, w, tag, n);
  if (n >= HDR) {
    hdr_t h;
    uint64_t sum;
    uint32_t idx;
    memcpy(&h, buf, HDR);
    REQUIRE(h.magic == MAGIC,
            "%s: receive #%d %s: bad magic 0x%08x in a %d B message from %d tag %d", how, post,
            pat_str(pb, psrc, ptag), h.magic, n, w, tag);
    memset(buf + offsetof(hdr_t, sum), 0, 8);
    sum = csum(buf, (size_t)n);
    REQUIRE(sum == h.sum,
            "%s: receive #%d %s: checksum mismatch in message (sender %d, dest %d, seq %u, tag %d, "
            "size %u) received as %d B from source %d tag %d",
            how, post, pat_str(pb, psrc, ptag), h.sender, h.dest, h.seq, h.tag, h.size, n, w, tag);
    REQUIRE(h.sender == w && h.dest == c->rank && h.tag == tag && h.size == (uint32_t)n,
            "%s: receive #%d %s: status (source %d, tag %d, count %d) does not describe the "
            "message (sender %d, dest %d, seq %u, tag %d, size %u)",
            how, post, pat_str(pb, psrc, ptag), w, tag, n, h.sender, h.dest, h.seq, h.tag, h.size);
    idx = h.seq - c->seq_base[w] + (uint32_t)c->in_cnt[w];
    REQUIRE(idx < (uint32_t)c->in_cnt[w],
            "%s: receive #%d %s: message (sender %d, seq %u, tag %d, %u B) was not announced for "
            "this round (seqs %u..%u)",
            how, post, pat_str(pb, psrc, ptag), w, h.seq, tag, h.size,
            c->seq_base[w] - (uint32_t)c->in_cnt[w], c->seq_base[w] - 1);
    d = c->in_off[w] + (int)idx;
    m = &c->in[d];
    REQUIRE(
        m->phase == c->phase && m->tag == tag && m->size == (uint32_t)n,
        "%s: receive #%d %s: message (sender %d, seq %u) announced as (phase %d, tag %d, %u B), "
        "received in phase %d as (tag %d, %d B)",
        how, post, pat_str(pb, psrc, ptag), w, h.seq, m->phase, m->tag, m->size, c->phase, tag, n);
    REQUIRE(!m->consumed,
            "%s: receive #%d %s: message (sender %d, seq %u, tag %d, %d B) received twice (first "
            "by receive #%d)",
            how, post, pat_str(pb, psrc, ptag), w, h.seq, tag, n, m->post);
  } else {
    for (i = 0; i < n; ++i)
      REQUIRE(buf[i] == tiny_byte(w, c->rank, tag, (uint32_t)n, (uint32_t)i),
              "%s: receive #%d %s: byte %d of a %d B message from %d tag %d is 0x%02x, expected "
              "0x%02x",
              how, post, pat_str(pb, psrc, ptag), i, n, w, tag, buf[i],
              tiny_byte(w, c->rank, tag, (uint32_t)n, (uint32_t)i));
    for (i = c->in_off[w]; i < c->in_off[w] + c->in_cnt[w]; ++i) {
      m = &c->in[i];
      if (!m->consumed && m->phase == c->phase && m->tag == tag && m->size == (uint32_t)n) {
        d = i;
        break;
      }
    }
    REQUIRE(d >= 0,
            "%s: receive #%d %s: got a %d B message from %d tag %d, but no such message is left "
            "to receive in this phase",
            how, post, pat_str(pb, psrc, ptag), n, w, tag);
    m = &c->in[d];
    c->st[ST_HEADERLESS]++;
    if (n == 0) c->st[ST_ZERO]++;
  }
  m->consumed = 1;
  m->post = post;
  m->psrc = psrc;
  m->ptag = ptag;
  c->st[ST_RECV]++;
  c->st[ST_RECV_BYTES] += n;
  if (c->phase == 2) p2_remove(c, d);
  c->last_progress = MPI_Wtime();
  return d;
}

/* ---- end-of-phase checks ----------------------------------------------------------------------
 */
static int cmp_int3(const void *a, const void *b) {
  const int *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Messages without a header are indistinguishable within (sender, tag, size): assign them to
 * their receives in posting order (the only assignment non-overtaking allows). */
static void fix_headerless(S *c) {
  int s, i, j, k, n;
  int *tmp = xmalloc(c, (size_t)c->nin * 3 * sizeof(int) + 1),
      *idx = xmalloc(c, (size_t)c->nin * sizeof(int) + 1);
  for (s = 0; s < c->size; ++s) {
    int lo = c->in_off[s], hi = lo + c->in_cnt[s];
    for (i = lo; i < hi; ++i) {
      in_t *a = &c->in[i];
      if (a->phase != c->phase || a->size >= HDR || a->hl_fixed) continue;
      n = 0;
      for (j = i; j < hi; ++j) {
        in_t *b = &c->in[j];
        if (b->phase != c->phase || b->size != a->size || b->tag != a->tag) continue;
        REQUIRE(b->consumed, "message (sender %d, seq %u, tag %d, %u B) was never received", s,
                b->seq, b->tag, b->size);
        idx[n] = j;
        tmp[3 * n] = b->post;
        tmp[3 * n + 1] = b->psrc;
        tmp[3 * n + 2] = b->ptag;
        ++n;
      }
      qsort(tmp, (size_t)n, 3 * sizeof(int), cmp_int3);
      for (k = 0; k < n; ++k) {
        in_t *b = &c->in[idx[k]];
        b->post = tmp[3 * k];
        b->psrc = tmp[3 * k + 1];
        b->ptag = tmp[3 * k + 2];
        b->hl_fixed = 1;
      }
    }
  }
  free(tmp);
  free(idx);
}

/* Non-overtaking: b sent before a (same sender, same communicator), a's receive posted before b's
 * receive and a's receive also matches b: b would have had to go to a's receive. */
static void check_order(S *c) {
  int s, i, j;
  char p1[64], p2[64];
  for (s = 0; s < c->size; ++s) {
    int lo = c->in_off[s], hi = lo + c->in_cnt[s];
    for (i = lo; i < hi; ++i) {
      in_t *a = &c->in[i];
      if (a->phase != c->phase) continue;
      REQUIRE(a->consumed, "message (sender %d, seq %u, tag %d, %u B) was never received", s,
              a->seq, a->tag, a->size);
      for (j = lo; j < i; ++j) {
        in_t *b = &c->in[j];
        if (b->phase != c->phase) continue;
        c->st[ST_ORDER_PAIRS]++;
        if (a->post < b->post && pat_match(a->psrc, a->ptag, s, b->tag))
          fail(c,
               "non-overtaking violated: from sender %d, message seq %u (tag %d, %u B) was sent "
               "before seq %u (tag %d, %u B), but seq %u went to receive #%d %s, posted before "
               "receive #%d %s that got seq %u, and receive #%d matches seq %u too",
               s, b->seq, b->tag, b->size, a->seq, a->tag, a->size, a->seq, a->post,
               pat_str(p1, a->psrc, a->ptag), b->post, pat_str(p2, b->psrc, b->ptag), b->seq,
               a->post, b->seq);
      }
    }
  }
}

/* ---- the round's plan and its announcement ----------------------------------------------------
 */
static out_t *plan_round(S *c, int k) {
  out_t *o = xmalloc(c, (size_t)k * sizeof(out_t));
  int hot = (int)(mix64(c->seed ^ 0x5eed ^ (uint64_t)c->round) % (uint64_t)c->size), i;
  size_t budget = 0;
  for (i = 0; i < k; ++i) {
    out_t *m = &o[i];
    uint32_t x;
    m->dest = rbelow(&c->prng, 100) < 15 ? hot : (int)rbelow(&c->prng, (uint32_t)c->size);
    if (rbelow(&c->prng, 100) < 90)
      m->tag = (int)rbelow(&c->prng, NHOT);
    else
      m->tag = NHOT + (int)rbelow(&c->prng, (uint32_t)(c->tag_hi - NHOT + 1));
    if (m->tag == DEAD_TAG) m->tag = 0;
    m->size = pick_size(&c->prng);
    m->phase = 1 + (int)rbelow(&c->prng, 2);
    if (m->phase == 1) {
      m->mode = (int)rbelow(&c->prng, 8);
    } else {
      x = rbelow(&c->prng, 100);
      m->mode = x < 55 ? M_ISEND : x < 80 ? M_ISSEND : x < 90 ? M_IBSEND : M_ISEND_FREE;
    }
    if (m->mode == M_BSEND || m->mode == M_IBSEND) {
      if (m->size > BSEND_MAX || budget + m->size + MPI_BSEND_OVERHEAD > BSEND_BUDGET)
        m->mode = m->mode == M_BSEND ? M_SEND : M_ISEND;
      else
        budget += m->size + MPI_BSEND_OVERHEAD;
    }
    m->seq = c->next_seq[m->dest]++;
    m->buf = xmalloc(c, m->size);
    build_msg(c, m->buf, m->size, m->dest, m->seq, m->tag);
    c->st[ST_SENT]++;
    c->st[ST_SENT_BYTES] += m->size;
    c->st[ST_MODE0 + m->mode]++;
    if (m->size > 8192) c->st[ST_OVER_8K]++;
    if (m->size > 65536) c->st[ST_OVER_64K]++;
    if (m->dest == c->rank) c->st[ST_TO_SELF]++;
  }
  return o;
}

/* Count matrix by MPI_Allreduce, then each destination gets the list of its messages. */
static void announce(S *c, const out_t *o, int k) {
  int n = c->size, s, i, nreq = 0;
  int *row = c->mat + (size_t)c->rank * n, *cnt = xmalloc(c, (size_t)n * sizeof(int)),
      *off = xmalloc(c, (size_t)n * sizeof(int));
  desc_t *od = xmalloc(c, (size_t)k * sizeof(desc_t)), *id;
  MPI_Request *rq = xmalloc(c, 2 * (size_t)n * sizeof(MPI_Request));
  memset(c->mat, 0, (size_t)n * n * sizeof(int));
  for (i = 0; i < k; ++i)
    row[o[i].dest]++;
  memcpy(cnt, row, (size_t)n * sizeof(int));
  MC(MPI_Allreduce(MPI_IN_PLACE, c->mat, n * n, MPI_INT, MPI_SUM, c->ctrl));
  for (s = 0; s < n; ++s)
    REQUIRE(row[s] == cnt[s], "MPI_Allreduce: my count to %d came back as %d, not %d", s, row[s],
            cnt[s]);
  for (s = 0, i = 0; s < n; ++s) {
    off[s] = i;
    i += cnt[s];
  }
  for (i = 0; i < k; ++i) {
    desc_t *e = &od[off[o[i].dest]++];
    e->seq = o[i].seq;
    e->tag = o[i].tag;
    e->size = o[i].size;
    e->phase = o[i].phase;
  }
  c->nin = 0;
  for (s = 0; s < n; ++s) {
    c->in_cnt[s] = c->mat[(size_t)s * n + c->rank];
    c->in_off[s] = c->nin;
    c->nin += c->in_cnt[s];
  }
  id = xmalloc(c, (size_t)c->nin * sizeof(desc_t));
  for (s = 0; s < n; ++s)
    if (c->in_cnt[s])
      MC(MPI_Irecv(id + c->in_off[s], c->in_cnt[s] * (int)sizeof(desc_t), MPI_BYTE, s, 7, c->ctrl,
                   &rq[nreq++]));
  for (s = 0; s < n; ++s)
    if (cnt[s])
      MC(MPI_Isend(od + off[s] - cnt[s], cnt[s] * (int)sizeof(desc_t), MPI_BYTE, s, 7, c->ctrl,
                   &rq[nreq++]));
  xwaitall(c, nreq, rq, MPI_STATUSES_IGNORE, "announcement");
  c->in = xmalloc(c, (size_t)c->nin * sizeof(in_t));
  for (s = 0; s < n; ++s)
    for (i = 0; i < c->in_cnt[s]; ++i) {
      desc_t *e = &id[c->in_off[s] + i];
      in_t *m = &c->in[c->in_off[s] + i];
      REQUIRE(e->seq == c->seq_base[s] + (uint32_t)i,
              "announcement from %d: message %d has seq %u, expected %u", s, i, e->seq,
              c->seq_base[s] + (uint32_t)i);
      memset(m, 0, sizeof *m);
      m->s = s;
      m->seq = e->seq;
      m->tag = e->tag;
      m->size = e->size;
      m->phase = e->phase;
      m->post = -1;
      m->model_post = -1;
      m->pos2 = -1;
    }
  for (s = 0; s < n; ++s)
    c->seq_base[s] += (uint32_t)c->in_cnt[s]; /* now one past this round's last */
  free(id);
  free(od);
  free(rq);
  free(cnt);
  free(off);
}

/* ---- phase 1: pre-posted receives and the model ------------------------------------------------
 */
static void shuffle_pat(rng_t *r, pat_t *a, int n) {
  int i;
  for (i = n - 1; i > 0; --i) {
    int j = (int)rbelow(r, (uint32_t)i + 1);
    pat_t t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

static size_t p1_bufsize(S *c, pat_t p, rng_t *r) {
  size_t mx = 0;
  int i;
  for (i = 0; i < c->nin; ++i) {
    in_t *m = &c->in[i];
    if (m->phase == 1 && pat_match(p.src, p.tag, m->s, m->tag) && m->size > mx) mx = m->size;
  }
  if (rbelow(r, 4) == 0) mx += rbelow(r, 100);
  return mx;
}

static void p1_irecv(S *c, r1_t *r, int post) {
  r->bufsize = r->kind == K_DEAD ? 64 : p1_bufsize(c, r->p, &c->prng);
  r->buf = xmalloc(c, r->bufsize);
  MC(MPI_Irecv(r->buf, (int)r->bufsize, MPI_BYTE,
               r->p.src == ANYP ? MPI_ANY_SOURCE : c->size - 1 - r->p.src,
               r->p.tag == ANYP ? MPI_ANY_TAG : r->p.tag, c->c1, &r->rq));
  (void)post;
}

static void p1_cancel_decoy(S *c, r1_t *r, int post, const char *what) {
  MPI_Status st;
  int f = 0, n = -1;
  char pb[64];
  MC(MPI_Cancel(&r->rq));
  xwait(c, &r->rq, &st, "cancelled phase-1 receive");
  MC(MPI_Test_cancelled(&st, &f));
  if (!f) {
    MPI_Get_count(&st, MPI_BYTE, &n);
    fail(c,
         "%s receive #%d %s was not cancelled, though it cannot have been matched (it got source "
         "%d, tag %d, %d B)",
         what, post, pat_str(pb, r->p.src, r->p.tag), st.MPI_SOURCE, st.MPI_TAG, n);
  }
  free(r->buf);
  r->buf = NULL;
}

/* Builds and posts the phase-1 receives; returns them in posting order (*nr of them). */
static r1_t *p1_post(S *c, int *nr) {
  int n1 = 0, nsp = 0, npt = 0, npa = 0, i, j, s, ndecoy, ndead, total, *spi, *model, *js;
  pat_t *sp, *pt, *pa;
  r1_t *r;
  rng_t *g = &c->prng;
  for (i = 0; i < c->nin; ++i)
    n1 += c->in[i].phase == 1;
  sp = xmalloc(c, (size_t)n1 * sizeof(pat_t));
  pt = xmalloc(c, (size_t)n1 * sizeof(pat_t));
  pa = xmalloc(c, (size_t)n1 * sizeof(pat_t));
  model = xmalloc(c, (size_t)c->nin * sizeof(int));
  js = xmalloc(c, (size_t)n1 * sizeof(int));
  /* intended patterns: (s,t) 45%, (s,ANY) 25%, the ANY_SOURCE pool 30% */
  for (i = 0; i < c->nin; ++i) {
    in_t *m = &c->in[i];
    uint32_t x;
    if (m->phase != 1) continue;
    c->st[ST_P1]++;
    x = rbelow(g, 100);
    if (x < 70) {
      sp[nsp].src = m->s;
      sp[nsp].tag = x < 45 ? m->tag : ANYP;
      sp[nsp].ti = 0;
      ++nsp;
    }
  }
  shuffle_pat(g, sp, nsp);
  /* the model, sender by sender: messages in send order take the first free matching receive of
   * that sender in posting order, else go to the pool; a receive left over is widened to
   * (s,ANY) and the sender simulated again */
  for (s = 0; s < c->size; ++s) {
    int nj = 0, lo = c->in_off[s], hi = lo + c->in_cnt[s];
    for (j = 0; j < nsp; ++j)
      if (sp[j].src == s) js[nj++] = j;
    if (!nj) {
      for (i = lo; i < hi; ++i)
        model[i] = -1;
      continue;
    }
    for (;;) {
      int left = -1;
      for (j = 0; j < nj; ++j)
        sp[js[j]].ti = 0; /* ti: used flag during the model */
      for (i = lo; i < hi; ++i) {
        model[i] = -1;
        if (c->in[i].phase != 1) continue;
        for (j = 0; j < nj; ++j) {
          pat_t *p = &sp[js[j]];
          if (!p->ti && (p->tag == ANYP || p->tag == c->in[i].tag)) {
            p->ti = 1;
            model[i] = js[j];
            break;
          }
        }
      }
      for (j = 0; j < nj && left < 0; ++j)
        if (!sp[js[j]].ti) left = js[j];
      if (left < 0) break;
      REQUIRE(sp[left].tag != ANYP, "internal: model left a (s,ANY) receive unmatched");
      sp[left].tag = ANYP;
      c->st[ST_P1_WIDENED]++;
    }
  }
  for (i = 0; i < c->nin; ++i) {
    in_t *m = &c->in[i];
    if (m->phase != 1 || model[i] >= 0) continue;
    if (rbelow(g, 2)) {
      pt[npt].src = ANYP;
      pt[npt].tag = m->tag;
      pt[npt++].ti = 0;
    } else {
      pa[npa].src = ANYP;
      pa[npa].tag = ANYP;
      pa[npa++].ti = 0;
    }
  }
  shuffle_pat(g, pt, npt);
  REQUIRE(nsp + npt + npa == n1, "internal: %d + %d + %d receives for %d messages", nsp, npt, npa,
          n1);
  ndecoy = (int)rbelow(g, 4);
  ndead = 1;
  total = n1 + ndecoy + ndead;
  r = xmalloc(c, (size_t)total * sizeof(r1_t));
  spi = xmalloc(c, (size_t)nsp * sizeof(int) + 1);
  for (i = 0; i < nsp; ++i) {
    r[i].p = sp[i];
    r[i].kind = K_SPEC;
    c->st[sp[i].tag == ANYP ? ST_P1_SANY : ST_P1_ST]++;
  }
  for (i = 0; i < npt; ++i) {
    r[nsp + i].p = pt[i];
    r[nsp + i].kind = K_POOL;
  }
  for (i = 0; i < npa; ++i) {
    r[nsp + npt + i].p = pa[i];
    r[nsp + npt + i].kind = K_POOL;
  }
  c->st[ST_P1_POOL_T] += npt;
  c->st[ST_P1_POOL_ANY] += npa;
  /* decoys and the dead receive, inserted at random places */
  for (i = 0; i < ndecoy + ndead; ++i) {
    int len = n1 + i, pos = (int)rbelow(g, (uint32_t)len + 1);
    r1_t e;
    memset(&e, 0, sizeof e);
    if (i < ndecoy) {
      e.kind = K_DECOY;
      e.p.src = ANYP;
      e.p.tag = ANYP;
      if (n1) {
        int d, x = (int)rbelow(g, 4);
        do
          d = (int)rbelow(g, (uint32_t)c->nin);
        while (c->in[d].phase != 1);
        if (x < 2) e.p.src = c->in[d].s;
        if (x == 0 || x == 2) e.p.tag = c->in[d].tag;
      }
    } else {
      e.kind = K_DEAD;
      e.p.src = ANYP;
      e.p.tag = DEAD_TAG;
    }
    memmove(&r[pos + 1], &r[pos], (size_t)(len - pos) * sizeof(r1_t));
    r[pos] = e;
  }
  /* model: which post index each message should go to */
  for (i = 0, j = 0; i < total; ++i)
    if (r[i].kind == K_SPEC) spi[j++] = i;
  for (i = 0; i < c->nin; ++i)
    if (c->in[i].phase == 1) c->in[i].model_post = model[i] >= 0 ? spi[model[i]] : -1;
  /* post; decoys are cancelled at once or after all are posted, all before the barrier */
  {
    int *later = xmalloc(c, (size_t)ndecoy * sizeof(int) + 1), nl = 0;
    for (i = 0; i < total; ++i) {
      r[i].p.ti = 0;
      p1_irecv(c, &r[i], i);
      if (r[i].kind == K_DECOY) {
        if (rbelow(g, 2))
          p1_cancel_decoy(c, &r[i], i, "decoy");
        else
          later[nl++] = i;
      }
    }
    for (i = 0; i < nl; ++i)
      p1_cancel_decoy(c, &r[later[i]], later[i], "decoy");
    c->st[ST_DECOY] += ndecoy;
    free(later);
  }
  free(sp);
  free(pt);
  free(pa);
  free(model);
  free(js);
  free(spi);
  *nr = total;
  return r;
}

static void p1_complete(S *c, r1_t *r, int nr) {
  int n = 0, i, k, done = 0, method;
  int *map = xmalloc(c, (size_t)nr * sizeof(int)), *idx = xmalloc(c, (size_t)nr * sizeof(int));
  MPI_Request *rq = xmalloc(c, (size_t)nr * sizeof(MPI_Request));
  MPI_Status *sts = xmalloc(c, (size_t)nr * sizeof(MPI_Status));
  const char *how;
  for (i = 0; i < nr; ++i)
    if (r[i].kind == K_SPEC || r[i].kind == K_POOL) {
      map[n] = i;
      rq[n++] = r[i].rq;
    }
  method = (int)rbelow(&c->drng, 6);
#define P1_DONE(j, stp)                                                                            \
  do {                                                                                             \
    r1_t *rr_ = &r[map[j]];                                                                        \
    validate(c, rr_->p.src, rr_->p.tag, map[j], rr_->buf, rr_->bufsize, (stp), how);               \
    free(rr_->buf);                                                                                \
    rr_->buf = NULL;                                                                               \
    ++done;                                                                                        \
  } while (0)
  if (method == 0) {
    how = "phase 1 MPI_Waitall";
    xwaitall(c, n, rq, sts, how);
    for (i = 0; i < n; ++i)
      P1_DONE(i, &sts[i]);
  } else if (method == 1) {
    how = "phase 1 MPI_Waitany";
    while (done < n) {
      int j = -1;
      xwaitany(c, n, rq, &j, &sts[0], how);
      REQUIRE(j >= 0 && j < n, "%s returned index %d with %d of %d done", how, j, done, n);
      P1_DONE(j, &sts[0]);
    }
  } else if (method == 2 || method == 3) {
    double t0 = MPI_Wtime();
    how = method == 2 ? "phase 1 MPI_Waitsome" : "phase 1 MPI_Testsome";
    while (done < n) {
      int out = 0;
      if (method == 2)
        xwaitsome(c, n, rq, &out, idx, sts, how);
      else {
        MC(MPI_Testsome(n, rq, &out, idx, sts));
        if (out == 0) watchdog(c, t0, how);
      }
      REQUIRE(out != MPI_UNDEFINED && out >= 0 && out <= n - done,
              "%s: outcount %d with %d of %d done", how, out, done, n);
      for (k = 0; k < out; ++k) {
        REQUIRE(idx[k] >= 0 && idx[k] < n, "%s: index %d", how, idx[k]);
        P1_DONE(idx[k], &sts[k]);
      }
      if (out) t0 = MPI_Wtime();
    }
  } else if (method == 4) {
    double t0 = MPI_Wtime();
    how = "phase 1 MPI_Testany";
    while (done < n) {
      int j = -1, f = 0;
      MC(MPI_Testany(n, rq, &j, &f, &sts[0]));
      if (!f) {
        watchdog(c, t0, how);
        continue;
      }
      REQUIRE(j >= 0 && j < n, "%s returned flag with index %d, %d of %d done", how, j, done, n);
      P1_DONE(j, &sts[0]);
      t0 = MPI_Wtime();
    }
  } else {
    /* MPI_Wait in a random order */
    how = "phase 1 MPI_Wait";
    for (i = 0; i < n; ++i)
      idx[i] = i;
    for (i = n - 1; i > 0; --i) {
      int j = (int)rbelow(&c->drng, (uint32_t)i + 1), t = idx[i];
      idx[i] = idx[j];
      idx[j] = t;
    }
    for (i = 0; i < n; ++i) {
      xwait(c, &rq[idx[i]], &sts[0], how);
      P1_DONE(idx[i], &sts[0]);
    }
  }
#undef P1_DONE
  for (i = 0; i < n; ++i)
    REQUIRE(rq[i] == MPI_REQUEST_NULL, "phase 1: request %d not MPI_REQUEST_NULL after completion",
            i);
  free(map);
  free(idx);
  free(rq);
  free(sts);
}

static void p1_check(S *c, r1_t *r) {
  int i;
  char p1[64], p2[64];
  fix_headerless(c);
  for (i = 0; i < c->nin; ++i) {
    in_t *m = &c->in[i];
    if (m->phase != 1) continue;
    REQUIRE(m->consumed, "message (sender %d, seq %u) never received", m->s, m->seq);
    if (m->model_post >= 0) {
      if (m->post != m->model_post)
        fail(c,
             "matching differs from the model: message (sender %d, seq %u, tag %d, %u B) should "
             "go to pre-posted receive #%d %s but went to receive #%d %s",
             m->s, m->seq, m->tag, m->size, m->model_post,
             pat_str(p1, r[m->model_post].p.src, r[m->model_post].p.tag), m->post,
             pat_str(p2, m->psrc, m->ptag));
      c->st[ST_P1_MODEL]++;
    } else if (r[m->post].kind != K_POOL) {
      fail(c,
           "matching differs from the model: message (sender %d, seq %u, tag %d, %u B) should go "
           "to an ANY_SOURCE receive but went to receive #%d %s",
           m->s, m->seq, m->tag, m->size, m->post, pat_str(p1, m->psrc, m->ptag));
    }
  }
  check_order(c);
}

/* ---- sending ----------------------------------------------------------------------------------
 */
static void send_one(S *c, out_t *m, MPI_Request *rq, int *nrq) {
  MPI_Comm comm = m->phase == 1 ? c->c1 : c->c2;
  int dest = m->phase == 1 ? c->size - 1 - m->dest : m->dest, n = (int)m->size, mode = m->mode;
  MPI_Request r;
  if (c->poll && mode < M_ISEND) { /* blocking sends become the nonblocking form + a polled wait */
    static const int nb[4] = {M_ISEND, M_ISSEND, M_IRSEND, M_IBSEND};
    MPI_Status st;
    mode = nb[mode];
    switch (mode) {
    case M_ISEND:
      MC(MPI_Isend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &r));
      break;
    case M_ISSEND:
      MC(MPI_Issend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &r));
      break;
    case M_IRSEND:
      MC(MPI_Irsend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &r));
      break;
    default:
      MC(MPI_Ibsend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &r));
      break;
    }
    xwait(c, &r, &st, "blocking send (polled)");
    return;
  }
  switch (mode) {
  case M_SEND:
    MC(MPI_Send(m->buf, n, MPI_BYTE, dest, m->tag, comm));
    break;
  case M_SSEND:
    MC(MPI_Ssend(m->buf, n, MPI_BYTE, dest, m->tag, comm));
    break;
  case M_RSEND:
    MC(MPI_Rsend(m->buf, n, MPI_BYTE, dest, m->tag, comm));
    break;
  case M_BSEND:
    MC(MPI_Bsend(m->buf, n, MPI_BYTE, dest, m->tag, comm));
    break;
  case M_ISEND:
    MC(MPI_Isend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &rq[(*nrq)++]));
    break;
  case M_ISSEND:
    MC(MPI_Issend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &rq[(*nrq)++]));
    break;
  case M_IRSEND:
    MC(MPI_Irsend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &rq[(*nrq)++]));
    break;
  case M_IBSEND:
    MC(MPI_Ibsend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &rq[(*nrq)++]));
    break;
  default:
    MC(MPI_Isend(m->buf, n, MPI_BYTE, dest, m->tag, comm, &r));
    MC(MPI_Request_free(&r));
    REQUIRE(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle non-null");
    break;
  }
}

static void complete_sends(S *c, MPI_Request *rq, int n) {
  int method = (int)rbelow(&c->drng, 3), done = 0, k, out;
  int *idx = xmalloc(c, (size_t)n * sizeof(int) + 1);
  if (method == 0 || n == 0) {
    xwaitall(c, n, rq, MPI_STATUSES_IGNORE, "sends: MPI_Waitall");
  } else if (method == 1) {
    while (done < n) {
      xwaitsome(c, n, rq, &out, idx, MPI_STATUSES_IGNORE, "sends: MPI_Waitsome");
      REQUIRE(out > 0 && out <= n - done, "sends: Waitsome outcount %d, %d of %d done", out, done,
              n);
      done += out;
    }
  } else {
    while (done < n) {
      int j = -1;
      MPI_Status st;
      xwaitany(c, n, rq, &j, &st, "sends: MPI_Waitany");
      REQUIRE(j >= 0 && j < n, "sends: Waitany index %d, %d of %d done", j, done, n);
      ++done;
    }
    xwaitany(c, n, rq, &k, MPI_STATUS_IGNORE, "sends: MPI_Waitany (all done)");
    REQUIRE(k == MPI_UNDEFINED, "sends: Waitany over completed requests returned index %d", k);
  }
  free(idx);
}

/* ---- phase 2: dynamic receives ----------------------------------------------------------------
 */
static int tag_index(S *c, int tag) {
  int i;
  for (i = 0; i < c->T; ++i)
    if (c->tags[i] == tag) return i;
  return ABSENT;
}

static void p2_setup(S *c) {
  int i, n = c->size;
  c->T = 0;
  c->tags = xmalloc(c, (size_t)c->nin * sizeof(int) + 1);
  for (i = 0; i < c->nin; ++i) {
    in_t *m = &c->in[i];
    if (m->phase != 2) continue;
    m->ti = tag_index(c, m->tag);
    if (m->ti == ABSENT) {
      m->ti = c->T;
      c->tags[c->T++] = m->tag;
    }
  }
  c->cnt_st = calloc((size_t)n * c->T + 1, sizeof(int));
  c->cnt_s = calloc((size_t)n, sizeof(int));
  c->cnt_t = calloc((size_t)c->T + 1, sizeof(int));
  c->rem = xmalloc(c, (size_t)c->nin * sizeof(int) + 1);
  REQUIRE(c->cnt_st && c->cnt_s && c->cnt_t, "out of memory");
  c->tot2 = 0;
  c->nrem = 0;
  for (i = 0; i < c->nin; ++i) {
    in_t *m = &c->in[i];
    if (m->phase != 2) continue;
    c->cnt_st[m->s * c->T + m->ti]++;
    c->cnt_s[m->s]++;
    c->cnt_t[m->ti]++;
    c->tot2++;
    m->pos2 = c->nrem;
    c->rem[c->nrem++] = i;
    c->st[ST_P2]++;
  }
}

static void p2_teardown(S *c) {
  free(c->tags);
  free(c->cnt_st);
  free(c->cnt_s);
  free(c->cnt_t);
  free(c->rem);
}

/* unreceived phase-2 messages matching p */
static int cnt2(S *c, pat_t p) {
  if (p.ti == ABSENT) return 0;
  if (p.src == ANYP) return p.ti == ANYP ? c->tot2 : c->cnt_t[p.ti];
  return p.ti == ANYP ? c->cnt_s[p.src] : c->cnt_st[p.src * c->T + p.ti];
}

/* do p and q share an unreceived message? */
static int overlap(S *c, pat_t p, pat_t q) {
  pat_t x;
  if (p.ti == ABSENT || q.ti == ABSENT) return 0;
  if (p.src == ANYP)
    x.src = q.src;
  else if (q.src == ANYP || q.src == p.src)
    x.src = p.src;
  else
    return 0;
  if (p.ti == ANYP)
    x.ti = q.ti;
  else if (q.ti == ANYP || q.ti == p.ti)
    x.ti = p.ti;
  else
    return 0;
  x.tag = 0;
  return cnt2(c, x) > 0;
}

/* p cannot starve: more matching unreceived messages than outstanding receives that compete */
static int p2_safe(S *c, const slot_t *sl, pat_t p) {
  int i, comp = 0;
  for (i = 0; i < CAP; ++i)
    if (sl[i].active && !sl[i].dead && overlap(c, p, sl[i].p)) ++comp;
  return cnt2(c, p) >= comp + 1;
}

static int p2_pick(S *c, const slot_t *sl, pat_t *p) {
  in_t *m;
  uint32_t x;
  if (c->tot2 == 0) return 0;
  m = &c->in[c->rem[rbelow(&c->drng, (uint32_t)c->nrem)]];
  x = rbelow(&c->drng, 4);
  p->src = x < 2 ? m->s : ANYP;
  p->tag = (x == 0 || x == 2) ? m->tag : ANYP;
  p->ti = (x == 0 || x == 2) ? m->ti : ANYP;
  if (p2_safe(c, sl, *p)) return 1;
  p->src = p->tag = p->ti = ANYP;
  return p2_safe(c, sl, *p);
}

static void p2_count_pat(S *c, pat_t p) {
  c->st[p.src == ANYP ? (p.tag == ANYP ? ST_P2_ANYANY : ST_P2_ANYT)
                      : (p.tag == ANYP ? ST_P2_SANY : ST_P2_ST)]++;
}

/* a pattern no unreceived message matches */
static pat_t p2_dead(S *c) {
  pat_t p;
  uint32_t x = rbelow(&c->drng, 3);
  p.src = ANYP;
  p.tag = DEAD_TAG;
  p.ti = ABSENT;
  if (x == 1) {
    pat_t q;
    q.src = (int)rbelow(&c->drng, (uint32_t)c->size);
    q.tag = (int)rbelow(&c->drng, NHOT);
    q.ti = tag_index(c, q.tag);
    if (cnt2(c, q) == 0) p = q;
  } else if (x == 2) {
    pat_t q;
    q.src = (int)rbelow(&c->drng, (uint32_t)c->size);
    q.tag = q.ti = ANYP;
    if (cnt2(c, q) == 0) p = q;
  }
  return p;
}

static size_t p2_bufsize(S *c, pat_t p) {
  size_t mx = 0;
  int i;
  for (i = 0; i < c->nrem; ++i) {
    in_t *m = &c->in[c->rem[i]];
    if (pat_match(p.src, p.tag, m->s, m->tag) && m->size > mx) mx = m->size;
  }
  if (rbelow(&c->drng, 4) == 0) mx += rbelow(&c->drng, 2000);
  return mx;
}

static void watchdog(S *c, double t0, const char *what) {
  double now = MPI_Wtime();
  int i, k = 0;
  /* waits outside the phases (sends, announcements) get longer: a receiver that misses a message
   * should be the one to report it */
  if (now - t0 < (c->phase == 0 ? 2 * WATCHDOG : WATCHDOG)) return;
  fflush(stdout);
  fprintf(stderr, "soak_matching [rank %d]: no progress for %.0f s in %s\n", c->rank, now - t0,
          what);
  for (i = 0; c->in && c->phase != 0 && i < c->nin && k < 40; ++i) {
    in_t *m = &c->in[i];
    if (!m->consumed && m->phase == c->phase) {
      fprintf(stderr,
              "  [rank %d] not received yet (or not yet seen complete): sender %d seq %u tag %d "
              "size %u phase %d\n",
              c->rank, m->s, m->seq, m->tag, m->size, m->phase);
      ++k;
    }
  }
  fail(c, "watchdog: no progress for %.0f s in %s", now - t0, what);
}

static void p2_finish_slot(S *c, slot_t *sl, int i, const MPI_Status *st, const char *how) {
  char pb[64];
  slot_t *s = &sl[i];
  REQUIRE(s->active, "%s completed slot %d, which has no receive", how, i);
  if (s->dead) {
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    fail(c, "%s: receive #%d %s, which no message can match, completed with source %d tag %d, %d B",
         how, s->post, pat_str(pb, s->p.src, s->p.tag), st->MPI_SOURCE, st->MPI_TAG, n);
  }
  validate(c, s->p.src, s->p.tag, s->post, s->buf, s->bufsize, st, how);
  free(s->buf);
  s->buf = NULL;
  s->active = 0;
}

/* phase-2 sends not issued before the barrier: a suffix of the plan, issued during the receive
 * loop (one at a time at random, all of them before any call that blocks) */
typedef struct {
  out_t *o;
  int k, next;
  MPI_Request *srq;
  int *nsrq;
} late_t;

static void send_one(S *c, out_t *m, MPI_Request *rq, int *nrq);

static int late_one(S *c, late_t *l) {
  while (l->next < l->k && l->o[l->next].phase != 2)
    ++l->next;
  if (l->next >= l->k) return 0;
  send_one(c, &l->o[l->next++], l->srq, l->nsrq);
  c->st[ST_LATE]++;
  return 1;
}

static void late_flush(S *c, late_t *l) {
  while (late_one(c, l)) {
  }
}

static void phase2(S *c, late_t *late) {
  slot_t sl[CAP];
  MPI_Request rq[CAP];
  MPI_Status sts[CAP];
  int idx[CAP], nact = 0, nreal = 0, post = 0, cap = 1 + (int)rbelow(&c->drng, CAP), i, k;
  double last = MPI_Wtime();
  char pb[64];
  for (i = 0; i < CAP; ++i) {
    rq[i] = MPI_REQUEST_NULL;
    sl[i].active = 0;
    sl[i].buf = NULL;
  }
  while (c->tot2 > 0 || nact > 0) {
    uint32_t a = rbelow(&c->drng, 100);
    int free_slot = -1, acted = 1;
    pat_t p;
    MPI_Status st;
    for (i = 0; i < CAP && free_slot < 0; ++i)
      if (i < cap && !sl[i].active) free_slot = i;
    if (rbelow(&c->drng, 4) == 0) late_one(c, late);
    if (nreal == 0 && (c->tot2 == 0 || free_slot < 0)) a = 50; /* only dead receives: cancel one */
    if (a < 30 && free_slot >= 0 && p2_pick(c, sl, &p)) {
      slot_t *s = &sl[free_slot];
      s->p = p;
      s->dead = 0;
      s->post = post++;
      s->bufsize = p2_bufsize(c, p);
      s->buf = xmalloc(c, s->bufsize);
      MC(MPI_Irecv(s->buf, (int)s->bufsize, MPI_BYTE, p.src == ANYP ? MPI_ANY_SOURCE : p.src,
                   p.tag == ANYP ? MPI_ANY_TAG : p.tag, c->c2, &rq[free_slot]));
      s->active = 1;
      ++nact;
      ++nreal;
      p2_count_pat(c, p);
      c->st[ST_P2_IRECV]++;
    } else if (a >= 30 && a < 38 && p2_pick(c, sl, &p)) {
      size_t bs = p2_bufsize(c, p);
      unsigned char *buf = xmalloc(c, bs);
      int my = post++;
      late_flush(c, late);
      xrecv(c, buf, (int)bs, p.src == ANYP ? MPI_ANY_SOURCE : p.src,
            p.tag == ANYP ? MPI_ANY_TAG : p.tag, c->c2, &st);
      validate(c, p.src, p.tag, my, buf, bs, &st, "phase 2 MPI_Recv");
      free(buf);
      p2_count_pat(c, p);
      c->st[ST_P2_RECV]++;
    } else if (a >= 38 && a < 46 && p2_pick(c, sl, &p)) {
      MPI_Status pst;
      int n = -1, n2 = -1, my, f = 0;
      size_t bs;
      unsigned char *buf;
      const char *how = a < 43 ? "phase 2 MPI_Probe+MPI_Recv" : "phase 2 MPI_Iprobe+MPI_Recv";
      late_flush(c, late);
      if (a < 43) {
        xprobe(c, p.src == ANYP ? MPI_ANY_SOURCE : p.src, p.tag == ANYP ? MPI_ANY_TAG : p.tag,
               c->c2, &pst, how);
        c->st[ST_P2_PROBE]++;
      } else {
        double t0 = MPI_Wtime();
        for (;;) {
          MC(MPI_Iprobe(p.src == ANYP ? MPI_ANY_SOURCE : p.src, p.tag == ANYP ? MPI_ANY_TAG : p.tag,
                        c->c2, &f, &pst));
          if (f) break;
          watchdog(c, t0, how);
        }
        c->st[ST_P2_IPROBE]++;
      }
      MC(MPI_Get_count(&pst, MPI_BYTE, &n));
      REQUIRE(pst.MPI_SOURCE >= 0 && pst.MPI_SOURCE < c->size && pst.MPI_TAG >= 0 &&
                  pat_match(p.src, p.tag, pst.MPI_SOURCE, pst.MPI_TAG) && n >= 0 &&
                  (uint32_t)n <= MAXSIZE,
              "%s: probe %s returned source %d tag %d count %d", how, pat_str(pb, p.src, p.tag),
              pst.MPI_SOURCE, pst.MPI_TAG, n);
      bs = (size_t)n + (rbelow(&c->drng, 2) ? rbelow(&c->drng, 64) : 0);
      buf = xmalloc(c, bs);
      my = post++;
      xrecv(c, buf, (int)bs, pst.MPI_SOURCE, pst.MPI_TAG, c->c2, &st);
      MC(MPI_Get_count(&st, MPI_BYTE, &n2));
      REQUIRE(st.MPI_SOURCE == pst.MPI_SOURCE && st.MPI_TAG == pst.MPI_TAG && n2 == n,
              "%s: probe said (source %d, tag %d, %d B), the receive of that source and tag got "
              "(source %d, tag %d, %d B)",
              how, pst.MPI_SOURCE, pst.MPI_TAG, n, st.MPI_SOURCE, st.MPI_TAG, n2);
      validate(c, pst.MPI_SOURCE, pst.MPI_TAG, my, buf, bs, &st, how);
      free(buf);
      p2_count_pat(c, p);
    } else if (a >= 46 && a < 49 && free_slot >= 0) {
      slot_t *s = &sl[free_slot];
      s->p = p2_dead(c);
      s->dead = 1;
      s->post = post++;
      s->bufsize = 64;
      s->buf = xmalloc(c, s->bufsize);
      MC(MPI_Irecv(s->buf, (int)s->bufsize, MPI_BYTE, s->p.src == ANYP ? MPI_ANY_SOURCE : s->p.src,
                   s->p.tag == ANYP ? MPI_ANY_TAG : s->p.tag, c->c2, &rq[free_slot]));
      s->active = 1;
      ++nact;
    } else if (a >= 49 && a < 56 && nact > 0) {
      /* cancel an outstanding receive; dead ones must be cancelled */
      int j = (int)rbelow(&c->drng, (uint32_t)nact), f = 0;
      slot_t *s;
      for (i = 0; i < CAP; ++i)
        if (sl[i].active && j-- == 0) break;
      s = &sl[i];
      MC(MPI_Cancel(&rq[i]));
      xwait(c, &rq[i], &st, "phase 2 MPI_Cancel + MPI_Wait");
      MC(MPI_Test_cancelled(&st, &f));
      if (s->dead) {
        REQUIRE(f,
                "receive #%d %s, which no message can match, was not cancelled (status source "
                "%d tag %d)",
                s->post, pat_str(pb, s->p.src, s->p.tag), st.MPI_SOURCE, st.MPI_TAG);
        c->st[ST_DEAD2]++;
        free(s->buf);
        s->buf = NULL;
        s->active = 0;
      } else {
        c->st[ST_CANCEL_TRY]++;
        if (f) {
          c->st[ST_CANCEL_OK]++;
          free(s->buf);
          s->buf = NULL;
          s->active = 0;
        } else {
          p2_finish_slot(c, sl, i, &st, "phase 2 MPI_Cancel (too late) + MPI_Wait");
        }
        --nreal;
      }
      --nact;
      last = MPI_Wtime();
    } else if (a >= 56 && a < 58) {
      int f = 1;
      p = p2_dead(c);
      MC(MPI_Iprobe(p.src == ANYP ? MPI_ANY_SOURCE : p.src, p.tag == ANYP ? MPI_ANY_TAG : p.tag,
                    c->c2, &f, &st));
      REQUIRE(!f,
              "MPI_Iprobe %s found a message (source %d, tag %d), but no unreceived message "
              "matches",
              pat_str(pb, p.src, p.tag), st.MPI_SOURCE, st.MPI_TAG);
      c->st[ST_P2_NEG_IPROBE]++;
    } else {
      acted = 0;
    }
    if (acted) {
      if (c->last_progress > last) last = c->last_progress;
      continue;
    }
    /* otherwise: complete something */
    if (nreal == 0) {
      /* nothing outstanding that can complete: receive (ANY,ANY) or a picked pattern */
      size_t bs;
      unsigned char *buf;
      int my;
      REQUIRE(p2_pick(c, sl, &p), "internal: no safe pattern with %d messages left", c->tot2);
      bs = p2_bufsize(c, p);
      buf = xmalloc(c, bs);
      my = post++;
      late_flush(c, late);
      xrecv(c, buf, (int)bs, p.src == ANYP ? MPI_ANY_SOURCE : p.src,
            p.tag == ANYP ? MPI_ANY_TAG : p.tag, c->c2, &st);
      validate(c, p.src, p.tag, my, buf, bs, &st, "phase 2 MPI_Recv");
      free(buf);
      p2_count_pat(c, p);
      c->st[ST_P2_RECV]++;
      continue;
    }
    {
      int ndead = nact - nreal, m = (int)rbelow(&c->drng, 10), j = -1, out = 0, f = 0;
      const char *how = "";
      if ((m == 6 || m == 7) && ndead > 0) m = 2;
      if (m == 0 || m == 9 || m == 1 || m == 4 || m == 6) late_flush(c, late); /* blocking */
      if (m == 0 || m == 9) {
        how = "phase 2 MPI_Waitany";
        xwaitany(c, CAP, rq, &j, &st, how);
        REQUIRE(j >= 0 && j < CAP, "%s returned index %d with %d receives outstanding", how, j,
                nreal);
        p2_finish_slot(c, sl, j, &st, how);
        --nact;
        --nreal;
      } else if (m == 1 || m == 2) {
        how = m == 1 ? "phase 2 MPI_Waitsome" : "phase 2 MPI_Testsome";
        if (m == 1)
          xwaitsome(c, CAP, rq, &out, idx, sts, how);
        else
          MC(MPI_Testsome(CAP, rq, &out, idx, sts));
        REQUIRE(out != MPI_UNDEFINED && out >= 0 && out <= nreal, "%s: outcount %d with %d live",
                how, out, nreal);
        for (k = 0; k < out; ++k) {
          REQUIRE(idx[k] >= 0 && idx[k] < CAP, "%s: index %d", how, idx[k]);
          p2_finish_slot(c, sl, idx[k], &sts[k], how);
          --nact;
          --nreal;
        }
      } else if (m == 3) {
        how = "phase 2 MPI_Testany";
        MC(MPI_Testany(CAP, rq, &j, &f, &st));
        if (f) {
          REQUIRE(j >= 0 && j < CAP, "%s: flag set with index %d (%d live)", how, j, nreal);
          p2_finish_slot(c, sl, j, &st, how);
          --nact;
          --nreal;
        }
      } else if (m == 4 || m == 5 || m == 8) {
        int r = (int)rbelow(&c->drng, (uint32_t)nreal);
        for (j = 0; j < CAP; ++j)
          if (sl[j].active && !sl[j].dead && r-- == 0) break;
        if (m == 4) {
          how = "phase 2 MPI_Wait";
          xwait(c, &rq[j], &st, how);
          f = 1;
        } else if (m == 5) {
          how = "phase 2 MPI_Test";
          MC(MPI_Test(&rq[j], &f, &st));
        } else {
          MPI_Status gs;
          how = "phase 2 MPI_Request_get_status + MPI_Wait";
          MC(MPI_Request_get_status(rq[j], &f, &gs));
          if (f) {
            int n1 = -1, n2 = -1;
            REQUIRE(rq[j] != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
            MC(MPI_Wait(&rq[j], &st));
            MPI_Get_count(&gs, MPI_BYTE, &n1);
            MPI_Get_count(&st, MPI_BYTE, &n2);
            REQUIRE(gs.MPI_SOURCE == st.MPI_SOURCE && gs.MPI_TAG == st.MPI_TAG && n1 == n2,
                    "MPI_Request_get_status said (source %d, tag %d, %d B), MPI_Wait then said "
                    "(source %d, tag %d, %d B)",
                    gs.MPI_SOURCE, gs.MPI_TAG, n1, st.MPI_SOURCE, st.MPI_TAG, n2);
          }
        }
        if (f) {
          p2_finish_slot(c, sl, j, &st, how);
          --nact;
          --nreal;
        }
      } else { /* m == 6, 7: Waitall / Testall over all slots, none dead */
        how = m == 6 ? "phase 2 MPI_Waitall" : "phase 2 MPI_Testall";
        if (m == 6) {
          xwaitall(c, CAP, rq, sts, how);
          f = 1;
        } else {
          MC(MPI_Testall(CAP, rq, &f, sts));
        }
        if (f)
          for (k = 0; k < CAP; ++k)
            if (sl[k].active) {
              p2_finish_slot(c, sl, k, &sts[k], how);
              --nact;
              --nreal;
            }
      }
      if (c->last_progress > last) last = c->last_progress;
      watchdog(c, last, "phase 2 receive loop");
    }
  }
  late_flush(c, late);
  for (i = 0; i < CAP; ++i)
    REQUIRE(rq[i] == MPI_REQUEST_NULL, "phase 2: slot %d request not null at the end", i);
  fix_headerless(c);
  check_order(c);
}

/* ---- one round --------------------------------------------------------------------------------
 */
static void round_run(S *c, int k, unsigned char ***deferred, int *ndeferred) {
  out_t *o = plan_round(c, k);
  MPI_Request *srq = xmalloc(c, (size_t)k * sizeof(MPI_Request) + sizeof(MPI_Request));
  int nsrq = 0, i, nr1 = 0, p2_first;
  r1_t *r1;
  late_t late;

  c->phase = 0;
  announce(c, o, k);
  /* everybody finished the previous round (its receives are all complete): buffers of sends
   * whose requests were freed can go */
  for (i = 0; i < *ndeferred; ++i)
    free((*deferred)[i]);
  *ndeferred = 0;

  c->phase = 1;
  r1 = p1_post(c, &nr1);
  c->phase = 2;
  p2_setup(c);
  { /* the first n2e phase-2 messages now, the rest during the receive loop */
    int n2 = 0, n2e, j = 0;
    for (i = 0; i < k; ++i)
      n2 += o[i].phase == 2;
    n2e = rbelow(&c->prng, 2) == 0 ? (int)rbelow(&c->prng, (uint32_t)n2 + 1) : n2;
    late.o = o;
    late.k = k;
    late.next = k;
    late.srq = srq;
    late.nsrq = &nsrq;
    for (i = 0; i < k; ++i)
      if (o[i].phase == 2) {
        if (j++ == n2e) {
          late.next = i;
          break;
        }
        send_one(c, &o[i], srq, &nsrq);
      }
  }
  c->phase = 0;
  MC(MPI_Barrier(MPI_COMM_WORLD));
  c->phase = 1;
  for (i = 0; i < k; ++i)
    if (o[i].phase == 1) send_one(c, &o[i], srq, &nsrq);

  p2_first = (int)rbelow(&c->drng, 2);
  if (p2_first) {
    c->phase = 2;
    phase2(c, &late);
  }
  c->phase = 1;
  p1_complete(c, r1, nr1);
  p1_check(c, r1);
  if (!p2_first) {
    c->phase = 2;
    phase2(c, &late);
  }
  c->phase = 0;
  complete_sends(c, srq, nsrq);
  /* the dead phase-1 receive(s): nothing can have matched them */
  c->phase = 1;
  for (i = 0; i < nr1; ++i)
    if (r1[i].kind == K_DEAD) {
      p1_cancel_decoy(c, &r1[i], i, "dead");
      c->st[ST_DEAD1]++;
    }
  c->phase = 0;
  p2_teardown(c);
  for (i = 0; i < k; ++i) {
    if (o[i].mode == M_ISEND_FREE)
      (*deferred)[(*ndeferred)++] = o[i].buf;
    else
      free(o[i].buf);
  }
  for (i = 0; i < nr1; ++i)
    free(r1[i].buf);
  free(r1);
  free(o);
  free(srq);
  free(c->in);
  c->in = NULL;
}

/* ---- main -------------------------------------------------------------------------------------
 */
int main(int argc, char **argv) {
  S cs, *c = &cs;
  long long total = 1000000, share, remaining, sums[ST_N], world[2];
  int per_round = 100, i, flag = 0, ndeferred = 0, r1rank = -1;
  void *attr = NULL, *bbuf;
  unsigned char **deferred;
  double t0, t1;

  MPI_Init(&argc, &argv);
  memset(c, 0, sizeof *c);
  c->seed = 1;
  c->round = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c->size);
  if (argc > 1) total = atoll(argv[1]);
  if (argc > 2) c->seed = strtoull(argv[2], NULL, 0);
  if (argc > 3) per_round = atoi(argv[3]);
  if (argc > 4) c->poll = atoi(argv[4]);
  REQUIRE(total >= 0 && per_round > 0, "usage: soak_matching [total [seed [per_round [poll]]]]");
  MC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MC(MPI_Comm_dup(MPI_COMM_WORLD, &c->ctrl));
  MC(MPI_Comm_split(MPI_COMM_WORLD, 0, c->size - 1 - c->rank, &c->c1));
  MC(MPI_Comm_dup(MPI_COMM_WORLD, &c->c2));
  MC(MPI_Comm_set_errhandler(c->ctrl, MPI_ERRORS_RETURN));
  MC(MPI_Comm_set_errhandler(c->c1, MPI_ERRORS_RETURN));
  MC(MPI_Comm_set_errhandler(c->c2, MPI_ERRORS_RETURN));
  MC(MPI_Comm_rank(c->c1, &r1rank));
  REQUIRE(r1rank == c->size - 1 - c->rank, "Comm_split with reversed keys: rank %d, expected %d",
          r1rank, c->size - 1 - c->rank);
  MC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag));
  REQUIRE(flag && attr && *(int *)attr >= 32767, "MPI_TAG_UB missing or below 32767");
  c->tag_ub = *(int *)attr;
  c->tag_hi = c->tag_ub < (1 << 24) ? c->tag_ub : (1 << 24);
  bbuf = xmalloc(c, BSEND_BUF);
  MC(MPI_Buffer_attach(bbuf, BSEND_BUF));
  rng_seed(&c->prng, c->seed * 0x100000001b3ULL ^ (uint64_t)c->rank * 0x9E3779B97F4A7C15ULL);
  rng_seed(&c->drng, ~c->seed ^ (uint64_t)(c->rank + 1) * 0xC2B2AE3D27D4EB4FULL);
  c->next_seq = calloc((size_t)c->size, sizeof(uint32_t));
  c->seq_base = calloc((size_t)c->size, sizeof(uint32_t));
  c->mat = calloc((size_t)c->size * c->size, sizeof(int));
  c->in_off = calloc((size_t)c->size, sizeof(int));
  c->in_cnt = calloc((size_t)c->size, sizeof(int));
  REQUIRE(c->next_seq && c->seq_base && c->mat && c->in_off && c->in_cnt, "out of memory");

  share = total / c->size + (c->rank < total % c->size);
  c->nrounds =
      (int)((total + (long long)c->size * per_round - 1) / ((long long)c->size * per_round));
  if (c->nrounds < 1) c->nrounds = 1;
  deferred = NULL;
  if (c->rank == 0) {
    printf("soak_matching: seed %llu, %lld messages over %d ranks, %d rounds of ~%d messages per "
           "rank, sizes 0..%u B, poll %d\n",
           c->seed, total, c->size, c->nrounds, per_round, MAXSIZE, c->poll);
    fflush(stdout);
  }
  MC(MPI_Barrier(MPI_COMM_WORLD));
  t0 = MPI_Wtime();
  remaining = share;
  for (c->round = 0; c->round < c->nrounds; ++c->round) {
    int left = c->nrounds - c->round, k;
    long long mean = remaining / left;
    if (left == 1)
      k = (int)remaining;
    else {
      k = (int)(mean / 2 + rbelow(&c->prng, (uint32_t)mean + 1));
      if (k > remaining) k = (int)remaining;
    }
    remaining -= k;
    { /* room for the previous round's freed-request buffers and this round's */
      unsigned char **nd = realloc(deferred, (size_t)(ndeferred + k + 1) * sizeof(*nd));
      REQUIRE(nd, "out of memory");
      deferred = nd;
    }
    round_run(c, k, &deferred, &ndeferred);
    if (c->rank == 0 && c->nrounds >= 20 && (c->round + 1) % (c->nrounds / 10) == 0) {
      printf("soak_matching: round %d of %d done, %.1f s\n", c->round + 1, c->nrounds,
             MPI_Wtime() - t0);
      fflush(stdout);
    }
  }
  c->phase = 0;
  MC(MPI_Barrier(MPI_COMM_WORLD));
  t1 = MPI_Wtime();
  for (i = 0; i < ndeferred; ++i)
    free(deferred[i]);
  free(deferred);
  {
    int bsize = 0;
    void *b = NULL;
    MC(MPI_Buffer_detach(&b, &bsize));
    REQUIRE(b == bbuf && bsize == BSEND_BUF, "MPI_Buffer_detach returned %p/%d", b, bsize);
    free(bbuf);
  }
  REQUIRE(remaining == 0, "internal: %lld messages not planned", remaining);
  MC(MPI_Reduce(c->st, sums, ST_N, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  world[0] = c->st[ST_SENT];
  world[1] = c->st[ST_RECV];
  MC(MPI_Allreduce(MPI_IN_PLACE, world, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  REQUIRE(world[0] == total && world[1] == total, "%lld messages sent and %lld received, not %lld",
          world[0], world[1], total);
  if (c->rank == 0) {
    printf("soak_matching: %lld messages, %.1f MB, %d rounds in %.2f s (%.0f messages/s)\n",
           sums[ST_RECV], sums[ST_RECV_BYTES] / 1e6, c->nrounds, t1 - t0,
           (t1 > t0) ? sums[ST_RECV] / (t1 - t0) : 0.0);
    for (i = 0; i < ST_MODE0; ++i)
      printf("  %-44s %lld\n", st_name[i], sums[i]);
    for (i = 0; i < NMODES; ++i)
      printf("  sends with %-33s %lld\n", mode_name[i], sums[ST_MODE0 + i]);
    printf("ok soak_matching (%d ranks)\n", c->size);
    fflush(stdout);
  }
  MPI_Comm_free(&c->ctrl);
  MPI_Comm_free(&c->c1);
  MPI_Comm_free(&c->c2);
  free(c->next_seq);
  free(c->seq_base);
  free(c->mat);
  free(c->in_off);
  free(c->in_cnt);
  MPI_Finalize();
  return 0;
}
