// src/comm/objects.cpp — attribute keys and stores, info objects (see objects.hpp).
#include "comm/objects.hpp"

#include <algorithm>

namespace ampi::comm {

// ---- keyvals ------------------------------------------------------------------------------

int KeyvalTable::create(ObjectKind kind, CopyAttrFn *copy, DeleteAttrFn *del, void *extra_state) {
  return table_.insert(Keyval{kind, copy, del, extra_state, 1, false});
}

Keyval *KeyvalTable::find(int h, ObjectKind kind) noexcept {
  Keyval *k = find_any(h);
  return k && !k->freed && k->kind == kind ? k : nullptr;
}

Keyval *KeyvalTable::find_attached(int h, ObjectKind kind, const AttrStore &store) noexcept {
  Keyval *k = find_any(h);
  return k && k->kind == kind && (!k->freed || store.contains(h)) ? k : nullptr;
}

void KeyvalTable::retain(int h) noexcept {
  if (Keyval *k = find_any(h)) ++k->refs;
}

void KeyvalTable::release(int h) noexcept {
  Keyval *k = find_any(h);
  if (k && --k->refs == 0) table_.erase(h);
}

// ---- attribute stores ---------------------------------------------------------------------

void **AttrStore::find(int keyval) noexcept {
  for (auto &e : entries_)
    if (e.first == keyval) return &e.second;
  return nullptr;
}

bool AttrStore::contains(int keyval) const noexcept {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const auto &e) { return e.first == keyval; });
}

void AttrStore::put(int keyval, void *value) {
  if (void **v = find(keyval))
    *v = value;
  else
    entries_.emplace_back(keyval, value);
}

void AttrStore::erase(int keyval) noexcept {
  std::erase_if(entries_, [&](const auto &e) { return e.first == keyval; });
}

namespace {
int run_delete(KeyvalTable &keys, int obj, int keyval, void *value) {
  Keyval *k = keys.find_any(keyval);
  if (!k || !k->del) return MPI_SUCCESS;
  return k->del(obj, keyval, value, k->extra_state);
}
} // namespace

int set_attr(KeyvalTable &keys, AttrStore &store, int obj, int keyval, void *value) {
  if (void **old = store.find(keyval)) {
    if (int e = run_delete(keys, obj, keyval, *old); e != MPI_SUCCESS) return e;
    *old = value;
    return MPI_SUCCESS;
  }
  store.put(keyval, value);
  keys.retain(keyval);
  return MPI_SUCCESS;
}

int delete_attr(KeyvalTable &keys, AttrStore &store, int obj, int keyval) {
  void **v = store.find(keyval);
  if (!v) return MPI_ERR_KEYVAL;
  if (int e = run_delete(keys, obj, keyval, *v); e != MPI_SUCCESS) return e;
  store.erase(keyval);
  keys.release(keyval);
  return MPI_SUCCESS;
}

int delete_all_attrs(KeyvalTable &keys, AttrStore &store, int obj) {
  while (!store.empty()) {
    const int keyval = store.entries().back().first; // newest first
    if (int e = delete_attr(keys, store, obj, keyval); e != MPI_SUCCESS) return e;
  }
  return MPI_SUCCESS;
}

int copy_attrs(KeyvalTable &keys, const AttrStore &from, int oldobj, AttrStore &to, int newobj) {
  for (const auto &[keyval, value] : from.entries()) {
    Keyval *k = keys.find_any(keyval);
    if (!k || !k->copy) continue;
    void *out = nullptr;
    int flag = 0;
    if (int e = k->copy(oldobj, keyval, k->extra_state, value, &out, &flag); e != MPI_SUCCESS) {
      (void)delete_all_attrs(keys, to, newobj);
      return e;
    }
    if (flag) {
      to.put(keyval, out);
      keys.retain(keyval);
    }
  }
  return MPI_SUCCESS;
}

// ---- info ---------------------------------------------------------------------------------

const std::string *Info::get(const std::string &key) const noexcept {
  for (const auto &e : entries)
    if (e.first == key) return &e.second;
  return nullptr;
}

void Info::set(const std::string &key, const std::string &value) {
  for (auto &e : entries)
    if (e.first == key) {
      e.second = value;
      return;
    }
  entries.emplace_back(key, value);
}

bool Info::erase(const std::string &key) {
  return std::erase_if(entries, [&](const auto &e) { return e.first == key; }) > 0;
}

InfoTable::InfoTable() {
  table_.insert(Info{}); // MPI_INFO_ENV
}

} // namespace ampi::comm
