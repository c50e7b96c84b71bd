// src/privatize/own_data.cpp — whether the program has anything to privatize at all (AMPI_PRIVATIZE
// =auto skips the per-rank copies when it has not). A copy gives a rank its own writable data
// (.data, .bss, thread_local variables), its own run of the constructors and destructors and its
// own atexit handlers. A program whose writable data is only what the C runtime's start files put
// there (crt1's __data_start, crtbegin's __dso_handle and `completed` flag, libampi_start's init
// array entry), that has no constructor, destructor or thread_local variable of its own and never
// registers an exit handler behaves the same in every respect with one copy for all ranks; making
// 1,000 copies of it cost ~90 us per rank (0.172 s against 0.083 s for a 1,000-rank hello world,
// bench/results/launch). The rule is exactly that: anything else, or anything unsure (a stripped
// program, a writable section of an unknown name, unnamed bytes), keeps the copies.
#include "privatize/privatize.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace ampi::privatize {

namespace {

// Writable sections that the linker, the loader or the C runtime fill, never the program's
// variables: the GOT and dynamic section (the loader's), RELRO constants (read-only once
// relocated: the program declared them const), crtstuff's transactional-memory clone table.
bool runtime_section(const std::string &name) {
  return name == ".got" || name == ".got.plt" || name == ".dynamic" || name == ".tm_clone_table" ||
         name == ".data.rel.ro" || name == ".jcr";
}

// The C runtime's global symbols in .data/.bss (glibc's crt1.o/Scrt1.o, GCC's crtbegin*.o,
// and the linker's markers).
bool runtime_global(const std::string &name) {
  static const std::set<std::string> kNames = {
      "data_start", "__data_start", "__dso_handle",  "__TMC_END__", "_edata",     "__bss_start",
      "_end",       "__end__",      "__bss_start__", "_bss_end__",  "__bss_end__"};
  return kNames.contains(name);
}

// The C runtime's one local variable in .data/.bss: crtstuff's `completed` flag (the compiler
// numbers a static's name: completed.0, completed.1). Told by its file's STT_FILE entry too, so
// that a program's own static named `completed` keeps its copies.
bool runtime_local(const std::string &file, const std::string &name) {
  if (file != "crtstuff.c" || name.rfind("completed.", 0) != 0) return false;
  return name.size() > 10 && name.find_first_not_of("0123456789", 10) == std::string::npos;
}

// Functions whose use means per-rank exit handlers (each copy's run at the rank's end).
bool exit_handler_import(const std::string &name) {
  return name == "__cxa_atexit" || name == "atexit" || name == "on_exit" ||
         name == "at_quick_exit" || name == "__cxa_at_quick_exit" ||
         name == "__cxa_thread_atexit" || name == "__cxa_thread_atexit_impl";
}

// Bytes of .data and .bss the start files take with their alignment padding: crt1's 4-byte
// __data_start and crtbegin's 8-byte __dso_handle in .data (16 bytes), crtstuff's 1-byte
// `completed` in .bss (8). Measured 24 with Debian 12's GCC 12 and glibc 2.36 (C and C++).
constexpr std::uint64_t kRuntimeBytes = 32;

} // namespace

std::string Image::own_state() const {
  if (fd_ < 0) return "its file cannot be read";
  ElfW(Ehdr) eh{};
  read_at(0, &eh, sizeof eh);
  if (eh.e_shoff == 0 || eh.e_shnum == 0 || eh.e_shstrndx == SHN_UNDEF ||
      eh.e_shstrndx >= eh.e_shnum || eh.e_shentsize != sizeof(ElfW(Shdr)))
    return "it has no section headers (what it defines cannot be told)";
  std::vector<ElfW(Shdr)> sh(eh.e_shnum);
  read_at(eh.e_shoff, sh.data(), sh.size() * sizeof(ElfW(Shdr)));
  std::vector<char> secnames(sh[eh.e_shstrndx].sh_size + 1, '\0');
  read_at(sh[eh.e_shstrndx].sh_offset, secnames.data(), sh[eh.e_shstrndx].sh_size);
  auto section_name = [&](const ElfW(Shdr) & s) {
    return s.sh_name < secnames.size() - 1 ? std::string(&secnames[s.sh_name]) : std::string();
  };

  // The writable sections: data (.data, .bss) whose symbols are checked; init and fini arrays
  // whose entries are checked; the runtime's; anything else is the program's own.
  std::vector<bool> data(sh.size(), false);
  std::size_t init_array = 0, fini_array = 0; // section indices (0: none)
  std::uint64_t data_bytes = 0;
  for (std::size_t i = 1; i < sh.size(); ++i) {
    const ElfW(Shdr) &s = sh[i];
    if (!(s.sh_flags & SHF_ALLOC) || s.sh_size == 0) continue;
    const std::string name = section_name(s);
    if (s.sh_flags & SHF_TLS) return "it has thread_local variables (" + name + ")";
    if (!(s.sh_flags & SHF_WRITE)) continue;
    if (s.sh_type == SHT_PREINIT_ARRAY) return "it has a preinit array";
    if (s.sh_type == SHT_INIT_ARRAY) {
      init_array = i;
    } else if (s.sh_type == SHT_FINI_ARRAY) {
      fini_array = i;
    } else if (name == ".data" || name == ".bss") {
      data[i] = true;
      data_bytes += s.sh_size;
    } else if (!runtime_section(name)) {
      return "it has the writable section " + (name.empty() ? "(unnamed)" : name);
    }
  }

  // The symbol table: every symbol in .data/.bss is the runtime's; the init and fini arrays hold
  // only the runtime's entries (frame_dummy, __do_global_dtors_aux, libampi_start's); no exit
  // handler is registered.
  const ElfW(Shdr) *symtab = nullptr;
  for (const ElfW(Shdr) & s : sh)
    if (s.sh_type == SHT_SYMTAB && s.sh_link < sh.size()) symtab = &s;
  if (!symtab) return "it is stripped (no symbol table: what it defines cannot be told)";
  std::vector<ElfW(Sym)> syms(symtab->sh_size / sizeof(ElfW(Sym)));
  read_at(symtab->sh_offset, syms.data(), syms.size() * sizeof(ElfW(Sym)));
  const ElfW(Shdr) &strs = sh[symtab->sh_link];
  std::vector<char> names(strs.sh_size + 1, '\0');
  read_at(strs.sh_offset, names.data(), strs.sh_size);
  auto name_of = [&](const ElfW(Sym) & s) {
    return s.st_name < strs.sh_size ? std::string(&names[s.st_name]) : std::string();
  };
  std::string file; // the source file of the local symbols that follow its STT_FILE entry
  std::vector<std::string> own;
  std::set<std::uint64_t> init_entries, fini_entries;
  for (const ElfW(Sym) & s : syms) {
    const unsigned type = ELF64_ST_TYPE(s.st_info), bind = ELF64_ST_BIND(s.st_info);
    const std::string name = name_of(s);
    if (type == STT_FILE) {
      file = name;
      continue;
    }
    if (type == STT_SECTION) continue;
    // Imported from libc, or linked in (glibc's atexit comes from libc_nonshared.a).
    if (exit_handler_import(name)) return "it registers exit handlers (" + name + ")";
    if (s.st_shndx == SHN_UNDEF) continue;
    if (s.st_shndx == SHN_ABS && (type == STT_OBJECT || type == STT_TLS))
      return "it defines an absolute variable (" + name + ")";
    if (s.st_shndx >= sh.size()) continue;
    if (s.st_shndx == init_array && init_array) {
      if (name == "__frame_dummy_init_array_entry" || name == "ampi_start_entry")
        init_entries.insert(s.st_value);
      continue;
    }
    if (s.st_shndx == fini_array && fini_array) {
      if (name == "__do_global_dtors_aux_fini_array_entry") fini_entries.insert(s.st_value);
      continue;
    }
    if (!data[s.st_shndx]) continue;
    const bool runtime = bind == STB_LOCAL ? runtime_local(file, name) : runtime_global(name);
    if (!runtime && own.size() < 4) own.push_back(name.empty() ? "(unnamed)" : name);
  }
  if (!own.empty()) {
    std::string list;
    for (std::size_t i = 0; i < own.size() && i < 3; ++i)
      list += (i ? ", " : "") + own[i];
    if (own.size() > 3) list += ", ...";
    return "it defines writable variables (" + list + ")";
  }
  // Each entry of the arrays is one 8-byte pointer; one without a runtime symbol at its address
  // is a constructor or destructor of the program's own.
  if (init_array && sh[init_array].sh_size > init_entries.size() * sizeof(void *))
    return "it has constructors of its own";
  if (fini_array && sh[fini_array].sh_size > fini_entries.size() * sizeof(void *))
    return "it has destructors of its own";
  if (data_bytes > kRuntimeBytes)
    return "its .data and .bss hold " + std::to_string(data_bytes) +
           " bytes, more than the C runtime's start files put there";
  return {};
}

} // namespace ampi::privatize
