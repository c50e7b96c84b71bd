// src/io/file.hpp — an open MPI file (what an MPI_File points to): the descriptor, the access mode,
// the communicator it was opened on (a private duplicate, so its collectives never meet the
// program's), the hints, the view, the individual file pointer, the shared file pointer's window,
// the aggregators of collective I/O, and a pending split collective. src/mpi/file.cpp drives it.
#pragma once

#include "io/datarep.hpp"
#include "io/posix.hpp"
#include "io/view.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// The type behind the public MPI_File pointer.
struct ampi_file_s {
  static constexpr std::uint64_t kMagic = 0x616d70692d66696cull; // "ampi-fil"
  std::uint64_t magic = kMagic;
  ampi::io::Fd fd;
  std::string path;
  int amode = 0;
  MPI_Comm comm = MPI_COMM_NULL; // a duplicate of the communicator given to MPI_File_open
  int rank = 0, size = 1;
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  bool atomic = false;

  // Hints (MPI_Info keys cb_nodes, cb_buffer_size, striping_factor, striping_unit).
  int cb_nodes = 0; // aggregators of collective I/O
  std::int64_t cb_buffer_size = 16 << 20;
  int striping_factor = 0; // 0: not given
  std::int64_t striping_unit = 0;

  // The view; MPI_File_get_view hands back these handles.
  ampi::io::View view;
  MPI_Datatype etype = MPI_BYTE, filetype = MPI_BYTE;
  std::string datarep = "native";
  // A user data representation (MPI_Register_datarep): its callbacks, and the ratio of file bytes
  // to native bytes (`file_num / file_den`, from its extent function for the view's predefined
  // type), by which the view's offsets, lengths and extent are scaled into the file.
  std::optional<ampi::io::Datarep> user_rep;
  std::int64_t file_num = 1, file_den = 1;
  std::int64_t etype_native_size = 1; // the etype's native size (view.etype_size is the file's)
  std::int64_t fp = 0;                // individual file pointer, in etypes of the view

  // The shared file pointer (in etypes): a counter at rank 0 of `comm`, updated atomically with
  // MPI_Fetch_and_op through this window by every rank of the file.
  std::int64_t shared_fp = 0;
  MPI_Win shared_win = MPI_WIN_NULL;

  // The ranks of `comm` that aggregate collective I/O (one per process by default, so every
  // process's PE writes its part of the file in parallel).
  std::vector<int> aggregators;
  // Per rank of `comm`: 1 when it lives in this process (an aggregator reads and writes such a
  // rank's pieces straight in its memory, with preadv/pwritev, instead of exchanging them).
  std::vector<char> same_process;
  // Collective I/O's buffers, kept from one call to the next and never zero-filled: fresh 16 MiB
  // buffers cost a page fault and the kernel's clearing of every page on every call (12% of a
  // one-process strided 1 GiB read, perf). An aggregator's window, the packed send and receive
  // buffers of the exchange.
  ampi::io::Scratch window, sendbuf, recvbuf;

  // A split collective begun and not yet ended (MPI allows one per file).
  bool split_active = false;
  const void *split_buf = nullptr;
  MPI_Status split_status{};
};
