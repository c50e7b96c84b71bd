// src/rma/table.hpp — a rank's MPI_Win handles: the table that maps them to its Windows
// (src/rma/window.hpp). Kept apart from window.hpp so that rank.hpp need not see windows.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

namespace ampi::rma {

struct Window;

// Handles MPI_WIN_NULL | (slot + 1).
class WindowTable {
public:
  WindowTable();
  ~WindowTable();
  WindowTable(const WindowTable &) = delete;
  WindowTable &operator=(const WindowTable &) = delete;

  Window *find(MPI_Win h) const noexcept {
    const unsigned slot = (static_cast<unsigned>(h) ^ static_cast<unsigned>(MPI_WIN_NULL)) - 1;
    return slot < slots_.size() ? slots_[slot].get() : nullptr;
  }
  // Takes `w` and gives it its handle.
  Window &add(std::unique_ptr<Window> w);
  std::unique_ptr<Window> remove(MPI_Win h) noexcept;
  // Drops every window (windows a program never freed, before the PE's UCX context goes).
  void clear() noexcept;

private:
  std::vector<std::unique_ptr<Window>> slots_;
};

} // namespace ampi::rma
