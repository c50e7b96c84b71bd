// src/launcher/remote.hpp — what ampirun needs to run a job over several hosts (--host,
// --hostfile): the host list and the placement of processes over it, the framed messages of the
// control connection between the head (the ampirun the user started) and its daemons (the same
// binary, `ampirun --daemon`, started on every other host through ssh), and the packing of the
// job description a daemon reads on its standard input. Plain C++ and POSIX; the head's and the
// daemon's logic live in ampirun.cpp, where the PMIx server and the job's processes are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ampirun {

// One host of --host / --hostfile: "name", "name:SLOTS" or a hostfile line "name slots=N".
struct HostSpec {
  std::string name;
  int slots = 1;
  bool slots_given = false;
};

// Parses "a,b:2,c" (throws std::invalid_argument with the reason).
std::vector<HostSpec> parse_host_list(std::string_view list);
// Parses a hostfile: "name [slots=N] [max_slots=N]" or "name:N" per line, '#' comments.
std::vector<HostSpec> parse_hostfile(const std::string &path);
// Merges repeated names (their slots add up), keeping the order of first appearance.
std::vector<HostSpec> merge_hosts(std::vector<HostSpec> hosts);

// How many processes each host runs: the slots in order; past the total, one more each, round
// robin (as MPICH's mpiexec spreads a job over hosts named without slots).
std::vector<int> place_processes(const std::vector<HostSpec> &hosts, int processes);

// Messages of the control connection: u32 length (of the type byte and the payload, little
// endian), then the type byte, then the payload.
enum class Msg : std::uint8_t {
  hello = 1,      // daemon -> head: the job's token, the host index
  fence = 2,      // daemon -> head: u64 sequence number, the local processes' fence data
  fence_done = 3, // head -> daemon: u64 sequence number, every host's data, concatenated
  failed = 4,     // daemon -> head: i32 status of the first local failure
  done = 5,       // daemon -> head: i32 status, u8 clean; every local process has ended
  terminate = 6,  // head -> daemon: end the local processes (SIGTERM, SIGKILL after a grace)
  signal = 7,     // head -> daemon: i32 signal number to pass on to the local processes
};

// Builds a payload or a job description.
class Packer {
public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v);
  void u64(std::uint64_t v);
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void str(std::string_view s); // u32 length, bytes
  void strings(const std::vector<std::string> &v);
  void raw(std::string_view s) { out_.append(s); }
  const std::string &data() const { return out_; }
  std::string frame(Msg type) const; // this payload as one message

private:
  std::string out_;
};

// Reads what Packer wrote; throws std::runtime_error at a truncated or malformed input.
class Unpacker {
public:
  explicit Unpacker(std::string_view in) : in_(in) {}
  std::uint8_t u8();
  std::uint32_t u32();
  std::uint64_t u64();
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::string str();
  std::vector<std::string> strings();
  std::string_view rest() const { return in_; }

private:
  std::string_view take(std::size_t n);
  std::string_view in_;
};

// Collects the bytes read from a stream and cuts complete messages out of them.
class FrameReader {
public:
  void append(const char *data, std::size_t n) { buffer_.append(data, n); }
  // The next complete message (type, payload), or nothing yet. Throws std::runtime_error for a
  // message longer than kMaxFrame.
  std::optional<std::pair<Msg, std::string>> next();
  static constexpr std::uint32_t kMaxFrame = 1u << 30;

private:
  std::string buffer_;
};

// The command that starts the daemon on `host`: AMPI_RSH (an ssh-like command, split at
// blanks; "ssh" when empty), for ssh with BatchMode on (a password prompt would hang the job),
// then the host and the remote command `'EXE' --daemon`.
std::vector<std::string> daemon_command(const std::string &rsh, const std::string &host,
                                        const std::string &exe);

} // namespace ampirun
