/* src/start/ampi_start_main.c — linked into every MPI program (libampi_start.a, with
 * -Wl,--wrap=main): the program's entry into the library. Plain C so that C programs link it
 * without the C++ runtime.
 *
 * ampi_start_early is the program's first constructor (.init_array.00100 runs before every
 * constructor of priority 101 and up, and before the unprioritised ones). In the program as
 * started, it hands the real main to the library, which runs the whole job from there (one copy
 * of the program per rank when ranks share the process, see src/privatize) and exits: the rest
 * of the program's constructors then run either once per rank, in that rank's copy, or once, from
 * the library, when nothing is privatized. In a per-rank copy loaded by the library, the same
 * constructor only tells the library where that copy's main is, and returns.
 *
 * __wrap_main is the fallback when the library declines at constructor time (it does not):
 * the classic path, main run once per rank from the library. */
extern int __real_main(int argc, char **argv, char **envp);
int ampi_main(int argc, char **argv, char **envp, int (*user_main)(int, char **, char **));
void ampi_start(int argc, char **argv, char **envp, int (*user_main)(int, char **, char **),
                void (*self)(int, char **, char **), void *dso);
extern void *__dso_handle; /* this object's handle for __cxa_atexit (from crtbegin) */

static void ampi_start_early(int argc, char **argv, char **envp) {
  ampi_start(argc, argv, envp, __real_main, ampi_start_early, &__dso_handle);
}

/* Priority 100: after the sanitizers' module constructors (99), before the program's (101 and up,
 * then unprioritised). Not const: .init_array sections are writable where the compiler emits its
 * own (sanitizer builds), and must agree. */
__attribute__((section(".init_array.00100"),
               used)) static void (*ampi_start_entry)(int, char **, char **) = ampi_start_early;

int __wrap_main(int argc, char **argv, char **envp) {
  return ampi_main(argc, argv, envp, __real_main);
}
