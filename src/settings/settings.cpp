// src/settings/settings.cpp — the parsers of the settings table and the values read from the
// environment (see settings.hpp). Strict on purpose: a value that is not understood stops the job
// with its name and the accepted range, instead of being read as something else (64K as 64) or
// wrapping around (-1 as 2^64-1).
#include "settings/settings.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <system_error>

namespace ampi::settings {

namespace {

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool equal_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// Calls f(canonical, name) for each name of a choice list "a|b/alias|c".
template <class F> void for_each_choice(std::string_view choices, F f) {
  while (!choices.empty()) {
    const std::size_t bar = choices.find('|');
    std::string_view group = choices.substr(0, bar);
    choices = bar == std::string_view::npos ? std::string_view{} : choices.substr(bar + 1);
    const std::string_view canonical = group.substr(0, group.find('/'));
    while (!group.empty()) {
      const std::size_t slash = group.find('/');
      f(canonical, group.substr(0, slash));
      group = slash == std::string_view::npos ? std::string_view{} : group.substr(slash + 1);
    }
  }
}

const char *lookup_or_getenv(const Lookup &lookup, const char *name) {
  return lookup ? lookup(name) : std::getenv(name);
}

template <class T>
std::optional<Error> read_one(const Declaration &d, std::string_view text, T &out);

template <>
std::optional<Error> read_one(const Declaration &d, std::string_view text, std::uint64_t &out) {
  std::uint64_t v = 0;
  if (auto why = parse_size(text, v)) return Error{&d, std::string(text), *why};
  if (v < d.min || v > d.max) return Error{&d, std::string(text), "out of range"};
  out = v;
  return std::nullopt;
}

template <>
std::optional<Error> read_one(const Declaration &d, std::string_view text, std::int64_t &out) {
  std::int64_t v = 0;
  if (auto why = parse_integer(text, v)) return Error{&d, std::string(text), *why};
  if (v < 0 || static_cast<std::uint64_t>(v) < d.min || static_cast<std::uint64_t>(v) > d.max)
    return Error{&d, std::string(text), "out of range"};
  out = v;
  return std::nullopt;
}

template <> std::optional<Error> read_one(const Declaration &d, std::string_view text, bool &out) {
  if (auto why = parse_boolean(text, out)) return Error{&d, std::string(text), *why};
  return std::nullopt;
}

template <>
std::optional<Error> read_one(const Declaration &d, std::string_view text, std::string &out) {
  if (d.type == Type::Choice) {
    if (auto why = parse_choice(d.choices, text, out)) return Error{&d, std::string(text), *why};
  } else {
    out = std::string(text);
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> parse_size(std::string_view text, std::uint64_t &out) {
  const char *first = text.data(), *last = text.data() + text.size();
  std::uint64_t v = 0;
  // from_chars takes no '+' and, for an unsigned type, no '-': "-1" is refused here.
  auto [end, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec == std::errc::invalid_argument) return "not a size";
  if (ec == std::errc::result_out_of_range) return "too large";
  std::string_view suffix(end, static_cast<std::size_t>(last - end));
  unsigned shift = 0;
  if (!suffix.empty()) {
    switch (lower(suffix.front())) {
    case 'k':
      shift = 10;
      break;
    case 'm':
      shift = 20;
      break;
    case 'g':
      shift = 30;
      break;
    default:
      break;
    }
    if (shift) suffix.remove_prefix(1);
    if (!(suffix.empty() || equal_nocase(suffix, "b") || (shift && equal_nocase(suffix, "ib"))))
      return "not a size";
  }
  if (v > (UINT64_MAX >> shift)) return "too large";
  out = v << shift;
  return std::nullopt;
}

std::optional<std::string> parse_integer(std::string_view text, std::int64_t &out) {
  const char *first = text.data(), *last = text.data() + text.size();
  if (!text.empty() && *first == '+') ++first; // from_chars takes '-' only
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec == std::errc::invalid_argument || end != last) return "not an integer";
  if (ec == std::errc::result_out_of_range) return "out of range";
  out = v;
  return std::nullopt;
}

std::optional<std::string> parse_boolean(std::string_view text, bool &out) {
  for (std::string_view t : {"1", "yes", "true", "on"})
    if (equal_nocase(text, t)) {
      out = true;
      return std::nullopt;
    }
  for (std::string_view f : {"0", "no", "false", "off"})
    if (equal_nocase(text, f)) {
      out = false;
      return std::nullopt;
    }
  return "not a boolean";
}

std::optional<std::string> parse_choice(std::string_view choices, std::string_view text,
                                        std::string &out) {
  bool found = false;
  for_each_choice(choices, [&](std::string_view canonical, std::string_view name) {
    if (!found && name == text) {
      out = std::string(canonical);
      found = true;
    }
  });
  if (found) return std::nullopt;
  return "not one of the choices";
}

std::string format_size(std::uint64_t bytes) {
  static constexpr const char *kSuffix[] = {"", "K", "M", "G"};
  int i = 0;
  while (i < 3 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++i;
  }
  return std::to_string(bytes) + kSuffix[i];
}

std::string_view type_name(Type t) {
  switch (t) {
  case Type::Size:
    return "size";
  case Type::Integer:
    return "integer";
  case Type::Boolean:
    return "boolean";
  case Type::String:
    return "string";
  case Type::Choice:
    return "choice";
  }
  return "?";
}

std::string accepted(const Declaration &d) {
  switch (d.type) {
  case Type::Size:
    return format_size(d.min) + ".." + format_size(d.max) + "; bytes with optional K/M/G suffix";
  case Type::Integer:
    return std::to_string(d.min) + ".." + std::to_string(d.max);
  case Type::Boolean:
    return "0/1, yes/no, true/false, on/off";
  case Type::String:
    return "any text";
  case Type::Choice: {
    std::string s;
    for_each_choice(d.choices, [&](std::string_view canonical, std::string_view name) {
      if (!s.empty()) s += name == canonical ? ", " : "/";
      s += name;
    });
    return s;
  }
  }
  return {};
}

std::string Error::message() const {
  return std::string(declaration->name) + "=" + value + ": " + reason +
         " (accepted: " + accepted(*declaration) + ")";
}

const Declaration *find(std::string_view name) {
  for (const Declaration &d : kTable)
    if (d.name == name) return &d;
  return nullptr;
}

std::optional<Error> check(const Declaration &d, std::string_view text) {
  switch (d.type) {
  case Type::Size: {
    std::uint64_t v = 0;
    return read_one(d, text, v);
  }
  case Type::Integer: {
    std::int64_t v = 0;
    return read_one(d, text, v);
  }
  case Type::Boolean: {
    bool v = false;
    return read_one(d, text, v);
  }
  case Type::String:
  case Type::Choice: {
    std::string v;
    return read_one(d, text, v);
  }
  }
  return std::nullopt;
}

// The defaults are parsed with the same parsers (the unit test checks that each one is valid).
Settings::Settings() {
  std::size_t i = 0;
#define AMPI_SETTING(NAME, member, kind, def, lo, hi, choices, help)                               \
  if (!kTable[i].default_text.empty()) static_cast<void>(read_one(kTable[i], def, member));        \
  ++i;
#include "settings/settings.def"
#undef AMPI_SETTING
}

Settings::Read Settings::from_environment(const Lookup &lookup) {
  Read r;
  std::size_t i = 0;
#define AMPI_SETTING(NAME, member, kind, def, lo, hi, choices, help)                               \
  if (const char *text = lookup_or_getenv(lookup, "AMPI_" #NAME); text && *text)                   \
    if (auto e = read_one(kTable[i], text, r.values.member)) r.errors.push_back(std::move(*e));    \
  ++i;
#include "settings/settings.def"
#undef AMPI_SETTING
  return r;
}

std::string describe(const Lookup &lookup, int *invalid) {
  int bad = 0;
  std::string out;
  for (const Declaration &d : kTable) {
    out += d.name;
    out += " (";
    out += type_name(d.type);
    out += ")\n    default:  ";
    out += d.default_text.empty() ? "(unset)" : std::string(d.default_text);
    out += "\n    accepted: " + accepted(d) + "\n    current:  ";
    const char *text = lookup_or_getenv(lookup, std::string(d.name).c_str());
    if (!text || !*text) {
      out += "(unset)";
    } else {
      out += text;
      if (auto e = check(d, text)) {
        out += "   INVALID: " + e->reason;
        ++bad;
      }
    }
    out += "\n    ";
    out += d.help;
    out += "\n";
  }
  if (invalid) *invalid = bad;
  return out;
}

} // namespace ampi::settings
