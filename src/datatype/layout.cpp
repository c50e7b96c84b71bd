// src/datatype/layout.cpp — building derived datatypes: the constructors flatten their inputs into
// one element's merged block list and compute size, bounds, true bounds and the predefined type
// the data is made of; the element counting of MPI_Get_elements; the per-rank handle table.
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

// Accumulates the blocks and bounds of a new type from copies of its inputs.
struct Builder {
  std::vector<Block> blocks;
  std::size_t size = 0;
  std::ptrdiff_t lb = std::numeric_limits<std::ptrdiff_t>::max();
  std::ptrdiff_t ub = std::numeric_limits<std::ptrdiff_t>::min();
  std::ptrdiff_t tlb = std::numeric_limits<std::ptrdiff_t>::max();
  std::ptrdiff_t tub = std::numeric_limits<std::ptrdiff_t>::min();
  MPI_Datatype basic = kUnset;
  std::size_t elements = 0;
  std::size_t align = 1;
  bool explicit_bounds = false;

  bool overflow = false; // past kMaxBlocks: no more blocks are kept (see Layout::overflow)

  void push(std::ptrdiff_t disp, std::size_t len) {
    if (!len || overflow) return;
    if (!blocks.empty()) {
      Block &last = blocks.back();
      if (last.disp + static_cast<std::ptrdiff_t>(last.len) == disp) {
        last.len += len;
        return;
      }
    }
    if (blocks.size() == kMaxBlocks) {
      overflow = true;
      blocks = {};
      return;
    }
    blocks.push_back({disp, len});
  }

  // `n` copies of `old`, the k-th at disp + k * old.extent.
  void add(const Input &old, std::ptrdiff_t disp, std::size_t n) {
    if (!n) return;
    const Type &t = *old.type;
    const auto last = static_cast<std::ptrdiff_t>(n - 1) * t.extent;
    lb = std::min({lb, disp + t.lb, disp + last + t.lb});
    ub = std::max({ub, disp + t.lb + t.extent, disp + last + t.lb + t.extent});
    explicit_bounds = explicit_bounds || old.explicit_bounds;
    align = std::max(align, old.align);
    elements += n * old.elements;
    if (!t.size) return;
    tlb = std::min({tlb, disp + t.true_lb, disp + last + t.true_lb});
    tub =
        std::max({tub, disp + t.true_lb + t.true_extent, disp + last + t.true_lb + t.true_extent});
    size += n * t.size;
    if (basic == kUnset)
      basic = t.basic;
    else if (basic != t.basic)
      basic = MPI_DATATYPE_NULL;
    const std::vector<Block> &ob = old.layout->blocks;
    overflow = overflow || old.layout->overflow;
    if (overflow) return;
    if (ob.size() == 1 && static_cast<std::ptrdiff_t>(ob[0].len) == t.extent) {
      push(disp + ob[0].disp, n * ob[0].len); // dense: the copies touch
      return;
    }
    if (blocks.size() + n * ob.size() > kMaxBlocks) { // no half-built lists of a billion blocks
      overflow = true;
      blocks = {};
      return;
    }
    blocks.reserve(blocks.size() + n * ob.size());
    for (std::size_t k = 0; k < n; ++k) {
      const std::ptrdiff_t base = disp + static_cast<std::ptrdiff_t>(k) * t.extent;
      for (const Block &b : ob)
        push(base + b.disp, b.len);
    }
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
    auto layout = std::make_shared<Layout>();
    layout->overflow = overflow;
    layout->blocks = std::move(blocks);
    layout->blocks.shrink_to_fit();
    layout->prefix.resize(layout->blocks.size() + 1);
    std::size_t acc = 0;
    for (std::size_t i = 0; i < layout->blocks.size(); ++i) {
      layout->prefix[i] = acc;
      acc += layout->blocks[i].len;
    }
    layout->prefix.back() = acc;
    t.contiguous =
        size == 0 || (!overflow && layout->blocks.size() == 1 && layout->blocks[0].len == size &&
                      t.extent == static_cast<std::ptrdiff_t>(size));
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
  for (int i = 0; i < count; ++i)
    b.add(old, static_cast<std::ptrdiff_t>(i) * stride, static_cast<std::size_t>(blocklen));
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
  t.contiguous =
      t.size == 0 || (d->layout->blocks.size() == 1 && d->layout->blocks[0].len == t.size &&
                      t.extent == static_cast<std::ptrdiff_t>(t.size));
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
// order. Walks it in array order (C: the last dimension fastest) with runs of the fastest one,
// as subarray and darray types lay out their data. Extent: the whole array, lb 0.
std::shared_ptr<Derived> make_selection(int combiner, const std::vector<int> &sizes,
                                        const std::vector<std::vector<int>> &picked, int order,
                                        const Input &old) {
  const int ndims = static_cast<int>(sizes.size());
  const std::ptrdiff_t ext = old.type->extent;
  auto dim = [&](int k) { return order == MPI_ORDER_C ? ndims - 1 - k : k; };
  // Runs of consecutive indices of the fastest dimension.
  std::vector<std::pair<int, int>> runs;
  for (int i : picked[static_cast<std::size_t>(dim(0))]) {
    if (!runs.empty() && runs.back().first + runs.back().second == i)
      ++runs.back().second;
    else
      runs.push_back({i, 1});
  }
  // Offsets of the selected rows, built up from the second-fastest dimension outwards.
  std::vector<std::ptrdiff_t> rows{0};
  std::ptrdiff_t stride = ext * sizes[static_cast<std::size_t>(dim(0))];
  std::size_t copies = picked[static_cast<std::size_t>(dim(0))].size();
  for (int k = 1; k < ndims; ++k) {
    const auto &sel = picked[static_cast<std::size_t>(dim(k))];
    std::vector<std::ptrdiff_t> next;
    next.reserve(rows.size() * sel.size());
    for (int i : sel)
      for (std::ptrdiff_t r : rows)
        next.push_back(r + static_cast<std::ptrdiff_t>(i) * stride);
    rows = std::move(next);
    stride *= sizes[static_cast<std::size_t>(dim(k))];
    copies *= sel.size();
  }
  Builder b;
  for (std::ptrdiff_t r : rows)
    for (const auto &[start, len] : runs)
      b.add(old, r + static_cast<std::ptrdiff_t>(start) * ext, static_cast<std::size_t>(len));
  auto d = b.finish(combiner);
  Type &t = d->type;
  t.lb = 0;
  t.extent = stride; // ext times every size
  t.contiguous =
      t.size == 0 || (d->layout->blocks.size() == 1 && d->layout->blocks[0].len == t.size &&
                      t.extent == static_cast<std::ptrdiff_t>(t.size));
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
