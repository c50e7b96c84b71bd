// src/ucx/port_factory.hpp — opens the UCX port for core's start-up, the one place outside
// src/ucx that creates a network port. It includes no UCX header, so its caller sees none.
#pragma once

#include "net/port.hpp"

#include <memory>

namespace ampi::pmi {
class PmixClient;
}

namespace ampi::ucx {

class Transport;

struct OpenedPort {
  std::unique_ptr<net::Port> port;
  // The same object as UCX, for one-sided communication (src/rma, src/ucx/rma.*) until it has a
  // port sub-interface of its own.
  Transport *ucx = nullptr;
};

// Connects this PE to the job's other PEs (collective: every PE calls it at start-up; the PMIx
// client is used only here).
OpenedPort open_port(pmi::PmixClient &pmix, int my_pe, int npes, net::Handler &handler,
                     gpu::DevPtrCache &mem, const net::PortConfig &config);

} // namespace ampi::ucx
