// src/mpi/datatype.cpp — the MPI datatype queries on the predefined types: size, extent, name.
#include "mpi/common.hpp"

#include <cstring>

using namespace ampi;
using namespace ampi::mpi;

namespace {
const datatype::Builtin *find_type(MPI_Datatype t, const char *fn, int *err) {
  const datatype::Builtin *b = datatype::builtin(t);
  if (!b)
    *err = raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "%s",
                 t == MPI_DATATYPE_NULL ? "datatype=MPI_DATATYPE_NULL"
                                        : "datatype is not a valid datatype");
  return b;
}
} // namespace

const datatype::Type *ampi::mpi::find_derived_type(Rank &, MPI_Datatype t, MPI_Comm comm,
                                                  const char *fn, int *err) {
  // No derived datatypes yet: every other handle is invalid.
  bad_type(t, comm, fn, err);
  return nullptr;
}

#define AMPI_TYPE_OR_RETURN(b, t, fn)                                                              \
  int err_ = MPI_SUCCESS;                                                                          \
  const datatype::Builtin *b = find_type(t, fn, &err_);                                            \
  if (!b) return err_;

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int *size) {
  AMPI_TYPE_OR_RETURN(b, datatype, "MPI_Type_size")
  if (!size) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_size", "size=NULL");
  *size = static_cast<int>(b->size);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_size)

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) {
  AMPI_TYPE_OR_RETURN(b, datatype, "MPI_Type_size_x")
  if (!size) return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_size_x", "size=NULL");
  *size = static_cast<MPI_Count>(b->size);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_size_x)

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
  AMPI_TYPE_OR_RETURN(b, datatype, "MPI_Type_get_extent")
  if (!lb || !extent)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_extent", "lb or extent is NULL");
  *lb = 0;
  *extent = static_cast<MPI_Aint>(b->extent);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_extent)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                         MPI_Aint *true_extent) {
  AMPI_TYPE_OR_RETURN(b, datatype, "MPI_Type_get_true_extent")
  if (!true_lb || !true_extent)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_true_extent",
                 "true_lb or true_extent is NULL");
  *true_lb = 0;
  // Pair types end with padding that holds no data.
  *true_extent =
      static_cast<MPI_Aint>(b->category == datatype::Category::Pair ? b->size : b->extent);
  if (b->category == datatype::Category::Pair && b->size != b->extent) {
    // value at 0, index after the value's alignment: the data spans up to the end of the index.
    *true_extent = static_cast<MPI_Aint>(b->extent - (b->extent - b->size) % sizeof(int));
  }
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_true_extent)

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
  AMPI_TYPE_OR_RETURN(b, datatype, "MPI_Type_get_name")
  if (!type_name || !resultlen)
    return raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_name", "type_name or resultlen NULL");
  const std::size_t n = std::strlen(b->name);
  std::memcpy(type_name, b->name, n + 1);
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Type_get_name)
