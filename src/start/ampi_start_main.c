/* src/start/ampi_start_main.c — linked into every MPI program (libampi_start.a, with
 * -Wl,--wrap=main): hands the program's real main to the library, which runs it once per
 * virtual rank. Plain C so that C programs link it without the C++ runtime. */
extern int __real_main(int argc, char **argv, char **envp);
int ampi_main(int argc, char **argv, char **envp, int (*user_main)(int, char **, char **));

int __wrap_main(int argc, char **argv, char **envp) {
  return ampi_main(argc, argv, envp, __real_main);
}
