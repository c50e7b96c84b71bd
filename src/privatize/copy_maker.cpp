// src/privatize/copy_maker.cpp — per-rank copies mapped and relocated without the dynamic loader
// (see copy_maker.hpp).
#include "privatize/copy_maker.hpp"

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

// libgcc's registry of unwind tables (the unwinder searches it before asking the loader).
extern "C" void __register_frame_info(const void *begin, void *object);
extern "C" void *__deregister_frame_info(const void *begin);
// LeakSanitizer scans the loader's objects for pointers; the copies' data must be scanned too
// (a program's global holding a malloc'd block is no leak). Present only in sanitizer builds.
extern "C" void __lsan_register_root_region(const void *p, std::size_t size) __attribute__((weak));

namespace ampi::privatize {

namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kNone = R_X86_64_NONE, kRelative = R_X86_64_RELATIVE,
                        kIrelative = R_X86_64_IRELATIVE, kAbs64 = R_X86_64_64,
                        kGlobDat = R_X86_64_GLOB_DAT, kJumpSlot = R_X86_64_JUMP_SLOT,
                        kCopy = R_X86_64_COPY, kTpoff = R_X86_64_TPOFF64,
                        kDtpmod = R_X86_64_DTPMOD64, kDtpoff = R_X86_64_DTPOFF64;
#elif defined(__aarch64__)
constexpr std::uint32_t kNone = R_AARCH64_NONE, kRelative = R_AARCH64_RELATIVE,
                        kIrelative = R_AARCH64_IRELATIVE, kAbs64 = R_AARCH64_ABS64,
                        kGlobDat = R_AARCH64_GLOB_DAT, kJumpSlot = R_AARCH64_JUMP_SLOT,
                        kCopy = R_AARCH64_COPY, kTpoff = R_AARCH64_TLS_TPREL64,
                        kDtpmod = R_AARCH64_TLS_DTPMOD64, kDtpoff = R_AARCH64_TLS_DTPREL64;
#else
#error "privatize: unknown architecture (need its relocation types)"
#endif

std::uint64_t down(std::uint64_t x, std::uint64_t a) {
  return x & ~(a - 1);
}
std::uint64_t up(std::uint64_t x, std::uint64_t a) {
  return (x + a - 1) & ~(a - 1);
}

[[noreturn]] void fail(const char *what) {
  throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

int prot_of(std::uint32_t flags) {
  return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
         ((flags & PF_X) ? PROT_EXEC : 0);
}

// Unmaps a reservation unless released (a copy that failed half-way).
struct Reservation {
  void *at = nullptr;
  std::size_t size = 0;
  ~Reservation() {
    if (at) ::munmap(at, size);
  }
};

} // namespace

CopyMaker::CopyMaker(const Image &image, std::uintptr_t template_base) : image_(image) {
  page_ = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  align_ = page_;
  if (image_.loads_.empty()) {
    why_not_ = "it has no loadable segments";
    return;
  }
  if (image_.textrel_) {
    why_not_ = "it has text relocations";
    return;
  }
  lo_ = ~std::uint64_t{0};
  for (const Image::Segment &s : image_.loads_) {
    lo_ = std::min(lo_, down(s.vaddr, page_));
    hi_ = std::max(hi_, up(s.vaddr + s.memsz, page_));
    if (s.align > align_ && (s.align & (s.align - 1)) == 0) align_ = s.align;
    if (s.memsz > s.filesz && !(s.flags & PF_W)) {
      why_not_ = "it has a read-only segment larger in memory than in the file";
      return;
    }
  }
  plan(template_base);
  if (!why_not_.empty()) return;
  // .eh_frame, from .eh_frame_hdr's pointer to it (the linker's encoding: pc-relative, 4 bytes).
  if (image_.dyn_.eh_frame_hdr) {
    const auto *hdr =
        reinterpret_cast<const unsigned char *>(template_base + image_.dyn_.eh_frame_hdr);
    if (hdr[0] != 1 || hdr[1] != 0x1b) { // DW_EH_PE_pcrel | DW_EH_PE_sdata4
      why_not_ = "its unwind table header has an unusual encoding";
      return;
    }
    std::int32_t rel = 0;
    std::memcpy(&rel, hdr + 4, sizeof rel);
    eh_frame_ = image_.dyn_.eh_frame_hdr + 4 + static_cast<std::uint64_t>(std::int64_t{rel});
  }
  // Mappings per copy: each segment's file part and zero-fill part, the RELRO split.
  for (const Image::Segment &s : image_.loads_)
    mappings_ +=
        (s.filesz ? 1 : 0) + (up(s.vaddr + s.memsz, page_) > up(s.vaddr + s.filesz, page_));
  if (image_.relro_size_) mappings_ += 1;
}

CopyMaker::~CopyMaker() {
  // Newest first: libgcc (GCC 12) keeps the registered tables in a list that each registration
  // pushes at the head and each deregistration searches from it, so the oldest first cost
  // O(copies^2): 2% of a 1,000-rank launch with copies.
  for (auto f = frames_.rbegin(); f != frames_.rend(); ++f)
    __deregister_frame_info(f->second);
}

bool CopyMaker::writable(std::uint64_t vaddr, std::uint64_t n) const noexcept {
  for (const Image::Segment &s : image_.loads_)
    if ((s.flags & PF_W) && vaddr >= s.vaddr && vaddr + n <= s.vaddr + s.memsz) return true;
  return false;
}

// Reads every relocation once, from the template in memory (its tables are read-only, as the
// file has them), and records what a copy's word at that offset must hold.
void CopyMaker::plan(std::uintptr_t b0) {
  const Image::DynamicInfo &d = image_.dyn_;
  if (d.relsz || (d.pltrelsz && d.pltrel != DT_RELA)) {
    why_not_ = "it has REL relocations";
    return;
  }
  const auto *symtab = reinterpret_cast<const ElfW(Sym) *>(b0 + d.symtab);
  auto word = [b0](std::uint64_t off) {
    std::uint64_t v;
    std::memcpy(&v, reinterpret_cast<const void *>(b0 + off), sizeof v);
    return v;
  };
  auto inside = [&](std::uint64_t v) { return v >= b0 + lo_ && v < b0 + hi_; };
  for (const auto &[at, size] : {std::pair{d.rela, d.relasz}, std::pair{d.jmprel, d.pltrelsz}}) {
    if (!at || !size) continue;
    const auto *rel = reinterpret_cast<const ElfW(Rela) *>(b0 + at);
    for (std::size_t i = 0; i < size / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela) &r = rel[i];
      const std::uint32_t type = ELF64_R_TYPE(r.r_info);
      const std::size_t symi = ELF64_R_SYM(r.r_info);
      if (type == kNone) continue;
      const ElfW(Sym) *sym = symi && d.symtab ? &symtab[symi] : nullptr;
      const bool own = sym && sym->st_shndx != SHN_UNDEF;
      const std::uint64_t size_of = type == kCopy && sym ? sym->st_size : 8;
      if (!writable(r.r_offset, size_of)) {
        why_not_ = "it has relocations outside its writable segments";
        return;
      }
      const auto addend = static_cast<std::uint64_t>(r.r_addend);
      if (type == kRelative) {
        fixes_.push_back({r.r_offset, addend, Kind::Rebase, 0});
      } else if (type == kIrelative || type == kAbs64 || type == kGlobDat || type == kJumpSlot) {
        // Bound to the template itself (its own function or variable, an ifunc's choice among
        // its own): the copy's own; anything else as glibc bound it.
        const std::uint64_t v = word(r.r_offset);
        const bool self =
            inside(v) || (own && type != kIrelative && v == b0 + sym->st_value + addend);
        fixes_.push_back({r.r_offset, self ? v - b0 : v, self ? Kind::Rebase : Kind::Absolute, 0});
      } else if (type == kCopy) {
        // Variables of libraries copied into the program (stdin, stdout, stderr: the others make
        // Image refuse copies): the template's untouched copy.
        const auto *p = reinterpret_cast<const unsigned char *>(b0 + r.r_offset);
        fixes_.push_back(
            {r.r_offset, bytes_.size(), Kind::Bytes, static_cast<std::uint32_t>(size_of)});
        bytes_.insert(bytes_.end(), p, p + size_of);
      } else if ((type == kTpoff || type == kDtpmod || type == kDtpoff) && sym && !own) {
        fixes_.push_back({r.r_offset, word(r.r_offset), Kind::Absolute, 0}); // libc's errno...
      } else {
        why_not_ = "it has relocations of type " + std::to_string(type) +
                   (type == kTpoff || type == kDtpmod || type == kDtpoff
                        ? " (thread-local variables of its own reached through the loader)"
                        : "");
        return;
      }
    }
  }
  if (d.relr && d.relrsz) { // packed relative relocations: the word holds the addend
    const auto *e = reinterpret_cast<const std::uint64_t *>(b0 + d.relr);
    std::uint64_t where = 0;
    for (std::size_t i = 0; i < d.relrsz / 8; ++i) {
      std::uint64_t entry = e[i];
      if ((entry & 1) == 0) {
        fixes_.push_back({entry, 0, Kind::AddBase, 0});
        where = entry + 8;
      } else {
        for (std::uint64_t k = 0; (entry >>= 1) != 0; ++k)
          if (entry & 1) fixes_.push_back({where + k * 8, 0, Kind::AddBase, 0});
        where += 63 * 8;
      }
    }
  }
  std::sort(fixes_.begin(), fixes_.end(),
            [](const Fix &a, const Fix &b) { return a.offset < b.offset; });
}

std::uintptr_t CopyMaker::map() {
  const std::uint64_t span = hi_ - lo_;
  Reservation res;
  res.size = span + align_ - page_;
  res.at = ::mmap(nullptr, res.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (res.at == MAP_FAILED) {
    res.at = nullptr;
    fail("reserving address space for a copy of the program");
  }
  const auto r0 = reinterpret_cast<std::uintptr_t>(res.at);
  const std::uintptr_t start = up(r0, align_);
  if (start > r0) ::munmap(res.at, start - r0);
  if (r0 + res.size > start + span)
    ::munmap(reinterpret_cast<void *>(start + span), r0 + res.size - (start + span));
  res.at = reinterpret_cast<void *>(start);
  res.size = span;
  const std::uintptr_t base = start - lo_;

  std::uintptr_t mapped_to = start; // what lies below is mapped (or a gap given back)
  for (const Image::Segment &s : image_.loads_) {
    const int prot = prot_of(s.flags);
    const std::uintptr_t lo = base + down(s.vaddr, page_);
    std::uintptr_t file_end = lo;
    if (lo > mapped_to) ::munmap(reinterpret_cast<void *>(mapped_to), lo - mapped_to); // a hole
    if (s.filesz) {
      file_end = base + up(s.vaddr + s.filesz, page_);
      if (::mmap(reinterpret_cast<void *>(lo), file_end - lo, prot, MAP_PRIVATE | MAP_FIXED,
                 image_.fd_, static_cast<off_t>(down(s.offset, page_))) == MAP_FAILED)
        fail("mapping the program into a copy");
    }
    if (s.memsz > s.filesz) { // .bss: the rest of the file's last page, then fresh pages
      const std::uintptr_t zero = base + s.vaddr + s.filesz;
      if (file_end > zero) std::memset(reinterpret_cast<void *>(zero), 0, file_end - zero);
      const std::uintptr_t end = base + up(s.vaddr + s.memsz, page_);
      if (end > file_end && ::mmap(reinterpret_cast<void *>(file_end), end - file_end, prot,
                                   MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
        fail("mapping the program's zeroed data into a copy");
    }
    mapped_to = std::max<std::uintptr_t>(mapped_to, base + up(s.vaddr + s.memsz, page_));
  }

  for (const Fix &f : fixes_) {
    auto *at = reinterpret_cast<std::uint64_t *>(base + f.offset);
    switch (f.kind) {
    case Kind::Rebase:
      *at = base + f.value;
      break;
    case Kind::Absolute:
      *at = f.value;
      break;
    case Kind::AddBase:
      *at += base;
      break;
    case Kind::Bytes:
      std::memcpy(at, bytes_.data() + f.value, f.size);
      break;
    }
  }
  if (image_.relro_size_) { // as glibc: whole pages only
    const std::uintptr_t lo = down(base + image_.relro_, page_);
    const std::uintptr_t hi = down(base + image_.relro_ + image_.relro_size_, page_);
    if (hi > lo && ::mprotect(reinterpret_cast<void *>(lo), hi - lo, PROT_READ) != 0)
      fail("protecting a copy's relocated constants");
  }
  if (__lsan_register_root_region)
    for (const Image::Segment &s : image_.loads_)
      if (s.flags & PF_W)
        __lsan_register_root_region(reinterpret_cast<const void *>(base + s.vaddr), s.memsz);
  if (eh_frame_) {
    const auto *begin = reinterpret_cast<const void *>(base + eh_frame_);
    auto object = std::make_unique<FrameObject>();
    const std::lock_guard<std::mutex> hold(lock_);
    frames_.reserve(frames_.size() + 1);
    __register_frame_info(begin, object.get());
    frames_.emplace_back(std::move(object), begin);
  }
  res.at = nullptr; // the copy stays until the process ends
  return base;
}

void CopyMaker::run_init(std::uintptr_t base, int argc, char **argv, char **envp) const {
  if (image_.dyn_.init) reinterpret_cast<void (*)()>(base + image_.dyn_.init)();
  if (!image_.init_array_) return;
  const auto *arr = reinterpret_cast<const InitFn *>(base + image_.init_array_);
  for (std::size_t i = 0; i < image_.init_array_size_ / sizeof(InitFn); ++i)
    arr[i](argc, argv, envp);
}

} // namespace ampi::privatize
