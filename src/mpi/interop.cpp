// src/mpi/interop.cpp — the MPI functions that are not communication calls and never become
// stubs in src/mpi/unsupported.cpp: the timers (MPI_Wtime, MPI_Wtick), address arithmetic
// (MPI_Aint_add, MPI_Aint_diff), the C/Fortran handle converters (MPI_<Handle>_c2f/_f2c), the
// status converters (MPI_Status_c2f/f2c/c2f08/f082c) with the MPI_F_STATUS(ES)_IGNORE and
// MPI_F08_STATUS(ES)_IGNORE globals, MPI_Pcontrol (a no-op: no profiler is built in), the
// predefined attribute callbacks (MPI_NULL_COPY_FN, MPI_COMM_DUP_FN, ...) and
// MPI_CONVERSION_FN_NULL.
//
// tools/gen_unsupported.py reads the AMPI_PMPI_ALIAS lines of this file and generates no stub for
// the functions named there. The predefined callbacks have no PMPI_ twins (they are values passed
// to MPI calls, not calls a profiler intercepts).

#include "mpi/errors.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <vector>

// ---- Timers ----

// Seconds on CLOCK_MONOTONIC: never goes back, not affected by changes to the wall clock. Not
// synchronized between nodes (MPI_WTIME_IS_GLOBAL is the library's business, not this file's).
extern "C" double PMPI_Wtime(void) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
AMPI_PMPI_ALIAS(MPI_Wtime)

// The resolution of the clock MPI_Wtime reads, in seconds.
extern "C" double PMPI_Wtick(void) {
  timespec ts{};
  if (clock_getres(CLOCK_MONOTONIC, &ts) != 0) return 1e-9;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
AMPI_PMPI_ALIAS(MPI_Wtick)

// ---- Address arithmetic ----

// Byte-address arithmetic on a flat address space. Done on unsigned integers so that it is
// defined for any pair of addresses (pointer arithmetic across objects would not be).
extern "C" MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) +
                               static_cast<std::uintptr_t>(disp));
}
AMPI_PMPI_ALIAS(MPI_Aint_add)

extern "C" MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) -
                               static_cast<std::uintptr_t>(addr2));
}
AMPI_PMPI_ALIAS(MPI_Aint_diff)

// ---- Handle conversion between C and Fortran ----

// The int handles are their own Fortran integers: the converters are identities.

extern "C" MPI_Fint PMPI_Comm_c2f(MPI_Comm comm) {
  return static_cast<MPI_Fint>(comm);
}
AMPI_PMPI_ALIAS(MPI_Comm_c2f)
extern "C" MPI_Comm PMPI_Comm_f2c(MPI_Fint comm) {
  return static_cast<MPI_Comm>(comm);
}
AMPI_PMPI_ALIAS(MPI_Comm_f2c)

extern "C" MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler) {
  return static_cast<MPI_Fint>(errhandler);
}
AMPI_PMPI_ALIAS(MPI_Errhandler_c2f)
extern "C" MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler) {
  return static_cast<MPI_Errhandler>(errhandler);
}
AMPI_PMPI_ALIAS(MPI_Errhandler_f2c)

extern "C" MPI_Fint PMPI_Group_c2f(MPI_Group group) {
  return static_cast<MPI_Fint>(group);
}
AMPI_PMPI_ALIAS(MPI_Group_c2f)
extern "C" MPI_Group PMPI_Group_f2c(MPI_Fint group) {
  return static_cast<MPI_Group>(group);
}
AMPI_PMPI_ALIAS(MPI_Group_f2c)

extern "C" MPI_Fint PMPI_Info_c2f(MPI_Info info) {
  return static_cast<MPI_Fint>(info);
}
AMPI_PMPI_ALIAS(MPI_Info_c2f)
extern "C" MPI_Info PMPI_Info_f2c(MPI_Fint info) {
  return static_cast<MPI_Info>(info);
}
AMPI_PMPI_ALIAS(MPI_Info_f2c)

extern "C" MPI_Fint PMPI_Message_c2f(MPI_Message message) {
  return static_cast<MPI_Fint>(message);
}
AMPI_PMPI_ALIAS(MPI_Message_c2f)
extern "C" MPI_Message PMPI_Message_f2c(MPI_Fint message) {
  return static_cast<MPI_Message>(message);
}
AMPI_PMPI_ALIAS(MPI_Message_f2c)

extern "C" MPI_Fint PMPI_Op_c2f(MPI_Op op) {
  return static_cast<MPI_Fint>(op);
}
AMPI_PMPI_ALIAS(MPI_Op_c2f)
extern "C" MPI_Op PMPI_Op_f2c(MPI_Fint op) {
  return static_cast<MPI_Op>(op);
}
AMPI_PMPI_ALIAS(MPI_Op_f2c)

extern "C" MPI_Fint PMPI_Request_c2f(MPI_Request request) {
  return static_cast<MPI_Fint>(request);
}
AMPI_PMPI_ALIAS(MPI_Request_c2f)
extern "C" MPI_Request PMPI_Request_f2c(MPI_Fint request) {
  return static_cast<MPI_Request>(request);
}
AMPI_PMPI_ALIAS(MPI_Request_f2c)

extern "C" MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype) {
  return static_cast<MPI_Fint>(datatype);
}
AMPI_PMPI_ALIAS(MPI_Type_c2f)
extern "C" MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype) {
  return static_cast<MPI_Datatype>(datatype);
}
AMPI_PMPI_ALIAS(MPI_Type_f2c)

extern "C" MPI_Fint PMPI_Win_c2f(MPI_Win win) {
  return static_cast<MPI_Fint>(win);
}
AMPI_PMPI_ALIAS(MPI_Win_c2f)
extern "C" MPI_Win PMPI_Win_f2c(MPI_Fint win) {
  return static_cast<MPI_Win>(win);
}
AMPI_PMPI_ALIAS(MPI_Win_f2c)

// MPI_File is a pointer, so it needs a table: a file's Fortran integer is its index in
// file_table(). Index 0 is MPI_FILE_NULL, both ways. Any other file gets the next index the first
// time it is converted and keeps it; entries are never removed, so a Fortran integer stays valid
// as long as its file is open (converting a closed file's handle is erroneous anyway; a later file
// that reuses the address reuses the index, which is harmless). The mutex is held only for the
// lookup, never across a yield, so it is safe for ranks that are user-level threads.
namespace {

struct FileTable {
  std::mutex mutex;
  std::vector<MPI_File> files{MPI_FILE_NULL};
};

FileTable &file_table() {
  static FileTable table;
  return table;
}

} // namespace

extern "C" MPI_Fint PMPI_File_c2f(MPI_File file) {
  if (file == MPI_FILE_NULL) return 0;
  FileTable &table = file_table();
  std::lock_guard lock(table.mutex);
  auto it = std::find(table.files.begin(), table.files.end(), file);
  if (it == table.files.end()) {
    table.files.push_back(file);
    it = table.files.end() - 1;
  }
  return static_cast<MPI_Fint>(it - table.files.begin());
}
AMPI_PMPI_ALIAS(MPI_File_c2f)

extern "C" MPI_File PMPI_File_f2c(MPI_Fint file) {
  if (file <= 0) return MPI_FILE_NULL;
  FileTable &table = file_table();
  std::lock_guard lock(table.mutex);
  if (static_cast<std::size_t>(file) >= table.files.size()) return MPI_FILE_NULL;
  return table.files[static_cast<std::size_t>(file)];
}
AMPI_PMPI_ALIAS(MPI_File_f2c)

// ---- Status conversion ----

// The Fortran INTEGER status is AMPI_F_STATUS_SIZE (6) integers, laid out like MPI_F08_status:
// MPI_SOURCE, MPI_TAG, MPI_ERROR, cancelled flag, then the byte count split into its low and high
// 32 bits. Nothing is lost either way.
namespace {

constexpr int f_source = 0;
constexpr int f_tag = 1;
constexpr int f_error = 2;
constexpr int f_cancelled = 3;
constexpr int f_count_lo = 4;
constexpr int f_count_hi = 5;
static_assert(AMPI_F_STATUS_SIZE == 6);

MPI_Fint count_lo(MPI_Count count) {
  return static_cast<MPI_Fint>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(count)));
}
MPI_Fint count_hi(MPI_Count count) {
  return static_cast<MPI_Fint>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(count) >> 32));
}
MPI_Count count_of(MPI_Fint lo, MPI_Fint hi) {
  return static_cast<MPI_Count>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(hi)) << 32) |
                                static_cast<std::uint64_t>(static_cast<std::uint32_t>(lo)));
}

bool ignored(const MPI_Status *status) {
  return status == nullptr || status == MPI_STATUS_IGNORE || status == MPI_STATUSES_IGNORE;
}

// The objects the MPI_F_STATUS(ES)_IGNORE and MPI_F08_STATUS(ES)_IGNORE pointers point to: only
// their addresses matter.
MPI_Fint f_status_ignore[AMPI_F_STATUS_SIZE];
MPI_Fint f_statuses_ignore[AMPI_F_STATUS_SIZE];
MPI_F08_status f08_status_ignore;
MPI_F08_status f08_statuses_ignore;

} // namespace

MPI_Fint *MPI_F_STATUS_IGNORE = f_status_ignore;
MPI_Fint *MPI_F_STATUSES_IGNORE = f_statuses_ignore;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &f08_status_ignore;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = &f08_statuses_ignore;

extern "C" int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status) {
  if (ignored(c_status))
    return ampi::mpi::raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_c2f",
                            "c_status is NULL or MPI_STATUS(ES)_IGNORE");
  if (f_status == nullptr || f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
    return ampi::mpi::raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_c2f",
                            "f_status is NULL or MPI_F_STATUS(ES)_IGNORE");
  f_status[f_source] = c_status->MPI_SOURCE;
  f_status[f_tag] = c_status->MPI_TAG;
  f_status[f_error] = c_status->MPI_ERROR;
  f_status[f_cancelled] = c_status->ampi_cancelled;
  f_status[f_count_lo] = count_lo(c_status->ampi_count);
  f_status[f_count_hi] = count_hi(c_status->ampi_count);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Status_c2f)

extern "C" int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status) {
  if (f_status == nullptr || f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
    return ampi::mpi::raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f2c",
                            "f_status is NULL or MPI_F_STATUS(ES)_IGNORE");
  if (ignored(c_status))
    return ampi::mpi::raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f2c",
                            "c_status is NULL or MPI_STATUS(ES)_IGNORE");
  c_status->MPI_SOURCE = f_status[f_source];
  c_status->MPI_TAG = f_status[f_tag];
  c_status->MPI_ERROR = f_status[f_error];
  c_status->ampi_cancelled = f_status[f_cancelled];
  c_status->ampi_count = count_of(f_status[f_count_lo], f_status[f_count_hi]);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Status_f2c)

extern "C" int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status) {
  if (ignored(c_status))
    return ampi::mpi::raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_c2f08",
                            "c_status is NULL or MPI_STATUS(ES)_IGNORE");
  if (f08_status == nullptr || f08_status == MPI_F08_STATUS_IGNORE ||
      f08_status == MPI_F08_STATUSES_IGNORE)
    return ampi::mpi::raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_c2f08",
                            "f08_status is NULL or MPI_F08_STATUS(ES)_IGNORE");
  f08_status->MPI_SOURCE = c_status->MPI_SOURCE;
  f08_status->MPI_TAG = c_status->MPI_TAG;
  f08_status->MPI_ERROR = c_status->MPI_ERROR;
  f08_status->ampi_cancelled = c_status->ampi_cancelled;
  f08_status->ampi_count_lo = count_lo(c_status->ampi_count);
  f08_status->ampi_count_hi = count_hi(c_status->ampi_count);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Status_c2f08)

extern "C" int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status) {
  if (f08_status == nullptr || f08_status == MPI_F08_STATUS_IGNORE ||
      f08_status == MPI_F08_STATUSES_IGNORE)
    return ampi::mpi::raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f082c",
                            "f08_status is NULL or MPI_F08_STATUS(ES)_IGNORE");
  if (ignored(c_status))
    return ampi::mpi::raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f082c",
                            "c_status is NULL or MPI_STATUS(ES)_IGNORE");
  c_status->MPI_SOURCE = f08_status->MPI_SOURCE;
  c_status->MPI_TAG = f08_status->MPI_TAG;
  c_status->MPI_ERROR = f08_status->MPI_ERROR;
  c_status->ampi_cancelled = f08_status->ampi_cancelled;
  c_status->ampi_count = count_of(f08_status->ampi_count_lo, f08_status->ampi_count_hi);
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Status_f082c)

// ---- Profiling control ----

// The standard asks a library with no profiler attached to return at once; a profiling tool
// interposes MPI_Pcontrol to give it a meaning.
extern "C" int PMPI_Pcontrol(const int, ...) {
  return MPI_SUCCESS;
}
AMPI_PMPI_ALIAS(MPI_Pcontrol)

// ---- Predefined attribute callbacks ----

namespace {

int null_copy(int *flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

// Attribute values are pointer-sized: the copy is the value itself.
int dup_copy(void *attribute_val_in, void *attribute_val_out, int *flag) {
  *static_cast<void **>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

} // namespace

// Deprecated MPI-1 names (for MPI_Keyval_create).
extern "C" int MPI_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *flag) {
  return null_copy(flag);
}
extern "C" int MPI_NULL_DELETE_FN(MPI_Comm, int, void *, void *) {
  return MPI_SUCCESS;
}
extern "C" int MPI_DUP_FN(MPI_Comm, int, void *, void *attribute_val_in, void *attribute_val_out,
                          int *flag) {
  return dup_copy(attribute_val_in, attribute_val_out, flag);
}

extern "C" int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *flag) {
  return null_copy(flag);
}
extern "C" int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void *, void *) {
  return MPI_SUCCESS;
}
extern "C" int MPI_COMM_DUP_FN(MPI_Comm, int, void *, void *attribute_val_in,
                               void *attribute_val_out, int *flag) {
  return dup_copy(attribute_val_in, attribute_val_out, flag);
}

extern "C" int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void *, void *, void *, int *flag) {
  return null_copy(flag);
}
extern "C" int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void *, void *) {
  return MPI_SUCCESS;
}
extern "C" int MPI_TYPE_DUP_FN(MPI_Datatype, int, void *, void *attribute_val_in,
                               void *attribute_val_out, int *flag) {
  return dup_copy(attribute_val_in, attribute_val_out, flag);
}

extern "C" int MPI_WIN_NULL_COPY_FN(MPI_Win, int, void *, void *, void *, int *flag) {
  return null_copy(flag);
}
extern "C" int MPI_WIN_NULL_DELETE_FN(MPI_Win, int, void *, void *) {
  return MPI_SUCCESS;
}
extern "C" int MPI_WIN_DUP_FN(MPI_Win, int, void *, void *attribute_val_in, void *attribute_val_out,
                              int *flag) {
  return dup_copy(attribute_val_in, attribute_val_out, flag);
}

// ---- MPI-IO ----

// A marker, not a conversion: passed to MPI_Register_datarep, it means "no conversion needed", and
// the I/O layer must recognize it by its address and copy the data itself. Reaching this body means
// that layer called it instead, so it fails loudly rather than leave the buffer unconverted.
extern "C" int MPI_CONVERSION_FN_NULL(void *, MPI_Datatype, int, void *, MPI_Offset, void *) {
  return MPI_ERR_CONVERSION;
}
extern "C" int MPI_CONVERSION_FN_NULL_C(void *, MPI_Datatype, MPI_Count, void *, MPI_Offset,
                                        void *) {
  return MPI_ERR_CONVERSION;
}
