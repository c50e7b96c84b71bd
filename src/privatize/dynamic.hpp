// src/privatize/dynamic.hpp — a loaded object's dynamic section, read in memory as the dynamic
// loader left it: the libraries it needs, its name, its symbol and string tables, and the
// relocations that bind its references to other objects. Shared by libc_state (which objects use
// getopt) and got_patch (which GOT slots refer to a function).
#pragma once

#include <elf.h>
#include <link.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ampi::privatize {

#if defined(__x86_64__)
inline constexpr std::uint32_t kCopyReloc = R_X86_64_COPY;
inline constexpr std::uint32_t kJumpSlotReloc = R_X86_64_JUMP_SLOT;
inline constexpr std::uint32_t kGlobDatReloc = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
inline constexpr std::uint32_t kCopyReloc = R_AARCH64_COPY;
inline constexpr std::uint32_t kJumpSlotReloc = R_AARCH64_JUMP_SLOT;
inline constexpr std::uint32_t kGlobDatReloc = R_AARCH64_GLOB_DAT;
#else
#error "privatize: unknown architecture (need its COPY, JUMP_SLOT and GLOB_DAT relocation types)"
#endif

struct Dynamic {
  std::uintptr_t base = 0; // the object's load address
  const char *strtab = nullptr;
  const ElfW(Sym) *symtab = nullptr;
  const char *soname = nullptr;
  std::vector<const char *> needed;
  struct Table {
    std::uintptr_t at = 0;
    std::size_t size = 0;
    bool rela = true;
  };
  std::array<Table, 3> relocs{}; // DT_RELA, DT_REL, DT_JMPREL
};

// The dynamic section `dynamic` (nullptr: none) of the object loaded at `base`.
Dynamic read_dynamic(std::uintptr_t base, const ElfW(Dyn) * dynamic);

// One relocation of an object that refers to a symbol the object does not define itself (or
// defines only as a copy of a library's: a program built without -fPIC copies optind).
struct Import {
  std::string_view name;
  std::uintptr_t slot; // the address it writes (base + r_offset)
  std::uint32_t type;  // kJumpSlotReloc, kGlobDatReloc, kCopyReloc, ...
};

// Calls `fn(const Import &)` for each such relocation, until it returns true; true if it did.
template <class Fn> bool any_import(const Dynamic &d, Fn &&fn) {
  if (!d.strtab || !d.symtab) return false;
  for (const Dynamic::Table &t : d.relocs) {
    if (!t.at) continue;
    const std::size_t entry = t.rela ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
    for (std::size_t i = 0; i < t.size / entry; ++i) {
      // Rel and Rela begin alike (r_offset, r_info).
      const auto *r = reinterpret_cast<const ElfW(Rel) *>(t.at + i * entry);
      const bool wide = sizeof(ElfW(Addr)) == 8;
      const std::size_t sym = wide ? ELF64_R_SYM(r->r_info) : ELF32_R_SYM(r->r_info);
      const std::uint32_t type = wide ? ELF64_R_TYPE(r->r_info) : ELF32_R_TYPE(r->r_info);
      if (sym == 0 || (d.symtab[sym].st_shndx != SHN_UNDEF && type != kCopyReloc)) continue;
      if (fn(Import{d.strtab + d.symtab[sym].st_name, d.base + r->r_offset, type})) return true;
    }
  }
  return false;
}

} // namespace ampi::privatize
