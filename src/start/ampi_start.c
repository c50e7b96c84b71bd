/* src/start/ampi_start.c — linked into every MPI program (libampi_start.a) together with
 * -Wl,--wrap=main -Wl,--wrap=exit: hands the program's real main to the library, which runs it
 * once per virtual rank, and routes the program's exit() calls to the library, which ends only
 * the calling rank. Plain C so that C programs link it without the C++ runtime. */
#include <stdlib.h>

extern int __real_main(int argc, char **argv, char **envp);
extern void __real_exit(int status) __attribute__((noreturn));

int ampi_main(int argc, char **argv, char **envp, int (*user_main)(int, char **, char **));
void ampi_exit_rank(int status);

int __wrap_main(int argc, char **argv, char **envp) {
  return ampi_main(argc, argv, envp, __real_main);
}

void __wrap_exit(int status) {
  ampi_exit_rank(status); /* returns only when not called from a rank */
  __real_exit(status);
}
