// src/settings/settings.hpp — the AMPI_* environment variables: their declarations (one constexpr
// table, from settings.def), a strict parser for each type, and Settings, the values read once at
// start-up and handed to the modules that need them (no global mutable state). Depends on the
// standard library only, so ampirun and ampi_info use it without libampi.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ampi::settings {

enum class Type { Size, Integer, Boolean, String, Choice };

struct Declaration {
  std::string_view name; // AMPI_...
  Type type;
  std::string_view default_text; // as a user writes it; "" for unset
  std::uint64_t min, max;        // Size and Integer
  std::string_view choices;      // Choice: "a|b/alias|c"
  std::string_view help;
};

inline constexpr Declaration kTable[] = {
#define AMPI_SETTING(NAME, member, kind, def, lo, hi, choices, help)                               \
  {"AMPI_" #NAME, Type::kind, def, lo, hi, choices, help},
#include "settings/settings.def"
#undef AMPI_SETTING
};

// The C++ type of each setting's value.
template <Type> struct ValueOf;
template <> struct ValueOf<Type::Size> { using type = std::uint64_t; };
template <> struct ValueOf<Type::Integer> { using type = std::int64_t; };
template <> struct ValueOf<Type::Boolean> { using type = bool; };
template <> struct ValueOf<Type::String> { using type = std::string; };
template <> struct ValueOf<Type::Choice> { using type = std::string; }; // the canonical name

// ---- parsers: nullopt and `out` set, or the reason the text is refused ------------------------

// Bytes with an optional K/M/G suffix (powers of 1024, any case, optionally followed by B or iB);
// no sign, no spaces, no trailing text; overflow of 64 bits is refused.
std::optional<std::string> parse_size(std::string_view text, std::uint64_t &out);
// A decimal integer, optionally signed.
std::optional<std::string> parse_integer(std::string_view text, std::int64_t &out);
// 0/1, yes/no, true/false, on/off (any case).
std::optional<std::string> parse_boolean(std::string_view text, bool &out);
// One of the declaration's choices or their aliases (exact); `out` gets the canonical name.
std::optional<std::string> parse_choice(std::string_view choices, std::string_view text,
                                        std::string &out);

// 65536 -> "64K", 1000 -> "1000": the largest suffix that divides exactly.
std::string format_size(std::uint64_t bytes);
// The accepted values of a declaration, as error messages and ampi_info show them
// ("64K..1G; bytes with optional K/M/G suffix").
std::string accepted(const Declaration &d);
std::string_view type_name(Type t);

// A refused value: message() is "AMPI_X=value: reason (accepted: ...)".
struct Error {
  const Declaration *declaration;
  std::string value;
  std::string reason;
  std::string message() const;
};

// The declaration of `name` (AMPI_...), or nullptr.
const Declaration *find(std::string_view name);

// Checks `text` against a declaration (nullopt: acceptable).
std::optional<Error> check(const Declaration &d, std::string_view text);

// Where values come from: getenv when empty; ampirun looks them up in the job's environment.
using Lookup = std::function<const char *(const char *name)>;

// The values, one field per row of settings.def. An empty variable counts as unset.
struct Settings {
#define AMPI_SETTING(NAME, member, kind, def, lo, hi, choices, help)                               \
  typename ValueOf<Type::kind>::type member{};
#include "settings/settings.def"
#undef AMPI_SETTING

  // The defaults of settings.def.
  Settings();

  struct Read;
  // Reads every variable through `lookup` (getenv by default). Refused values keep their
  // defaults and are listed in `errors` (the library stops the job when there is one).
  static Read from_environment(const Lookup &lookup = {});
};

struct Settings::Read {
  Settings values;
  std::vector<Error> errors;
  bool ok() const noexcept { return errors.empty(); }
};

// The table for people (ampi_info, ampirun --help-env): each variable with its type, default,
// accepted values, current value from `lookup` (invalid ones marked) and help text. `invalid`
// (if given) gets the number of invalid values.
std::string describe(const Lookup &lookup = {}, int *invalid = nullptr);

} // namespace ampi::settings
