// src/pmi/pmix_client.hpp — this process as a PMIx client: its place in the job (namespace, rank,
// size, local rank), publishing and fetching the keys other processes need (UCX worker
// addresses), and fences. Works under ampirun's embedded server and under a cluster's own PMIx
// launcher (srun --mpi=pmix, prterun). RAII: PMIx_Init in the constructor, PMIx_Finalize in the
// destructor.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ampi::pmi {

class PmixClient {
public:
  // Connects if this process was started by a PMIx server; std::nullopt when it was not (a
  // singleton run), or when the launcher says the job is this one process (OMPI_COMM_WORLD_SIZE
  // 1 and OMPI_COMM_WORLD_RANK 0: it needs no PMIx). Throws std::runtime_error if the server is
  // there but refuses us.
  static std::optional<PmixClient> connect();
  PmixClient(PmixClient &&other) noexcept;
  PmixClient &operator=(PmixClient &&) = delete;
  ~PmixClient();

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  int local_rank() const noexcept { return local_rank_; }
  // Processes of the job on this host (PMIX_LOCAL_SIZE; the job's size if the server does not
  // say).
  int local_size() const noexcept { return local_size_; }

  // Publishes `value` under `key` for the other processes (visible after commit() + fence()).
  void put(const std::string &key, const std::vector<std::byte> &value);
  void commit();
  // Waits for every process of the job.
  void fence();
  // Fetches `key` published by process `rank`.
  std::vector<std::byte> get(int rank, const std::string &key);
  // Tells the server the job must end (MPI_Abort across processes).
  void abort(int status, const char *message) noexcept;

private:
  PmixClient() = default;
  bool active_ = false;
  std::string nspace_;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
};

} // namespace ampi::pmi
