// src/p2p/mprobe.hpp — probes of the running rank's matching queues that the MPI layer calls:
// MPI_Iprobe's polling probe, and matched probes (MPI_Mprobe / MPI_Improbe take a message out of
// matching and keep it in a slot of the rank's p2p state until MPI_Mrecv / MPI_Imrecv receive it).
#pragma once

#include "p2p/data.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ampi::p2p {

// The earliest message the running rank could receive with (context, source, tag); when there is
// none, the PE's other ranks run once (they may be about to send it) and it looks again.
const Message *poll_probe(std::uint32_t context, int source, int tag);

// A message taken by a matched probe: its slot (the value of its MPI_Message handle, generation
// included, so that a handle used twice is not found),
// the communicator the probe named, and what a status reports of it.
struct Matched {
  unsigned slot = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  int source = 0;
  int tag = 0;
  std::size_t bytes = 0;
};

// MPI_Improbe: takes the earliest such message (polling as poll_probe does); nullopt if none.
std::optional<Matched> improbe(std::uint32_t context, int source, int tag, MPI_Comm comm);
// MPI_Mprobe: blocks the running rank until there is one, and takes it.
Matched mprobe(std::uint32_t context, int source, int tag, MPI_Comm comm, const char *call);
// The message a matched probe keeps in `slot`, or nullopt when the slot holds none.
std::optional<Matched> matched(unsigned slot);
// MPI_Mrecv / MPI_Imrecv: starts the receive of the message in `slot` (which must hold one) into
// `d` and frees the slot; `req` completes as start_recv's does.
void start_mrecv(Request &req, unsigned slot, const Data &d);

} // namespace ampi::p2p
