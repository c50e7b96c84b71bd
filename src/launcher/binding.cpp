// src/launcher/binding.cpp — plans --bind-to with hwloc and binds the job's processes (see
// binding.hpp for the policy and why).
#include "binding.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ampirun {
namespace {

Bitmap new_bitmap() {
  Bitmap bitmap(hwloc_bitmap_alloc());
  if (!bitmap) throw std::bad_alloc();
  return bitmap;
}

// "0-3,8": the OS indices of the PUs in `set`, as taskset and /proc/<pid>/status write them.
std::string pu_list(hwloc_const_bitmap_t set) {
  char *text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0 || text == nullptr) return "?";
  const std::unique_ptr<char, void (*)(void *)> owned(text, std::free);
  return text;
}

const char *unit_name(hwloc_obj_type_t type) {
  switch (type) {
  case HWLOC_OBJ_CORE:
    return "core";
  case HWLOC_OBJ_PACKAGE:
    return "socket";
  case HWLOC_OBJ_PU:
    return "hwthread";
  default:
    return "machine";
  }
}

} // namespace

std::optional<BindUnit> parse_bind_unit(std::string_view text) {
  if (text == "core") return BindUnit::core;
  if (text == "socket" || text == "package") return BindUnit::socket;
  if (text == "hwthread") return BindUnit::hwthread;
  if (text == "none") return BindUnit::none;
  return std::nullopt;
}

Bindings::Bindings(BindUnit unit, int processes, bool quiet, int pes) {
  if (unit == BindUnit::none) return;
  hwloc_topology_t raw = nullptr;
  int err = 0;
  if (hwloc_topology_init(&raw) != 0) {
    err = errno;
  } else {
    topology_.reset(raw);
    if (hwloc_topology_load(raw) != 0) err = errno;
  }
  if (err != 0) {
    topology_.reset();
    std::fprintf(stderr,
                 "ampirun: warning: cannot read this machine's topology (hwloc: %s): "
                 "processes are not bound\n",
                 std::strerror(err));
    return;
  }

  // The PUs ampirun may run on: those of the topology (a cgroup cpuset leaves the others out),
  // narrowed by ampirun's own affinity (taskset, a Slurm step's --cpu-bind). No thread of ours
  // runs yet, so the process's binding is the main thread's.
  Bitmap allowed = new_bitmap();
  hwloc_bitmap_copy(allowed.get(), hwloc_topology_get_allowed_cpuset(raw));
  Bitmap own = new_bitmap();
  if (hwloc_get_cpubind(raw, own.get(), HWLOC_CPUBIND_PROCESS) == 0 &&
      hwloc_bitmap_intersects(own.get(), allowed.get()))
    hwloc_bitmap_and(allowed.get(), allowed.get(), own.get());

  // The slots processes are mapped to, in hwloc's logical order: cores with an allowed PU (PUs
  // for hwthread, and where hwloc knows no cores).
  hwloc_obj_type_t slot_type = unit == BindUnit::hwthread ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
  if (hwloc_get_nbobjs_by_type(raw, slot_type) <= 0) slot_type = HWLOC_OBJ_PU;
  std::vector<hwloc_obj_t> slots;
  for (hwloc_obj_t obj = nullptr; (obj = hwloc_get_next_obj_by_type(raw, slot_type, obj));)
    if (hwloc_bitmap_intersects(obj->cpuset, allowed.get())) slots.push_back(obj);

  if (static_cast<std::size_t>(processes) * static_cast<std::size_t>(pes) > slots.size()) {
    // As Open MPI does when oversubscribed: processes that must share cores are left to the
    // kernel's scheduler (two bound to one core could not move when another core is idle).
    if (!quiet) {
      const char *what = slot_type == HWLOC_OBJ_PU ? "hardware thread" : "core";
      if (pes > 1)
        std::fprintf(stderr,
                     "ampirun: note: %d processes of %d PEs but %zu %s%s allowed: processes are "
                     "not bound (--bind-to none to silence this)\n",
                     processes, pes, slots.size(), what, slots.size() == 1 ? "" : "s");
      else
        std::fprintf(stderr,
                     "ampirun: note: %d processes but %zu %s%s allowed: processes are not bound "
                     "(--bind-to none to silence this)\n",
                     processes, slots.size(), what, slots.size() == 1 ? "" : "s");
    }
    return; // (the topology stays, for the PMIx server: places_ is empty, nothing is bound)
  }

  places_.resize(static_cast<std::size_t>(processes));
  for (std::size_t p = 0; p < places_.size(); ++p) {
    Place &place = places_[p];
    place.cpus = new_bitmap();
    const auto per = static_cast<std::size_t>(pes);
    for (std::size_t k = p * per; k < (p + 1) * per; ++k) {
      hwloc_obj_t target = slots[k];
      if (unit == BindUnit::socket) {
        target = hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_PACKAGE, slots[k]);
        if (target == nullptr) target = hwloc_get_root_obj(raw);
      }
      Bitmap part = new_bitmap();
      hwloc_bitmap_and(part.get(), target->cpuset, allowed.get());
      hwloc_bitmap_or(place.cpus.get(), place.cpus.get(), part.get());
      if (k == p * per) {
        place.where = unit_name(target->type);
        if (target->type != HWLOC_OBJ_MACHINE)
          place.where += " " + std::to_string(target->logical_index);
      } else if (unit != BindUnit::socket && target->type != HWLOC_OBJ_MACHINE) {
        place.where += "," + std::to_string(target->logical_index);
      }
    }
    place.where += " [PU " + pu_list(place.cpus.get()) + "]";
    place.bound = true;
  }
}

void Bindings::apply(int index, pid_t pid) {
  if (places_.empty()) return;
  Place &place = places_[static_cast<std::size_t>(index)];
  // From ampirun rather than in the child: hwloc is not async-signal-safe, and the child cannot
  // exec before ampirun lets it, so it never runs the program unbound.
  if (hwloc_set_proc_cpubind(topology_.get(), pid, place.cpus.get(), 0) != 0) {
    std::fprintf(stderr,
                 "ampirun: warning: cannot bind process %d (pid %ld) to %s: %s; it runs unbound\n",
                 index, static_cast<long>(pid), place.where.c_str(), std::strerror(errno));
    place.bound = false;
  }
}

std::string Bindings::describe(int index) const {
  if (places_.empty()) return "not bound";
  const Place &place = places_[static_cast<std::size_t>(index)];
  return place.bound ? "bound to " + place.where : "not bound";
}

} // namespace ampirun
