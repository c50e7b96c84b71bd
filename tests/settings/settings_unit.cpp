// tests/settings/settings_unit.cpp — unit tests of the settings table's parsers and of
// Settings::from_environment (src/settings): sizes with suffixes, overflow, negatives, trailing
// text, ranges, booleans, choices, and the defaults of settings.def.
#include "settings/settings.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

using namespace ampi::settings;

std::optional<std::uint64_t> size(std::string_view text) {
  std::uint64_t v = 0;
  if (parse_size(text, v)) return std::nullopt;
  return v;
}

// An environment for from_environment(), without touching the process's own.
struct FakeEnv {
  std::map<std::string, std::string> vars;
  Lookup lookup() const {
    return [this](const char *name) -> const char * {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

TEST(SettingsSize, PlainAndSuffixes) {
  EXPECT_EQ(size("0"), 0u);
  EXPECT_EQ(size("65536"), 65536u);
  EXPECT_EQ(size("64K"), 65536u);
  EXPECT_EQ(size("64k"), 65536u);
  EXPECT_EQ(size("64KB"), 65536u);
  EXPECT_EQ(size("64KiB"), 65536u);
  EXPECT_EQ(size("64kib"), 65536u);
  EXPECT_EQ(size("8M"), 8u << 20);
  EXPECT_EQ(size("1G"), 1u << 30);
  EXPECT_EQ(size("3g"), std::uint64_t{3} << 30);
  EXPECT_EQ(size("100B"), 100u);
}

TEST(SettingsSize, RefusesGarbageAndNegatives) {
  for (const char *bad : {"", "-1", "-0", "+5", " 5", "5 ", "12Q", "1KK", "1Kx", "K", "0x10",
                          "1.5M", "5iB", "1T", "abc"})
    EXPECT_EQ(size(bad), std::nullopt) << "'" << bad << "'";
  std::uint64_t v = 0;
  EXPECT_EQ(parse_size("-1", v), "not a size");
}

TEST(SettingsSize, DetectsOverflow) {
  std::uint64_t v = 0;
  EXPECT_EQ(parse_size("18446744073709551615", v), std::nullopt);
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_EQ(parse_size("18446744073709551616", v), "too large");
  EXPECT_EQ(parse_size("17179869184G", v), "too large"); // 2^34 G = 2^64
  EXPECT_EQ(parse_size("17179869183G", v), std::nullopt);
  EXPECT_EQ(parse_size("16777216T", v), "not a size");
}

TEST(SettingsSize, Formats) {
  EXPECT_EQ(format_size(0), "0");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(65536), "64K");
  EXPECT_EQ(format_size(std::uint64_t{1} << 30), "1G");
  EXPECT_EQ(format_size(std::uint64_t{64} << 30), "64G");
  EXPECT_EQ(format_size(1536), "1536");
  EXPECT_EQ(format_size(3 << 20), "3M");
}

TEST(SettingsInteger, ParsesStrictly) {
  std::int64_t v = 0;
  EXPECT_EQ(parse_integer("42", v), std::nullopt);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(parse_integer("-3", v), std::nullopt);
  EXPECT_EQ(v, -3);
  EXPECT_EQ(parse_integer("+7", v), std::nullopt);
  EXPECT_EQ(v, 7);
  for (const char *bad : {"", "4x", "x4", " 4", "4 ", "4K", "+", "-"})
    EXPECT_TRUE(parse_integer(bad, v)) << "'" << bad << "'";
  EXPECT_EQ(parse_integer("99999999999999999999", v), "out of range");
}

TEST(SettingsBoolean, AllSpellings) {
  bool v = false;
  for (const char *t : {"1", "yes", "YES", "true", "True", "on", "ON"}) {
    v = false;
    EXPECT_EQ(parse_boolean(t, v), std::nullopt) << t;
    EXPECT_TRUE(v) << t;
  }
  for (const char *f : {"0", "no", "false", "off", "Off"}) {
    v = true;
    EXPECT_EQ(parse_boolean(f, v), std::nullopt) << f;
    EXPECT_FALSE(v) << f;
  }
  for (const char *bad : {"", "2", "y", "n", "enable", "01", "yes "})
    EXPECT_EQ(parse_boolean(bad, v), "not a boolean") << "'" << bad << "'";
}

TEST(SettingsChoice, CanonicalNamesAndAliases) {
  std::string v;
  EXPECT_EQ(parse_choice("block|rr/round-robin", "block", v), std::nullopt);
  EXPECT_EQ(v, "block");
  EXPECT_EQ(parse_choice("block|rr/round-robin", "round-robin", v), std::nullopt);
  EXPECT_EQ(v, "rr");
  EXPECT_EQ(parse_choice("auto|on/1/yes/true|off/0/no/false", "0", v), std::nullopt);
  EXPECT_EQ(v, "off");
  EXPECT_TRUE(parse_choice("block|rr/round-robin", "RR", v));
  EXPECT_TRUE(parse_choice("block|rr/round-robin", "round", v));
  EXPECT_TRUE(parse_choice("block|rr/round-robin", "", v));
  EXPECT_EQ(accepted(*find("AMPI_MAP")), "block, rr/round-robin");
}

TEST(SettingsTable, EveryDefaultIsAccepted) {
  for (const Declaration &d : kTable) {
    EXPECT_EQ(d.name.substr(0, 5), "AMPI_");
    EXPECT_FALSE(d.help.empty()) << d.name;
    if (!d.default_text.empty()) EXPECT_EQ(check(d, d.default_text), std::nullopt) << d.name;
    if (d.type == Type::Size || d.type == Type::Integer) EXPECT_LE(d.min, d.max) << d.name;
  }
}

TEST(SettingsTable, DefaultsKeepTheOldValues) {
  const Settings s;
  EXPECT_EQ(s.vp, 0); // unset: one rank per process
  EXPECT_EQ(s.map, "block");
  EXPECT_EQ(s.stack_size, 8u << 20);
  EXPECT_EQ(s.eager_limit, 64u << 10);
  EXPECT_EQ(s.ucx_eager_limit, 8192u);
  EXPECT_EQ(s.gpu_eager_limit, 0u);
  EXPECT_EQ(s.gpu_async_bytes, 16u << 10);
  EXPECT_TRUE(s.gpu_ipc);
  EXPECT_FALSE(s.gpu_ipc_refuse);
  EXPECT_TRUE(s.rma_shm);
  EXPECT_EQ(s.privatize, "auto");
  EXPECT_EQ(s.privatize_dir, "");
  EXPECT_FALSE(s.verbose);
}

TEST(SettingsEnvironment, ReadsValues) {
  FakeEnv env{{{"AMPI_GPU_EAGER_LIMIT", "64K"},
               {"AMPI_STACK_SIZE", "2m"},
               {"AMPI_VP", "12"},
               {"AMPI_MAP", "round-robin"},
               {"AMPI_GPU_IPC", "0"},
               {"AMPI_RMA_SHM", "off"},
               {"AMPI_PRIVATIZE", "yes"},
               {"AMPI_PRIVATIZE_DIR", "/some/dir"},
               {"AMPI_VERBOSE", "1"},
               {"AMPI_EAGER_LIMIT", ""}}}; // empty: unset
  const Settings::Read r = Settings::from_environment(env.lookup());
  ASSERT_TRUE(r.ok()) << r.errors.front().message();
  EXPECT_EQ(r.values.gpu_eager_limit, 65536u);
  EXPECT_EQ(r.values.stack_size, 2u << 20);
  EXPECT_EQ(r.values.vp, 12);
  EXPECT_EQ(r.values.map, "rr");
  EXPECT_FALSE(r.values.gpu_ipc);
  EXPECT_FALSE(r.values.rma_shm);
  EXPECT_EQ(r.values.privatize, "on");
  EXPECT_EQ(r.values.privatize_dir, "/some/dir");
  EXPECT_TRUE(r.values.verbose);
  EXPECT_EQ(r.values.eager_limit, 64u << 10);
}

TEST(SettingsEnvironment, RefusesWithPreciseMessages) {
  FakeEnv env{{{"AMPI_STACK_SIZE", "-1"},
               {"AMPI_UCX_EAGER_LIMIT", "2M"},
               {"AMPI_VP", "0"},
               {"AMPI_GPU_IPC", "maybe"},
               {"AMPI_MAP", "cyclic"},
               {"AMPI_EAGER_LIMIT", "12Q"}}};
  const Settings::Read r = Settings::from_environment(env.lookup());
  std::vector<std::string> messages;
  for (const Error &e : r.errors)
    messages.push_back(e.message());
  const std::vector<std::string> expected = {
      "AMPI_VP=0: out of range (accepted: 1..4194304)",
      "AMPI_MAP=cyclic: not one of the choices (accepted: block, rr/round-robin)",
      "AMPI_STACK_SIZE=-1: not a size (accepted: 64K..1G; bytes with optional K/M/G suffix)",
      "AMPI_EAGER_LIMIT=12Q: not a size (accepted: 0..1G; bytes with optional K/M/G suffix)",
      "AMPI_UCX_EAGER_LIMIT=2M: out of range (accepted: 0..1M; bytes with optional K/M/G suffix)",
      "AMPI_GPU_IPC=maybe: not a boolean (accepted: 0/1, yes/no, true/false, on/off)",
  };
  EXPECT_EQ(messages, expected);
  // Refused values keep their defaults.
  EXPECT_EQ(r.values.stack_size, 8u << 20);
  EXPECT_EQ(r.values.ucx_eager_limit, 8192u);
}

TEST(SettingsEnvironment, RangeBoundsAreInclusive) {
  FakeEnv env{{{"AMPI_STACK_SIZE", "64K"}, {"AMPI_UCX_EAGER_LIMIT", "1M"}}};
  EXPECT_TRUE(Settings::from_environment(env.lookup()).ok());
  env.vars["AMPI_STACK_SIZE"] = "65535";
  EXPECT_FALSE(Settings::from_environment(env.lookup()).ok());
  env.vars["AMPI_STACK_SIZE"] = "1025M";
  EXPECT_FALSE(Settings::from_environment(env.lookup()).ok());
}

TEST(SettingsDescribe, ListsEveryVariableAndMarksInvalidOnes) {
  FakeEnv env{{{"AMPI_GPU_IPC", "maybe"}, {"AMPI_STACK_SIZE", "4M"}}};
  int invalid = -1;
  const std::string text = describe(env.lookup(), &invalid);
  EXPECT_EQ(invalid, 1);
  for (const Declaration &d : kTable)
    EXPECT_NE(text.find(std::string(d.name) + " ("), std::string::npos) << d.name;
  EXPECT_NE(text.find("current:  maybe   INVALID: not a boolean"), std::string::npos);
  EXPECT_NE(text.find("current:  4M\n"), std::string::npos);
}

} // namespace
