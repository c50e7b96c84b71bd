/* tests/tools/ampirun_probe.c — a plain (non-MPI) program for the ampirun tests:
 *   ampirun_probe exit N          exit with status N
 *   ampirun_probe signal NAME     kill itself with SIGNAME (SEGV, ABRT, TERM, ...), no core dump
 *   ampirun_probe env NAME...     print NAME=value or NAME is unset, one per line
 *   ampirun_probe args ARG...     print each argument as [ARG], one per line
 *   ampirun_probe cwd             print "cwd=" and the working directory
 *   ampirun_probe wait-term       print "ready", wait for SIGTERM, print "got signal 15", exit 42
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile sig_atomic_t got_signal;

static void on_signal(int sig) {
  got_signal = sig;
}

static int signal_number(const char *name) {
  static const struct {
    const char *name;
    int number;
  } table[] = {{"SEGV", SIGSEGV}, {"ABRT", SIGABRT}, {"TERM", SIGTERM}, {"KILL", SIGKILL},
               {"INT", SIGINT},   {"HUP", SIGHUP},   {"BUS", SIGBUS},   {"FPE", SIGFPE}};
  if (strncmp(name, "SIG", 3) == 0) name += 3;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
    if (strcmp(name, table[i].name) == 0) return table[i].number;
  return atoi(name);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: %s exit N | signal NAME | env NAME... | args ARG... | cwd | wait-term\n",
            argv[0]);
    return 64;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "exit") == 0 && argc == 3) return atoi(argv[2]);
  if (strcmp(cmd, "signal") == 0 && argc == 3) {
    const int sig = signal_number(argv[2]);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    sleep(5);
    return 70; /* not reached */
  }
  if (strcmp(cmd, "env") == 0) {
    for (int i = 2; i < argc; ++i) {
      const char *value = getenv(argv[i]);
      if (value)
        printf("%s=%s\n", argv[i], value);
      else
        printf("%s is unset\n", argv[i]);
    }
    return 0;
  }
  if (strcmp(cmd, "cwd") == 0) {
    char dir[4096];
    if (!getcwd(dir, sizeof dir)) return 1;
    printf("cwd=%s\n", dir);
    return 0;
  }
  if (strcmp(cmd, "args") == 0) {
    for (int i = 2; i < argc; ++i)
      printf("[%s]\n", argv[i]);
    return 0;
  }
  if (strcmp(cmd, "wait-term") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 600 && !got_signal; ++i)
      sleep(1);
    printf("got signal %d\n", (int)got_signal);
    return got_signal == SIGTERM ? 42 : 1;
  }
  fprintf(stderr, "%s: bad command '%s'\n", argv[0], cmd);
  return 64;
}
