// src/mpi/bigcount_rt.hpp — what the generated large-count bindings (src/mpi/bigcount.cpp, from
// tools/gen_bigcount.py) share: narrowing MPI_Count arguments to the int path with MPI_ERR_COUNT
// naming the argument when they do not fit, and the derived type that carries a message of more
// than INT_MAX elements as one element.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace ampi::mpi::bigcount {

// One _c call's conversions. Derived types it makes for large counts are freed when it goes out
// of scope, after the int call has returned: pending operations hold the type's record itself
// (MPI_Type_free's note in src/mpi/datatype.cpp), so a non-blocking call is unaffected.
class Narrow {
public:
  explicit Narrow(const char *fn) noexcept : fn_(fn) {}
  Narrow(const Narrow &) = delete;
  Narrow &operator=(const Narrow &) = delete;
  ~Narrow();

  // v into *out. Negative values pass (the int function reports them as it always does); false,
  // with the failure recorded for raise_*, when v is past INT_MAX.
  bool narrow(MPI_Count v, int *out, const char *arg);
  // A count with its datatype: past INT_MAX, *count = 1 and *type = a type of `count` elements of
  // `type` (contiguous chunks of 2^30 elements and a tail, resized to count * extent).
  bool big(MPI_Count count, MPI_Datatype type, int *out_count, MPI_Datatype *out_type,
           const char *arg);
  // The first n entries of a (nothing when a is null or n <= 0): counts (MPI_Count) or
  // displacements (MPI_Aint).
  template <class T> bool narrow_array(const T a[], int n, std::vector<int> *out, const char *arg) {
    if (!a || n <= 0) return true;
    out->resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const auto v = static_cast<MPI_Count>(a[i]);
      if (!narrow(v, &(*out)[static_cast<std::size_t>(i)], arg)) return false;
    }
    return true;
  }

  // Raise the recorded failure (MPI_ERR_COUNT, or the error of making the derived type) through
  // the communicator's, the window's or MPI_COMM_WORLD's error handler.
  int raise_comm(MPI_Comm comm);
  int raise_win(MPI_Win win);
  int raise_world();

private:
  const char *fn_;
  const char *arg_ = "";
  MPI_Count value_ = 0;
  int code_ = MPI_ERR_COUNT;
  MPI_Datatype made_[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  int nmade_ = 0;
};

// Copies n entries (none when a is null or n <= 0) of a wide array into one of MPI_Aint.
void copy_array(const MPI_Count a[], int n, std::vector<MPI_Aint> *out);

// Array lengths of the collective bindings; 0 when the handle is not valid (the int function
// then reports it).
int peers(MPI_Comm comm);      // the group size; the remote group's on an intercommunicator
int local_size(MPI_Comm comm); // the local group's size
bool is_root(MPI_Comm comm, int root);
int degree(MPI_Comm comm, bool in); // a process topology's in- or out-degree
int length(MPI_Count n);            // n as an array length (0 when it does not fit)

} // namespace ampi::mpi::bigcount
