// src/handles/handle.hpp — MPI handles: the one list of handle kinds (which bits say what object
// a handle names), how a handle encodes an index, and HandleTable, the per-rank table that maps
// the handles of one kind to their objects. Every kind of MPI object a program can create
// (communicators, groups, derived datatypes, requests, windows, info objects, error handlers,
// reduction operations, matched messages, attribute keys) uses this table.
//
// It includes nothing else of the library (not even mpi.h: every MPI handle is an int), so any
// area can use it without depending on another. src/handles/kinds.cpp checks at compile time
// that the kinds below give mpi.h's predefined and null handles.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ampi::handles {

// mpi.h's MPI_Comm, MPI_Request, ... (MPI_File, a pointer, is no handle of this kind).
using Handle = int;

// The layout of a handle (MPICH's numbering, which mpi.h follows): the top byte says what the
// handle is, the low 24 bits number the object within its kind. `prefix` is the top byte in
// place. `first` is the number of the first object a table hands out: where predefined objects
// share the prefix, a table's objects come after them (MPI_ERRORS_RETURN is 0x54000001, so user
// error handlers start at 2), and where the null handle has the prefix (MPI_WIN_NULL is
// 0x20000000) the numbering starts at 1.
struct HandleKind {
  std::uint32_t prefix;
  std::uint32_t first = 0;
  friend constexpr bool operator==(HandleKind, HandleKind) = default;
};

inline constexpr std::uint32_t kIndexBits = 24;
inline constexpr std::uint32_t kPrefixMask = ~((std::uint32_t{1} << kIndexBits) - 1);
// The low 24 bits are split: the low kSlotBits number the object (its slot in the table), the
// top kGenerationBits count how often that slot was freed, so that a handle of a freed object
// is caught as invalid (MPI_ERR_REQUEST, MPI_ERR_COMM, ...) instead of naming whatever object
// reused its slot. A slot's first object has generation 0, so the handles a rank gets first, and
// mpi.h's predefined ones (never freed), are what they were without generations. A stale handle
// goes unnoticed only if its slot was freed a multiple of 64 times since: 6 bits leave 262,143
// live objects of one kind per rank (minus `first`).
inline constexpr std::uint32_t kSlotBits = 18;
inline constexpr std::uint32_t kGenerationBits = kIndexBits - kSlotBits;
inline constexpr std::uint32_t kSlotMask = (std::uint32_t{1} << kSlotBits) - 1;
inline constexpr std::uint32_t kGenerationMask = (std::uint32_t{1} << kGenerationBits) - 1;

// Every handle kind, in one place. The null handles (MPI_COMM_NULL 0x04000000, MPI_GROUP_NULL
// 0x08000000, MPI_DATATYPE_NULL 0x0c000000, MPI_ERRHANDLER_NULL 0x14000000, MPI_OP_NULL
// 0x18000000, MPI_INFO_NULL 0x1c000000, MPI_REQUEST_NULL 0x2c000000, MPI_MESSAGE_NULL 0x30000000,
// MPI_KEYVAL_INVALID 0x24000000) have prefixes of their own and so are never found in a table;
// MPI_WIN_NULL is window index -1.
namespace kind {
// Index 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF (the first two a rank creates), then the program's.
inline constexpr HandleKind comm{0x44000000};
// Index 0 MPI_GROUP_EMPTY, then the program's.
inline constexpr HandleKind group{0x48000000};
// Predefined datatypes: the index of src/datatype/builtin_types.def (from 1); no table.
inline constexpr HandleKind builtin_datatype{0x4c000000};
// Derived datatypes (MPI_Type_contiguous, ...).
inline constexpr HandleKind datatype{0x8c000000};
// Predefined operations MPI_MAX (1) ... MPI_NO_OP (14); no table.
inline constexpr HandleKind builtin_op{0x58000000};
// MPI_Op_create's operations: the same prefix, from 0x100.
inline constexpr HandleKind op{0x58000000, 0x100};
// MPI_ERRORS_ARE_FATAL (0) and MPI_ERRORS_RETURN (1); no table.
inline constexpr HandleKind builtin_errhandler{0x54000000};
// MPI_*_create_errhandler's handlers: the same prefix, from 2.
inline constexpr HandleKind errhandler{0x54000000, 2};
// Index 0 MPI_INFO_ENV (handle 0x5c000001), then the program's.
inline constexpr HandleKind info{0x5c000000, 1};
inline constexpr HandleKind request{0x6c000000};
// From 1: MPI_WIN_NULL is the prefix itself.
inline constexpr HandleKind window{0x20000000, 1};
// MPI_Mprobe / MPI_Improbe's matched messages (MPI_MESSAGE_NO_PROC is 0x70000000, another kind).
inline constexpr HandleKind message{0x74000000};
// MPI_*_create_keyval's attribute keys (the predefined keys are 0x644000xx and 0x660000xx).
inline constexpr HandleKind keyval{0x65000000};
} // namespace kind

// How many objects a kind can number: indices run from 0 to capacity - 1.
constexpr std::uint32_t capacity(HandleKind k) noexcept {
  return (std::uint32_t{1} << kSlotBits) - k.first;
}

// The handle of object `index` of kind `k` (index < capacity(k)) in its slot's `generation`.
constexpr Handle encode(HandleKind k, std::uint32_t index, std::uint32_t generation = 0) noexcept {
  return static_cast<Handle>(k.prefix | (generation << kSlotBits) | (k.first + index));
}

// The index `h` encodes if it is of kind `k` (whatever its generation); otherwise a value >=
// capacity(k): a handle with another top byte, or one below `first` (which wraps around).
constexpr std::uint32_t decode(HandleKind k, Handle h) noexcept {
  const std::uint32_t v = static_cast<std::uint32_t>(h) ^ k.prefix;
  return v >> kIndexBits ? ~std::uint32_t{0} : (v & kSlotMask) - k.first;
}

// The generation `h` carries if it is of kind `k`; a value past kGenerationMask otherwise.
constexpr std::uint32_t generation(HandleKind k, Handle h) noexcept {
  return (static_cast<std::uint32_t>(h) ^ k.prefix) >> kSlotBits;
}

// Whether `h` is a handle of kind `k` (any index and generation, live or not).
constexpr bool is_kind(HandleKind k, Handle h) noexcept {
  return decode(k, h) < capacity(k);
}

namespace detail {

// Objects a table holds through a pointer (unique_ptr, shared_ptr, a raw pointer into a pool):
// a null pointer is a free slot, and get() gives the object, not the pointer.
template <class T>
concept PointerLike = std::is_pointer_v<T> || requires(const T &p) {
  typename T::element_type;
  p.get();
  static_cast<bool>(p);
};

template <class T> struct Slots {
  using Stored = std::optional<T>;
  using Pointer = T *;
  using ConstPointer = const T *;
  static bool live(const Stored &s) noexcept { return s.has_value(); }
  static Pointer address(Stored &s) noexcept { return s ? &*s : nullptr; }
  static ConstPointer address(const Stored &s) noexcept { return s ? &*s : nullptr; }
};

template <PointerLike T> struct Slots<T> {
  using Stored = T;
  using Pointer = decltype(std::to_address(std::declval<const T &>()));
  // A pointer-like table hands out its objects from a const table too (as a std::vector of
  // unique_ptr would): constness is the object's, not the table's.
  using ConstPointer = Pointer;
  static bool live(const Stored &s) noexcept { return static_cast<bool>(s); }
  static Pointer address(const Stored &s) noexcept { return s ? std::to_address(s) : nullptr; }
};

} // namespace detail

// The objects of one handle kind that one rank has created. A slot is live from insert() to
// erase()/take(); erased slots are reused, the last freed first, so handles stay small, each
// reuse in the slot's next generation (a freed handle is then no longer found). get() is on the
// path of every MPI call that takes a handle of this kind: inline, four arithmetic operations,
// one bounds check, one generation check (the generation sits beside the object, in its cache
// line) and one liveness check.
//
// T is either a pointer-like type (std::unique_ptr<Comm>, std::shared_ptr<const Group>,
// Request *): the table stores the pointer, a null one is a free slot, and get() returns the
// object's address; or a value type (Info, UserOp, ...), stored in place, get() returning its
// address.
template <class T, HandleKind Kind> class HandleTable {
  using Traits = detail::Slots<T>;
  using Stored = typename Traits::Stored;
  struct Slot {
    Stored value;
    std::uint32_t generation; // of the handle that names the slot's object (kGenerationMask)
  };

public:
  using Pointer = typename Traits::Pointer;
  using ConstPointer = typename Traits::ConstPointer;
  static constexpr HandleKind kKind = Kind;

  // The object behind `h`, or nullptr for a handle of another kind, a freed slot or an index
  // past the table's end.
  Pointer get(Handle h) noexcept {
    Slot *s = find(h);
    return s ? Traits::address(s->value) : nullptr;
  }
  ConstPointer get(Handle h) const noexcept {
    const Slot *s = const_cast<HandleTable *>(this)->find(h);
    return s ? Traits::address(s->value) : nullptr;
  }
  bool contains(Handle h) const noexcept { return get(h) != nullptr; }

  // Stores `value` (not null, for a pointer-like T) in a free slot and returns its handle.
  Handle insert(T value) {
    if constexpr (detail::PointerLike<T>) assert(value && "a null pointer would be a free slot");
    std::uint32_t i;
    if (!free_.empty()) {
      i = free_.back();
      free_.pop_back();
      slots_[i].value = std::move(value);
    } else {
      if (slots_.size() >= capacity(Kind))
        throw std::length_error("ampi: out of MPI handles (" + std::to_string(capacity(Kind)) +
                                " live objects of one kind in one rank)");
      i = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back(Slot{Stored{std::move(value)}, 0});
    }
    return encode(Kind, i, slots_[i].generation);
  }

  // Frees the slot of `h` (dropping what it holds); false when `h` is not live.
  bool erase(Handle h) noexcept { return take_stored(h).has_value(); }

  // Frees the slot of `h` and hands its pointer back (null when `h` is not live).
  T take(Handle h) noexcept requires detail::PointerLike<T> {
    std::optional<Stored> s = take_stored(h);
    return s ? std::move(*s) : T{};
  }

  // The stored pointer itself (a new owner of a shared_ptr), or null.
  T share(Handle h) const noexcept
      requires(detail::PointerLike<T> &&std::is_copy_constructible_v<T>) {
    const Slot *s = const_cast<HandleTable *>(this)->find(h);
    return s ? s->value : T{};
  }

  // Live objects.
  std::size_t size() const noexcept { return slots_.size() - free_.size(); }
  bool empty() const noexcept { return size() == 0; }
  // Drops every object (their destructors run in slot order, on an already empty table, so one
  // that looks itself up finds nothing); handles start again from index 0.
  void clear() noexcept {
    std::vector<Slot> old = std::move(slots_);
    slots_.clear();
    free_.clear();
    old.clear();
  }

  // Iteration over the live objects in index order: `for (auto [h, obj] : table)`. Erasing the
  // entry in hand, or inserting, while iterating is safe (an inserted object may or may not be
  // visited).
  struct Entry {
    Handle handle;
    Pointer object;
  };
  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Entry;
    iterator() = default;
    Entry operator*() const noexcept {
      Slot &s = (*slots_)[i_];
      return {encode(Kind, i_, s.generation), Traits::address(s.value)};
    }
    iterator &operator++() noexcept {
      ++i_;
      skip();
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const iterator &a, const iterator &b) noexcept { return a.i_ == b.i_; }

  private:
    friend class HandleTable;
    iterator(std::vector<Slot> *slots, std::uint32_t i) : slots_(slots), i_(i) { skip(); }
    void skip() noexcept {
      while (i_ < slots_->size() && !Traits::live((*slots_)[i_].value))
        ++i_;
    }
    std::vector<Slot> *slots_ = nullptr;
    std::uint32_t i_ = 0;
  };
  iterator begin() noexcept { return {&slots_, 0}; }
  iterator end() noexcept { return {&slots_, static_cast<std::uint32_t>(slots_.size())}; }

private:
  // The slot `h` names, if `h` is of this kind and of the slot's current generation (live or
  // not). The generation is compared with everything above the slot number, prefix included, so
  // a handle of another kind fails that test too.
  Slot *find(Handle h) noexcept {
    const std::uint32_t v = static_cast<std::uint32_t>(h) ^ Kind.prefix;
    const std::uint32_t i = (v & kSlotMask) - Kind.first;
    if (i >= slots_.size()) return nullptr;
    Slot &s = slots_[i];
    return s.generation == (v >> kSlotBits) ? &s : nullptr;
  }

  std::optional<Stored> take_stored(Handle h) noexcept {
    Slot *slot = find(h);
    if (!slot || !Traits::live(slot->value)) return std::nullopt;
    // Moved out before the slot is freed: the object's destructor, which runs in the caller,
    // sees a table that no longer holds it.
    std::optional<Stored> s{std::move(slot->value)};
    slot->value = Stored{};
    slot->generation = (slot->generation + 1) & kGenerationMask;
    free_.push_back(static_cast<std::uint32_t>(slot - slots_.data()));
    return s;
  }

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_; // freed indices, reused last first
};

} // namespace ampi::handles
