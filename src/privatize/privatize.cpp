// src/privatize/privatize.cpp — per-rank copies of the program (see privatize.hpp).
//
// How: the program is a position-independent executable (mpicc links with -pie and compiles with
// -fPIC). Two loaders (AMPI_PRIVATIZE_LOADER):
// - map (default "auto" too): the executable's file is copied once, as a template (DF_1_PIE
// cleared, init and
//   fini arrays emptied), and loaded with dlopen(RTLD_NOW | RTLD_LOCAL): glibc resolves its
//   symbols, but never runs it. Each rank's copy is then the program file's segments mapped at a
//   fresh address, with the template's relocations replayed (copy_maker.hpp): linear in the
//   number of ranks, where n dlopens cost O(n^2) (glibc's per-call work grows with the objects
//   loaded: 36 s for 8,000 copies). Used unless a debugger is attached at start (it finds objects
//   through the loader's list), a sanitizer runtime is loaded (default "auto" only: its reports
//   symbolize through the same list) or the program needs what only the loader does (copy_maker's
//   why_not(), told by AMPI_VERBOSE).
// - dlopen: for each rank, the executable's file is copied into a private directory, DF_1_PIE is
//   cleared in the copy's dynamic section (glibc refuses to dlopen a PIE), and the copy is loaded
//   with dlopen(RTLD_LOCAL).
// Either way each copy has its own .data and .bss; its references to libc, libampi and the other
// libraries bind to the ones already loaded. Code compiled with -fPIC reaches the program's own
// globals PC-relative (the linker relaxes the GOT loads of an executable), so each copy uses its
// own; libraries' variables (optind, std::cout) go through the GOT to the one shared instance. A
// dlopened rank's copy holds only the loaded part of the file, with a .gnu_debuglink to one full
// copy next to it, where gdb finds the symbols. The files stay (in tmpfs when /dev/shm is usable)
// while the process lives; a small cleaner process removes the directory when the process ends,
// however it ends.
#include "privatize/privatize.hpp"

#include "core/device_reset.hpp"
#include "core/pe.hpp"
#include "privatize/copy_maker.hpp"
#include "privatize/dynamic.hpp"
#include "privatize/libc_state.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <stdexcept>

extern "C" void __cxa_finalize(void *dso);
// Present when a sanitizer runtime (ASan, UBSan, LSan, TSan) is in the process.
extern "C" void __sanitizer_print_stack_trace() __attribute__((weak));

namespace ampi::privatize {

Programs *Programs::current_ = nullptr;

namespace {

// Set while a rank's copy is being loaded: where its start object leaves the copy's main and
// __dso_handle.
struct Loading {
  MainFn main = nullptr;
  void *dso = nullptr;
};
thread_local Loading *loading = nullptr;

[[noreturn]] void fail(const std::string &what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

// Variables of libraries that a program compiled without -fPIC reaches through copy relocations,
// and that are never assigned after start-up: a per-copy snapshot of them is as good as the
// original.
bool constant_after_start(const std::string &name) {
  return name == "stdin" || name == "stdout" || name == "stderr";
}

bool system_library(const char *path) {
  static constexpr const char *kSystem[] = {"/lib/",       "/lib64/",       "/usr/lib/",
                                            "/usr/lib64/", "/usr/libexec/", "/usr/local/cuda"};
  for (const char *p : kSystem)
    if (std::strncmp(path, p, std::strlen(p)) == 0) return true;
  return false;
}

void do_nothing(int, char **, char **) {
}

// Whether a debugger traces us (TracerPid in /proc/self/status is not 0).
bool under_debugger() {
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char *t = std::strstr(buf, "TracerPid:");
  return t && std::strtol(t + 10, nullptr, 10) != 0;
}

struct MainObject {
  ElfW(Addr) bias = 0;
  bool found = false;
};

int find_main_object(dl_phdr_info *info, std::size_t, void *data) {
  auto *m = static_cast<MainObject *>(data);
  m->bias = info->dlpi_addr; // the first object listed is the program
  m->found = true;
  return 1;
}

// A directory for the copies: `chosen` (AMPI_PRIVATIZE_DIR), else /dev/shm, $TMPDIR, /tmp; the
// first that is writable and lets us map files executable.
std::string pick_directory(const std::string &chosen) {
  std::vector<std::string> candidates;
  if (!chosen.empty()) candidates.push_back(chosen);
  candidates.emplace_back("/dev/shm");
  if (const char *d = std::getenv("TMPDIR"); d && *d) candidates.emplace_back(d);
  candidates.emplace_back("/tmp");
  for (const std::string &c : candidates) {
    struct statvfs vfs {};
    if (::access(c.c_str(), W_OK | X_OK) != 0 || ::statvfs(c.c_str(), &vfs) != 0) continue;
    if (vfs.f_flag & ST_NOEXEC) continue;
    return c;
  }
  throw std::runtime_error("no writable directory without noexec for the per-rank copies "
                           "(set AMPI_PRIVATIZE_DIR)");
}

// Removes the files of `dir` and the directory itself (async-signal-safe apart from opendir,
// which glibc makes safe after fork).
void remove_directory(const char *dir) {
  if (DIR *d = ::opendir(dir)) {
    const int dfd = ::dirfd(d);
    while (dirent *e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        ::unlinkat(dfd, e->d_name, 0);
    }
    ::closedir(d);
  }
  ::rmdir(dir);
}

// Forks the cleaner: a process that waits until every copy of the returned descriptor is closed
// (this process has ended, however) and then removes `dir`. It leaves our process group and
// ignores the job's signals, so that it outlives a SIGKILL of the group by the moment it needs.
int start_cleaner(const std::string &dir) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("pipe");
  const pid_t pid = ::fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    ::setsid();
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2})
      ::signal(s, SIG_IGN);
    if (int null = ::open("/dev/null", O_RDWR); null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
    const int keep = fds[0];
    for (int fd = 3; fd < 65536; ++fd) // no close_range: it may be missing from older kernels
      if (fd != keep && ::fcntl(fd, F_GETFD) >= 0) ::close(fd);
    char c;
    while (::read(keep, &c, 1) != 0 && errno == EINTR) {
    }
    remove_directory(dir.c_str());
    ::_exit(0);
  }
  ::close(fds[0]);
  return fds[1];
}

} // namespace

// ---- Image -------------------------------------------------------------------------------------

Image::Image() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  path_ = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("/proc/self/exe");
  fd_ = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    problem_ = std::string("cannot read the program file: ") + std::strerror(errno);
    return;
  }
  struct stat st {};
  ::fstat(fd_, &st);
  size_ = static_cast<std::uint64_t>(st.st_size);
  try {
    scan();
  } catch (const std::exception &e) {
    problem_ = e.what();
  }
}

Image::~Image() {
  if (fd_ >= 0) ::close(fd_);
}

Image::Image(Image &&o) noexcept
    : fd_(o.fd_), size_(o.size_), path_(std::move(o.path_)), problem_(std::move(o.problem_)),
      notes_(std::move(o.notes_)), loads_(std::move(o.loads_)), flags1_offset_(o.flags1_offset_),
      flags1_(o.flags1_), init_array_(o.init_array_), init_array_size_(o.init_array_size_),
      fini_array_(o.fini_array_), fini_array_size_(o.fini_array_size_), relro_(o.relro_),
      relro_size_(o.relro_size_), textrel_(o.textrel_), dyn_(o.dyn_) {
  readable_ = o.readable_;
  o.fd_ = -1;
}

void Image::read_at(std::uint64_t offset, void *to, std::size_t n) const {
  if (offset > size_ || n > size_ - offset) throw std::runtime_error("truncated ELF file");
  auto *p = static_cast<char *>(to);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      fail("reading the program file");
    }
    p += got;
    n -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

std::uint64_t Image::file_offset(std::uint64_t vaddr) const {
  for (const Segment &s : loads_)
    if (vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz) return s.offset + (vaddr - s.vaddr);
  return ~std::uint64_t{0};
}

void Image::scan() {
  ElfW(Ehdr) eh{};
  read_at(0, &eh, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
    problem_ = "the program is not a 64-bit ELF file";
    return;
  }
  std::vector<ElfW(Phdr)> ph(eh.e_phnum);
  read_at(eh.e_phoff, ph.data(), ph.size() * sizeof(ElfW(Phdr)));
  const ElfW(Phdr) *dynamic = nullptr;
  for (const auto &p : ph) {
    if (p.p_type == PT_LOAD)
      loads_.push_back({p.p_vaddr, p.p_offset, p.p_filesz, p.p_memsz, p.p_flags, p.p_align});
    if (p.p_type == PT_GNU_EH_FRAME) dyn_.eh_frame_hdr = p.p_vaddr;
    if (p.p_type == PT_DYNAMIC) dynamic = &p;
    if (p.p_type == PT_GNU_RELRO) {
      relro_ = p.p_vaddr;
      relro_size_ = p.p_memsz;
    }
  }
  if (!dynamic) {
    problem_ = "the program is statically linked";
    return;
  }
  std::vector<ElfW(Dyn)> dyn(dynamic->p_filesz / sizeof(ElfW(Dyn)));
  read_at(dynamic->p_offset, dyn.data(), dyn.size() * sizeof(ElfW(Dyn)));
  std::uint64_t rela = 0, relasz = 0, symtab = 0, strtab = 0;
  bool has_flags1 = false;
  for (std::size_t i = 0; i < dyn.size() && dyn[i].d_tag != DT_NULL; ++i) {
    const ElfW(Dyn) &d = dyn[i];
    switch (d.d_tag) {
    case DT_FLAGS_1:
      has_flags1 = true;
      flags1_ = d.d_un.d_val;
      flags1_offset_ = dynamic->p_offset + i * sizeof(ElfW(Dyn)) + offsetof(ElfW(Dyn), d_un.d_val);
      break;
    case DT_RELA:
      rela = dyn_.rela = d.d_un.d_ptr;
      break;
    case DT_RELASZ:
      relasz = dyn_.relasz = d.d_un.d_val;
      break;
    case DT_JMPREL:
      dyn_.jmprel = d.d_un.d_ptr;
      break;
    case DT_PLTRELSZ:
      dyn_.pltrelsz = d.d_un.d_val;
      break;
    case DT_PLTREL:
      dyn_.pltrel = d.d_un.d_val;
      break;
    case DT_REL:
      dyn_.rel = d.d_un.d_ptr;
      break;
    case DT_RELSZ:
      dyn_.relsz = d.d_un.d_val;
      break;
    case DT_RELR:
      dyn_.relr = d.d_un.d_ptr;
      break;
    case DT_RELRSZ:
      dyn_.relrsz = d.d_un.d_val;
      break;
    case DT_INIT:
      dyn_.init = d.d_un.d_ptr;
      break;
    case DT_TEXTREL:
      textrel_ = true;
      break;
    case DT_FLAGS:
      textrel_ |= (d.d_un.d_val & DF_TEXTREL) != 0;
      break;
    case DT_SYMTAB:
      symtab = dyn_.symtab = d.d_un.d_ptr;
      break;
    case DT_STRTAB:
      strtab = d.d_un.d_ptr;
      break;
    case DT_INIT_ARRAY:
      init_array_ = d.d_un.d_ptr;
      break;
    case DT_INIT_ARRAYSZ:
      init_array_size_ = d.d_un.d_val;
      dyn_.init_arraysz_at =
          dynamic->p_offset + i * sizeof(ElfW(Dyn)) + offsetof(ElfW(Dyn), d_un.d_val);
      break;
    case DT_FINI_ARRAY:
      fini_array_ = d.d_un.d_ptr;
      break;
    case DT_FINI_ARRAYSZ:
      fini_array_size_ = d.d_un.d_val;
      dyn_.fini_arraysz_at =
          dynamic->p_offset + i * sizeof(ElfW(Dyn)) + offsetof(ElfW(Dyn), d_un.d_val);
      break;
    default:
      break;
    }
  }
  readable_ = true;
  if (eh.e_type != ET_DYN || !has_flags1 || !(flags1_ & DF_1_PIE)) {
    problem_ = "the program is not a position-independent executable (linked with -no-pie?)";
    return;
  }
  // Copy relocations: variables of libraries that the program reaches directly (objects compiled
  // as -fPIE, the compilers' default, rather than mpicc's -fPIC). Each copy would get its own
  // snapshot of them while the library keeps using the shared one: optarg would never change.
  std::string copied;
  if (rela && relasz && symtab && strtab) {
    std::vector<ElfW(Rela)> rel(relasz / sizeof(ElfW(Rela)));
    read_at(file_offset(rela), rel.data(), rel.size() * sizeof(ElfW(Rela)));
    for (const auto &r : rel) {
      if (ELF64_R_TYPE(r.r_info) != kCopyReloc) continue;
      ElfW(Sym) sym{};
      read_at(file_offset(symtab) + ELF64_R_SYM(r.r_info) * sizeof sym, &sym, sizeof sym);
      char name[256] = {};
      const std::uint64_t at = file_offset(strtab) + sym.st_name;
      read_at(at, name, static_cast<std::size_t>(std::min<std::uint64_t>(255, size_ - at)));
      if (constant_after_start(name)) continue;
      copied += copied.empty() ? "" : ", ";
      copied += name;
    }
  }
  if (!copied.empty()) {
    problem_ = "it reaches library variables (" + copied +
               ") through copy relocations, from objects compiled without -fPIC (not with "
               "mpicc/mpicxx); rebuild them with mpicc or add -fPIC";
    return;
  }
  // Runtimes linked into the program (nvcc links the CUDA runtime statically by default): each
  // copy gets its own.
  if (contains_symbol(eh, "cudaMalloc"))
    notes_.emplace_back("it contains the CUDA runtime (linked statically, nvcc's default): each "
                        "rank's copy has its own, and a rank's cudaDeviceReset resets the device "
                        "for every rank of its process; link with `nvcc -cudart shared` to load "
                        "it once per process");
  // Libraries of the program's own: loaded once, so their globals are shared by the ranks.
  Dl_info self{};
  std::string ampi_dir;
  if (::dladdr(reinterpret_cast<void *>(&do_nothing), &self) && self.dli_fname) {
    ampi_dir = self.dli_fname;
    ampi_dir.erase(ampi_dir.find_last_of('/') + 1);
  }
  struct Acc {
    std::string ampi_dir, list;
  } acc{ampi_dir, {}};
  dl_iterate_phdr(
      [](dl_phdr_info *info, std::size_t, void *data) {
        auto *a = static_cast<Acc *>(data);
        const char *name = info->dlpi_name;
        if (!name || name[0] != '/' || system_library(name)) return 0;
        if (!a->ampi_dir.empty() &&
            std::strncmp(name, a->ampi_dir.c_str(), a->ampi_dir.size()) == 0)
          return 0;
        a->list += a->list.empty() ? "" : ", ";
        a->list += name;
        return 0;
      },
      &acc);
  if (!acc.list.empty())
    notes_.push_back("the global variables of its shared libraries (" + acc.list +
                     ") are shared by the ranks of a process");
}

bool Image::contains_symbol(const ElfW(Ehdr) & eh, const char *want) const {
  if (eh.e_shoff == 0 || eh.e_shnum == 0 || eh.e_shentsize != sizeof(ElfW(Shdr))) return false;
  std::vector<ElfW(Shdr)> sh(eh.e_shnum);
  read_at(eh.e_shoff, sh.data(), sh.size() * sizeof(ElfW(Shdr)));
  for (const auto &tab : sh) {
    if (tab.sh_type != SHT_SYMTAB || tab.sh_link >= sh.size()) continue;
    const ElfW(Shdr) &str = sh[tab.sh_link];
    std::vector<ElfW(Sym)> syms(tab.sh_size / sizeof(ElfW(Sym)));
    std::vector<char> names(str.sh_size + 1, '\0');
    read_at(tab.sh_offset, syms.data(), syms.size() * sizeof(ElfW(Sym)));
    read_at(str.sh_offset, names.data(), str.sh_size);
    for (const auto &sym : syms)
      if (sym.st_shndx != SHN_UNDEF && sym.st_name < str.sh_size &&
          std::strcmp(&names[sym.st_name], want) == 0)
        return true;
  }
  return false;
}

void Image::run_init_after(InitFn self, int argc, char **argv, char **envp) const {
  if (!init_array_ || fd_ < 0) return;
  auto *arr = reinterpret_cast<InitFn *>(program_bias() + init_array_);
  const std::size_t n = init_array_size_ / sizeof(InitFn);
  std::size_t i = 0;
  while (i < n && arr[i] != self)
    ++i;
  for (++i; i < n; ++i)
    arr[i](argc, argv, envp);
}

std::uintptr_t Image::program_bias() {
  MainObject m;
  dl_iterate_phdr(find_main_object, &m);
  return m.bias;
}

void Image::run_fini(std::uintptr_t bias) const {
  if (!fini_array_ || !fini_array_size_) return;
  auto *arr = reinterpret_cast<InitFn *>(bias + fini_array_);
  for (std::size_t i = fini_array_size_ / sizeof(InitFn); i-- > 0;)
    reinterpret_cast<void (*)()>(arr[i])();
}

void Image::disable_fini(std::uintptr_t bias) const {
  if (!fini_array_ || !fini_array_size_) return;
  const ElfW(Addr) at = bias + fini_array_;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const ElfW(Addr) lo = at & ~(page - 1);
  const ElfW(Addr) hi = (at + fini_array_size_ + page - 1) & ~(page - 1);
  // The array sits in the RELRO part (read-only after relocation), or in plain writable data.
  const bool relro = at >= bias + relro_ && at < bias + relro_ + relro_size_;
  if (relro) ::mprotect(reinterpret_cast<void *>(lo), hi - lo, PROT_READ | PROT_WRITE);
  auto *arr = reinterpret_cast<InitFn *>(at);
  for (std::size_t i = 0; i < fini_array_size_ / sizeof(InitFn); ++i)
    arr[i] = do_nothing;
  if (relro) ::mprotect(reinterpret_cast<void *>(lo), hi - lo, PROT_READ);
}

void Image::write_full(const std::string &to, bool loadable, bool inert) const {
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (out < 0) fail("creating " + to);
  std::uint64_t done = 0;
  loff_t in_off = 0, out_off = 0;
  while (done < size_) { // in-kernel copy; falls back to read/write across file systems
    const ssize_t n = ::copy_file_range(fd_, &in_off, out, &out_off, size_ - done, 0);
    if (n <= 0) break;
    done += static_cast<std::uint64_t>(n);
  }
  if (done < size_) {
    std::vector<char> buf(1 << 20);
    while (done < size_) {
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size_ - done));
      read_at(done, buf.data(), want);
      if (::pwrite(out, buf.data(), want, static_cast<off_t>(done)) != static_cast<ssize_t>(want)) {
        ::close(out);
        fail("writing " + to);
      }
      done += want;
    }
  }
  const std::uint64_t flags = flags1_ & ~std::uint64_t{DF_1_PIE};
  if (loadable && ::pwrite(out, &flags, sizeof flags, static_cast<off_t>(flags1_offset_)) !=
                      static_cast<ssize_t>(sizeof flags)) {
    ::close(out);
    fail("writing " + to);
  }
  const std::uint64_t none = 0;
  for (const std::uint64_t at : {dyn_.init_arraysz_at, dyn_.fini_arraysz_at})
    if (inert && at &&
        ::pwrite(out, &none, sizeof none, static_cast<off_t>(at)) !=
            static_cast<ssize_t>(sizeof none)) {
      ::close(out);
      fail("writing " + to);
    }
  ::close(out);
}

namespace {

// The CRC of .gnu_debuglink (zlib's CRC-32), as gdb checks it.
std::uint32_t crc32(std::uint32_t crc, const unsigned char *p, std::size_t n) {
  crc = ~crc;
  while (n--) {
    crc ^= *p++;
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

} // namespace

std::vector<char> Image::make_slim(const std::string &debug_name) const {
  ElfW(Ehdr) eh{};
  read_at(0, &eh, sizeof eh);
  if (eh.e_shoff == 0 || eh.e_shnum == 0 || eh.e_shstrndx == SHN_UNDEF ||
      eh.e_shstrndx >= SHN_LORESERVE || eh.e_shentsize != sizeof(ElfW(Shdr)))
    return {};
  std::uint64_t load_end = 0;
  for (const Segment &sg : loads_)
    load_end = std::max(load_end, sg.offset + sg.filesz);
  std::vector<ElfW(Phdr)> ph(eh.e_phnum);
  read_at(eh.e_phoff, ph.data(), ph.size() * sizeof(ElfW(Phdr)));
  for (const auto &p : ph) // everything the loader reads must lie in the kept part
    if (p.p_type != PT_GNU_STACK && p.p_offset + p.p_filesz > load_end) return {};
  if (eh.e_phoff + ph.size() * sizeof(ElfW(Phdr)) > load_end || flags1_offset_ + 8 > load_end)
    return {};
  std::vector<ElfW(Shdr)> sh(eh.e_shnum);
  read_at(eh.e_shoff, sh.data(), sh.size() * sizeof(ElfW(Shdr)));
  const ElfW(Shdr) &names = sh[eh.e_shstrndx];
  std::vector<char> oldnames(names.sh_size + 1, '\0');
  read_at(names.sh_offset, oldnames.data(), names.sh_size);

  // Keep the sections the program's memory is made of; drop symbols and debug information (gdb
  // reads them from the debug file that .gnu_debuglink names).
  std::vector<int> map(sh.size(), 0);
  std::vector<ElfW(Shdr)> kept{ElfW(Shdr){}};
  std::string newnames(1, '\0');
  for (std::size_t i = 1; i < sh.size(); ++i) {
    if (!(sh[i].sh_flags & SHF_ALLOC)) continue;
    if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_offset + sh[i].sh_size > load_end) return {};
    if (sh[i].sh_name >= names.sh_size) return {};
    map[i] = static_cast<int>(kept.size());
    ElfW(Shdr) s = sh[i];
    s.sh_name = static_cast<ElfW(Word)>(newnames.size());
    newnames += &oldnames[sh[i].sh_name];
    newnames += '\0';
    kept.push_back(s);
  }
  for (std::size_t i = 1; i < kept.size(); ++i) {
    ElfW(Shdr) &s = kept[i];
    s.sh_link = s.sh_link < map.size() ? static_cast<ElfW(Word)>(map[s.sh_link]) : 0;
    if ((s.sh_flags & SHF_INFO_LINK) || s.sh_type == SHT_REL || s.sh_type == SHT_RELA)
      s.sh_info = s.sh_info < map.size() ? static_cast<ElfW(Word)>(map[s.sh_info]) : 0;
  }

  // The debug file's CRC.
  std::uint32_t crc = 0;
  {
    std::vector<unsigned char> buf(1 << 20);
    for (std::uint64_t at = 0; at < size_;) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size_ - at));
      read_at(at, buf.data(), n);
      crc = crc32(crc, buf.data(), n);
      at += n;
    }
  }

  std::vector<char> out(load_end);
  read_at(0, out.data(), out.size());
  const std::uint64_t flags = flags1_ & ~std::uint64_t{DF_1_PIE};
  std::memcpy(out.data() + flags1_offset_, &flags, sizeof flags);
  auto align = [&out](std::size_t a) { out.resize((out.size() + a - 1) / a * a, '\0'); };

  align(4); // .gnu_debuglink: the file name, padding to 4, the CRC
  ElfW(Shdr) link{};
  link.sh_name = static_cast<ElfW(Word)>(newnames.size());
  newnames += ".gnu_debuglink";
  newnames += '\0';
  link.sh_type = SHT_PROGBITS;
  link.sh_offset = out.size();
  link.sh_addralign = 4;
  out.insert(out.end(), debug_name.begin(), debug_name.end());
  out.push_back('\0');
  align(4);
  const auto *c = reinterpret_cast<const char *>(&crc);
  out.insert(out.end(), c, c + 4);
  link.sh_size = out.size() - link.sh_offset;
  kept.push_back(link);

  ElfW(Shdr) strtab{};
  strtab.sh_name = static_cast<ElfW(Word)>(newnames.size());
  newnames += ".shstrtab";
  newnames += '\0';
  strtab.sh_type = SHT_STRTAB;
  strtab.sh_offset = out.size();
  strtab.sh_size = newnames.size();
  strtab.sh_addralign = 1;
  out.insert(out.end(), newnames.begin(), newnames.end());
  kept.push_back(strtab);

  align(8);
  auto *h = reinterpret_cast<ElfW(Ehdr) *>(out.data());
  h->e_shoff = out.size();
  h->e_shnum = static_cast<ElfW(Half)>(kept.size());
  h->e_shstrndx = static_cast<ElfW(Half)>(kept.size() - 1);
  const auto *k = reinterpret_cast<const char *>(kept.data());
  out.insert(out.end(), k, k + kept.size() * sizeof(ElfW(Shdr)));
  return out;
}

bool Image::share_readonly(std::uintptr_t bias, const std::string &path) const {
  if (textrel_ || fd_ < 0) return true;
  const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  auto down = [page](std::uint64_t x) { return x & ~(page - 1); };
  auto up = [page](std::uint64_t x) { return (x + page - 1) & ~(page - 1); };
  auto overlaps = [](std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
    return a < d && c < b;
  };
  const int copy = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  for (const Segment &sg : loads_) {
    if ((sg.flags & PF_W) || sg.memsz != sg.filesz || sg.filesz == 0) continue;
    const std::uint64_t vlo = down(sg.vaddr), vhi = up(sg.vaddr + sg.filesz);
    const std::uint64_t flo = down(sg.offset), fhi = up(sg.offset + sg.filesz);
    bool shared_page = false, shared_file_page = flo == 0; // keep the headers for debuggers
    for (const Segment &w : loads_) {
      if (!(w.flags & PF_W)) continue;
      shared_page |= overlaps(vlo, vhi, down(w.vaddr), up(w.vaddr + w.memsz));
      shared_file_page |= overlaps(flo, fhi, down(w.offset), up(w.offset + w.filesz));
    }
    if (shared_page) continue; // a page that writable data shares stays the copy's own
    const int prot = ((sg.flags & PF_R) ? PROT_READ : 0) | ((sg.flags & PF_X) ? PROT_EXEC : 0);
    void *at = reinterpret_cast<void *>(bias + vlo);
    if (::mmap(at, vhi - vlo, prot, MAP_PRIVATE | MAP_FIXED, fd_, static_cast<off_t>(flo)) != at) {
      if (copy >= 0) ::close(copy);
      return false;
    }
    if (copy >= 0 && !shared_file_page)
      ::fallocate(copy, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(flo),
                  static_cast<off_t>(fhi - flo));
  }
  if (copy >= 0) ::close(copy);
  return true;
}

// ---- Programs ----------------------------------------------------------------------------------

Programs::Programs(const Image &image, const std::string &directory, const std::string &loader)
    : image_(image) {
  const std::string &p = image_.path();
  base_ = p.substr(p.find_last_of('/') + 1);
  if (base_.empty() || base_.size() > 100) base_ = "program";
  std::string tmpl = pick_directory(directory) + "/ampi-" + std::to_string(::getpid()) + "-XXXXXX";
  if (!::mkdtemp(tmpl.data())) fail("creating a directory for the per-rank copies in " + tmpl);
  dir_ = tmpl;
  watcher_ = start_cleaner(dir_);
  current_ = this;
  // Mapped copies: glibc loads one template (relocated, its constructors disarmed), each rank's
  // copy replays its relocations (copy_maker.hpp). A debugger attached now sets its breakpoints
  // through the loader's list of objects, which mapped copies are not on: it gets dlopened ones.
  if (loader != "dlopen") {
    if (under_debugger()) {
      dlopen_reason_ = "a debugger is attached";
    } else if (loader == "auto" && __sanitizer_print_stack_trace) {
      // ASan's reports symbolize through the loader's list of objects, which mapped copies are
      // not on: frames in a copy would print as bare offsets (the sanitizer tests check names).
      dlopen_reason_ = "a sanitizer runtime is loaded";
    } else {
      const std::string path = dir_ + "/" + base_ + ".template";
      try {
        image.write_full(path, true, true);
        void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        link_map *map = nullptr;
        if (!handle || ::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map)
          throw std::runtime_error(std::string("cannot load its template: ") + ::dlerror());
        // cudaDeviceReset per rank: the template's GOT slot, which every copy takes.
        redirect_device_reset(*map);
        template_ = path;
        maker_ = std::make_unique<CopyMaker>(image, map->l_addr);
        dlopen_reason_ = maker_->why_not();
        if (!dlopen_reason_.empty()) maker_.reset();
      } catch (const std::exception &e) {
        dlopen_reason_ = e.what();
        maker_.reset();
      }
    }
  }
  if (maker_) return;
  // One full copy of the program, for gdb (the debug file of every rank's copy); the ranks' copies
  // then hold only what is loaded.
  try {
    image.write_full(dir_ + "/" + base_ + ".debug", false);
    slim_ = image.make_slim(base_ + ".debug");
  } catch (const std::exception &) {
    slim_.clear(); // full copies then
  }
}

std::size_t Programs::mappings_per_copy() const noexcept {
  return maker_ ? maker_->mappings_per_copy() : 5; // dlopened: measured, see core/pe.cpp
}

Programs::~Programs() {
  // The copies stay until the process has ended: what runs after this destructor (LeakSanitizer's
  // report at exit, a debugger, the dynamic loader's last destructors) still reads them. The
  // cleaner removes the directory once our end closes `watcher_`.
  current_ = nullptr;
}

void Programs::write_copy(const std::string &to) const {
  if (slim_.empty()) {
    image_.write_full(to, true);
    return;
  }
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (out < 0) fail("creating " + to);
  std::size_t done = 0;
  while (done < slim_.size()) {
    const ssize_t n = ::write(out, slim_.data() + done, slim_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(out);
      fail("writing " + to);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(out);
}

namespace {
// The program's static TLS block (its thread_local variables) on the calling thread, and its
// initialisation image. The copies' code reaches the variables at fixed offsets from the thread
// pointer (the linker's local-exec model for an executable), i.e. in this block of the program as
// started: per-rank TLS means swapping the block's contents when the PE switches ranks.
struct ProgramTls {
  std::byte *live = nullptr;
  const std::byte *image = nullptr;
  std::size_t filesz = 0, memsz = 0;
};
ProgramTls find_program_tls() {
  ProgramTls t;
  ::dl_iterate_phdr(
      [](dl_phdr_info *info, std::size_t, void *data) {
        auto &out = *static_cast<ProgramTls *>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &p = info->dlpi_phdr[i];
          if (p.p_type != PT_TLS || p.p_memsz == 0) continue;
          out.live = static_cast<std::byte *>(info->dlpi_tls_data);
          out.image = reinterpret_cast<const std::byte *>(info->dlpi_addr + p.p_vaddr);
          out.filesz = p.p_filesz;
          out.memsz = p.p_memsz;
        }
        return 1; // the first object is the program as started
      },
      &t);
  return t;
}
} // namespace

void setup_rank_images(ult::Scheduler &sched, const std::vector<std::unique_ptr<Rank>> &ranks) {
  std::vector<InitialImage> initial;
  // The program's thread_local variables, when ranks run copies of it: a fresh image per rank
  // (.tdata's initial values, .tbss zeroed), live whenever the rank's tasks run (the copy's
  // constructors may use them).
  if (Programs::active()) {
    const ProgramTls tls = find_program_tls();
    if (tls.live && tls.memsz) {
      InitialImage part{sched.add_region(tls.live, tls.memsz), std::vector<std::byte>(tls.memsz)};
      std::memcpy(part.bytes.data(), tls.image, tls.filesz);
      initial.push_back(std::move(part));
    }
  }
  for (InitialImage &part : setup_libc_state(sched))
    initial.push_back(std::move(part));
  if (!sched.has_regions()) return; // switches stay as cheap as without any of this
  for (const auto &r : ranks) {
    r->privatize.images = std::make_unique<std::byte[]>(sched.images_size());
    for (const InitialImage &part : initial)
      std::memcpy(r->privatize.images.get() + part.offset, part.bytes.data(), part.bytes.size());
    r->task.images = r->privatize.images.get();
  }
}

MainFn Programs::load(Rank &r, int argc, char **argv, char **envp) {
  const std::lock_guard lock(load_mutex_);
  if (maker_) {
    Loading loaded;
    try {
      const std::uintptr_t base = maker_->map();
      r.privatize.mapped = base;
      loading = &loaded;
      maker_->run_init(base, argc, argv, envp);
      loading = nullptr;
    } catch (const std::exception &e) {
      loading = nullptr;
      std::fprintf(stderr, "ampi: rank %d: cannot make its copy of the program: %s\n", r.world_rank,
                   e.what());
      Pe::abort_job(1);
    }
    if (!loaded.main) {
      std::fprintf(stderr,
                   "ampi: rank %d: its copy of the program did not announce its main (not linked "
                   "with mpicc's start-up object?)\n",
                   r.world_rank);
      Pe::abort_job(1);
    }
    r.privatize.program_dso = loaded.dso;
    return loaded.main;
  }
  (void)argc;
  (void)argv;
  (void)envp;
  const std::string path = dir_ + "/" + base_ + ".rank" + std::to_string(r.world_rank);
  try {
    write_copy(path);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ampi: rank %d: cannot make its copy of the program: %s\n", r.world_rank,
                 e.what());
    Pe::abort_job(1);
  }
  Loading loaded;
  loading = &loaded;
  void *handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  loading = nullptr;
  if (!handle) {
    std::fprintf(stderr, "ampi: rank %d: cannot load its copy of the program: %s\n", r.world_rank,
                 ::dlerror());
    Pe::abort_job(1);
  }
  if (!loaded.main) {
    std::fprintf(stderr,
                 "ampi: rank %d: its copy of the program did not announce its main (not linked "
                 "with mpicc's start-up object?)\n",
                 r.world_rank);
    Pe::abort_job(1);
  }
  link_map *map = nullptr;
  // A debugger attached by now has put its breakpoints into this copy's code as it was loaded:
  // that code must then stay the copy's own.
  if (!under_debugger() && ::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map &&
      !image_.share_readonly(map->l_addr, path)) {
    std::fprintf(stderr, "ampi: rank %d: cannot map the program's code into its copy: %s\n",
                 r.world_rank, std::strerror(errno));
    Pe::abort_job(1);
  }
  r.privatize.program = handle;
  r.privatize.program_dso = loaded.dso;
  if (link_map *copy = nullptr; ::dlinfo(handle, RTLD_DI_LINKMAP, &copy) == 0 && copy)
    redirect_device_reset(*copy);
  return loaded.main;
}

void Programs::unload(Rank &r) noexcept {
  void *handle = r.privatize.program;
  const std::uintptr_t mapped = r.privatize.mapped;
  if (!handle && !mapped) return;
  r.privatize.program = nullptr;
  r.privatize.mapped = 0;
  // As exit() does: first the atexit handlers and C++ destructors (LIFO), then the destructor
  // functions, on the rank's stack. The copy stays mapped until the process ends, as a finished
  // program's memory does until exit: what its globals point to is still reachable (leak checkers
  // see what they would see at exit), and its destructor functions are then disarmed so that the
  // process's exit does not run them again.
  // thread_local objects first, as a thread's exit runs them before exit()'s handlers.
  while (!r.privatize.tls_destructors.empty()) {
    const auto [fn, obj] = r.privatize.tls_destructors.back();
    r.privatize.tls_destructors.pop_back();
    fn(obj);
  }
  if (r.privatize.program_dso) __cxa_finalize(r.privatize.program_dso);
  if (mapped) { // unknown to the loader: nothing else runs its destructor functions
    image_.run_fini(mapped);
    return;
  }
  link_map *map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map) {
    image_.run_fini(map->l_addr);
    image_.disable_fini(map->l_addr);
  }
}

int Programs::rank_main(int argc, char **argv, char **envp) {
  Programs &self = *current_;
  Rank &r = Pe::get().current();
  const MainFn main = self.load(r, argc, argv, envp);
  const int code = main(argc, argv, envp);
  if (!r.initialized || r.finalized) self.unload(r); // otherwise the job is ending
  return code;
}

void Programs::unload_current(Rank &r) noexcept {
  if (current_) current_->unload(r);
}

bool Programs::take_loading_main(MainFn main, void *dso) noexcept {
  if (!loading) return false;
  loading->main = main;
  loading->dso = dso;
  return true;
}

} // namespace ampi::privatize

// The C++ run-time registers the destructor of each thread_local object here (glibc's
// implementation runs them when the thread exits). A rank's thread_local objects live in its own
// image of the program's TLS block: they are destroyed when the rank ends (Programs::unload), with
// its image live, instead of once per PE thread on whatever image is live then. Everything else
// (other threads, libraries' thread-locals, no per-rank images) goes to glibc.
extern "C" int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso) {
  using Fn = int (*)(void (*)(void *), void *, void *);
  static const Fn next = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, "__cxa_thread_atexit_impl"));
  if (ampi::Pe *pe = ampi::Pe::get_if(); pe && pe->scheduler().in_region(obj))
    if (ampi::Rank *r = pe->current_if(); r && r->privatize.images) {
      r->privatize.tls_destructors.emplace_back(fn, obj);
      return 0;
    }
  return next ? next(fn, obj, dso) : 0;
}
