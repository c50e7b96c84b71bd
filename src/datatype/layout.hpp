// src/datatype/layout.hpp — derived datatypes inside src/datatype and the MPI layer: the compact
// Layout of one element (pieces of nested repeats with prefix sums, so that packing any piece
// finds its start by binary search and division), the walk over the memory runs of (count, type)
// that packing and every other consumer use (runs made one at a time, nothing expanded), the
// Derived record behind a user's handle (its
// Type, how it was built for MPI_Type_get_contents, its name), the constructors, and the per-rank
// table of handles (handles::kind::datatype).
//
// A Derived record is shared: the handle table, the records built from it, pending requests and
// the handles MPI_Type_get_contents returns all hold it, so MPI_Type_free only drops the handle.
#pragma once

#include "datatype/type.hpp"
#include "handles/handle.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ampi::datatype {

struct Layout;

// A run of one element's layout: `count` copies, `stride` bytes apart, the first at `disp` from
// the start of the element (buf + i * extent), of either `len` contiguous bytes (`child` null) or
// one element of `child` (whose packed size is `len`). Nested repeats keep a type compact: a
// vector of 2^30 single bytes is one piece, not 2^30 blocks (issue 20: expanding such a type up
// front ran out of memory where Open MPI finishes in 0.6 s).
struct Piece {
  std::ptrdiff_t disp = 0;
  std::size_t count = 1;
  std::ptrdiff_t stride = 0; // 0 when count == 1
  std::size_t len = 0;       // packed bytes of one copy, > 0
  std::shared_ptr<const Layout> child;
};

// One element's data in type-map order. Its size is bounded by what the constructors were given
// (their arrays, the dimensions of a subarray) and never grows with a count: small inputs are
// copied in flat (adjacent runs merged, equal runs at a fixed distance folded into one strided
// piece), larger ones are referred to as a child.
struct Layout {
  std::vector<Piece> pieces;
  std::vector<std::size_t> prefix; // prefix[i]: packed bytes before pieces[i]; back() == size
  unsigned depth = 1;              // levels of children, this one included
};

// Pieces copied into a new layout before it refers to its input as a child instead: flat pieces
// walk faster (no descent per copy: 100 copies of a two-field struct as a child packed 3x slower
// than flat), children keep the memory bounded (at most 1024 pieces of 48 bytes per input).
inline constexpr std::size_t kInlinePieces = 1024;

struct Derived {
  Type type;
  std::shared_ptr<const Layout> layout; // always set (type.layout may be null when contiguous)
  // MPI_Type_get_envelope / get_contents.
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Datatype> types;                 // as the constructor was given them
  std::vector<std::shared_ptr<const Derived>> sub; // parallel to types; null for predefined
  std::size_t elements = 0;     // predefined elements in one element (MPI_Get_elements)
  std::size_t align = 1;        // strictest alignment of its predefined types (struct padding)
  bool explicit_bounds = false; // made by (or from) MPI_Type_create_resized: no struct padding
  std::size_t copies = 0;       // subarray and darray: how many elements of types[0] it holds
  std::string name;
};

// A constructor's input: a predefined type or a derived record.
struct Input {
  const Type *type = nullptr;
  const Layout *layout = nullptr;
  std::size_t elements = 1; // predefined elements in one (2 for the value-index pairs)
  std::size_t align = 1;
  bool explicit_bounds = false;
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  std::shared_ptr<const Derived> derived; // null for predefined
};

// The Input for a predefined handle, or an empty Input (type == nullptr).
Input predefined_input(MPI_Datatype t);
// The Layout of a predefined type (type.cpp): one block, or two for the padded pair types.
const Layout *predefined_layout(MPI_Datatype t) noexcept;
std::size_t predefined_align(MPI_Datatype t) noexcept;
// The value's bytes of a value-index pair type (MPI_DOUBLE_INT: 8), 0 for other types.
std::size_t pair_value_size(MPI_Datatype t) noexcept;
Input derived_input(MPI_Datatype handle, std::shared_ptr<const Derived> d);

// The constructors (MPI semantics; arguments already checked). `ints`/`aints` of the result are
// filled for get_contents.
std::shared_ptr<Derived> make_contiguous(int count, const Input &old);
std::shared_ptr<Derived> make_hvector(int count, int blocklen, MPI_Aint stride_bytes,
                                      const Input &old);
std::shared_ptr<Derived> make_hindexed(int count, const int *blocklens, const MPI_Aint *disps_bytes,
                                       const Input &old);
std::shared_ptr<Derived> make_struct(int count, const int *blocklens, const MPI_Aint *disps,
                                     const Input *types);
std::shared_ptr<Derived> make_resized(const Input &old, MPI_Aint lb, MPI_Aint extent);
std::shared_ptr<Derived> make_dup(const Input &old);
// Row-major (C) or column-major (Fortran) subarray; nullptr if `order` is invalid.
std::shared_ptr<Derived> make_subarray(int ndims, const int *sizes, const int *subsizes,
                                       const int *starts, int order, const Input &old);

// MPI_Type_create_darray for process `rank` of `size`; nullptr and `*why` set when the arguments
// do not describe a distribution.
std::shared_ptr<Derived> make_darray(int size, int rank, int ndims, const int *gsizes,
                                     const int *distribs, const int *dargs, const int *psizes,
                                     int order, const Input &old, const char **why);

// Predefined elements in the first `bytes` packed bytes of elements of `t` (MPI_Get_elements);
// -1 when `bytes` ends inside a predefined element.
long long elements_in(const Input &t, std::size_t bytes);
// The packed bytes that hold the first `n` predefined elements (MPI_Status_set_elements).
std::size_t bytes_for_elements(const Input &t, std::size_t n);
// Calls f(predefined handle, count) for the predefined elements of `count` elements of `t`, in
// packed order (adjacent runs of one type merged).
template <class F> void for_each_predefined(const Input &t, std::size_t count, F &&f);

// Calls f(disp, n) for the runs of memory (disp from the buffer's address, n bytes) that hold
// packed bytes [offset, offset + len) of `count` elements of `t`, in packed order, so the k-th
// run holds the packed bytes right after the (k-1)-th's. Runs are made on the fly: memory stays
// constant whatever the count (the walk's stack is the type's nesting depth). Returns the bytes
// visited (less than len at the end of the data).
template <class F>
std::size_t for_each_run(const Type &t, std::size_t count, std::size_t offset, std::size_t len,
                         F &&f);

// The per-rank handle table of derived datatypes.
using TypeTable = handles::HandleTable<std::shared_ptr<Derived>, handles::kind::datatype>;

// ---- template definitions ----

namespace detail {
template <class F> struct RunMerger {
  F &f;
  MPI_Datatype cur = MPI_DATATYPE_NULL;
  std::size_t n = 0;
  void add(MPI_Datatype t, std::size_t k) {
    if (!k) return;
    if (t == cur) {
      n += k;
      return;
    }
    flush();
    cur = t;
    n = k;
  }
  void flush() {
    if (n) f(cur, n);
    n = 0;
  }
};
// Calls f(Input, count) for the copies of inputs one element of `d` is made of, in packed order,
// until f returns false.
template <class F> void children(const Derived &d, F &&f) {
  auto in = [&](std::size_t i) {
    return d.sub[i] ? derived_input(d.types[i], d.sub[i]) : predefined_input(d.types[i]);
  };
  auto n = [](int v) { return static_cast<std::size_t>(v); };
  switch (d.combiner) {
  case MPI_COMBINER_DUP:
  case MPI_COMBINER_RESIZED:
    f(in(0), 1);
    return;
  case MPI_COMBINER_CONTIGUOUS:
    f(in(0), n(d.ints[0]));
    return;
  case MPI_COMBINER_VECTOR:
  case MPI_COMBINER_HVECTOR:
  case MPI_COMBINER_INDEXED_BLOCK:
  case MPI_COMBINER_HINDEXED_BLOCK:
    f(in(0), n(d.ints[0]) * n(d.ints[1]));
    return;
  case MPI_COMBINER_INDEXED:
  case MPI_COMBINER_HINDEXED: {
    std::size_t total = 0;
    for (int i = 0; i < d.ints[0]; ++i)
      total += n(d.ints[1 + i]);
    f(in(0), total);
    return;
  }
  case MPI_COMBINER_STRUCT:
    for (int i = 0; i < d.ints[0]; ++i)
      if (!f(in(n(i)), n(d.ints[1 + i]))) return;
    return;
  case MPI_COMBINER_SUBARRAY:
  case MPI_COMBINER_DARRAY:
    f(in(0), d.copies);
    return;
  default:
    return;
  }
}
template <class M> void walk(const Input &t, std::size_t count, M &m) {
  if (!count) return;
  if (!t.derived) {
    m.add(t.handle, count);
    return;
  }
  // Made of one predefined type: its elements need no walk (MPI_Type_vector(INT_MAX / 2, ...)
  // would take 10^9 steps to say so).
  if (t.type->basic != MPI_DATATYPE_NULL && t.type->basic_count) {
    m.add(t.type->basic, count * t.type->basic_count);
    return;
  }
  for (std::size_t rep = 0; rep < count; ++rep)
    children(*t.derived, [&](const Input &in, std::size_t k) {
      walk(in, k, m);
      return true;
    });
}
} // namespace detail

template <class F> void for_each_predefined(const Input &t, std::size_t count, F &&f) {
  detail::RunMerger<F> m{f};
  detail::walk(t, count, m);
  m.flush();
}

namespace detail {
template <class F> struct RunWalker {
  F &f;
  std::size_t left;
  // One element of `l` at `base`, from its packed byte `skip` on.
  void layout(const Layout &l, std::ptrdiff_t base, std::size_t skip) {
    std::size_t i = 0;
    if (skip) {
      i = static_cast<std::size_t>(std::upper_bound(l.prefix.begin(), l.prefix.end() - 1, skip) -
                                   l.prefix.begin()) -
          1;
      skip -= l.prefix[i];
    }
    for (const std::size_t n = l.pieces.size(); i < n && left; ++i) {
      piece(l.pieces[i], base, skip);
      skip = 0;
    }
  }
  void piece(const Piece &p, std::ptrdiff_t base, std::size_t skip) {
    std::size_t r = 0;
    if (skip) { // (a division per piece was 1.3x the flat list's time on a struct of two fields)
      r = skip / p.len;
      skip %= p.len;
    }
    std::ptrdiff_t at = base + p.disp + static_cast<std::ptrdiff_t>(r) * p.stride;
    if (!p.child) {
      for (; r < p.count && left; ++r, at += p.stride) {
        const std::size_t n = std::min(p.len - skip, left);
        f(at + static_cast<std::ptrdiff_t>(skip), n);
        left -= n;
        skip = 0;
      }
      return;
    }
    for (; r < p.count && left; ++r, at += p.stride) {
      layout(*p.child, at, skip);
      skip = 0;
    }
  }
};
} // namespace detail

template <class F>
std::size_t for_each_run(const Type &t, std::size_t count, std::size_t offset, std::size_t len,
                         F &&f) {
  const std::size_t total = t.size * count;
  if (offset >= total || !len) return 0;
  len = std::min(len, total - offset);
  if (t.contiguous || !t.layout) {
    f(t.true_lb + static_cast<std::ptrdiff_t>(offset), len);
    return len;
  }
  detail::RunWalker<F> w{f, len};
  std::size_t elem = offset / t.size, skip = offset % t.size;
  for (std::ptrdiff_t base = static_cast<std::ptrdiff_t>(elem) * t.extent; w.left;
       base += t.extent, skip = 0)
    w.layout(*t.layout, base, skip);
  return len;
}

} // namespace ampi::datatype
