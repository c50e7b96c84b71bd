// src/launcher/binding.hpp — ampirun's --bind-to: which cores (PUs) each process of the job may
// run on, planned with hwloc from the cores that ampirun itself may use, and applied to each child
// between its fork and its exec.
//
// Why: a rank waiting for a message polls; two processes of a job that the kernel lets share or
// swap a core on a busy 2-core machine took 190-780 us for an 8-byte osu_latency, the same two
// bound to a core each 0.64-0.73 us (Open MPI, which binds by default: 0.18-0.45 us). With two
// `yes` loops besides, the median of 7 runs was 5.4 us bound and 100 us with --bind-to none.
//
// Only ampirun binds: the library never changes a process's affinity, so under Slurm
// (srun --mpi=pmix, no ampirun) the binding that the launcher gave stays as it is. Threads that a
// rank creates inherit the binding of their process (as in Open MPI).
#pragma once

#include <sys/types.h>

#include <hwloc.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ampirun {

// What each process is bound to. Processes are mapped over cores in order (process i to the i-th
// core that ampirun may use; with hwthread, the i-th PU); core and hwthread bind to that unit,
// socket to the socket (package) holding it, as Open MPI's --map-by core --bind-to socket.
enum class BindUnit { core, socket, hwthread, none };

// A --bind-to value: core, socket (or package), hwthread, none; nothing if it is none of these.
std::optional<BindUnit> parse_bind_unit(std::string_view text);

struct TopologyDeleter {
  void operator()(std::remove_pointer_t<hwloc_topology_t> *t) const noexcept {
    hwloc_topology_destroy(t);
  }
};
struct BitmapDeleter {
  void operator()(std::remove_pointer_t<hwloc_bitmap_t> *b) const noexcept { hwloc_bitmap_free(b); }
};
using Topology = std::unique_ptr<std::remove_pointer_t<hwloc_topology_t>, TopologyDeleter>;
using Bitmap = std::unique_ptr<std::remove_pointer_t<hwloc_bitmap_t>, BitmapDeleter>;

class Bindings {
public:
  // Plans the binding of `processes` processes. With more processes than allowed cores (PUs for
  // hwthread) nothing is bound and a note says so on stderr, unless `quiet` (--oversubscribe);
  // when hwloc cannot read the machine, nothing is bound and a warning says so.
  // `pes`: PEs per process (SMP mode): each process gets that many consecutive cores (PUs for
  // hwthread), and the library binds each PE thread to one of them (core/startup.cpp).
  Bindings(BindUnit unit, int processes, bool quiet, int pes = 1);

  // Binds process `index`, forked as `pid` and not yet exec'ed (its only thread waits for
  // ampirun's go). On failure: a warning, and the process runs unbound.
  void apply(int index, pid_t pid);

  // "bound to core 0 [PU 0]" (the unit's logical index; PU numbers as the kernel, taskset and
  // /proc/<pid>/status show them) or "not bound".
  std::string describe(int index) const;

  // The machine's topology as loaded here (nullptr with --bind-to none or when hwloc failed),
  // for the PMIx server, which would otherwise load its own: 20-50 ms of ampirun's start on the
  // 2-vCPU VM (it also walks the I/O devices), for a tree ampirun already has.
  hwloc_topology_t topology() const noexcept { return topology_.get(); }

private:
  struct Place {
    Bitmap cpus;
    std::string where; // "core 0 [PU 0]"
    bool bound = false;
  };

  Topology topology_;
  std::vector<Place> places_; // one per process; empty when nothing is bound
};

} // namespace ampirun
