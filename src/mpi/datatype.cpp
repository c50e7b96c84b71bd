// src/mpi/datatype.cpp — the MPI datatype functions: the constructors of derived types, commit
// and free, the queries (size, extents, names, envelope and contents), attributes, MPI_Get_count /
// MPI_Get_elements and the status setters, MPI_Pack / MPI_Unpack (native and "external32"),
// MPI_Get_address and MPI_Type_match_size. The types themselves live in src/datatype.
#include "datatype/layout.hpp"
#include "mpi/common.hpp"
#include "p2p/data.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

using namespace ampi;
using namespace ampi::mpi;
using datatype::Derived;
using datatype::Input;

const datatype::Type *ampi::mpi::find_derived_type(Rank &self, MPI_Datatype t, MPI_Comm comm,
                                                   const char *fn, int *err) {
  Derived *d = self.datatype.types.get(t);
  if (!d) [[unlikely]] {
    bad_type(t, comm, fn, err);
    return nullptr;
  }
  if (!d->type.committed) [[unlikely]] {
    *err = raise(comm, MPI_ERR_TYPE, fn,
                 "datatype%s%s is not committed (call MPI_Type_commit before using it)",
                 d->name.empty() ? "" : " ", d->name.c_str());
    return nullptr;
  }
  return &d->type;
}

namespace {

constexpr MPI_Comm kWorld = MPI_COMM_WORLD;

// Any datatype handle (committed or not), as a constructor input; raises MPI_ERR_TYPE naming
// `arg` when it is not a datatype.
bool resolve(Rank &self, MPI_Datatype t, const char *fn, const char *arg, Input &out, int *err) {
  out = datatype::predefined_input(t);
  if (out.type) return true;
  if (std::shared_ptr<Derived> d = self.datatype.types.share(t)) {
    out = datatype::derived_input(t, std::move(d));
    return true;
  }
  *err = raise(kWorld, MPI_ERR_TYPE, fn, "%s%s", arg,
               t == MPI_DATATYPE_NULL ? "=MPI_DATATYPE_NULL" : " is not a valid datatype");
  return false;
}

#define AMPI_ENTER(fn)                                                                             \
  auto self = enter(fn);                                                                           \
  if (!self) return MPI_ERR_OTHER;                                                                 \
  int err = MPI_SUCCESS;

#define AMPI_RESOLVE(in, t, fn, arg)                                                               \
  Input in;                                                                                        \
  if (!resolve(*self, t, fn, arg, in, &err)) return err;

int null_arg(const char *fn, const char *what) {
  return raise(kWorld, MPI_ERR_ARG, fn, "%s=NULL", what);
}

int finish_new(Rank &self, std::shared_ptr<Derived> d, MPI_Datatype *newtype) {
  *newtype = self.datatype.types.insert(std::move(d));
  return MPI_SUCCESS;
}

int check_count(const char *fn, int count) {
  if (count < 0) return raise(kWorld, MPI_ERR_COUNT, fn, "count=%d is negative", count);
  return MPI_SUCCESS;
}

int check_blocklens(const char *fn, int count, const int *bl) {
  for (int i = 0; i < count; ++i)
    if (bl[i] < 0)
      return raise(kWorld, MPI_ERR_ARG, fn, "array_of_blocklengths[%d]=%d is negative", i, bl[i]);
  return MPI_SUCCESS;
}

} // namespace

// ---- constructors ----------------------------------------------------------------------------

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  static constexpr const char *fn = "MPI_Type_contiguous";
  AMPI_ENTER(fn)
  if (int e = check_count(fn, count)) return e;
  if (!newtype) return null_arg(fn, "newtype");
  AMPI_RESOLVE(old, oldtype, fn, "oldtype")
  return finish_new(*self, datatype::make_contiguous(count, old), newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_contiguous)

namespace {
int hvector(const char *fn, int count, int blocklength, MPI_Aint stride, bool in_elements,
            MPI_Datatype oldtype, MPI_Datatype *newtype) {
  AMPI_ENTER(fn)
  if (int e = check_count(fn, count)) return e;
  if (blocklength < 0)
    return raise(kWorld, MPI_ERR_ARG, fn, "blocklength=%d is negative", blocklength);
  if (!newtype) return null_arg(fn, "newtype");
  AMPI_RESOLVE(old, oldtype, fn, "oldtype")
  auto d = datatype::make_hvector(count, blocklength,
                                  in_elements ? stride * old.type->extent : stride, old);
  if (in_elements) {
    d->combiner = MPI_COMBINER_VECTOR;
    d->ints = {count, blocklength, static_cast<int>(stride)};
    d->aints.clear();
  }
  return finish_new(*self, std::move(d), newtype);
}
} // namespace

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype *newtype) {
  return hvector("MPI_Type_vector", count, blocklength, stride, true, oldtype, newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_vector)

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype *newtype) {
  return hvector("MPI_Type_create_hvector", count, blocklength, stride, false, oldtype, newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_create_hvector)

namespace {
// The four indexed constructors: block lengths per block or one for all, displacements in
// elements of oldtype (int) or in bytes (MPI_Aint).
int indexed(const char *fn, int combiner, int count, const int *blocklens, int blocklen,
            const int *idisps, const MPI_Aint *adisps, MPI_Datatype oldtype,
            MPI_Datatype *newtype) {
  AMPI_ENTER(fn)
  if (int e = check_count(fn, count)) return e;
  const bool one_length =
      combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
  if (count > 0 && ((!one_length && !blocklens) || (!idisps && !adisps)))
    return raise(kWorld, MPI_ERR_ARG, fn, "array_of_%s=NULL",
                 !one_length && !blocklens ? "blocklengths" : "displacements");
  if (!newtype) return null_arg(fn, "newtype");
  if (one_length && blocklen < 0)
    return raise(kWorld, MPI_ERR_ARG, fn, "blocklength=%d is negative", blocklen);
  if (!one_length)
    if (int e = check_blocklens(fn, count, blocklens)) return e;
  AMPI_RESOLVE(old, oldtype, fn, "oldtype")
  const auto n = static_cast<std::size_t>(count);
  std::vector<int> bl =
      one_length ? std::vector<int>(n, blocklen) : std::vector<int>(blocklens, blocklens + count);
  std::vector<MPI_Aint> disp(n);
  for (std::size_t i = 0; i < n; ++i)
    disp[i] = idisps ? static_cast<MPI_Aint>(idisps[i]) * old.type->extent : adisps[i];
  auto d = datatype::make_hindexed(count, bl.data(), disp.data(), old);
  d->combiner = combiner;
  d->ints.assign(1, count);
  if (one_length)
    d->ints.push_back(blocklen);
  else
    d->ints.insert(d->ints.end(), blocklens, blocklens + count);
  if (idisps) {
    d->ints.insert(d->ints.end(), idisps, idisps + count);
    d->aints.clear();
  }
  return finish_new(*self, std::move(d), newtype);
}
} // namespace

extern "C" int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype *newtype) {
  return indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                 array_of_displacements, nullptr, oldtype, newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_indexed)

extern "C" int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype *newtype) {
  return indexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0,
                 nullptr, array_of_displacements, oldtype, newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_create_hindexed)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength,
                                              const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype *newtype) {
  return indexed("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count, nullptr,
                 blocklength, array_of_displacements, nullptr, oldtype, newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_create_indexed_block)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                               const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype *newtype) {
  return indexed("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count, nullptr,
                 blocklength, nullptr, array_of_displacements, oldtype, newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_create_hindexed_block)

extern "C" int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[], MPI_Datatype *newtype) {
  static constexpr const char *fn = "MPI_Type_create_struct";
  AMPI_ENTER(fn)
  if (int e = check_count(fn, count)) return e;
  if (count > 0 && (!array_of_blocklengths || !array_of_displacements || !array_of_types))
    return raise(kWorld, MPI_ERR_ARG, fn,
                 "array_of_blocklengths, array_of_displacements or array_of_types is NULL");
  if (!newtype) return null_arg(fn, "newtype");
  if (int e = check_blocklens(fn, count, array_of_blocklengths)) return e;
  std::vector<Input> types(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    if (!resolve(*self, array_of_types[i], fn, "array_of_types[i]", types[i], &err)) return err;
  }
  return finish_new(
      *self,
      datatype::make_struct(count, array_of_blocklengths, array_of_displacements, types.data()),
      newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_create_struct)

extern "C" int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                         const int array_of_subsizes[], const int array_of_starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  static constexpr const char *fn = "MPI_Type_create_subarray";
  AMPI_ENTER(fn)
  if (ndims <= 0) return raise(kWorld, MPI_ERR_DIMS, fn, "ndims=%d is not positive", ndims);
  if (!array_of_sizes || !array_of_subsizes || !array_of_starts)
    return raise(kWorld, MPI_ERR_ARG, fn,
                 "array_of_sizes, array_of_subsizes or array_of_starts is NULL");
  if (!newtype) return null_arg(fn, "newtype");
  for (int i = 0; i < ndims; ++i) {
    if (array_of_sizes[i] <= 0)
      return raise(kWorld, MPI_ERR_ARG, fn, "array_of_sizes[%d]=%d is not positive", i,
                   array_of_sizes[i]);
    if (array_of_subsizes[i] <= 0 || array_of_subsizes[i] > array_of_sizes[i])
      return raise(kWorld, MPI_ERR_ARG, fn, "array_of_subsizes[%d]=%d is not in [1, %d]", i,
                   array_of_subsizes[i], array_of_sizes[i]);
    if (array_of_starts[i] < 0 || array_of_starts[i] > array_of_sizes[i] - array_of_subsizes[i])
      return raise(kWorld, MPI_ERR_ARG, fn, "array_of_starts[%d]=%d is not in [0, %d]", i,
                   array_of_starts[i], array_of_sizes[i] - array_of_subsizes[i]);
  }
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return raise(kWorld, MPI_ERR_ARG, fn, "order=%d is not MPI_ORDER_C or MPI_ORDER_FORTRAN",
                 order);
  AMPI_RESOLVE(old, oldtype, fn, "oldtype")
  return finish_new(*self,
                    datatype::make_subarray(ndims, array_of_sizes, array_of_subsizes,
                                            array_of_starts, order, old),
                    newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_create_subarray)

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype *newtype) {
  static constexpr const char *fn = "MPI_Type_create_darray";
  AMPI_ENTER(fn)
  if (size <= 0) return raise(kWorld, MPI_ERR_ARG, fn, "size=%d is not positive", size);
  if (rank < 0 || rank >= size)
    return raise(kWorld, MPI_ERR_RANK, fn, "rank=%d is not in [0, %d)", rank, size);
  if (ndims <= 0) return raise(kWorld, MPI_ERR_DIMS, fn, "ndims=%d is not positive", ndims);
  if (!array_of_gsizes || !array_of_distribs || !array_of_dargs || !array_of_psizes)
    return null_arg(fn, "array_of_gsizes, array_of_distribs, array_of_dargs or array_of_psizes");
  if (!newtype) return null_arg(fn, "newtype");
  for (int i = 0; i < ndims; ++i)
    if (array_of_gsizes[i] <= 0 || array_of_psizes[i] <= 0)
      return raise(kWorld, MPI_ERR_ARG, fn,
                   "array_of_gsizes[%d]=%d or array_of_psizes[%d]=%d is not positive", i,
                   array_of_gsizes[i], i, array_of_psizes[i]);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return raise(kWorld, MPI_ERR_ARG, fn, "order=%d is not MPI_ORDER_C or MPI_ORDER_FORTRAN",
                 order);
  AMPI_RESOLVE(old, oldtype, fn, "oldtype")
  const char *why = "";
  auto d = datatype::make_darray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                                 array_of_dargs, array_of_psizes, order, old, &why);
  if (!d) return raise(kWorld, MPI_ERR_ARG, fn, "%s", why);
  return finish_new(*self, std::move(d), newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_create_darray)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype *newtype) {
  static constexpr const char *fn = "MPI_Type_create_resized";
  AMPI_ENTER(fn)
  if (!newtype) return null_arg(fn, "newtype");
  AMPI_RESOLVE(old, oldtype, fn, "oldtype")
  return finish_new(*self, datatype::make_resized(old, lb, extent), newtype);
}
AMPI_PMPI_ALIAS(MPI_Type_create_resized)

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) {
  static constexpr const char *fn = "MPI_Type_dup";
  AMPI_ENTER(fn)
  if (!newtype) return null_arg(fn, "newtype");
  AMPI_RESOLVE(old, oldtype, fn, "oldtype")
  auto d = datatype::make_dup(old);
  // A duplicate of a committed type is committed, and gets the attributes copy callbacks give.
  d->type.committed = !old.derived || old.derived->type.committed;
  const MPI_Datatype h = self->datatype.types.insert(std::move(d));
  if (auto it = self->comm.type_attrs.find(oldtype);
      it != self->comm.type_attrs.end() && !it->second.empty()) {
    comm::AttrStore copied;
    if (int e = comm::copy_attrs(self->comm.objects.keyvals, it->second, oldtype, copied, h)) {
      self->datatype.types.erase(h);
      return raise(kWorld, e, fn, "an attribute copy callback returned %d", e);
    }
    if (!copied.empty()) self->comm.type_attrs[h] = std::move(copied);
  }
  *newtype = h;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_dup)

extern "C" int PMPI_Type_commit(MPI_Datatype *datatype) {
  static constexpr const char *fn = "MPI_Type_commit";
  AMPI_ENTER(fn)
  if (!datatype) return null_arg(fn, "datatype");
  if (datatype::predefined(*datatype)) return MPI_SUCCESS;
  Derived *d = self->datatype.types.get(*datatype);
  if (!d) return bad_type(*datatype, kWorld, fn, &err), err;
  d->type.committed = true;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_commit)

extern "C" int PMPI_Type_free(MPI_Datatype *datatype) {
  static constexpr const char *fn = "MPI_Type_free";
  AMPI_ENTER(fn)
  if (!datatype) return null_arg(fn, "datatype");
  if (datatype::predefined(*datatype))
    return raise(kWorld, MPI_ERR_TYPE, fn, "datatype=%s is predefined and cannot be freed",
                 type_label(*datatype));
  if (!self->datatype.types.get(*datatype)) return bad_type(*datatype, kWorld, fn, &err), err;
  if (auto it = self->comm.type_attrs.find(*datatype); it != self->comm.type_attrs.end()) {
    if (int e = comm::delete_all_attrs(self->comm.objects.keyvals, it->second, *datatype))
      return raise(kWorld, e, fn, "an attribute delete callback returned %d", e);
    self->comm.type_attrs.erase(it);
  }
  // Types built from it and pending operations hold the record itself.
  self->datatype.types.erase(*datatype);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_free)

// ---- queries ---------------------------------------------------------------------------------

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int *size) {
  static constexpr const char *fn = "MPI_Type_size";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!size) return null_arg(fn, "size");
  *size = t.type->size > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED
                                                           : static_cast<int>(t.type->size);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_size)

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) {
  static constexpr const char *fn = "MPI_Type_size_x";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!size) return null_arg(fn, "size");
  *size = static_cast<MPI_Count>(t.type->size);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_size_x)

namespace {
template <class T> int bounds(const char *fn, MPI_Datatype datatype, T *a, T *b, bool true_bounds) {
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!a || !b)
    return raise(kWorld, MPI_ERR_ARG, fn, "%s is NULL",
                 true_bounds ? "true_lb or true_extent" : "lb or extent");
  *a = static_cast<T>(true_bounds ? t.type->true_lb : t.type->lb);
  *b = static_cast<T>(true_bounds ? t.type->true_extent : t.type->extent);
  return MPI_SUCCESS;
}
} // namespace

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
  return bounds("MPI_Type_get_extent", datatype, lb, extent, false);
}
AMPI_PMPI_ALIAS(MPI_Type_get_extent)

extern "C" int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  return bounds("MPI_Type_get_extent_x", datatype, lb, extent, false);
}
AMPI_PMPI_ALIAS(MPI_Type_get_extent_x)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                         MPI_Aint *true_extent) {
  return bounds("MPI_Type_get_true_extent", datatype, true_lb, true_extent, true);
}
AMPI_PMPI_ALIAS(MPI_Type_get_true_extent)

extern "C" int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                           MPI_Count *true_extent) {
  return bounds("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent, true);
}
AMPI_PMPI_ALIAS(MPI_Type_get_true_extent_x)

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
  static constexpr const char *fn = "MPI_Type_get_name";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!type_name || !resultlen) return null_arg(fn, "type_name or resultlen");
  const char *name;
  if (t.derived) {
    name = t.derived->name.c_str();
  } else {
    const unsigned i = static_cast<unsigned>(datatype) ^ datatype::kBuiltinKind;
    const auto &names = self->datatype.predefined_type_names;
    name = i < names.size() && !names[i].empty() ? names[i].c_str()
                                                 : datatype::builtin(datatype)->name;
  }
  const std::size_t n = std::min<std::size_t>(std::strlen(name), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, name, n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_name)

extern "C" int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name) {
  static constexpr const char *fn = "MPI_Type_set_name";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!type_name) return null_arg(fn, "type_name");
  const std::string name(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  if (t.derived) {
    self->datatype.types.get(datatype)->name = name;
  } else {
    const unsigned i = static_cast<unsigned>(datatype) ^ datatype::kBuiltinKind;
    auto &names = self->datatype.predefined_type_names;
    if (names.size() <= i) names.resize(datatype::kBuiltinCount);
    names[i] = name;
  }
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_set_name)

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                      int *num_datatypes, int *combiner) {
  static constexpr const char *fn = "MPI_Type_get_envelope";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!num_integers || !num_addresses || !num_datatypes || !combiner)
    return null_arg(fn, "num_integers, num_addresses, num_datatypes or combiner");
  if (!t.derived) {
    *num_integers = *num_addresses = *num_datatypes = 0;
    *combiner = MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
  }
  const Derived &d = *t.derived;
  *num_integers = static_cast<int>(d.ints.size());
  *num_addresses = static_cast<int>(d.aints.size());
  *num_datatypes = static_cast<int>(d.types.size());
  *combiner = d.combiner;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_envelope)

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[],
                                      MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]) {
  static constexpr const char *fn = "MPI_Type_get_contents";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!t.derived)
    return raise(kWorld, MPI_ERR_TYPE, fn,
                 "datatype=%s is predefined (combiner MPI_COMBINER_NAMED): it has no contents",
                 type_label(datatype));
  const Derived &d = *t.derived;
  if (max_integers < static_cast<int>(d.ints.size()) ||
      max_addresses < static_cast<int>(d.aints.size()) ||
      max_datatypes < static_cast<int>(d.types.size()))
    return raise(kWorld, MPI_ERR_ARG, fn,
                 "max_integers=%d, max_addresses=%d or max_datatypes=%d is less than the %zu, %zu "
                 "and %zu that MPI_Type_get_envelope reports",
                 max_integers, max_addresses, max_datatypes, d.ints.size(), d.aints.size(),
                 d.types.size());
  if ((!d.ints.empty() && !array_of_integers) || (!d.aints.empty() && !array_of_addresses) ||
      (!d.types.empty() && !array_of_datatypes))
    return null_arg(fn, "array_of_integers, array_of_addresses or array_of_datatypes");
  std::copy(d.ints.begin(), d.ints.end(), array_of_integers);
  std::copy(d.aints.begin(), d.aints.end(), array_of_addresses);
  for (std::size_t i = 0; i < d.types.size(); ++i) {
    // Derived inputs come back as new handles to the same type (the caller frees them).
    array_of_datatypes[i] =
        d.sub[i] ? self->datatype.types.insert(std::const_pointer_cast<Derived>(d.sub[i]))
                 : d.types[i];
  }
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_contents)

// ---- attributes (keyvals and stores: src/comm/objects.hpp) ------------------------------------

extern "C" int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                                       MPI_Type_delete_attr_function *type_delete_attr_fn,
                                       int *type_keyval, void *extra_state) {
  static constexpr const char *fn = "MPI_Type_create_keyval";
  AMPI_ENTER(fn)
  (void)err;
  if (!type_keyval) return null_arg(fn, "type_keyval");
  comm::CopyAttrFn *copy = type_copy_attr_fn;
  comm::DeleteAttrFn *del = type_delete_attr_fn;
  if (copy == &MPI_TYPE_NULL_COPY_FN) copy = nullptr;
  if (del == &MPI_TYPE_NULL_DELETE_FN) del = nullptr;
  *type_keyval = self->comm.objects.keyvals.create(comm::ObjectKind::Type, copy, del, extra_state);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_create_keyval)

namespace {
comm::Keyval *type_keyval(Rank &self, int keyval, const char *fn, int *err) {
  comm::Keyval *k = self.comm.objects.keyvals.find(keyval, comm::ObjectKind::Type);
  if (!k)
    *err = raise(kWorld, MPI_ERR_KEYVAL, fn,
                 "type_keyval=%d is not a datatype keyval (or was freed)", keyval);
  return k;
}
// The same for get_attr and delete_attr: a freed keyval still attached to the type counts.
template <class It>
comm::Keyval *attached_type_keyval(Rank &self, int keyval, It it, const char *fn, int *err) {
  comm::Keyval *k =
      it == self.comm.type_attrs.end()
          ? self.comm.objects.keyvals.find(keyval, comm::ObjectKind::Type)
          : self.comm.objects.keyvals.find_attached(keyval, comm::ObjectKind::Type, it->second);
  if (!k)
    *err = raise(kWorld, MPI_ERR_KEYVAL, fn,
                 "type_keyval=%d is not a datatype keyval (or was freed)", keyval);
  return k;
}
} // namespace

extern "C" int PMPI_Type_free_keyval(int *type_keyval_handle) {
  static constexpr const char *fn = "MPI_Type_free_keyval";
  auto self = enter(fn);
  if (!self) return MPI_ERR_OTHER;
  if (!type_keyval_handle) return null_arg(fn, "type_keyval");
  // As MPI_Comm_free_keyval (src/mpi/attr.cpp): a second free of a keyval still alive is a no-op.
  comm::Keyval *k = self->comm.objects.keyvals.find_any(*type_keyval_handle);
  if (!k || k->kind != comm::ObjectKind::Type)
    return raise(kWorld, MPI_ERR_KEYVAL, fn,
                 "type_keyval=%d is not a datatype keyval (or was freed)", *type_keyval_handle);
  if (!k->freed) {
    k->freed = true; // values still attached keep it alive for their delete callbacks
    self->comm.objects.keyvals.release(*type_keyval_handle);
  }
  *type_keyval_handle = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_free_keyval)

extern "C" int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval_handle,
                                  void *attribute_val) {
  static constexpr const char *fn = "MPI_Type_set_attr";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!type_keyval(*self, type_keyval_handle, fn, &err)) return err;
  if (int e = comm::set_attr(self->comm.objects.keyvals, self->comm.type_attrs[datatype], datatype,
                             type_keyval_handle, attribute_val))
    return raise(kWorld, e, fn, "the delete callback of the old value returned %d", e);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_set_attr)

extern "C" int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval_handle,
                                  void *attribute_val, int *flag) {
  static constexpr const char *fn = "MPI_Type_get_attr";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!attribute_val || !flag) return null_arg(fn, "attribute_val or flag");
  void **v = nullptr;
  auto it = self->comm.type_attrs.find(datatype);
  if (!attached_type_keyval(*self, type_keyval_handle, it, fn, &err)) return err;
  if (it != self->comm.type_attrs.end()) v = it->second.find(type_keyval_handle);
  *flag = v != nullptr;
  if (v) *static_cast<void **>(attribute_val) = *v;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_attr)

extern "C" int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval_handle) {
  static constexpr const char *fn = "MPI_Type_delete_attr";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  auto it = self->comm.type_attrs.find(datatype);
  if (!attached_type_keyval(*self, type_keyval_handle, it, fn, &err)) return err;
  const int e =
      it == self->comm.type_attrs.end()
          ? MPI_ERR_KEYVAL
          : comm::delete_attr(self->comm.objects.keyvals, it->second, datatype, type_keyval_handle);
  if (e == MPI_ERR_KEYVAL)
    return raise(kWorld, e, fn, "the datatype has no attribute for type_keyval=%d",
                 type_keyval_handle);
  if (e != MPI_SUCCESS) return raise(kWorld, e, fn, "the delete callback returned %d", e);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_delete_attr)

// ---- counts in statuses ----------------------------------------------------------------------

extern "C" int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
  static constexpr const char *fn = "MPI_Get_count";
  AMPI_ENTER(fn)
  if (!status || !count) return null_arg(fn, "status or count");
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  const auto bytes = static_cast<std::size_t>(status->ampi_count);
  const std::size_t size = t.type->size;
  if (!size)
    *count = 0;
  else if (bytes % size || bytes / size > static_cast<std::size_t>(INT_MAX))
    *count = MPI_UNDEFINED;
  else
    *count = static_cast<int>(bytes / size);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Get_count)

extern "C" int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                                   MPI_Count *count) {
  static constexpr const char *fn = "MPI_Get_elements_x";
  AMPI_ENTER(fn)
  if (!status || !count) return null_arg(fn, "status or count");
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  const long long n = datatype::elements_in(t, static_cast<std::size_t>(status->ampi_count));
  *count = n < 0 ? MPI_UNDEFINED : static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Get_elements_x)

extern "C" int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) {
  if (!count) return null_arg("MPI_Get_elements", "count");
  MPI_Count c = 0;
  const int e = PMPI_Get_elements_x(status, datatype, &c);
  if (e == MPI_SUCCESS) *count = c > INT_MAX ? MPI_UNDEFINED : static_cast<int>(c);
  return e;
}
AMPI_PMPI_ALIAS(MPI_Get_elements)

extern "C" int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                                          MPI_Count count) {
  static constexpr const char *fn = "MPI_Status_set_elements_x";
  AMPI_ENTER(fn)
  if (!status) return null_arg(fn, "status");
  if (count < 0) return raise(kWorld, MPI_ERR_COUNT, fn, "count=%lld is negative", count);
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  status->ampi_count =
      static_cast<MPI_Count>(datatype::bytes_for_elements(t, static_cast<std::size_t>(count)));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Status_set_elements_x)

extern "C" int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count) {
  return PMPI_Status_set_elements_x(status, datatype, count);
}
AMPI_PMPI_ALIAS(MPI_Status_set_elements)

// ---- packing ---------------------------------------------------------------------------------

namespace {

// The checks MPI_Pack and MPI_Unpack share; the committed type, or nullptr after raising.
const datatype::Type *pack_args(Rank &self, const char *fn, int count, MPI_Datatype type,
                                const void *packed, MPI_Aint packed_size, const void *position,
                                MPI_Comm comm, bool has_comm, int *err) {
  if (has_comm) {
    if (!find_comm(self, comm, fn, err)) return nullptr;
  } else {
    comm = kWorld;
  }
  if (count < 0) {
    *err = raise(comm, MPI_ERR_COUNT, fn, "count=%d is negative", count);
    return nullptr;
  }
  if (packed_size < 0) {
    *err = raise(comm, MPI_ERR_ARG, fn, "the packed buffer's size %ld is negative",
                 static_cast<long>(packed_size));
    return nullptr;
  }
  if (!position) {
    *err = raise(comm, MPI_ERR_ARG, fn, "position=NULL");
    return nullptr;
  }
  const datatype::Type *t = find_type(self, type, comm, fn, err);
  if (!t) return nullptr;
  // The typed buffer may be MPI_BOTTOM (NULL here): a type built from absolute addresses
  // (MPI_Get_address) addresses its data from it, as in a send. The packed buffer holds bytes.
  if (count > 0 && t->size > 0 && !packed && packed_size > 0) {
    *err = raise(comm, MPI_ERR_BUFFER, fn, "the packed buffer is NULL");
    return nullptr;
  }
  return t;
}

} // namespace

extern "C" int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                         int outsize, int *position, MPI_Comm comm) {
  static constexpr const char *fn = "MPI_Pack";
  AMPI_ENTER(fn)
  const datatype::Type *t =
      pack_args(*self, fn, incount, datatype, outbuf, outsize, position, comm, true, &err);
  if (!t) return err;
  const std::size_t bytes = t->size * static_cast<std::size_t>(incount);
  if (*position < 0 || static_cast<std::size_t>(outsize) < static_cast<std::size_t>(*position) ||
      bytes > static_cast<std::size_t>(outsize - *position))
    return raise(comm, MPI_ERR_TRUNCATE, fn,
                 "%zu bytes do not fit in outbuf at position %d (outsize %d)", bytes, *position,
                 outsize);
  if (bytes)
    p2p::pack_any(*t, inbuf, static_cast<std::size_t>(incount), 0,
                  static_cast<char *>(outbuf) + *position, bytes);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Pack)

extern "C" int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  static constexpr const char *fn = "MPI_Unpack";
  AMPI_ENTER(fn)
  const datatype::Type *t =
      pack_args(*self, fn, outcount, datatype, inbuf, insize, position, comm, true, &err);
  if (!t) return err;
  const std::size_t bytes = t->size * static_cast<std::size_t>(outcount);
  if (*position < 0 || static_cast<std::size_t>(insize) < static_cast<std::size_t>(*position) ||
      bytes > static_cast<std::size_t>(insize - *position))
    return raise(comm, MPI_ERR_TRUNCATE, fn,
                 "inbuf holds %d bytes after position %d, fewer than the %zu to unpack",
                 insize - *position, *position, bytes);
  if (bytes)
    p2p::unpack_any(*t, static_cast<const char *>(inbuf) + *position, bytes, 0, outbuf,
                    static_cast<std::size_t>(outcount));
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Unpack)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size) {
  static constexpr const char *fn = "MPI_Pack_size";
  AMPI_ENTER(fn)
  if (!find_comm(*self, comm, fn, &err)) return err;
  if (incount < 0) return raise(comm, MPI_ERR_COUNT, fn, "incount=%d is negative", incount);
  if (!size) return raise(comm, MPI_ERR_ARG, fn, "size=NULL");
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  const std::size_t bytes = t.type->size * static_cast<std::size_t>(incount);
  *size = bytes > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(bytes);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Pack_size)

namespace {

// "external32" (MPI-3.1 13.5.2): the native packed form with every predefined value big-endian.
// Sizes agree with this platform's for every predefined type except the long doubles, whose
// x87 format has no external32 conversion here.
bool is_external32(const char *datarep) {
  return datarep && std::strcmp(datarep, "external32") == 0;
}

void swap_each(std::byte *p, std::size_t n, std::size_t width) {
  if (width < 2) return;
  for (std::size_t i = 0; i < n; ++i, p += width)
    std::reverse(p, p + width);
}

// Converts `bytes` packed bytes of `count` elements of `t` between native and external32 (the
// conversion is its own inverse); false if a type has no conversion.
bool convert_external32(const Input &t, std::size_t count, std::byte *p, MPI_Datatype *bad) {
  bool ok = true;
  datatype::for_each_predefined(t, count, [&](MPI_Datatype b, std::size_t n) {
    if (!ok) return;
    const datatype::Builtin &info = *datatype::builtin(b);
    const std::size_t size = info.size;
    if (b == MPI_LONG_DOUBLE || b == MPI_LONG_DOUBLE_INT || b == MPI_C_LONG_DOUBLE_COMPLEX ||
        b == MPI_CXX_LONG_DOUBLE_COMPLEX) {
      ok = false;
      *bad = b;
      return;
    }
    if (info.category == datatype::Category::Complex) {
      swap_each(p, 2 * n, size / 2);
    } else if (info.category == datatype::Category::Pair) {
      const std::size_t value =
          (b == MPI_2REAL || b == MPI_2DOUBLE_PRECISION) ? size / 2 : size - 4;
      for (std::size_t i = 0; i < n; ++i) {
        std::byte *e = p + i * size;
        std::reverse(e, e + value);
        std::reverse(e + value, e + size);
      }
    } else {
      swap_each(p, n, size);
    }
    p += n * size;
  });
  return ok;
}

} // namespace

extern "C" int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                                  MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                                  MPI_Aint *position) {
  static constexpr const char *fn = "MPI_Pack_external";
  AMPI_ENTER(fn)
  if (!is_external32(datarep))
    return raise(kWorld, MPI_ERR_ARG, fn, "datarep=\"%s\" is not \"external32\"",
                 datarep ? datarep : "(null)");
  const datatype::Type *t =
      pack_args(*self, fn, incount, datatype, outbuf, outsize, position, kWorld, false, &err);
  if (!t) return err;
  AMPI_RESOLVE(in, datatype, fn, "datatype")
  const std::size_t bytes = t->size * static_cast<std::size_t>(incount);
  if (*position < 0 || *position > outsize || bytes > static_cast<std::size_t>(outsize - *position))
    return raise(kWorld, MPI_ERR_TRUNCATE, fn,
                 "%zu bytes do not fit in outbuf at position %ld (outsize %ld)", bytes,
                 static_cast<long>(*position), static_cast<long>(outsize));
  auto *out = static_cast<std::byte *>(outbuf) + *position;
  if (bytes) datatype::pack(*t, inbuf, static_cast<std::size_t>(incount), 0, out, bytes);
  MPI_Datatype bad = MPI_DATATYPE_NULL;
  if (!convert_external32(in, static_cast<std::size_t>(incount), out, &bad))
    return raise(kWorld, MPI_ERR_UNSUPPORTED_DATAREP, fn, "%s has no external32 conversion in ampi",
                 type_label(bad));
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Pack_external)

extern "C" int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                                    MPI_Aint *position, void *outbuf, int outcount,
                                    MPI_Datatype datatype) {
  static constexpr const char *fn = "MPI_Unpack_external";
  AMPI_ENTER(fn)
  if (!is_external32(datarep))
    return raise(kWorld, MPI_ERR_ARG, fn, "datarep=\"%s\" is not \"external32\"",
                 datarep ? datarep : "(null)");
  const datatype::Type *t =
      pack_args(*self, fn, outcount, datatype, inbuf, insize, position, kWorld, false, &err);
  if (!t) return err;
  AMPI_RESOLVE(in, datatype, fn, "datatype")
  const std::size_t bytes = t->size * static_cast<std::size_t>(outcount);
  if (*position < 0 || *position > insize || bytes > static_cast<std::size_t>(insize - *position))
    return raise(kWorld, MPI_ERR_TRUNCATE, fn,
                 "inbuf holds %ld bytes after position %ld, fewer than the %zu to unpack",
                 static_cast<long>(insize - *position), static_cast<long>(*position), bytes);
  std::vector<std::byte> native(bytes);
  if (bytes) std::memcpy(native.data(), static_cast<const std::byte *>(inbuf) + *position, bytes);
  MPI_Datatype bad = MPI_DATATYPE_NULL;
  if (!convert_external32(in, static_cast<std::size_t>(outcount), native.data(), &bad))
    return raise(kWorld, MPI_ERR_UNSUPPORTED_DATAREP, fn, "%s has no external32 conversion in ampi",
                 type_label(bad));
  if (bytes)
    datatype::unpack(*t, native.data(), bytes, 0, outbuf, static_cast<std::size_t>(outcount));
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Unpack_external)

extern "C" int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                       MPI_Aint *size) {
  static constexpr const char *fn = "MPI_Pack_external_size";
  AMPI_ENTER(fn)
  if (!is_external32(datarep))
    return raise(kWorld, MPI_ERR_ARG, fn, "datarep=\"%s\" is not \"external32\"",
                 datarep ? datarep : "(null)");
  if (incount < 0) return raise(kWorld, MPI_ERR_COUNT, fn, "incount=%d is negative", incount);
  if (!size) return null_arg(fn, "size");
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  *size = static_cast<MPI_Aint>(t.type->size * static_cast<std::size_t>(incount));
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Pack_external_size)

// ---- addresses and sizes -----------------------------------------------------------------------

extern "C" int PMPI_Get_address(const void *location, MPI_Aint *address) {
  if (!address) return raise(kWorld, MPI_ERR_ARG, "MPI_Get_address", "address=NULL");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Get_address)

extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype) {
  static constexpr const char *fn = "MPI_Type_match_size";
  if (!datatype) return null_arg(fn, "datatype");
  MPI_Datatype t = MPI_DATATYPE_NULL;
  switch (typeclass) {
  case MPI_TYPECLASS_REAL:
    // 16 bytes: long double (x86-64's 80-bit type in 16 bytes), as ampi has no MPI_REAL16.
    t = size == 4    ? MPI_REAL4
        : size == 8  ? MPI_REAL8
        : size == 16 ? MPI_LONG_DOUBLE
                     : MPI_DATATYPE_NULL;
    break;
  case MPI_TYPECLASS_INTEGER:
    t = size == 1   ? MPI_INTEGER1
        : size == 2 ? MPI_INTEGER2
        : size == 4 ? MPI_INTEGER4
        : size == 8 ? MPI_INTEGER8
                    : MPI_DATATYPE_NULL;
    break;
  case MPI_TYPECLASS_COMPLEX:
    t = size == 8    ? MPI_COMPLEX
        : size == 16 ? MPI_DOUBLE_COMPLEX
        : size == 32 ? MPI_C_LONG_DOUBLE_COMPLEX
                     : MPI_DATATYPE_NULL;
    break;
  default:
    return raise(kWorld, MPI_ERR_ARG, fn,
                 "typeclass=%d is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", typeclass);
  }
  if (t == MPI_DATATYPE_NULL)
    return raise(kWorld, MPI_ERR_ARG, fn, "no predefined type of typeclass %d has size %d",
                 typeclass, size);
  *datatype = t;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_match_size)

// ---- MPI-4 large-count queries (the `manual` lines of src/mpi/bigcount.txt) -------------------

extern "C" int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
  static constexpr const char *fn = "MPI_Get_count_c";
  AMPI_ENTER(fn)
  if (!status || !count) return null_arg(fn, "status or count");
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  const auto bytes = static_cast<std::size_t>(status->ampi_count);
  const std::size_t size = t.type->size;
  *count = !size ? 0 : bytes % size ? MPI_UNDEFINED : static_cast<MPI_Count>(bytes / size);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Get_count_c)

extern "C" int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype,
                                   MPI_Count *count) {
  static constexpr const char *fn = "MPI_Get_elements_c";
  AMPI_ENTER(fn)
  if (!status || !count) return null_arg(fn, "status or count");
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  const long long n = datatype::elements_in(t, static_cast<std::size_t>(status->ampi_count));
  *count = n < 0 ? MPI_UNDEFINED : static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Get_elements_c)

extern "C" int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size) {
  static constexpr const char *fn = "MPI_Type_size_c";
  AMPI_ENTER(fn)
  AMPI_RESOLVE(t, datatype, fn, "datatype")
  if (!size) return null_arg(fn, "size");
  *size = static_cast<MPI_Count>(t.type->size);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_size_c)

extern "C" int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  return bounds("MPI_Type_get_extent_c", datatype, lb, extent, false);
}
AMPI_PMPI_ALIAS(MPI_Type_get_extent_c)

extern "C" int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
                                           MPI_Count *true_extent) {
  return bounds("MPI_Type_get_true_extent_c", datatype, true_lb, true_extent, true);
}
AMPI_PMPI_ALIAS(MPI_Type_get_true_extent_c)

// Types made by the _c constructors keep int arguments here (the bindings narrow them, or raise
// MPI_ERR_COUNT), so num_large_counts is always 0 and the contents are the int function's.
extern "C" int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                                        MPI_Count *num_addresses, MPI_Count *num_large_counts,
                                        MPI_Count *num_datatypes, int *combiner) {
  static constexpr const char *fn = "MPI_Type_get_envelope_c";
  if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner) {
    auto self = enter(fn);
    return null_arg(fn, "num_integers, num_addresses, num_large_counts, num_datatypes or combiner");
  }
  int ni = 0, na = 0, nd = 0;
  if (int e = PMPI_Type_get_envelope(datatype, &ni, &na, &nd, combiner)) return e;
  *num_integers = ni;
  *num_addresses = na;
  *num_large_counts = 0;
  *num_datatypes = nd;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_envelope_c)

extern "C" int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                                        MPI_Count max_addresses, MPI_Count max_large_counts,
                                        MPI_Count max_datatypes, int array_of_integers[],
                                        MPI_Aint array_of_addresses[],
                                        MPI_Count array_of_large_counts[],
                                        MPI_Datatype array_of_datatypes[]) {
  (void)max_large_counts; // no type has large counts (above)
  (void)array_of_large_counts;
  auto clamp = [](MPI_Count v) {
    return static_cast<int>(std::clamp<MPI_Count>(v, INT_MIN, INT_MAX));
  };
  return PMPI_Type_get_contents(datatype, clamp(max_integers), clamp(max_addresses),
                                clamp(max_datatypes), array_of_integers, array_of_addresses,
                                array_of_datatypes);
}
AMPI_PMPI_ALIAS(MPI_Type_get_contents_c)

// MPI 4.1: the predefined pair type of (value, index) for MPI_MINLOC/MPI_MAXLOC, or
// MPI_DATATYPE_NULL when there is none for that combination.
extern "C" int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                                         MPI_Datatype *pair_type) {
  static constexpr const char *fn = "MPI_Type_get_value_index";
  AMPI_ENTER(fn)
  if (!pair_type) return null_arg(fn, "pair_type");
  {AMPI_RESOLVE(v, value_type, fn, "value_type")} { AMPI_RESOLVE(ix, index_type, fn, "index_type") }
  struct Pair {
    MPI_Datatype value, pair;
  };
  static constexpr Pair kPairs[] = {
      {MPI_FLOAT, MPI_FLOAT_INT}, {MPI_DOUBLE, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_LONG_INT},   {MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_SHORT_INT}, {MPI_LONG_DOUBLE, MPI_LONG_DOUBLE_INT}};
  *pair_type = MPI_DATATYPE_NULL;
  if (index_type == MPI_INT)
    for (const Pair &p : kPairs)
      if (p.value == value_type) *pair_type = p.pair;
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_value_index)

// MPI 4.1: the status fields through functions (for languages that cannot reach the struct).
// They touch nothing but the status, so they need no rank and raise nothing but a NULL status.
#define AMPI_STATUS_FIELD(Field, member)                                                           \
  extern "C" int PMPI_Status_get_##Field(const MPI_Status *status, int *Field) {                   \
    if (!status || !Field) {                                                                       \
      auto self = enter_any("MPI_Status_get_" #Field);                                             \
      return null_arg("MPI_Status_get_" #Field, "status or " #Field);                              \
    }                                                                                              \
    *Field = status->member;                                                                       \
    return MPI_SUCCESS;                                                                            \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_Status_get_##Field)                                                          \
  extern "C" int PMPI_Status_set_##Field(MPI_Status *status, int Field) {                          \
    if (!status) {                                                                                 \
      auto self = enter_any("MPI_Status_set_" #Field);                                             \
      return null_arg("MPI_Status_set_" #Field, "status");                                         \
    }                                                                                              \
    status->member = Field;                                                                        \
    return MPI_SUCCESS;                                                                            \
  }                                                                                                \
  AMPI_PMPI_ALIAS(MPI_Status_set_##Field)
AMPI_STATUS_FIELD(source, MPI_SOURCE)
AMPI_STATUS_FIELD(tag, MPI_TAG)
AMPI_STATUS_FIELD(error, MPI_ERROR)
#undef AMPI_STATUS_FIELD
