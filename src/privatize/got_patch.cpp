// src/privatize/got_patch.cpp — GOT slot rewriting for one loaded object (see got_patch.hpp).
// Reads the object's dynamic section as the dynamic loader left it in memory (its symbol and
// string tables and its RELA relocation tables), so it needs neither the file nor its section
// headers.
#include "privatize/got_patch.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace ampi::privatize {

namespace {

// A dynamic-section address: glibc relocates these entries in place (absolute), other loaders
// may leave them as offsets from the load address.
std::uintptr_t dyn_address(const link_map &m, ElfW(Addr) v) noexcept {
  return v < m.l_addr ? m.l_addr + v : v;
}

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

int patch_got(const link_map &m, const char *symbol, void *replacement) noexcept {
  const ElfW(Sym) *symtab = nullptr;
  const char *strtab = nullptr;
  const ElfW(Rela) *rela = nullptr, *jmprel = nullptr;
  std::size_t rela_size = 0, jmprel_size = 0;
  for (const ElfW(Dyn) *d = m.l_ld; d && d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
    case DT_SYMTAB:
      symtab = reinterpret_cast<const ElfW(Sym) *>(dyn_address(m, d->d_un.d_ptr));
      break;
    case DT_STRTAB:
      strtab = reinterpret_cast<const char *>(dyn_address(m, d->d_un.d_ptr));
      break;
    case DT_RELA:
      rela = reinterpret_cast<const ElfW(Rela) *>(dyn_address(m, d->d_un.d_ptr));
      break;
    case DT_RELASZ:
      rela_size = d->d_un.d_val;
      break;
    case DT_JMPREL:
      jmprel = reinterpret_cast<const ElfW(Rela) *>(dyn_address(m, d->d_un.d_ptr));
      break;
    case DT_PLTRELSZ:
      jmprel_size = d->d_un.d_val;
      break;
    default:
      break;
    }
  }
  if (!symtab || !strtab) return 0;
  int patched = 0;
  const auto scan = [&](const ElfW(Rela) * table, std::size_t bytes) {
    if (!table) return;
    for (std::size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela) &r = table[i];
      const auto type = ELF64_R_TYPE(r.r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
      const ElfW(Sym) &s = symtab[ELF64_R_SYM(r.r_info)];
      if (s.st_shndx != SHN_UNDEF || std::strcmp(strtab + s.st_name, symbol) != 0) continue;
      if (write_slot(m.l_addr + r.r_offset, replacement)) ++patched;
    }
  };
  scan(jmprel, jmprel_size);
  scan(rela, rela_size);
  return patched;
}

const link_map *program_link_map() noexcept {
  void *self = ::dlopen(nullptr, RTLD_LAZY | RTLD_NOLOAD);
  link_map *m = nullptr;
  if (self && ::dlinfo(self, RTLD_DI_LINKMAP, &m) != 0) m = nullptr;
  return m;
}

} // namespace ampi::privatize
