// src/ucx/port_factory.cpp — the UCX port behind port_factory.hpp's UCX-free declaration.
#include "ucx/port_factory.hpp"

#include "ucx/transport.hpp"

namespace ampi::ucx {

std::unique_ptr<net::Port> open_port(pmi::PeKeys &pmix, int my_pe, int npes, net::Handler &handler,
                                     gpu::DevPtrCache &mem, const net::PortConfig &config) {
  return std::make_unique<Transport>(pmix, my_pe, npes, handler, mem, config);
}

} // namespace ampi::ucx
