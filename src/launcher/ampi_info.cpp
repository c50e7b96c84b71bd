// src/launcher/ampi_info.cpp — ampi_info: prints the table of AMPI_* environment variables
// (src/settings/settings.def) with each one's type, default, accepted values, current value and
// meaning, like ompi_info or ucx_info -c. The same text as `ampirun --help-env`; this program
// exists so that it can be asked without the launcher's options in the way. Exit status 1 when a
// variable of the environment holds a value that a job would refuse.
#include "settings/settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::puts("Usage: ampi_info\n"
                "List the AMPI_* environment variables of ampi: type, default, accepted values,\n"
                "the current value (INVALID when a job would refuse it) and meaning.\n"
                "Exit status: 0, or 1 when a current value is invalid.");
      return EXIT_SUCCESS;
    }
    std::fprintf(stderr, "ampi_info: unknown argument '%s' (try --help)\n", argv[i]);
    return 2;
  }
  int invalid = 0;
  std::fputs(ampi::settings::describe({}, &invalid).c_str(), stdout);
  return invalid ? EXIT_FAILURE : EXIT_SUCCESS;
}
