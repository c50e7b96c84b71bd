// src/comm/objects.hpp — the small per-rank MPI objects that hang off communicators (and, for the
// attribute store, any object kind): attribute keys (MPI_Comm/Type/Win_create_keyval) and the
// attribute values an object holds, with their copy and delete callbacks; info objects
// (MPI_Info); and the error classes, codes and strings a program adds (MPI_Add_error_*).
#pragma once

#include "handles/handle.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ampi::comm {

// ---- attributes ---------------------------------------------------------------------------

// All MPI handles are ints, so the comm, datatype and window callback types are one type.
using CopyAttrFn = int(int oldobj, int keyval, void *extra_state, void *attribute_val_in,
                       void *attribute_val_out, int *flag);
using DeleteAttrFn = int(int obj, int keyval, void *attribute_val, void *extra_state);

enum class ObjectKind { Comm, Type, Win };

struct Keyval {
  ObjectKind kind = ObjectKind::Comm;
  CopyAttrFn *copy = nullptr;  // nullptr: never copied (MPI_*_NULL_COPY_FN)
  DeleteAttrFn *del = nullptr; // nullptr: nothing to do
  void *extra_state = nullptr;
  int refs = 0;       // the user's handle (until freed) plus one per attached value
  bool freed = false; // MPI_*_free_keyval was called
};

// User keyvals (handles::kind::keyval). The predefined ones (MPI_TAG_UB, ...) live elsewhere.
// A keyval's slot is freed when its last reference goes, not when the user frees it.
class KeyvalTable {
public:
  int create(ObjectKind kind, CopyAttrFn *copy, DeleteAttrFn *del, void *extra_state);
  // The live (not yet freed by the user) keyval `h` of `kind`, or nullptr.
  Keyval *find(int h, ObjectKind kind) noexcept;
  // Any keyval `h` still referenced (a freed one that values still use included), or nullptr.
  Keyval *find_any(int h) noexcept { return table_.get(h); }
  // The keyval `h` of `kind` as MPI_*_get_attr and MPI_*_delete_attr may name it: live, or freed
  // by the user while `store` still holds a value for it (Open MPI and MPICH accept the freed
  // handle there: the value keeps the keyval alive), else nullptr.
  Keyval *find_attached(int h, ObjectKind kind, const class AttrStore &store) noexcept;
  void retain(int h) noexcept;
  void release(int h) noexcept; // drops one reference; the slot is reused at zero

private:
  handles::HandleTable<Keyval, handles::kind::keyval> table_;
};

// The attribute values one object holds, in the order they were first set.
class AttrStore {
public:
  void **find(int keyval) noexcept;
  bool contains(int keyval) const noexcept;
  bool empty() const noexcept { return entries_.empty(); }
  const std::vector<std::pair<int, void *>> &entries() const noexcept { return entries_; }
  void put(int keyval, void *value); // new or replaced (the caller ran the delete callback)
  void erase(int keyval) noexcept;

private:
  std::vector<std::pair<int, void *>> entries_;
};

// Sets `keyval` on `obj` (running the delete callback of a value it replaces). MPI_SUCCESS or
// the callback's error code.
int set_attr(KeyvalTable &keys, AttrStore &store, int obj, int keyval, void *value);
// Deletes `keyval` from `obj`, running its delete callback. MPI_SUCCESS, MPI_ERR_KEYVAL when the
// object has no such attribute, or the callback's error code (the value then stays).
int delete_attr(KeyvalTable &keys, AttrStore &store, int obj, int keyval);
// Deletes every attribute of `obj` (on free). Stops at, and returns, the first callback error.
int delete_all_attrs(KeyvalTable &keys, AttrStore &store, int obj);
// Copies the attributes of `oldobj` into `to` through their copy callbacks (on dup). On a
// callback error, `to` is emptied again (its values deleted) and the error returned.
int copy_attrs(KeyvalTable &keys, const AttrStore &from, int oldobj, AttrStore &to, int newobj);

// ---- info ---------------------------------------------------------------------------------

struct Info {
  std::vector<std::pair<std::string, std::string>> entries; // in insertion order
  const std::string *get(const std::string &key) const noexcept;
  void set(const std::string &key, const std::string &value);
  bool erase(const std::string &key);
};

// Info objects (handles::kind::info); the first is MPI_INFO_ENV (filled by the MPI layer on first
// use), which stays.
class InfoTable {
public:
  InfoTable();
  Info *find(MPI_Info h) noexcept { return table_.get(h); }
  MPI_Info add(Info info) { return table_.insert(std::move(info)); }
  void remove(MPI_Info h) noexcept {
    if (h != MPI_INFO_ENV) table_.erase(h);
  }
  bool env_filled = false;

private:
  handles::HandleTable<Info, handles::kind::info> table_;
};

// ---- user error classes and codes ---------------------------------------------------------

// Codes MPI_ERR_LASTCODE + 1 + i, each the class of itself or of a code added to a class.
struct UserErrors {
  struct Entry {
    int error_class;
    std::string text;
  };
  std::vector<Entry> entries;
  int last_used_code = MPI_ERR_LASTCODE;
  static constexpr int kFirst = MPI_ERR_LASTCODE + 1;
  const Entry *find(int code) const noexcept {
    const long i = static_cast<long>(code) - kFirst;
    return i >= 0 && i < static_cast<long>(entries.size()) ? &entries[static_cast<std::size_t>(i)]
                                                           : nullptr;
  }
  int add(int error_class) {
    const int code = kFirst + static_cast<int>(entries.size());
    entries.push_back({error_class < 0 ? code : error_class, {}});
    last_used_code = code;
    return code;
  }
};

// The specific messages (call, argument, value) of the last kRing errors this rank raised. As
// MPICH's do, the code an MPI call returns carries an index into them: code = seq << 8 | class
// (seq counting from 1 and wrapping below 2^22, so codes stay within 0x100..MPI_ERR_LASTCODE,
// apart from the classes and the program's codes), MPI_Error_class takes the low byte, and
// MPI_Error_string finds the message while its slot has not been reused (the next kRing errors
// of the rank). Nothing is kept before the first error: a rank that raises none pays nothing.
struct ErrorMessages {
  static constexpr std::uint32_t kRing = 64;
  static constexpr std::uint32_t kSeqLimit = std::uint32_t{1} << 22; // 0x3fffff << 8 | 0xff fits
  struct Entry {
    int code = 0;
    std::string text;
  };
  std::vector<Entry> ring;
  std::uint32_t seq = 0;

  // Keeps `text` for error class `error_class` (< 256) and returns the code that names it.
  int record(int error_class, std::string text) {
    seq = seq + 1 < kSeqLimit ? seq + 1 : 1;
    const int code = static_cast<int>(seq << 8) | error_class;
    if (ring.empty()) ring.resize(kRing);
    Entry &e = ring[seq % kRing];
    e.code = code;
    e.text = std::move(text);
    return code;
  }
  // The message of `code`, or nullptr when its slot was reused since (or it is no such code).
  const std::string *find(int code) const noexcept {
    if (!is_specific(code) || ring.empty()) return nullptr;
    const Entry &e = ring[(static_cast<std::uint32_t>(code) >> 8) % kRing];
    return e.code == code ? &e.text : nullptr;
  }
  static constexpr bool is_specific(int code) noexcept {
    return code > 0xff && code <= MPI_ERR_LASTCODE;
  }
  static constexpr int class_of(int code) noexcept {
    return is_specific(code) ? code & 0xff : code;
  }
};

// What the comm area keeps per rank (Rank::comm_objects).
struct Registry {
  KeyvalTable keyvals;
  InfoTable infos;
  UserErrors errors;
  ErrorMessages messages; // for MPI_Error_string (src/mpi/errors.cpp)
};

} // namespace ampi::comm
