// src/coll/inter.hpp — the collectives on intercommunicators (MPI-3.1 section 5.2.2): the
// public functions of coll.hpp call these when their communicator has a remote group. Roots are
// MPI_ROOT (the root itself), MPI_PROC_NULL (the other members of the root's group) or a rank of
// the remote group (the receiving or sending group). Steps inside one group run as ordinary
// (PE-aware) collectives on the communicator's local intracommunicator (Comm::local), steps
// between the groups go straight to the remote ranks on the intercommunicator's collective context.
#pragma once

#include "coll/coll.hpp"

namespace ampi::coll::inter {

void barrier(const comm::Comm &c, int tag);
void bcast(const comm::Comm &c, int tag, void *buf, std::size_t bytes, int root);
void reduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
            const Reducer &op, int root);
void allreduce(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t count,
               const Reducer &op);
void gather(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes,
            int root);
void scatter(const comm::Comm &c, int tag, const void *send, void *recv, std::size_t bytes,
             int root);
void gatherv(const comm::Comm &c, int tag, const void *send, std::size_t sbytes, const Blocks &recv,
             int root);
void scatterv(const comm::Comm &c, int tag, const Blocks &send, void *recv, std::size_t rbytes,
              int root);
void allgatherv(const comm::Comm &c, int tag, const void *send, std::size_t sbytes,
                const Blocks &recv);
void alltoallv(const comm::Comm &c, int tag, const Blocks &send, const Blocks &recv);
// counts: the local group's blocks (MPI: each group scatters the other group's reduction).
void reduce_scatter(const comm::Comm &c, int tag, const void *send, void *recv,
                    const std::vector<std::size_t> &counts, const Reducer &op);

} // namespace ampi::coll::inter
