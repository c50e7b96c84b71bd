// src/privatize/copy_maker.hpp — per-rank copies of the program made without the dynamic loader,
// in time linear in the number of ranks. glibc's dlopen costs O(loaded objects) per call (it
// compares the new name with every loaded object's, appends to the namespace list, rebuilds
// _dl_find_object's sorted array): n dlopened copies cost O(n^2), 36 s for 8,000 ranks. Here
// glibc loads one template copy (constructors disarmed, never run) and resolves every symbol;
// each rank's copy is then the program file's PT_LOAD segments mapped privately at a fresh base,
// with the template's relocations replayed: a word that points into the template points to the
// same offset in the copy, any other word (libc, libampi, ...) keeps the template's value.
// Then RELRO is made read-only, the copy's .eh_frame registered with the unwinder (libgcc asks
// registered objects before the loader, so exceptions unwind through the copy), and its
// constructors run. The copies are unknown to the dynamic loader: dladdr(), backtrace_symbols()
// and debuggers see no object at their addresses (a debugger attached at start gets dlopened
// copies, see privatize.cpp).
#pragma once

#include "privatize/privatize.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ampi::privatize {

class CopyMaker {
public:
  // From the template: `image`'s file, loaded by glibc at `template_base` with empty init and
  // fini arrays (Image::write_full(inert)) and every symbol bound (RTLD_NOW). why_not() says
  // what the mapped copies cannot reproduce (then copies must be dlopened).
  CopyMaker(const Image &image, std::uintptr_t template_base);
  ~CopyMaker();
  CopyMaker(const CopyMaker &) = delete;
  CopyMaker &operator=(const CopyMaker &) = delete;

  const std::string &why_not() const noexcept { return why_not_; }
  // Maps, relocates and protects a new copy and registers its unwind table; returns its base
  // (the bias of its addresses). Throws std::runtime_error when a mapping fails.
  std::uintptr_t map();
  // Runs the constructors of the copy at `base` (DT_INIT, then the init array), as dlopen does.
  void run_init(std::uintptr_t base, int argc, char **argv, char **envp) const;
  // Mappings one copy takes (for vm.max_map_count's pre-start check).
  std::size_t mappings_per_copy() const noexcept { return mappings_; }

private:
  enum class Kind : std::uint32_t { Rebase, Absolute, AddBase, Bytes };
  struct Fix {
    std::uint64_t offset;
    std::uint64_t value; // Rebase: base + value; Absolute: value; Bytes: index into bytes_
    Kind kind;
    std::uint32_t size; // Bytes only
  };
  void plan(std::uintptr_t b0);
  bool writable(std::uint64_t vaddr, std::uint64_t n) const noexcept;

  const Image &image_;
  std::string why_not_;
  std::uint64_t page_ = 4096, lo_ = 0, hi_ = 0, align_ = 4096; // span of the segments
  std::vector<Fix> fixes_;
  std::vector<unsigned char> bytes_; // contents of copy-relocated variables
  std::uint64_t eh_frame_ = 0;       // vaddr of .eh_frame (0: none)
  std::size_t mappings_ = 0;
  // libgcc's `struct object` for each registered .eh_frame (it keeps them in a list: they must
  // not move), with the frames' addresses, deregistered by the destructor.
  struct FrameObject {
    alignas(16) void *words[16];
  };
  std::mutex lock_;
  std::vector<std::pair<std::unique_ptr<FrameObject>, const void *>> frames_;
};

} // namespace ampi::privatize
