// src/launcher/pmix_gate.cpp — who may connect to ampirun's PMIx server (pmix_gate.hpp says why
// the check sits in accept()).
#include "pmix_gate.hpp"

#include "fd.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <utility>

namespace ampirun {
namespace {

// The client's end of a loopback connection to the server: its inode and owner, as the kernel
// tells (sock_diag, an exact lookup by address and ports: microseconds, where reading
// /proc/net/tcp took about 20 ms on a host with 400 TCP sockets). nullopt if the kernel cannot be
// asked; inode 0 if there is no such socket.
struct PeerSocket {
  unsigned long inode = 0, uid = 0;
};
std::optional<PeerSocket> client_end(const sockaddr_in &client, const sockaddr_in &server) {
  Fd nl(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (!nl) return std::nullopt;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } query{};
  query.header.nlmsg_len = sizeof query;
  query.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  query.header.nlmsg_flags = NLM_F_REQUEST;
  query.request.sdiag_family = AF_INET;
  query.request.sdiag_protocol = IPPROTO_TCP;
  query.request.idiag_states = ~0U;
  query.request.id.idiag_sport = client.sin_port; // the client's end: its address is the source
  query.request.id.idiag_dport = server.sin_port;
  query.request.id.idiag_src[0] = client.sin_addr.s_addr;
  query.request.id.idiag_dst[0] = server.sin_addr.s_addr;
  query.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  query.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(nl.get(), &query, sizeof query, 0, reinterpret_cast<sockaddr *>(&kernel),
               sizeof kernel) != static_cast<ssize_t>(sizeof query))
    return std::nullopt;
  alignas(nlmsghdr) char reply[8192];
  const ssize_t n = ::recv(nl.get(), reply, sizeof reply, 0);
  if (n < 0) return std::nullopt;
  const auto *h = reinterpret_cast<const nlmsghdr *>(reply);
  if (!NLMSG_OK(h, static_cast<unsigned>(n))) return std::nullopt;
  if (h->nlmsg_type == NLMSG_ERROR) {
    const auto *err = static_cast<const nlmsgerr *>(NLMSG_DATA(h));
    // ENOENT: no such socket. Anything else: the kernel cannot be asked (no sock_diag).
    return err->error == -ENOENT ? std::optional<PeerSocket>(PeerSocket{}) : std::nullopt;
  }
  if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY) return std::nullopt;
  const auto *m = static_cast<const inet_diag_msg *>(NLMSG_DATA(h));
  return PeerSocket{m->idiag_inode, m->idiag_uid};
}

// The socket inodes open in process `pid`.
std::set<unsigned long> socket_inodes(pid_t pid) {
  std::set<unsigned long> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR *d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  char target[64];
  while (const dirent *e = ::readdir(d)) {
    const ssize_t n = ::readlinkat(::dirfd(d), e->d_name, target, sizeof target - 1);
    if (n <= 8) continue;
    target[n] = '\0';
    unsigned long inode = 0;
    if (std::sscanf(target, "socket:[%lu]", &inode) == 1) out.insert(inode);
  }
  ::closedir(d);
  return out;
}

// The parent of process `pid`, or 0.
pid_t parent_of(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::FILE *f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return 0;
  char buf[1024];
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char *close = std::strrchr(buf, ')'); // the name may hold spaces and parentheses
  int ppid = 0;
  if (close == nullptr || std::sscanf(close + 1, " %*c %d", &ppid) != 1) return 0;
  return ppid;
}

// The descendants of process `root` (one pass over /proc).
std::vector<pid_t> descendants(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> parents; // (pid, parent) of every process we can see
  if (DIR *proc = ::opendir("/proc")) {
    while (const dirent *e = ::readdir(proc)) {
      pid_t pid = 0;
      const char *name = e->d_name;
      auto [end, ec] = std::from_chars(name, name + std::strlen(name), pid);
      if (ec == std::errc() && *end == '\0' && pid > 1) parents.emplace_back(pid, parent_of(pid));
    }
    ::closedir(proc);
  }
  std::vector<pid_t> out{root};
  for (std::size_t i = 0; i < out.size(); ++i) // breadth first: children of out[i]
    for (const auto &[pid, parent] : parents)
      if (parent == out[i]) out.push_back(pid);
  out.erase(out.begin());
  return out;
}

// The gate accept() consults (one per ampirun: its PMIx server's).
std::atomic<PmixGate *> g_gate{nullptr};

} // namespace

PmixGate::PmixGate(const std::atomic<pid_t> *pids, int processes,
                   std::function<void(const std::string &)> refused)
    : pids_(pids), processes_(processes), refused_(std::move(refused)) {
  g_gate.store(this);
}

PmixGate::~PmixGate() {
  g_gate.store(nullptr);
}

void PmixGate::learn_port(const std::vector<std::string> &env) {
  for (const std::string &e : env) {
    if (e.rfind("PMIX_SERVER_URI", 0) != 0) continue;
    const std::size_t at = e.find("tcp4://127.0.0.1:");
    if (at == std::string::npos) continue;
    const char *first = e.c_str() + at + 17;
    unsigned port = 0;
    if (std::from_chars(first, e.c_str() + e.size(), port).ec == std::errc()) port_.store(port);
  }
}

bool PmixGate::admit(int listener, int connection) {
  const unsigned port = port_.load();
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (port == 0 || ::getsockname(listener, reinterpret_cast<sockaddr *>(&local), &len) != 0 ||
      local.sin_family != AF_INET || ntohs(local.sin_port) != port)
    return true; // not the PMIx server's listener
  const std::string why = why_not(connection);
  if (why.empty()) return true;
  refused_(why);
  return false;
}

// Empty if `connection` comes from the job, else why not.
std::string PmixGate::why_not(int connection) {
  sockaddr_in local{}, remote{};
  socklen_t ll = sizeof local, rl = sizeof remote;
  if (::getsockname(connection, reinterpret_cast<sockaddr *>(&local), &ll) != 0 ||
      ::getpeername(connection, reinterpret_cast<sockaddr *>(&remote), &rl) != 0 ||
      remote.sin_family != AF_INET)
    return "the client closed the connection before it could be checked";
  const std::optional<PeerSocket> peer = client_end(remote, local);
  if (!peer) {
    // Where the kernel cannot be asked (no sock_diag, as in some containers), the namespace's
    // secret is the only check, and ampirun says so once.
    if (!unchecked_reported_.exchange(true))
      std::fprintf(stderr, "ampirun: warning: cannot tell who connects to the PMIx server (the "
                           "kernel's sock_diag is unavailable); only the job's namespace keeps "
                           "others out\n");
    return {};
  }
  if (peer->inode == 0) return "the client closed the connection before it could be checked";
  const std::string owner = "user id " + std::to_string(peer->uid);
  if (peer->uid != ::geteuid()) return "the connecting socket belongs to " + owner;
  // The processes themselves first (a directory each); all of ampirun's descendants only if
  // need be (a pass over /proc).
  for (int p = 0; p < processes_; ++p) {
    const pid_t pid = pids_[p].load();
    if (pid > 0 && socket_inodes(pid).count(peer->inode)) return {};
  }
  for (pid_t d : descendants(::getpid()))
    if (socket_inodes(d).count(peer->inode)) return {};
  return "the connecting socket (" + owner + ") is held by no process of the job";
}

} // namespace ampirun

// The interposers. libpmix's listening thread calls accept(); ampirun's executable exports these
// (src/launcher/CMakeLists.txt), so the dynamic linker binds libpmix's call here. Every other
// caller (ampirun's own control connections) passes straight through.
namespace {
template <class Fn> Fn next_symbol(const char *name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
}

int gated(int listener, int connection) {
  ampirun::PmixGate *gate = ampirun::g_gate.load();
  if (connection < 0 || gate == nullptr || gate->admit(listener, connection)) return connection;
  ::close(connection);
  errno = ECONNABORTED; // libpmix's listener skips such a connection and goes on
  return -1;
}
} // namespace

extern "C" int accept(int fd, sockaddr *addr, socklen_t *len) {
  static const auto next = next_symbol<int (*)(int, sockaddr *, socklen_t *)>("accept");
  return gated(fd, next(fd, addr, len));
}

extern "C" int accept4(int fd, sockaddr *addr, socklen_t *len, int flags) {
  static const auto next = next_symbol<int (*)(int, sockaddr *, socklen_t *, int)>("accept4");
  return gated(fd, next(fd, addr, len, flags));
}
