// src/privatize/dynamic.cpp — reading a loaded object's dynamic section (see dynamic.hpp).
#include "privatize/dynamic.hpp"

namespace ampi::privatize {

Dynamic read_dynamic(std::uintptr_t base, const ElfW(Dyn) * dynamic) {
  Dynamic d;
  d.base = base;
  if (!dynamic) return d;
  // glibc relocates the pointers of a dynamic section in place, but not everywhere (the vDSO's):
  // an address below the object's base is still relative.
  auto absolute = [base](ElfW(Addr) p) { return p < base ? base + p : p; };
  std::vector<ElfW(Xword)> needed;
  ElfW(Xword) soname = ~ElfW(Xword){0};
  bool plt_rela = true;
  for (const ElfW(Dyn) *e = dynamic; e->d_tag != DT_NULL; ++e) {
    switch (e->d_tag) {
    case DT_STRTAB:
      d.strtab = reinterpret_cast<const char *>(absolute(e->d_un.d_ptr));
      break;
    case DT_SYMTAB:
      d.symtab = reinterpret_cast<const ElfW(Sym) *>(absolute(e->d_un.d_ptr));
      break;
    case DT_NEEDED:
      needed.push_back(e->d_un.d_val);
      break;
    case DT_SONAME:
      soname = e->d_un.d_val;
      break;
    case DT_RELA:
      d.relocs[0].at = absolute(e->d_un.d_ptr);
      break;
    case DT_RELASZ:
      d.relocs[0].size = e->d_un.d_val;
      break;
    case DT_REL:
      d.relocs[1].at = absolute(e->d_un.d_ptr);
      break;
    case DT_RELSZ:
      d.relocs[1].size = e->d_un.d_val;
      break;
    case DT_JMPREL:
      d.relocs[2].at = absolute(e->d_un.d_ptr);
      break;
    case DT_PLTRELSZ:
      d.relocs[2].size = e->d_un.d_val;
      break;
    case DT_PLTREL:
      plt_rela = e->d_un.d_val == DT_RELA;
      break;
    default:
      break;
    }
  }
  d.relocs[1].rela = false;
  d.relocs[2].rela = plt_rela;
  if (!d.strtab) return d;
  for (ElfW(Xword) n : needed)
    d.needed.push_back(d.strtab + n);
  if (soname != ~ElfW(Xword){0}) d.soname = d.strtab + soname;
  return d;
}

} // namespace ampi::privatize
