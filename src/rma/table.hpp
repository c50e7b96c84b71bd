// src/rma/table.hpp — a rank's MPI_Win handles: the table that maps them to its Windows
// (src/rma/window.hpp). Kept apart from window.hpp so that rank.hpp need not see windows.
#pragma once

#include "handles/handle.hpp"

#include <mpi.h>

#include <memory>

namespace ampi::rma {

struct Window;

// Handles of handles::kind::window (MPI_WIN_NULL | (index + 1)).
class WindowTable {
public:
  WindowTable();
  ~WindowTable();
  WindowTable(const WindowTable &) = delete;
  WindowTable &operator=(const WindowTable &) = delete;

  Window *find(MPI_Win h) const noexcept { return table_.get(h); }
  bool empty() const noexcept { return table_.size() == 0; }
  // Takes `w` and gives it its handle.
  Window &add(std::unique_ptr<Window> w);
  std::unique_ptr<Window> remove(MPI_Win h) noexcept;
  // Drops every window (windows a program never freed, before the PE's UCX context goes).
  void clear() noexcept;

private:
  handles::HandleTable<std::unique_ptr<Window>, handles::kind::window> table_;
};

} // namespace ampi::rma
