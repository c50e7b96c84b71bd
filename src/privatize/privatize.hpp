// src/privatize/privatize.hpp — per-rank copies of the program: when several ranks share a
// process, each rank runs its own copy of the executable (mapped from one template, or a private
// file loaded with dlopen), so that the program's global and static variables, its constructors
// and destructors and its atexit handlers are per rank, while libc, libstdc++, libampi and every
// other library are loaded once. Also what the program file is (Image: PIE or not, copy
// relocations, TLS, init/fini arrays).
#pragma once

#include <link.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ampi {
class Rank;
}
namespace ampi::ult {
class Scheduler;
}

namespace ampi::privatize {

class CopyMaker;

using MainFn = int (*)(int, char **, char **);
using InitFn = void (*)(int, char **, char **);

// The running executable (/proc/self/exe), read from its file.
class Image {
public:
  // Reads the headers of the running program. On failure, problem() says why.
  Image();
  ~Image();
  Image(Image &&other) noexcept;
  Image &operator=(Image &&) = delete;
  Image(const Image &) = delete;

  // The file could be read, and its init array found.
  bool readable() const noexcept { return fd_ >= 0 && readable_; }
  // Empty when per-rank copies can be made; otherwise why not (for the start-up warning).
  const std::string &problem() const noexcept { return problem_; }
  // Cases that work but with limits worth a warning (thread_local variables, shared libraries
  // of the program's own).
  const std::vector<std::string> &notes() const noexcept { return notes_; }
  const std::string &path() const noexcept { return path_; }
  // Empty when the program has nothing a per-rank copy would make per rank: no writable data
  // beyond the C runtime's start files', no constructor, destructor, thread_local variable or
  // exit handler of its own (AMPI_PRIVATIZE=auto then runs no copies); otherwise what it has, or
  // why that cannot be told (a stripped program). Reads the section headers and the symbol table
  // (own_data.cpp); throws std::runtime_error on a truncated file.
  std::string own_state() const;

  // The program as started: runs its constructors that come after `self` in its init array (when
  // nothing is privatized, the program's own constructors run once, from here).
  void run_init_after(InitFn self, int argc, char **argv, char **envp) const;
  // The program as started never ran its constructors (the copies did): its destructor functions
  // must not run at exit either. With `bias`: the same for a copy loaded there (whose destructor
  // functions have run already).
  void disable_fini() const { disable_fini(program_bias()); }
  void disable_fini(std::uintptr_t bias) const;
  // Runs the destructor functions (fini array, last first) of the copy loaded at `bias`.
  void run_fini(std::uintptr_t bias) const;
  // Where the program as started is loaded.
  static std::uintptr_t program_bias();

  // Writes the whole file to `path`; `loadable`: with DF_1_PIE cleared (glibc's dlopen refuses a
  // PIE); `inert`: also with empty init and fini arrays (glibc relocates it but runs none of its
  // constructors or destructors: the template of mapped copies, copy_maker.hpp).
  void write_full(const std::string &path, bool loadable, bool inert = false) const;
  // A slim loadable copy: only the loaded part of the file (DF_1_PIE cleared) and its section
  // headers, with a .gnu_debuglink to `debug_name` (the whole file, next to the copies) where gdb
  // finds the symbols and debug information. Empty when the file's layout does not allow it.
  std::vector<char> make_slim(const std::string &debug_name) const;
  // After the copy at `path` is loaded at `bias`: maps its read-only segments (code, constants,
  // unwind tables: identical in every copy, never relocated) from the program's own file instead,
  // so that all ranks share those pages, and frees them from the copy's file (but for the first
  // page, the headers that debuggers read). Returns false if mapping failed (the copy's pages are
  // then gone: the caller must stop).
  bool share_readonly(std::uintptr_t bias, const std::string &path) const;

private:
  friend class CopyMaker; // maps copies from the file's layout (copy_maker.hpp)
  struct Segment {
    std::uint64_t vaddr, offset, filesz, memsz;
    std::uint32_t flags;
    std::uint64_t align;
  };
  // What the dynamic section says about relocations and start-up (vaddrs, bytes; 0: none), and
  // where in the file the sizes of the init and fini arrays are (to disarm them in a copy).
  struct DynamicInfo {
    std::uint64_t rela = 0, relasz = 0, jmprel = 0, pltrelsz = 0, pltrel = DT_RELA;
    std::uint64_t rel = 0, relsz = 0, relr = 0, relrsz = 0, symtab = 0;
    std::uint64_t init = 0;                                 // DT_INIT
    std::uint64_t eh_frame_hdr = 0;                         // PT_GNU_EH_FRAME
    std::uint64_t init_arraysz_at = 0, fini_arraysz_at = 0; // file offsets of the values
  };
  std::uint64_t file_offset(std::uint64_t vaddr) const; // ~0 if not in the file
  void read_at(std::uint64_t offset, void *to, std::size_t n) const;
  void scan();
  // Whether the file's symbol table (if not stripped) defines `name`.
  bool contains_symbol(const ElfW(Ehdr) & eh, const char *name) const;

  int fd_ = -1;
  bool readable_ = false;
  std::uint64_t size_ = 0;
  std::string path_;
  std::string problem_;
  std::vector<std::string> notes_;
  std::vector<Segment> loads_;
  std::uint64_t flags1_offset_ = 0; // file offset of DT_FLAGS_1's value
  std::uint64_t flags1_ = 0;
  std::uint64_t init_array_ = 0, init_array_size_ = 0; // vaddr, bytes
  std::uint64_t fini_array_ = 0, fini_array_size_ = 0;
  std::uint64_t relro_ = 0, relro_size_ = 0; // PT_GNU_RELRO: vaddr, bytes
  bool textrel_ = false;                     // relocations in read-only segments
  DynamicInfo dyn_;
};

// The copies of the program that this process's ranks run.
class Programs {
public:
  // `image` must have no problem() and outlive this. `directory`: AMPI_PRIVATIZE_DIR (empty:
  // the first usable of /dev/shm, $TMPDIR, /tmp). `loader`: AMPI_PRIVATIZE_LOADER, "map" (copies
  // mapped from one template, copy_maker.hpp, unless a debugger is attached or the program needs
  // the dynamic loader) or "dlopen" (each copy a file loaded by dlopen). Throws when no directory
  // can hold the copies.
  Programs(const Image &image, const std::string &directory, const std::string &loader = "map");
  ~Programs();
  Programs(const Programs &) = delete;
  Programs &operator=(const Programs &) = delete;

  // Whether this process's ranks run copies (set before any rank starts).
  static bool active() noexcept { return current_ != nullptr; }
  // The MainFn the PE runs for every rank: loads the rank's copy (its constructors run, on the
  // rank's stack), runs the copy's main, and after a return from main
  // past MPI_Finalize unloads the copy (its destructors and atexit handlers run).
  static int rank_main(int argc, char **argv, char **envp);
  // exit() in a rank: runs its destructors (unloads its copy) if it has one.
  static void unload_current(Rank &r) noexcept;
  // Called by the start object of a copy being loaded: takes its main. False when no copy is
  // being loaded (the program as started).
  // `dso` is the copy's __dso_handle (its atexit handlers and C++ destructors are registered
  // under it).
  static bool take_loading_main(MainFn main, void *dso) noexcept;
  // Why the copies are dlopened although the loader setting says "map" (empty otherwise).
  const std::string &dlopen_reason() const noexcept { return dlopen_reason_; }
  // Whether `path` is the template of the mapped copies (code that never runs: not the library's).
  static bool is_template(const std::string &path) noexcept {
    return current_ && !current_->template_.empty() && path == current_->template_;
  }
  // Mappings each rank's copy takes (vm.max_map_count's pre-start check).
  std::size_t mappings_per_copy() const noexcept;

private:
  MainFn load(Rank &r, int argc, char **argv, char **envp);
  void unload(Rank &r) noexcept;

  // The process's copies: set before any rank starts, cleared after all have ended (read by the
  // ranks of every PE thread).
  static Programs *current_;
  // Writes rank's loadable copy to `path`: the slim one, or the whole file.
  void write_copy(const std::string &path) const;

  // SMP mode: the PEs of a process load their ranks' copies at once; the copy maker (its next
  // address, its mappings) and the loader's steps are serialised (once per rank start, never per
  // message).
  std::mutex load_mutex_;
  const Image &image_;
  std::vector<char> slim_; // the slim copy, if the file allows one
  std::string dir_;        // private directory of the copies (0700)
  std::string base_;       // the program's file name
  int watcher_ = -1;       // write end of the pipe whose closing tells the cleaner to remove dir_
  std::unique_ptr<CopyMaker> maker_; // mapped copies; nullptr: dlopened ones
  std::string dlopen_reason_;
  std::string template_; // its file, loaded by glibc
};

// Called by a PE, on its thread, before its ranks start: registers with `sched` the memory each
// rank has its own image of — the program's static TLS block (thread_local variables) when ranks
// run copies of a program that has one, libc's getopt state when the program uses getopt
// (libc_state.hpp) — and gives each rank's task its images, holding their initial values. With
// none of these, nothing is registered and switches cost what they did without.
void setup_rank_images(ult::Scheduler &sched, const std::vector<std::unique_ptr<Rank>> &ranks);

} // namespace ampi::privatize
