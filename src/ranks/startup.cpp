// src/ranks/startup.cpp — the library's entry from the program: ampi_main() builds the PE and
// runs the program's main once per virtual rank; ampi_exit_rank() turns exit() in a rank into the
// end of that rank (or of the job, if the rank is between MPI_Init and MPI_Finalize).
#include "ranks/pe.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace {

// AMPI's "+vp N" program argument (as charmrun passes it) sets the rank count; it is removed
// from the argv that the program sees.
int take_vp_argument(std::vector<std::string> &args) {
  int vp = 0; // none given
  for (std::size_t i = 1; i + 1 < args.size();) {
    if (args[i] == "+vp") {
      char *end = nullptr;
      long v = std::strtol(args[i + 1].c_str(), &end, 10);
      if (*end || v < 1) {
        std::fprintf(stderr, "ampi: +vp %s: not a rank count\n", args[i + 1].c_str());
        std::exit(2);
      }
      vp = static_cast<int>(v);
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
    } else {
      ++i;
    }
  }
  return vp;
}

} // namespace

extern "C" int ampi_main(int argc, char **argv, char **envp,
                         int (*user_main)(int, char **, char **)) {
  std::vector<std::string> args(argv, argv + argc);
  const int vp = take_vp_argument(args);
  auto join = []() -> std::optional<ampi::pmi::PmixClient> {
    try {
      return ampi::pmi::PmixClient::connect();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "ampi: cannot join the job: %s\n", e.what());
      std::exit(1);
    }
  };
  std::optional<ampi::pmi::PmixClient> pmix = join();
  const int npes = pmix ? pmix->size() : 1;
  const int my_pe = pmix ? pmix->rank() : 0;
  ampi::PeConfig config = ampi::PeConfig::from_environment(vp, npes, my_pe);
  try {
    ampi::Pe pe(config, std::move(pmix), user_main, std::move(args), envp);
    return pe.run();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ampi: %s\n", e.what());
    return 1;
  }
}

extern "C" void ampi_exit_rank(int status) {
  ampi::Pe *pe = ampi::Pe::get_if();
  if (!pe) return;
  ampi::Rank *r = pe->current_if();
  if (!r) return;
  if (r->initialized && !r->finalized) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "ampi: rank %d called exit(%d) between MPI_Init and MPI_Finalize; "
                 "ending the job\n",
                 r->world_rank, status);
    ampi::Pe::abort_job(status != 0 ? status : 1);
  }
  pe->exit_current(status);
}
