// src/ucx/port_factory.hpp — opens the UCX port for core's start-up, the one place outside
// src/ucx that creates a network port. It includes no UCX header, so its caller sees none.
#pragma once

#include "net/port.hpp"

#include <memory>

namespace ampi::pmi {
class PeKeys;
}

namespace ampi::ucx {

// Connects this PE to the job's other PEs (collective: every PE calls it at start-up; the PMIx
// client is used only here).
std::unique_ptr<net::Port> open_port(pmi::PeKeys &pmix, int my_pe, int npes, net::Handler &handler,
                                     gpu::DevPtrCache &mem, const net::PortConfig &config);

} // namespace ampi::ucx
