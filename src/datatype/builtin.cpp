// src/datatype/builtin.cpp — the table of predefined datatypes, from builtin_types.def.
#include "datatype/datatype.hpp"

#include <complex>
#include <cstdint>

namespace ampi::datatype {

namespace {

template <class T> constexpr std::size_t data_size() {
  if constexpr (requires(T t) { t.index; })
    return sizeof(T::value) + sizeof(T::index);
  else
    return sizeof(T);
}

#define AMPI_BUILTIN_TYPE(name, index, ctype, category)                                            \
  {#name, data_size<ctype>(), sizeof(ctype), Category::category},
constexpr Builtin kNone{nullptr, 0, 0, Category::None};

} // namespace

const Builtin kBuiltinTable[kBuiltinCount] = {
    kNone,
#include "datatype/builtin_types.def"
};
#undef AMPI_BUILTIN_TYPE

} // namespace ampi::datatype
