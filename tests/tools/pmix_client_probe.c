/* tests/tools/pmix_client_probe.c — a plain PMIx client (linked with libpmix, not with ampi) for
 * the tests of ampirun's PMIx server. Every failed check prints "FAIL: ..." and exits 1.
 *
 *   pmix_client_probe check NP VP
 *       PMIx_Init; checks the job size (uint32), rank, local rank (uint16) and the other
 *       registered keys against NP and the environment (LOCAL_RANK, AMPI_VP = VP, AMPI_MAP);
 *       puts a byte object, commits, fences, gets every peer's object and checks it;
 *       PMIx_Finalize; prints "process R of NP: ok".
 *   pmix_client_probe fail NP
 *       PMIx_Init and a fence; then the last process prints "process R exits with status 4 at
 *       MS" (CLOCK_REALTIME, milliseconds) and exits 4; process 0 ignores SIGTERM; the others
 *       wait (in a fence that cannot complete, then in sleep) until they are ended.
 *   pmix_client_probe abort R STATUS
 *       PMIx_Init and a fence; then process R prints "aborting at MS" and calls
 *       PMIx_Abort(STATUS); the others ignore SIGTERM and wait until they are killed.
 *   pmix_client_probe no-finalize
 *       PMIx_Init; process 0 exits 0 without PMIx_Finalize; the others wait until ended.
 *   pmix_client_probe rendezvous
 *       PMIx_Init; prints "tmpdir MODE PATH" for PMIX_SERVER_TMPDIR (from the environment),
 *       fences, PMIx_Finalize.
 */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <strings.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL: process %u: ", (unsigned)me.rank);                                             \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      fflush(stdout);                                                                              \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static pmix_value_t *get(pmix_rank_t rank, const char *key) {
  pmix_proc_t proc;
  PMIX_PROC_CONSTRUCT(&proc);
  PMIX_LOAD_PROCID(&proc, me.nspace, rank);
  pmix_value_t *val = NULL;
  pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &val);
  CHECK(rc == PMIX_SUCCESS && val != NULL, "PMIx_Get(%s, rank %u): %s", key, (unsigned)rank,
        PMIx_Error_string(rc));
  return val;
}

static uint32_t get_u32(pmix_rank_t rank, const char *key) {
  pmix_value_t *val = get(rank, key);
  CHECK(val->type == PMIX_UINT32, "%s: type %s, expected uint32", key,
        PMIx_Data_type_string(val->type));
  const uint32_t out = val->data.uint32;
  PMIX_VALUE_RELEASE(val);
  return out;
}

static uint16_t get_u16(pmix_rank_t rank, const char *key) {
  pmix_value_t *val = get(rank, key);
  CHECK(val->type == PMIX_UINT16, "%s: type %s, expected uint16", key,
        PMIx_Data_type_string(val->type));
  const uint16_t out = val->data.uint16;
  PMIX_VALUE_RELEASE(val);
  return out;
}

static void get_string(pmix_rank_t rank, const char *key, char *out, size_t size) {
  pmix_value_t *val = get(rank, key);
  CHECK(val->type == PMIX_STRING, "%s: type %s, expected string", key,
        PMIx_Data_type_string(val->type));
  snprintf(out, size, "%s", val->data.string);
  PMIX_VALUE_RELEASE(val);
}

static void init(void) {
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    printf("FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
    exit(1);
  }
}

static void fence(void) {
  pmix_proc_t all;
  PMIX_PROC_CONSTRUCT(&all);
  PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
  pmix_status_t rc = PMIx_Fence(&all, 1, NULL, 0);
  CHECK(rc == PMIX_SUCCESS, "PMIx_Fence: %s", PMIx_Error_string(rc));
}

static void ignore_sigterm(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
}

/* A fence that cannot complete as it should; whatever it returns (libpmix ends it with an error
 * when a participant's connection drops), wait until ampirun ends this process. */
static void wait_for_the_end(void) {
  pmix_proc_t all;
  PMIX_PROC_CONSTRUCT(&all);
  PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
  PMIx_Fence(&all, 1, NULL, 0);
  sleep(30);
  printf("FAIL: process %u: still running 30 s later\n", me.rank);
}

/* The test object of process `rank`: its size and contents depend on the rank. */
static size_t blob_size(pmix_rank_t rank) {
  return 3000 + 7 * (size_t)rank;
}
static unsigned char blob_byte(pmix_rank_t rank, size_t i) {
  return (unsigned char)((i * 31 + rank * 17 + 5) & 0xff);
}

static int check(int np, int vp) {
  init();
  pmix_proc_t wildcard;
  PMIX_PROC_CONSTRUCT(&wildcard);
  PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);

  const uint32_t size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  CHECK(size == (uint32_t)np, "job size %u, expected %d", size, np);
  CHECK(me.rank < size, "rank %u not below the job size %u", me.rank, size);
  CHECK(get_u32(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE) == size, "universe size");
  CHECK(get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE) == size, "local size");
  const uint16_t local_rank = get_u16(me.rank, PMIX_LOCAL_RANK);
  CHECK(local_rank == me.rank, "local rank %u, expected %u", local_rank, me.rank);
  CHECK(get_u16(me.rank, PMIX_NODE_RANK) == me.rank, "node rank");
  CHECK(get_u32(me.rank, PMIX_APPNUM) == 0, "appnum");
  CHECK(get_u32(me.rank, PMIX_NODEID) == 0, "node id");

  char text[4096], expected[4096] = "";
  get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, text, sizeof text);
  for (int p = 0; p < np; ++p)
    snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%d", p ? "," : "",
             p);
  CHECK(strcmp(text, expected) == 0, "local peers '%s', expected '%s'", text, expected);
  get_string(PMIX_RANK_WILDCARD, PMIX_JOBID, text, sizeof text);
  CHECK(text[0] != '\0', "empty job id");
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  get_string(me.rank, PMIX_HOSTNAME, text, sizeof text);
  CHECK(strcmp(text, host) == 0, "host name '%s', expected '%s'", text, host);

  /* The launcher's own variables. */
  const char *local = getenv("LOCAL_RANK");
  CHECK(local && atoi(local) == (int)me.rank, "LOCAL_RANK=%s, PMIx rank %u", local ? local : "",
        me.rank);
  const char *ompi = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  CHECK(ompi && atoi(ompi) == np, "OMPI_COMM_WORLD_LOCAL_SIZE=%s", ompi ? ompi : "(unset)");
  const char *ampi_vp = getenv("AMPI_VP");
  CHECK(ampi_vp && atoi(ampi_vp) == vp, "AMPI_VP=%s, expected %d", ampi_vp ? ampi_vp : "(unset)",
        vp);
  const char *map = getenv("AMPI_MAP");
  CHECK(map && (strcmp(map, "block") == 0 || strcmp(map, "rr") == 0), "AMPI_MAP=%s",
        map ? map : "(unset)");

  /* Exchange: put, commit, fence, get every peer's object. */
  const size_t n = blob_size(me.rank);
  char *bytes = malloc(n);
  for (size_t i = 0; i < n; ++i)
    bytes[i] = (char)blob_byte(me.rank, i);
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  v.data.bo.bytes = bytes;
  v.data.bo.size = n;
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, "ampi.test.blob", &v);
  CHECK(rc == PMIX_SUCCESS, "PMIx_Put: %s", PMIx_Error_string(rc));
  free(bytes);
  rc = PMIx_Commit();
  CHECK(rc == PMIX_SUCCESS, "PMIx_Commit: %s", PMIx_Error_string(rc));
  fence();
  for (pmix_rank_t peer = 0; peer < size; ++peer) {
    pmix_value_t *val = get(peer, "ampi.test.blob");
    CHECK(val->type == PMIX_BYTE_OBJECT, "peer %u: type %s", peer,
          PMIx_Data_type_string(val->type));
    CHECK(val->data.bo.size == blob_size(peer), "peer %u: %zu bytes, expected %zu", peer,
          val->data.bo.size, blob_size(peer));
    for (size_t i = 0; i < val->data.bo.size; ++i)
      CHECK((unsigned char)val->data.bo.bytes[i] == blob_byte(peer, i), "peer %u: byte %zu", peer,
            i);
    PMIX_VALUE_RELEASE(val);
  }
  fence();
  rc = PMIx_Finalize(NULL, 0);
  CHECK(rc == PMIX_SUCCESS, "PMIx_Finalize: %s", PMIx_Error_string(rc));
  printf("process %u of %u: ok\n", me.rank, size);
  return 0;
}

static long long realtime_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "check") == 0 && argc == 4) return check(atoi(argv[2]), atoi(argv[3]));
  if (strcmp(mode, "fail") == 0 && argc == 3) {
    const int np = atoi(argv[2]);
    const char *local = getenv("LOCAL_RANK");
    if (local && atoi(local) == 0) ignore_sigterm();
    init();
    fence(); /* every process is past its start-up (process 0 ignores SIGTERM by now) */
    if ((int)me.rank == np - 1) {
      printf("process %u exits with status 4 at %lld\n", me.rank, realtime_ms());
      return 4;
    }
    wait_for_the_end();
    return 1;
  }
  if (strcmp(mode, "abort") == 0 && argc == 4) {
    const int who = atoi(argv[2]);
    const char *local = getenv("LOCAL_RANK");
    if (!local || atoi(local) != who) ignore_sigterm();
    init();
    fence(); /* every process is past its start-up and ignores SIGTERM */
    if ((int)me.rank == who) {
      char msg[64];
      snprintf(msg, sizeof msg, "probe abort from process %u", me.rank);
      printf("aborting at %lld\n", realtime_ms());
      PMIx_Abort(atoi(argv[3]), msg, NULL, 0);
      sleep(30);
      printf("FAIL: process %u: still running 30 s after PMIx_Abort\n", me.rank);
      return 1;
    }
    wait_for_the_end();
    return 1;
  }
  if (strcmp(mode, "no-finalize") == 0 && argc == 2) {
    init();
    if (me.rank == 0) _exit(0);
    wait_for_the_end();
    return 1;
  }
  if (strcmp(mode, "rendezvous") == 0 && argc == 2) {
    init();
    const char *dir = getenv("PMIX_SERVER_TMPDIR");
    struct stat st;
    CHECK(dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "PMIX_SERVER_TMPDIR=%s",
          dir ? dir : "(unset)");
    printf("tmpdir %o %s\n", (unsigned)(st.st_mode & 07777), dir);
    fence();
    PMIx_Finalize(NULL, 0);
    return 0;
  }
  fprintf(stderr, "usage: %s check NP VP | fail NP | abort R STATUS | no-finalize | rendezvous\n",
          argv[0]);
  return 64;
}
