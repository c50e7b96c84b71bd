// src/privatize/got_patch.cpp — GOT slot rewriting for one loaded object (see got_patch.hpp),
// from its relocations as dynamic.hpp reads them in memory (no file, no section headers needed).
#include "privatize/got_patch.hpp"

#include "privatize/dynamic.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace ampi::privatize {

namespace {

bool write_slot(std::uintptr_t slot, void *value) noexcept {
  // The slot may lie in RELRO (made read-only after relocation when the object was linked with
  // -z now): make its page writable first. It stays writable (one page of GOT).
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  if (::mprotect(reinterpret_cast<void *>(slot & ~(page - 1)), page, PROT_READ | PROT_WRITE) != 0)
    return false;
  std::memcpy(reinterpret_cast<void *>(slot), &value, sizeof value);
  return true;
}

} // namespace

int patch_got(const link_map &object, const char *symbol, void *replacement) noexcept {
  int patched = 0;
  any_import(read_dynamic(object.l_addr, object.l_ld), [&](const Import &im) {
    if ((im.type == kJumpSlotReloc || im.type == kGlobDatReloc) && im.name == symbol &&
        write_slot(im.slot, replacement))
      ++patched;
    return false; // every slot
  });
  return patched;
}

const link_map *program_link_map() noexcept {
  void *self = ::dlopen(nullptr, RTLD_LAZY | RTLD_NOLOAD);
  link_map *m = nullptr;
  if (self && ::dlinfo(self, RTLD_DI_LINKMAP, &m) != 0) m = nullptr;
  return m;
}

} // namespace ampi::privatize
