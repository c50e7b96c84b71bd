// src/ucx/port_factory.cpp — the UCX port behind port_factory.hpp's UCX-free declaration.
#include "ucx/port_factory.hpp"

#include "ucx/transport.hpp"

namespace ampi::ucx {

OpenedPort open_port(pmi::PmixClient &pmix, int my_pe, int npes, net::Handler &handler,
                     gpu::DevPtrCache &mem, const net::PortConfig &config) {
  auto t = std::make_unique<Transport>(pmix, my_pe, npes, handler, mem, config);
  Transport *raw = t.get();
  return {std::move(t), raw};
}

} // namespace ampi::ucx
