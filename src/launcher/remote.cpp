// src/launcher/remote.cpp — host lists, placement over hosts, the control connection's framing
// and the daemon's command (see remote.hpp).
#include "remote.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace ampirun {

namespace {

int parse_slots(std::string_view what, std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 1)
    throw std::invalid_argument(std::string(what) + ": slots '" + std::string(text) +
                                "' is not a positive integer");
  return value;
}

std::string_view trim(std::string_view s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const std::size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

} // namespace

std::vector<HostSpec> parse_host_list(std::string_view list) {
  std::vector<HostSpec> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view entry = list.substr(start, comma - start);
    const std::size_t colon = entry.find(':');
    HostSpec h;
    h.name = std::string(entry.substr(0, colon));
    if (h.name.empty()) throw std::invalid_argument("'" + std::string(list) + "': empty host name");
    if (colon != std::string_view::npos) {
      h.slots = parse_slots(h.name, entry.substr(colon + 1));
      h.slots_given = true;
    }
    out.push_back(std::move(h));
    start = comma + 1;
  }
  return out;
}

std::vector<HostSpec> parse_hostfile(const std::string &path) {
  std::FILE *f = std::fopen(path.c_str(), "re");
  if (!f) throw std::invalid_argument("'" + path + "': " + std::strerror(errno));
  std::vector<HostSpec> out;
  char line[4096];
  int number = 0;
  while (std::fgets(line, sizeof line, f)) {
    ++number;
    std::string_view l(line);
    l = trim(l.substr(0, l.find('#')));
    if (l.empty()) continue;
    const std::size_t blank = std::min(l.find_first_of(" \t"), l.size());
    std::string_view name = l.substr(0, blank);
    HostSpec h;
    const std::size_t colon = name.find(':');
    const std::string where = path + ":" + std::to_string(number);
    try {
      if (colon != std::string_view::npos) {
        h.slots = parse_slots(where, name.substr(colon + 1));
        h.slots_given = true;
        name = name.substr(0, colon);
      }
      std::string_view rest = trim(l.substr(blank));
      while (!rest.empty()) {
        const std::size_t end = std::min(rest.find_first_of(" \t"), rest.size());
        const std::string_view word = rest.substr(0, end);
        if (word.starts_with("slots=")) {
          h.slots = parse_slots(where, word.substr(6));
          h.slots_given = true;
        } else if (!word.starts_with("max_slots=") && !word.starts_with("max-slots=")) {
          throw std::invalid_argument(where + ": unknown item '" + std::string(word) +
                                      "' (expected slots=N)");
        }
        rest = trim(rest.substr(end));
      }
    } catch (...) {
      std::fclose(f);
      throw;
    }
    h.name = std::string(name);
    out.push_back(std::move(h));
  }
  std::fclose(f);
  if (out.empty()) throw std::invalid_argument("'" + path + "': no host in the file");
  return out;
}

std::vector<HostSpec> merge_hosts(std::vector<HostSpec> hosts) {
  std::vector<HostSpec> out;
  for (HostSpec &h : hosts) {
    auto same =
        std::find_if(out.begin(), out.end(), [&](const HostSpec &o) { return o.name == h.name; });
    if (same == out.end()) {
      out.push_back(std::move(h));
    } else {
      same->slots += h.slots;
      same->slots_given = same->slots_given || h.slots_given;
    }
  }
  return out;
}

std::vector<int> place_processes(const std::vector<HostSpec> &hosts, int processes) {
  std::vector<int> count(hosts.size(), 0);
  int left = processes;
  for (std::size_t h = 0; h < hosts.size() && left > 0; ++h) {
    count[h] = std::min(hosts[h].slots, left);
    left -= count[h];
  }
  for (std::size_t h = 0; left > 0; h = (h + 1) % hosts.size(), --left)
    ++count[h];
  return count;
}

void Packer::u32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    u8(static_cast<std::uint8_t>(v >> (8 * i)));
}

void Packer::u64(std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    u8(static_cast<std::uint8_t>(v >> (8 * i)));
}

void Packer::str(std::string_view s) {
  u32(static_cast<std::uint32_t>(s.size()));
  out_.append(s);
}

void Packer::strings(const std::vector<std::string> &v) {
  u32(static_cast<std::uint32_t>(v.size()));
  for (const std::string &s : v)
    str(s);
}

std::string Packer::frame(Msg type) const {
  Packer p;
  p.u32(static_cast<std::uint32_t>(out_.size() + 1));
  p.u8(static_cast<std::uint8_t>(type));
  p.raw(out_);
  return p.out_;
}

std::string_view Unpacker::take(std::size_t n) {
  if (n > in_.size()) throw std::runtime_error("truncated message");
  const std::string_view out = in_.substr(0, n);
  in_.remove_prefix(n);
  return out;
}

std::uint8_t Unpacker::u8() {
  return static_cast<std::uint8_t>(take(1)[0]);
}

std::uint32_t Unpacker::u32() {
  const std::string_view b = take(4);
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= std::uint32_t{static_cast<unsigned char>(b[static_cast<std::size_t>(i)])} << (8 * i);
  return v;
}

std::uint64_t Unpacker::u64() {
  const std::uint64_t low = u32();
  return low | (std::uint64_t{u32()} << 32);
}

std::string Unpacker::str() {
  const std::uint32_t n = u32();
  return std::string(take(n));
}

std::vector<std::string> Unpacker::strings() {
  const std::uint32_t n = u32();
  if (n > in_.size() / 4) throw std::runtime_error("malformed list");
  std::vector<std::string> out;
  out.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i)
    out.push_back(str());
  return out;
}

std::optional<std::pair<Msg, std::string>> FrameReader::next() {
  if (buffer_.size() < 4) return std::nullopt;
  Unpacker head(std::string_view(buffer_).substr(0, 4));
  const std::uint32_t n = head.u32();
  if (n == 0 || n > kMaxFrame) throw std::runtime_error("malformed message length");
  if (buffer_.size() < 4 + std::size_t{n}) return std::nullopt;
  const auto type = static_cast<Msg>(static_cast<unsigned char>(buffer_[4]));
  std::string payload = buffer_.substr(5, n - 1);
  buffer_.erase(0, 4 + std::size_t{n});
  return std::make_pair(type, std::move(payload));
}

std::vector<std::string> daemon_command(const std::string &rsh, const std::string &host,
                                        const std::string &exe) {
  std::vector<std::string> argv;
  std::string_view rest = rsh;
  while (!(rest = trim(rest)).empty()) {
    const std::size_t end = std::min(rest.find_first_of(" \t"), rest.size());
    argv.emplace_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  if (argv.empty()) argv.emplace_back("ssh");
  const std::string &agent = argv.front();
  if (agent == "ssh" || agent.ends_with("/ssh")) {
    argv.insert(argv.begin() + 1, {"-o", "BatchMode=yes", "-T"});
  }
  argv.push_back(host);
  // The remote shell parses the command: the path in single quotes ('\'' for a quote in it).
  std::string quoted = "'";
  for (char c : exe)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  argv.push_back(quoted + " --daemon");
  return argv;
}

} // namespace ampirun
