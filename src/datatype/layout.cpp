// src/datatype/layout.cpp — building derived datatypes: the constructors flatten their inputs into
// one element's compact Layout (nested repeats, never expanded by a count) and compute size,
// bounds, true bounds and the predefined type the data is made of; the element counting of
// MPI_Get_elements; the per-rank handle table.
#include "datatype/layout.hpp"

#include "datatype/datatype.hpp"

#include <algorithm>
#include <limits>

namespace ampi::datatype {

Input predefined_input(MPI_Datatype t) {
  Input in;
  in.type = predefined(t);
  if (!in.type) return in;
  in.layout = predefined_layout(t);
  in.elements = pair_value_size(t) ? 2 : 1;
  in.align = predefined_align(t);
  in.handle = t;
  return in;
}

Input derived_input(MPI_Datatype handle, std::shared_ptr<const Derived> d) {
  Input in;
  in.type = &d->type;
  in.layout = d->layout.get();
  in.elements = d->elements;
  in.align = d->align;
  in.explicit_bounds = d->explicit_bounds;
  in.handle = handle;
  in.derived = std::move(d);
  return in;
}

namespace {

constexpr MPI_Datatype kUnset = static_cast<MPI_Datatype>(0);

// The pieces of a layout being built, merged as they come: adjacent runs become one, equal runs
// (or equal children) at a fixed distance one strided piece, so that loops over a constructor's
// arrays (hindexed with regular displacements, a darray's runs) stay compact too.
struct Pieces {
  std::vector<Piece> v;

  void push(Piece p) {
    if (!p.count || !p.len) return;
    if (p.count == 1) {
      p.stride = 0;
    } else if (!p.child && p.stride == static_cast<std::ptrdiff_t>(p.len)) { // the copies touch
      p.len *= p.count;
      p.count = 1;
      p.stride = 0;
    }
    if (!v.empty() && p.count == 1) {
      Piece &last = v.back();
      if (!p.child && !last.child && last.count == 1 &&
          last.disp + static_cast<std::ptrdiff_t>(last.len) == p.disp) {
        last.len += p.len;
        return;
      }
      if (last.child == p.child && last.len == p.len) {
        if (last.count == 1) {
          last.stride = p.disp - last.disp;
          last.count = 2;
          return;
        }
        if (p.disp == last.disp + static_cast<std::ptrdiff_t>(last.count) * last.stride) {
          ++last.count;
          return;
        }
      }
    }
    v.push_back(std::move(p));
  }

  void shifted(const std::vector<Piece> &from, std::ptrdiff_t by) {
    for (const Piece &p : from) {
      Piece q = p;
      q.disp += by;
      push(std::move(q));
    }
  }
};

std::shared_ptr<Layout> make_layout(std::vector<Piece> pieces) {
  auto l = std::make_shared<Layout>();
  l->pieces = std::move(pieces);
  l->pieces.shrink_to_fit();
  l->prefix.resize(l->pieces.size() + 1);
  std::size_t acc = 0;
  unsigned depth = 0;
  for (std::size_t i = 0; i < l->pieces.size(); ++i) {
    const Piece &p = l->pieces[i];
    l->prefix[i] = acc;
    acc += p.count * p.len;
    if (p.child) depth = std::max(depth, p.child->depth);
  }
  l->prefix.back() = acc;
  l->depth = depth + 1;
  return l;
}

// The layout an Input refers to, shared (predefined layouts live as long as the process).
std::shared_ptr<const Layout> shared_layout(const Input &in) {
  if (in.derived) return in.derived->layout;
  return std::shared_ptr<const Layout>(std::shared_ptr<void>(), in.layout);
}

// Whether `count` elements of `t` are exactly the size * count bytes at buf + true_lb.
bool is_contiguous(const Type &t, const Layout &l) {
  if (!t.size) return true;
  if (l.pieces.size() != 1) return false;
  const Piece &p = l.pieces[0];
  return !p.child && p.count == 1 && p.len == t.size &&
         t.extent == static_cast<std::ptrdiff_t>(t.size);
}

std::size_t times(std::size_t a, std::size_t b, bool *ok) {
  std::size_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) *ok = false;
  return r;
}

// Accumulates the pieces and bounds of a new type from copies of its inputs.
struct Builder {
  Pieces pieces;
  std::size_t size = 0;
  std::ptrdiff_t lb = std::numeric_limits<std::ptrdiff_t>::max();
  std::ptrdiff_t ub = std::numeric_limits<std::ptrdiff_t>::min();
  std::ptrdiff_t tlb = std::numeric_limits<std::ptrdiff_t>::max();
  std::ptrdiff_t tub = std::numeric_limits<std::ptrdiff_t>::min();
  MPI_Datatype basic = kUnset;
  std::size_t elements = 0;
  std::size_t align = 1;
  bool explicit_bounds = false;

  // A block of `n` copies of `old` one extent apart, repeated `reps` times `rstride` bytes apart
  // (a vector in one call: no loop over its count); the first copy at `disp`.
  void add(const Input &old, std::ptrdiff_t disp, std::size_t n, std::size_t reps = 1,
           std::ptrdiff_t rstride = 0) {
    if (!n || !reps) return;
    const Type &t = *old.type;
    // The copies lie on a grid; its corners hold the extreme bounds.
    const auto last = static_cast<std::ptrdiff_t>(n - 1) * t.extent;
    const auto rlast = static_cast<std::ptrdiff_t>(reps - 1) * rstride;
    const std::ptrdiff_t down =
        std::min<std::ptrdiff_t>(0, last) + std::min<std::ptrdiff_t>(0, rlast);
    const std::ptrdiff_t up =
        std::max<std::ptrdiff_t>(0, last) + std::max<std::ptrdiff_t>(0, rlast);
    lb = std::min(lb, disp + t.lb + down);
    ub = std::max(ub, disp + t.lb + t.extent + up);
    explicit_bounds = explicit_bounds || old.explicit_bounds;
    align = std::max(align, old.align);
    elements += n * reps * old.elements;
    if (!t.size) return;
    tlb = std::min(tlb, disp + t.true_lb + down);
    tub = std::max(tub, disp + t.true_lb + t.true_extent + up);
    size += n * reps * t.size;
    if (basic == kUnset)
      basic = t.basic;
    else if (basic != t.basic)
      basic = MPI_DATATYPE_NULL;
    Pieces block = copies(old, n);
    repeat(std::move(block), disp, reps, rstride, n * t.size);
  }

  // `n` copies of `old` at 0, old.extent, ...
  static Pieces copies(const Input &old, std::size_t n) {
    const Layout &l = *old.layout;
    const std::ptrdiff_t ext = old.type->extent;
    Pieces out;
    if (n * l.pieces.size() <= kInlinePieces) {
      for (std::size_t k = 0; k < n; ++k)
        out.shifted(l.pieces, static_cast<std::ptrdiff_t>(k) * ext);
      return out;
    }
    if (l.pieces.size() == 1) {
      const Piece &p = l.pieces[0];
      bool ok = true;
      if (p.count == 1) {
        out.push({p.disp, n, ext, p.len, p.child});
        return out;
      }
      // A strided piece whose pattern runs on into the next copy: one longer piece.
      const std::size_t c = times(p.count, n, &ok);
      if (ok && static_cast<std::ptrdiff_t>(p.count) * p.stride == ext) {
        out.push({p.disp, c, p.stride, p.len, p.child});
        return out;
      }
    }
    out.push({0, n, ext, old.type->size, shared_layout(old)});
    return out;
  }

  void repeat(Pieces block, std::ptrdiff_t disp, std::size_t reps, std::ptrdiff_t rstride,
              std::size_t bytes) {
    if (reps == 1) {
      pieces.shifted(block.v, disp);
      return;
    }
    if (reps * block.v.size() <= kInlinePieces) {
      for (std::size_t r = 0; r < reps; ++r)
        pieces.shifted(block.v, disp + static_cast<std::ptrdiff_t>(r) * rstride);
      return;
    }
    if (block.v.size() == 1) {
      const Piece &p = block.v[0];
      if (p.count == 1) {
        pieces.push({disp + p.disp, reps, rstride, p.len, p.child});
        return;
      }
      bool ok = true;
      const std::size_t c = times(p.count, reps, &ok);
      if (ok && static_cast<std::ptrdiff_t>(p.count) * p.stride == rstride) {
        pieces.push({disp + p.disp, c, p.stride, p.len, p.child});
        return;
      }
    }
    pieces.push({disp, reps, rstride, bytes, make_layout(std::move(block.v))});
  }

  std::shared_ptr<Derived> finish(int combiner, bool pad_to_alignment = false) {
    auto d = std::make_shared<Derived>();
    Type &t = d->type;
    if (lb > ub) lb = ub = 0; // nothing at all
    if (!size) tlb = tub = 0;
    t.size = size;
    t.lb = lb;
    t.extent = ub - lb;
    if (pad_to_alignment && !explicit_bounds && align > 1) {
      const auto a = static_cast<std::ptrdiff_t>(align);
      if (const std::ptrdiff_t r = t.extent % a; r) t.extent += a - r;
    }
    t.true_lb = tlb;
    t.true_extent = tub - tlb;
    t.basic = size && basic != kUnset ? basic : MPI_DATATYPE_NULL;
    t.basic_count = 0;
    if (t.basic != MPI_DATATYPE_NULL) t.basic_count = size / predefined(t.basic)->size;
    t.committed = false;
    std::shared_ptr<const Layout> layout = make_layout(std::move(pieces.v));
    t.contiguous = is_contiguous(t, *layout);
    t.layout = t.contiguous ? nullptr : layout;
    d->layout = std::move(layout);
    d->combiner = combiner;
    d->elements = elements;
    d->align = align;
    d->explicit_bounds = explicit_bounds;
    return d;
  }
};

void remember(Derived &d, const Input &old) {
  d.types.push_back(old.handle);
  d.sub.push_back(old.derived);
}

} // namespace

std::shared_ptr<Derived> make_contiguous(int count, const Input &old) {
  Builder b;
  b.add(old, 0, static_cast<std::size_t>(count));
  auto d = b.finish(MPI_COMBINER_CONTIGUOUS);
  d->ints = {count};
  remember(*d, old);
  return d;
}

std::shared_ptr<Derived> make_hvector(int count, int blocklen, MPI_Aint stride, const Input &old) {
  Builder b;
  b.add(old, 0, static_cast<std::size_t>(blocklen), static_cast<std::size_t>(count), stride);
  auto d = b.finish(MPI_COMBINER_HVECTOR);
  d->ints = {count, blocklen};
  d->aints = {stride};
  remember(*d, old);
  return d;
}

std::shared_ptr<Derived> make_hindexed(int count, const int *blocklens, const MPI_Aint *disps,
                                       const Input &old) {
  Builder b;
  for (int i = 0; i < count; ++i)
    b.add(old, disps[i], static_cast<std::size_t>(blocklens[i]));
  auto d = b.finish(MPI_COMBINER_HINDEXED);
  d->ints.assign(1, count);
  d->ints.insert(d->ints.end(), blocklens, blocklens + count);
  d->aints.assign(disps, disps + count);
  remember(*d, old);
  return d;
}

std::shared_ptr<Derived> make_struct(int count, const int *blocklens, const MPI_Aint *disps,
                                     const Input *types) {
  Builder b;
  for (int i = 0; i < count; ++i)
    b.add(types[i], disps[i], static_cast<std::size_t>(blocklens[i]));
  auto d = b.finish(MPI_COMBINER_STRUCT, true);
  d->ints.assign(1, count);
  d->ints.insert(d->ints.end(), blocklens, blocklens + count);
  d->aints.assign(disps, disps + count);
  for (int i = 0; i < count; ++i)
    remember(*d, types[i]);
  return d;
}

std::shared_ptr<Derived> make_resized(const Input &old, MPI_Aint lb, MPI_Aint extent) {
  Builder b;
  b.add(old, 0, 1);
  auto d = b.finish(MPI_COMBINER_RESIZED);
  Type &t = d->type;
  t.lb = lb;
  t.extent = extent;
  t.contiguous = is_contiguous(t, *d->layout);
  t.layout = t.contiguous ? nullptr : d->layout;
  d->explicit_bounds = true;
  d->aints = {lb, extent};
  remember(*d, old);
  return d;
}

std::shared_ptr<Derived> make_dup(const Input &old) {
  auto d = std::make_shared<Derived>();
  if (old.derived) {
    *d = *old.derived;
    d->name.clear();
  } else {
    Builder b;
    b.add(old, 0, 1);
    d = b.finish(MPI_COMBINER_DUP);
    d->type = *old.type; // exactly the predefined record (pair types' padding included)
  }
  d->type.committed = false;
  d->combiner = MPI_COMBINER_DUP;
  d->ints.clear();
  d->aints.clear();
  d->types.clear();
  d->sub.clear();
  remember(*d, old);
  return d;
}

namespace {

// A Cartesian selection of an array of `old`: per dimension the selected indices in increasing
// order. Lays out its data in array order (C: the last dimension fastest) as nested repeats: each
// dimension, from the fastest outwards, repeats the one inside it over its runs of consecutive
// indices, so the layout holds one piece per run and dimension (not one per selected row).
// Extent: the whole array, lb 0.
std::shared_ptr<Derived> make_selection(int combiner, const std::vector<int> &sizes,
                                        const std::vector<std::vector<int>> &picked, int order,
                                        const Input &old) {
  const int ndims = static_cast<int>(sizes.size());
  auto dim = [&](int k) {
    return static_cast<std::size_t>(order == MPI_ORDER_C ? ndims - 1 - k : k);
  };
  auto runs_of = [](const std::vector<int> &sel) {
    std::vector<std::pair<int, int>> runs; // (first index, length)
    for (int i : sel) {
      if (!runs.empty() && runs.back().first + runs.back().second == i)
        ++runs.back().second;
      else
        runs.push_back({i, 1});
    }
    return runs;
  };
  std::ptrdiff_t stride = old.type->extent; // of one index of dimension k
  std::size_t copies = 1;
  Input level = old;
  std::shared_ptr<Derived> d;
  for (int k = 0; k < ndims; ++k) {
    const auto &sel = picked[dim(k)];
    Builder b;
    for (const auto &[start, len] : runs_of(sel)) {
      if (k == 0)
        b.add(level, static_cast<std::ptrdiff_t>(start) * stride, static_cast<std::size_t>(len));
      else
        b.add(level, static_cast<std::ptrdiff_t>(start) * stride, 1, static_cast<std::size_t>(len),
              stride);
    }
    d = b.finish(combiner);
    copies *= sel.size();
    stride *= sizes[dim(k)];
    if (k + 1 < ndims) level = derived_input(MPI_DATATYPE_NULL, d);
  }
  if (!d) d = Builder{}.finish(combiner);
  Type &t = d->type;
  t.lb = 0;
  t.extent = stride; // ext times every size
  t.contiguous = is_contiguous(t, *d->layout);
  t.layout = t.contiguous ? nullptr : d->layout;
  d->explicit_bounds = true;
  d->copies = copies;
  remember(*d, old);
  return d;
}

} // namespace

std::shared_ptr<Derived> make_subarray(int ndims, const int *sizes, const int *subsizes,
                                       const int *starts, int order, const Input &old) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return nullptr;
  std::vector<std::vector<int>> picked(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i)
    for (int j = 0; j < subsizes[i]; ++j)
      picked[static_cast<std::size_t>(i)].push_back(starts[i] + j);
  auto d = make_selection(MPI_COMBINER_SUBARRAY, std::vector<int>(sizes, sizes + ndims), picked,
                          order, old);
  d->ints.assign(1, ndims);
  d->ints.insert(d->ints.end(), sizes, sizes + ndims);
  d->ints.insert(d->ints.end(), subsizes, subsizes + ndims);
  d->ints.insert(d->ints.end(), starts, starts + ndims);
  d->ints.push_back(order);
  return d;
}

std::shared_ptr<Derived> make_darray(int size, int rank, int ndims, const int *gsizes,
                                     const int *distribs, const int *dargs, const int *psizes,
                                     int order, const Input &old, const char **why) {
  long long procs = 1;
  for (int i = 0; i < ndims; ++i)
    procs *= psizes[i];
  if (procs != size) {
    *why = "the product of array_of_psizes is not size";
    return nullptr;
  }
  // This process's coordinates in the row-major process grid.
  std::vector<int> coord(static_cast<std::size_t>(ndims));
  for (int i = ndims - 1, r = rank; i >= 0; --i) {
    coord[static_cast<std::size_t>(i)] = r % psizes[i];
    r /= psizes[i];
  }
  std::vector<std::vector<int>> picked(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i) {
    const int g = gsizes[i], p = psizes[i], c = coord[static_cast<std::size_t>(i)];
    auto &sel = picked[static_cast<std::size_t>(i)];
    switch (distribs[i]) {
    case MPI_DISTRIBUTE_NONE:
      if (p != 1) {
        *why = "MPI_DISTRIBUTE_NONE needs array_of_psizes[i] = 1";
        return nullptr;
      }
      for (int j = 0; j < g; ++j)
        sel.push_back(j);
      break;
    case MPI_DISTRIBUTE_BLOCK: {
      const int blk = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[i];
      if (blk <= 0 || static_cast<long long>(blk) * p < g) {
        *why = "a block distribution's darg times psize does not cover gsize";
        return nullptr;
      }
      for (long long j = static_cast<long long>(c) * blk;
           j < std::min<long long>(g, (c + 1LL) * blk); ++j)
        sel.push_back(static_cast<int>(j));
      break;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
      const int blk = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[i];
      if (blk <= 0) {
        *why = "a cyclic distribution's darg is not positive";
        return nullptr;
      }
      for (int j = 0; j < g; ++j)
        if ((j / blk) % p == c) sel.push_back(j);
      break;
    }
    default:
      *why = "array_of_distribs[i] is not MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE";
      return nullptr;
    }
  }
  auto d = make_selection(MPI_COMBINER_DARRAY, std::vector<int>(gsizes, gsizes + ndims), picked,
                          order, old);
  d->ints = {size, rank, ndims};
  d->ints.insert(d->ints.end(), gsizes, gsizes + ndims);
  d->ints.insert(d->ints.end(), distribs, distribs + ndims);
  d->ints.insert(d->ints.end(), dargs, dargs + ndims);
  d->ints.insert(d->ints.end(), psizes, psizes + ndims);
  d->ints.push_back(order);
  return d;
}

long long elements_in(const Input &t, std::size_t bytes) {
  const std::size_t size = t.type->size;
  if (!size) return 0;
  const auto full = static_cast<long long>(bytes / size);
  std::size_t rest = bytes % size;
  if (!t.derived) {
    // A value-index pair counts as its two elements (MPI defines the pairs as structs).
    if (const std::size_t v = pair_value_size(t.handle))
      return rest == 0 ? 2 * full : rest == v ? 2 * full + 1 : -1;
    return rest ? -1 : full;
  }
  long long n = full * static_cast<long long>(t.elements);
  if (!rest) return n;
  long long part = 0;
  detail::children(*t.derived, [&](const Input &in, std::size_t k) {
    const std::size_t chunk = k * in.type->size;
    if (rest >= chunk) {
      part += static_cast<long long>(k * in.elements);
      rest -= chunk;
      return rest > 0;
    }
    const long long e = elements_in(in, rest);
    part = e < 0 ? -1 : part + e;
    rest = 0;
    return false;
  });
  return part < 0 ? -1 : n + part;
}

std::size_t bytes_for_elements(const Input &t, std::size_t n) {
  if (!t.derived) {
    if (const std::size_t v = pair_value_size(t.handle)) return n / 2 * t.type->size + n % 2 * v;
    return n * t.type->size;
  }
  if (!t.elements) return 0;
  std::size_t bytes = (n / t.elements) * t.type->size;
  std::size_t rest = n % t.elements;
  if (!rest) return bytes;
  detail::children(*t.derived, [&](const Input &in, std::size_t k) {
    const std::size_t chunk = k * in.elements;
    if (rest >= chunk) {
      bytes += k * in.type->size;
      rest -= chunk;
      return rest > 0;
    }
    bytes += bytes_for_elements(in, rest);
    rest = 0;
    return false;
  });
  return bytes;
}

} // namespace ampi::datatype
