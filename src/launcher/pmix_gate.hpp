// src/launcher/pmix_gate.hpp — who may connect to ampirun's PMIx server.
//
// libpmix 4.2 has no Unix-domain socket any more (its "usock" transport is gone): the server
// listens on a loopback TCP port that every local user can reach, and its "native" security
// believes the user id a TCP client states in its handshake. Two checks keep intruders out:
//  1. The namespace carries a 128-bit secret (ampirun's job_namespace). Only the job's processes
//     have it, in their environment (readable by the job's user and root only); libpmix refuses
//     an unknown namespace.
//  2. This gate. libpmix's listening thread takes each connection with accept(), which ampirun
//     exports so that libpmix's call lands here first. The kernel tells who holds the other end
//     (sock_diag: the client socket's inode and owner); a connection is let through only if that
//     socket belongs to the job's user and is held by a process ampirun started or by one of its
//     descendants (a debugger or a shell in between). Anything else is closed before libpmix
//     reads a byte of it, and accept() reports ECONNABORTED, which libpmix skips. The client's
//     PMIx_Init fails at once.
// Why before libpmix and not in its client_connected upcall (where this check used to be):
// libpmix 4.2.2 sends the client "accepted" before that upcall, and its error path for a refusal
// releases the claimed rank's record twice (ptl_base_connection_hdlr.c: the peer's reference and
// one more), so the freed record is used again. Seen on a loaded 2-core VM in 3 of 15 runs of
// tests/security (intruder-leaked): the server's progress thread blocked on a mutex in freed
// memory, the intruder hung in PMIx_Init, and the job's own later PMIx calls would have hung too.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace ampirun {

class PmixGate {
public:
  // `pids`: the job's processes on this host, one entry each (0 until forked), owned by the
  // caller and outliving the gate. `refused`: called on libpmix's listening thread with why a
  // connection was closed.
  PmixGate(const std::atomic<pid_t> *pids, int processes,
           std::function<void(const std::string &why)> refused);
  ~PmixGate();
  PmixGate(const PmixGate &) = delete;
  PmixGate &operator=(const PmixGate &) = delete;

  // The server's port, from the URI libpmix puts in the clients' environment. The gate guards
  // nothing until it is known.
  void learn_port(const std::vector<std::string> &env);

  // For the accept() interposer: `connection` was just accepted on `listener`. Returns whether
  // it may go on (always, for a listener that is not the server's).
  bool admit(int listener, int connection);

private:
  std::string why_not(int connection);

  const std::atomic<pid_t> *pids_;
  int processes_;
  std::function<void(const std::string &)> refused_;
  std::atomic<unsigned> port_{0};
  std::atomic<bool> unchecked_reported_{false};
};

} // namespace ampirun
