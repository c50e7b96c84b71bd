// src/mpi/info.cpp — MPI_Info objects: create, set, get, delete, the key queries, dup, free, and
// MPI_INFO_ENV (the command, its arguments, the number of ranks, the host, the working
// directory and the thread level). Errors go to MPI_COMM_WORLD's handler.
#include "core/pe.hpp"
#include "core/rank.hpp"
#include "mpi/comm_util.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

using namespace ampi;
using namespace ampi::mpi;

namespace ampi::mpi {

namespace {

void fill_env(Rank &self, comm::Info &env) {
  if (!self.args.empty()) {
    env.set("command", self.args[0]);
    std::string argv;
    for (std::size_t i = 1; i < self.args.size(); ++i)
      argv += (i > 1 ? " " : "") + self.args[i];
    env.set("argv", argv);
  }
  if (const comm::Comm *world = self.comm.comms.find(MPI_COMM_WORLD))
    env.set("maxprocs", std::to_string(world->size()));
  char buf[4096];
  if (::gethostname(buf, sizeof buf - 1) == 0) {
    buf[sizeof buf - 1] = '\0';
    env.set("host", buf);
  }
  if (::getcwd(buf, sizeof buf)) env.set("wdir", buf);
  static constexpr const char *kLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                            "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
  env.set("thread_level", kLevels[self.thread_level & 3]);
}

} // namespace

comm::Info *find_info(Rank &self, MPI_Info h, const char *fn, int *err) {
  auto &table = self.comm.objects.infos;
  comm::Info *i = table.find(h);
  if (!i) {
    *err = raise(MPI_COMM_WORLD, MPI_ERR_INFO, fn, "%s",
                 h == MPI_INFO_NULL ? "info=MPI_INFO_NULL" : "info is not a valid info object");
    return nullptr;
  }
  if (h == MPI_INFO_ENV && !table.env_filled) {
    fill_env(self, *i);
    table.env_filled = true;
  }
  return i;
}

const comm::Info *find_hints(Rank &self, MPI_Info h, const char *fn, int *err) {
  static const comm::Info kNone;
  return h == MPI_INFO_NULL ? &kNone : find_info(self, h, fn, err);
}

} // namespace ampi::mpi

#define AMPI_INFO_OR_RETURN(self, i, handle, fn)                                                   \
  int err_ = MPI_SUCCESS;                                                                          \
  comm::Info *i = find_info(self, handle, fn, &err_);                                              \
  if (!i) return err_;

namespace {

// Checks a key: not NULL, 1..MPI_MAX_INFO_KEY characters. 0 or the raised error.
int check_key(const char *key, const char *fn) {
  if (!key) return raise(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, fn, "key=NULL");
  const std::size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
  if (n == 0 || n > MPI_MAX_INFO_KEY)
    return raise(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, fn,
                 "key is %s (keys have 1 to MPI_MAX_INFO_KEY=%d characters)",
                 n == 0 ? "empty" : "too long", MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}

} // namespace

extern "C" int PMPI_Info_create(MPI_Info *info) {
  static constexpr const char *fn = "MPI_Info_create";
  auto self = enter_any(fn);
  if (!info) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "info=NULL");
  *info = self->comm.objects.infos.add({});
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_create)

extern "C" int PMPI_Info_set(MPI_Info info, const char *key, const char *value) {
  static constexpr const char *fn = "MPI_Info_set";
  auto self = enter_any(fn);
  AMPI_INFO_OR_RETURN(*self, i, info, fn)
  if (info == MPI_INFO_ENV)
    return raise(MPI_COMM_WORLD, MPI_ERR_INFO, fn, "MPI_INFO_ENV cannot be modified");
  if (int e = check_key(key, fn)) return e;
  if (!value) return raise(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, fn, "value=NULL");
  if (strnlen(value, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL)
    return raise(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, fn,
                 "value is longer than MPI_MAX_INFO_VAL=%d characters", MPI_MAX_INFO_VAL);
  i->set(key, value);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_set)

extern "C" int PMPI_Info_delete(MPI_Info info, const char *key) {
  static constexpr const char *fn = "MPI_Info_delete";
  auto self = enter_any(fn);
  AMPI_INFO_OR_RETURN(*self, i, info, fn)
  if (info == MPI_INFO_ENV)
    return raise(MPI_COMM_WORLD, MPI_ERR_INFO, fn, "MPI_INFO_ENV cannot be modified");
  if (int e = check_key(key, fn)) return e;
  if (!i->erase(key))
    return raise(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, fn, "key \"%s\" is not set", key);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_delete)

extern "C" int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) {
  static constexpr const char *fn = "MPI_Info_get";
  auto self = enter_any(fn);
  AMPI_INFO_OR_RETURN(*self, i, info, fn)
  if (int e = check_key(key, fn)) return e;
  if (valuelen < 0) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "valuelen=%d", valuelen);
  if (!value || !flag) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "value or flag is NULL");
  const std::string *v = i->get(key);
  *flag = v != nullptr;
  if (v) { // at most valuelen characters, then the terminating null
    const std::size_t n = std::min(v->size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_get)

extern "C" int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) {
  static constexpr const char *fn = "MPI_Info_get_valuelen";
  auto self = enter_any(fn);
  AMPI_INFO_OR_RETURN(*self, i, info, fn)
  if (int e = check_key(key, fn)) return e;
  if (!valuelen || !flag) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "valuelen or flag is NULL");
  const std::string *v = i->get(key);
  *flag = v != nullptr;
  if (v) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_get_valuelen)

extern "C" int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
  static constexpr const char *fn = "MPI_Info_get_nkeys";
  auto self = enter_any(fn);
  AMPI_INFO_OR_RETURN(*self, i, info, fn)
  if (!nkeys) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "nkeys=NULL");
  *nkeys = static_cast<int>(i->entries.size());
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_get_nkeys)

extern "C" int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
  static constexpr const char *fn = "MPI_Info_get_nthkey";
  auto self = enter_any(fn);
  AMPI_INFO_OR_RETURN(*self, i, info, fn)
  if (!key) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "key=NULL");
  if (n < 0 || n >= static_cast<int>(i->entries.size()))
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "n=%d is not in 0..%d", n,
                 static_cast<int>(i->entries.size()) - 1);
  const std::string &k = i->entries[static_cast<std::size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_get_nthkey)

extern "C" int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo) {
  static constexpr const char *fn = "MPI_Info_dup";
  auto self = enter_any(fn);
  AMPI_INFO_OR_RETURN(*self, i, info, fn)
  if (!newinfo) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "newinfo=NULL");
  comm::Info copy = *i; // copied first: adding may move the table's storage
  *newinfo = self->comm.objects.infos.add(std::move(copy));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_dup)

extern "C" int PMPI_Info_free(MPI_Info *info) {
  static constexpr const char *fn = "MPI_Info_free";
  auto self = enter_any(fn);
  if (!info) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "info=NULL");
  AMPI_INFO_OR_RETURN(*self, i, *info, fn)
  (void)i;
  if (*info == MPI_INFO_ENV)
    return raise(MPI_COMM_WORLD, MPI_ERR_INFO, fn, "MPI_INFO_ENV cannot be freed");
  self->comm.objects.infos.remove(*info);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_free)

// ---- MPI 4 ----------------------------------------------------------------------------------

// MPI_INFO_ENV's keys, with `command` and `argv` from the caller's argc/argv when it passes them
// (MPI 4.0 section 11.2.2: the arguments MPI_Init would have been given). Callable before MPI_Init.
extern "C" int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info) {
  static constexpr const char *fn = "MPI_Info_create_env";
  auto self = enter_any(fn);
  if (!info) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "info=NULL");
  if (argc < 0) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "argc=%d is negative", argc);
  comm::Info env;
  fill_env(*self, env);
  if (argc > 0 && argv) {
    if (argv[0]) env.set("command", argv[0]);
    std::string args;
    for (int i = 1; i < argc && argv[i]; ++i)
      args += (i > 1 ? " " : "") + std::string(argv[i]);
    env.set("argv", args);
  }
  *info = self->comm.objects.infos.add(std::move(env));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_create_env)

// The value and, always, in *buflen the size it needs with its terminating null; at most
// *buflen - 1 characters are copied (MPI 4.0 section 10: no MPI_MAX_INFO_VAL limit).
extern "C" int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value,
                                    int *flag) {
  static constexpr const char *fn = "MPI_Info_get_string";
  auto self = enter_any(fn);
  AMPI_INFO_OR_RETURN(*self, i, info, fn)
  if (int e = check_key(key, fn)) return e;
  if (!buflen || !flag) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "buflen or flag is NULL");
  if (*buflen < 0) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "*buflen=%d is negative", *buflen);
  if (*buflen > 0 && !value)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "value=NULL with *buflen=%d", *buflen);
  const std::string *v = i->get(key);
  *flag = v != nullptr;
  if (!v) return MPI_SUCCESS;
  if (*buflen > 0) {
    const std::size_t n = std::min(v->size(), static_cast<std::size_t>(*buflen - 1));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  *buflen = static_cast<int>(v->size()) + 1;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Info_get_string)
