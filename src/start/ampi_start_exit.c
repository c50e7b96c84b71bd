/* src/start/ampi_start_exit.c — linked into every MPI program (libampi_start.a, with
 * -Wl,--wrap=exit): routes the program's exit() calls to the library, which ends only the
 * calling rank. A separate object from __wrap_main, so a shared library that calls exit() and is
 * linked with these flags does not pull in a reference to main. */
extern void __real_exit(int status) __attribute__((noreturn));
void ampi_exit_rank(int status);

void __wrap_exit(int status) {
  ampi_exit_rank(status); /* returns only when not called from a rank */
  __real_exit(status);
}
