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
  in.elements = 1;
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

  void push(std::ptrdiff_t disp, std::size_t len) {
    if (!len) return;
    if (!blocks.empty()) {
      Block &last = blocks.back();
      if (last.disp + static_cast<std::ptrdiff_t>(last.len) == disp) {
        last.len += len;
        return;
      }
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
    if (ob.size() == 1 && static_cast<std::ptrdiff_t>(ob[0].len) == t.extent) {
      push(disp + ob[0].disp, n * ob[0].len); // dense: the copies touch
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
    layout->blocks = std::move(blocks);
    layout->blocks.shrink_to_fit();
    layout->prefix.resize(layout->blocks.size() + 1);
    std::size_t acc = 0;
    for (std::size_t i = 0; i < layout->blocks.size(); ++i) {
      layout->prefix[i] = acc;
      acc += layout->blocks[i].len;
    }
    layout->prefix.back() = acc;
    t.contiguous = size == 0 || (layout->blocks.size() == 1 && layout->blocks[0].len == size &&
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

std::shared_ptr<Derived> make_subarray(int ndims, const int *sizes, const int *subsizes,
                                       const int *starts, int order, const Input &old) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return nullptr;
  const std::ptrdiff_t ext = old.type->extent;
  // Dimension k from the fastest-varying one: C order walks the dimensions backwards.
  auto dim = [&](int k) { return order == MPI_ORDER_C ? ndims - 1 - k : k; };
  // Offsets of every selected fastest-dimension row, built up dimension by dimension.
  std::vector<std::ptrdiff_t> rows{0};
  std::ptrdiff_t stride = ext * sizes[dim(0)];
  std::ptrdiff_t origin = static_cast<std::ptrdiff_t>(starts[dim(0)]) * ext;
  for (int k = 1; k < ndims; ++k) {
    const int d = dim(k);
    std::vector<std::ptrdiff_t> next;
    next.reserve(rows.size() * static_cast<std::size_t>(subsizes[d]));
    for (int i = 0; i < subsizes[d]; ++i)
      for (std::ptrdiff_t r : rows)
        next.push_back(r + static_cast<std::ptrdiff_t>(i) * stride);
    rows = std::move(next);
    origin += static_cast<std::ptrdiff_t>(starts[d]) * stride;
    stride *= sizes[d];
  }
  Builder b;
  for (std::ptrdiff_t r : rows)
    b.add(old, origin + r, static_cast<std::size_t>(subsizes[dim(0)]));
  auto d = b.finish(MPI_COMBINER_SUBARRAY);
  // The extent is the whole array's, from its first element.
  Type &t = d->type;
  std::ptrdiff_t total = ext;
  for (int i = 0; i < ndims; ++i)
    total *= sizes[i];
  t.lb = 0;
  t.extent = total;
  d->explicit_bounds = true;
  t.contiguous =
      t.size == 0 || (d->layout->blocks.size() == 1 && d->layout->blocks[0].len == t.size &&
                      t.extent == static_cast<std::ptrdiff_t>(t.size));
  t.layout = t.contiguous ? nullptr : d->layout;
  d->ints.assign(1, ndims);
  d->ints.insert(d->ints.end(), sizes, sizes + ndims);
  d->ints.insert(d->ints.end(), subsizes, subsizes + ndims);
  d->ints.insert(d->ints.end(), starts, starts + ndims);
  d->ints.push_back(order);
  remember(*d, old);
  return d;
}

long long elements_in(const Input &t, std::size_t bytes) {
  const std::size_t size = t.type->size;
  if (!size) return 0;
  const auto full = static_cast<long long>(bytes / size);
  std::size_t rest = bytes % size;
  if (!t.derived) return rest ? -1 : full;
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
  if (!t.derived) return n * t.type->size;
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

MPI_Datatype TypeTable::add(std::shared_ptr<Derived> d) {
  unsigned slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(d);
  } else {
    slot = static_cast<unsigned>(slots_.size());
    slots_.push_back(std::move(d));
  }
  return static_cast<MPI_Datatype>(kKind | slot);
}

void TypeTable::remove(MPI_Datatype h) noexcept {
  const unsigned slot = static_cast<unsigned>(h) ^ kKind;
  if (slot < slots_.size() && slots_[slot]) {
    slots_[slot].reset();
    free_.push_back(slot);
  }
}

} // namespace ampi::datatype
