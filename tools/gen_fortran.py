#!/usr/bin/env python3
"""Generates the Fortran bindings of ampi from include/mpi.h.in (for gfortran).

Reads the prototypes and #define constants of include/mpi.h.in (mpi.h's template) and the
predefined datatypes of src/datatype/builtin_types.def, and writes, into the build tree:

  * --cpp FILE: the C functions gfortran calls, `mpi_<name>_` and `pmpi_<name>_` (lower case, one
    trailing underscore: gfortran's default name mangling). Every argument comes by reference;
    handles are MPI_Fint converted with MPI_<Handle>_f2c/_c2f (MPI_File through its table); ierror
    is the last named argument; Fortran CHARACTER arguments add hidden `size_t` lengths after it,
    in order (gfortran >= 8); a status is MPI_Fint[MPI_STATUS_SIZE], converted with
    MPI_Status_c2f/f2c. Choice buffers and the other arguments that accept a sentinel
    (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED,
    MPI_WEIGHTS_EMPTY) are recognized by address through ampi::mpi::fortran (src/mpi/fortran.hpp),
    which knows every rank's copy of the COMMON blocks that hold them. mpi_<name>_ calls
    MPI_<Name> (so that a C profiling library sees Fortran calls too), pmpi_<name>_ PMPI_<Name>.
    Attribute copy and delete functions written in Fortran (MPI_*_create_keyval, MPI_Keyval_create)
    are called through C trampolines (fortran::create_keyval); the predefined ones
    (MPI_COMM_DUP_FN, ...) are Fortran procedures of src/mpi/fortran.cpp; so are the query, free
    and cancel procedures of MPI_Grequest_start (fortran::grequest_start). Functions whose Fortran
    form needs other callbacks with Fortran calling conventions (data representations) or arrays of Fortran strings (MPI_Comm_spawn*) raise
    MPI_ERR_UNSUPPORTED_OPERATION from Fortran, naming the call.
  * --mpif FILE: mpif.h, written so that it is valid fixed-form and free-form source: constants as
    PARAMETERs, the sentinels in COMMON blocks, the types of the functions.
  * --module FILE: the source of the `mpi` module (free form): the same constants and COMMON
    blocks, and an explicit interface for every routine, choice buffers declared with gfortran's
    `!GCC$ ATTRIBUTES NO_ARG_CHECK` so that they accept any type, kind and rank.

  * --f08 FILE: the source of the `mpi_f08` module (see "The mpi_f08 module" below), and, in the
    --cpp output, the C shims of its routines with choice buffers.

The C++ output is written only when its content changes (so the build does not recompile it).

Usage:
    tools/gen_fortran.py --cpp OUT.cpp --mpif OUT/mpif.h --module OUT/mpi.f90 --f08 OUT/mpi_f08.f90
"""

import argparse
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen_unsupported  # noqa: E402  (the prototype parser shared with the stub generator)

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = "include/mpi.h.in"
BUILTIN_TYPES = "src/datatype/builtin_types.def"

HANDLES = {"MPI_Comm": "Comm", "MPI_Group": "Group", "MPI_Datatype": "Type", "MPI_Op": "Op",
           "MPI_Errhandler": "Errhandler", "MPI_Request": "Request", "MPI_Info": "Info",
           "MPI_Win": "Win", "MPI_Message": "Message", "MPI_File": "File"}
WIDE = {"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Offset": "MPI_OFFSET_KIND",
        "MPI_Count": "MPI_COUNT_KIND"}
# int parameters that are LOGICAL in Fortran (gfortran: 4 bytes, .TRUE. is 1, as C's true).
LOGICAL_NAMES = {"flag", "reorder", "commute", "periods", "remain_dims", "high", "weighted"}
# Functions with a Fortran form of their own (written below by hand in the generated text).
SPECIAL = {"MPI_Init", "MPI_Init_thread", "MPI_Wtime", "MPI_Wtick", "MPI_Aint_add", "MPI_Aint_diff",
           "MPI_Pcontrol", "MPI_Info_create_env", "MPI_Buffer_detach", "MPI_Comm_get_attr",
           "MPI_Win_get_attr", "MPI_Type_get_attr", "MPI_Attr_get", "MPI_Comm_set_attr",
           "MPI_Win_set_attr", "MPI_Type_set_attr", "MPI_Attr_put", "MPI_Comm_create_keyval",
           "MPI_Type_create_keyval", "MPI_Win_create_keyval", "MPI_Keyval_create",
           "MPI_Grequest_start"}
# Keyvals made from Fortran: (kind, C type of the Fortran extra state, MPI-1 form) — the copy and
# delete procedures are Fortran's, called through C trampolines (fortran::create_keyval).
KEYVAL_CREATE = {"MPI_Comm_create_keyval": ("comm", "MPI_Aint", False),
                 "MPI_Type_create_keyval": ("type", "MPI_Aint", False),
                 "MPI_Win_create_keyval": ("win", "MPI_Aint", False),
                 "MPI_Keyval_create": ("comm", "MPI_Fint", True)}
# The predefined attribute callbacks, Fortran procedures (src/mpi/fortran.cpp).
ATTR_FNS = ["MPI_COMM_NULL_COPY_FN", "MPI_COMM_DUP_FN", "MPI_COMM_NULL_DELETE_FN",
            "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_DUP_FN", "MPI_TYPE_NULL_DELETE_FN",
            "MPI_WIN_NULL_COPY_FN", "MPI_WIN_DUP_FN", "MPI_WIN_NULL_DELETE_FN",
            "MPI_NULL_COPY_FN", "MPI_DUP_FN", "MPI_NULL_DELETE_FN"]
# Callbacks called with Fortran conventions (data representations), or
# arrays of Fortran strings (spawn): not bound (yet).
UNSUPPORTED = { "MPI_Register_datarep", "MPI_Register_datarep_c",
               "MPI_Comm_spawn", "MPI_Comm_spawn_multiple"}
# void * parameters that are not choice buffers.
ADDRESS_OUT = {"baseptr"}  # the library stores an address there: INTEGER(KIND=MPI_ADDRESS_KIND)
# The output strings' C buffers hold at least this many characters (MPI_MAX_LIBRARY_VERSION_STRING,
# the largest MPI_MAX_* bound), whatever the Fortran variable's length.
STRING_MIN = 8192
# Predefined attribute keys: the Fortran value is the C value + 1 (mpi.h.in), as in MPICH.
ATTR_KEYS = {"MPI_TAG_UB", "MPI_HOST", "MPI_IO", "MPI_WTIME_IS_GLOBAL", "MPI_UNIVERSE_SIZE",
             "MPI_LASTUSEDCODE", "MPI_APPNUM", "MPI_WIN_BASE", "MPI_WIN_SIZE", "MPI_WIN_DISP_UNIT",
             "MPI_WIN_CREATE_FLAVOR", "MPI_WIN_MODEL"}


class Param:
    def __init__(self, decl):
        m = re.fullmatch(r"(.*?)\b([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)", decl)
        if not m:
            sys.exit(f"gen_fortran.py: cannot parse parameter '{decl}'")
        self.decl = decl
        self.name = m.group(2)
        self.arrays = m.group(3).replace(" ", "")
        base = m.group(1).strip()
        self.const = base.startswith("const ")
        base = base.removeprefix("const ").strip()
        self.stars = base.count("*") + (1 if self.arrays else 0)
        self.base = base.replace("*", "").strip()
        if self.arrays == "[][3]":
            self.stars = 1


def fortran_functions(functions):
    """The MPI_ functions that have a Fortran binding, in header order."""
    out = []
    for f in functions.values():
        n = f.name
        if not n.startswith("MPI_") or gen_unsupported.is_callback(n):
            continue
        if n.startswith("MPI_T_") or n.endswith("_c") or n.endswith("_c2f") or n.endswith("_f2c"):
            continue
        if n.startswith("MPI_Status_") and n[len("MPI_Status_"):] in ("c2f08", "f082c"):
            continue
        out.append(f)
    return out


# ---- C++ bindings ----------------------------------------------------------------------------------


class Binding:
    """The pieces of one generated C function."""

    def __init__(self, f):
        self.f = f
        self.args = []  # C parameter declarations of the Fortran-called function
        self.lens = []  # hidden lengths
        self.pre = []
        self.call = []
        self.post = []  # run after the call, only on success when `ok` is used
        self.unbound = None  # reason the binding raises MPI_ERR_UNSUPPORTED_OPERATION


def count_param(params, p):
    """The name of the count that sizes array parameter p (for statuses)."""
    for q in params:
        if q.name in ("count", "incount"):
            return q.name
    sys.exit(f"gen_fortran.py: no count for {p.name}")


def bind(f):
    b = Binding(f)
    params = [Param(d) for d in f.params]
    for p in params:
        n, base, stars = p.name, p.base, p.stars
        if base in HANDLES and base != "MPI_File":
            h = HANDLES[base]
            if stars == 0:
                b.args.append(f"MPI_Fint *{n}")
                b.call.append(f"MPI_{h}_f2c(*{n})")
            elif p.arrays:
                # The int handles are their own Fortran integers (src/mpi/interop.cpp): arrays of
                # them are passed as they are (same size, checked below).
                b.args.append(f"{'const ' if p.const else ''}MPI_Fint *{n}")
                b.call.append(f"reinterpret_cast<{'const ' if p.const else ''}{base} *>({n})")
            else:
                b.args.append(f"MPI_Fint *{n}")
                b.pre.append(f"{base} c_{n} = MPI_{h}_f2c(*{n});")
                b.call.append(f"&c_{n}")
                b.post.append(f"*{n} = MPI_{h}_c2f(c_{n});")
        elif base == "MPI_File":
            b.args.append(f"MPI_Fint *{n}")
            if stars == 0:
                b.call.append(f"MPI_File_f2c(*{n})")
            else:
                b.pre.append(f"MPI_File c_{n} = MPI_File_f2c(*{n});")
                b.call.append(f"&c_{n}")
                b.post.append(f"*{n} = MPI_File_c2f(c_{n});")
        elif base in ("int", "MPI_Fint") or base in WIDE:
            ctype = "MPI_Fint" if base in ("int", "MPI_Fint") else base
            if stars == 0:
                b.args.append(f"{ctype} *{n}")
                b.call.append(f"*{n}")
            elif p.arrays == "[][3]":
                b.args.append(f"MPI_Fint *{n}")
                b.call.append(f"reinterpret_cast<int (*)[3]>({n})")
            elif n == "indx":
                # Fortran indices start at 1 (MPI_Waitany, MPI_Testany).
                b.args.append(f"MPI_Fint *{n}")
                b.call.append(n)
                b.post.append(f"if (*{n} >= 0) ++*{n};")
            elif n == "array_of_indices":
                # Fortran indices start at 1 (MPI_Waitsome, MPI_Testsome).
                b.args.append(f"MPI_Fint *{n}")
                b.call.append(n)
                b.post.append(f"for (int i = 0; i < *outcount; ++i) ++{n}[i];")
            elif n == "array_of_errcodes":
                b.args.append(f"MPI_Fint *{n}")
                b.call.append(f"fortran::is({n}, fortran::Sentinel::errcodes_ignore) ? "
                              f"MPI_ERRCODES_IGNORE : {n}")
            elif n in ("sourceweights", "destweights", "weights"):
                b.args.append(f"{'const ' if p.const else ''}{ctype} *{n}")
                b.call.append(f"fortran::weights({n})")
            else:
                b.args.append(f"{'const ' if p.const else ''}{ctype} *{n}")
                b.call.append(n)
        elif base == "MPI_Status":
            if p.arrays:
                cnt = count_param(params, p)
                b.args.append(f"MPI_Fint *{n}")
                b.pre.append(f"fortran::Statuses c_{n}({n}, *{cnt});")
                b.call.append(f"c_{n}.c()")
                b.post.append(f"c_{n}.back();")
            elif p.const:
                b.args.append(f"const MPI_Fint *{n}")
                b.pre.append(f"fortran::InStatus c_{n}({n});")
                b.call.append(f"c_{n}.c()")
            else:
                b.args.append(f"MPI_Fint *{n}")
                b.pre.append(f"fortran::Status c_{n}({n});")
                b.call.append(f"c_{n}.c()")
                b.post.append(f"c_{n}.back();")
        elif base == "void" and stars == 1:
            if n in ADDRESS_OUT:
                b.args.append(f"void *{n}")
                b.call.append(n)
            else:
                b.args.append(f"{'const ' if p.const else ''}void *{n}")
                b.call.append(f"fortran::buffer({n})")
        elif base == "char" and stars == 1:
            if p.const:
                b.args.append(f"const char *{n}")
                b.lens.append(f"std::size_t {n}_len")
                b.pre.append(f"const std::string c_{n} = fortran::in_string({n}, {n}_len);")
                b.call.append(f"c_{n}.c_str()")
            else:
                b.args.append(f"char *{n}")
                b.lens.append(f"std::size_t {n}_len")
                extra = ""
                for q in params:
                    if q.name == "valuelen":
                        extra = f", *valuelen"
                    if q.name == "buflen":
                        extra = f", *buflen"
                b.pre.append(f"fortran::OutString c_{n}({n}, {n}_len{extra});")
                b.call.append(f"c_{n}.c()")
                b.post.append(f"c_{n}.back();")
        elif base.endswith("_function") or base.endswith("_fn") or base.startswith("MPI_User_function"):
            # A Fortran procedure argument arrives as the procedure's address: the C callback
            # types whose arguments are all pointers (MPI_User_function, the error handler
            # functions) match the Fortran procedures' by-reference arguments.
            b.args.append(f"{base} *{n}")
            b.call.append(n)
        else:
            b.unbound = f"parameter '{p.decl}'"
            break
    return b


def c_prototype(name, b, prefix):
    args = b.args + ["MPI_Fint *ierror"] + b.lens
    return f"void {prefix}{name.lower()}_({', '.join(args)})"


def body(b, cfn):
    lines = list(b.pre)
    call = f"{cfn}({', '.join(b.call)})"
    if b.post:
        lines.append(f"const int rc = {call};")
        lines.append("if (rc == MPI_SUCCESS) {")
        lines += ["  " + x for x in b.post]
        lines.append("}")
        lines.append("*ierror = rc;")
    else:
        lines.append(f"*ierror = {call};")
    return lines


def special_bindings(name, prefix):
    """The functions whose Fortran form differs from the C one."""
    p = prefix.upper()
    lo = prefix + name.lower()
    C = p + name
    attr_get = {
        "MPI_Comm_get_attr": ("MPI_Fint *comm", "MPI_Comm_f2c(*comm)", "MPI_Aint"),
        "MPI_Win_get_attr": ("MPI_Fint *win", "MPI_Win_f2c(*win)", "MPI_Aint"),
        "MPI_Type_get_attr": ("MPI_Fint *datatype", "MPI_Type_f2c(*datatype)", "MPI_Aint"),
        "MPI_Attr_get": ("MPI_Fint *comm", "MPI_Comm_f2c(*comm)", "MPI_Fint"),
    }
    attr_set = {
        "MPI_Comm_set_attr": ("MPI_Fint *comm", "MPI_Comm_f2c(*comm)", "MPI_Aint"),
        "MPI_Win_set_attr": ("MPI_Fint *win", "MPI_Win_f2c(*win)", "MPI_Aint"),
        "MPI_Type_set_attr": ("MPI_Fint *datatype", "MPI_Type_f2c(*datatype)", "MPI_Aint"),
        "MPI_Attr_put": ("MPI_Fint *comm", "MPI_Comm_f2c(*comm)", "MPI_Fint"),
    }
    if name in KEYVAL_CREATE:
        kind, xt, mpi1 = KEYVAL_CREATE[name]
        return [f"void {lo}_(void (*copy_fn)(), void (*delete_fn)(), MPI_Fint *keyval, {xt} *extra_state, "
                "MPI_Fint *ierror) {",
                f"  *ierror = fortran::create_keyval(fortran::KeyKind::{kind}, copy_fn, delete_fn, keyval, "
                f"static_cast<MPI_Aint>(*extra_state), {'true' if mpi1 else 'false'}, "
                f"{'true' if prefix == '' else 'false'});", "}"]
    if name == "MPI_Grequest_start":
        return [f"void {lo}_(void (*query_fn)(), void (*free_fn)(), void (*cancel_fn)(), "
                "MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierror) {",
                "  *ierror = fortran::grequest_start(query_fn, free_fn, cancel_fn, *extra_state, "
                f"request, {'true' if prefix == '' else 'false'});", "}"]
    if name == "MPI_Init":
        return [f"void {lo}_(MPI_Fint *ierror) {{", f"  *ierror = {C}(nullptr, nullptr);", "}"]
    if name == "MPI_Init_thread":
        return [f"void {lo}_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror) {{",
                f"  *ierror = {C}(nullptr, nullptr, *required, provided);", "}"]
    if name in ("MPI_Wtime", "MPI_Wtick"):
        return [f"double {lo}_() {{", f"  return {C}();", "}"]
    if name in ("MPI_Aint_add", "MPI_Aint_diff"):
        return [f"MPI_Aint {lo}_(MPI_Aint *a, MPI_Aint *b) {{", f"  return {C}(*a, *b);", "}"]
    if name == "MPI_Pcontrol":
        return [f"void {lo}_(MPI_Fint *level, MPI_Fint *ierror) {{",
                f"  *ierror = {C}(*level);", "}"]
    if name == "MPI_Info_create_env":
        return [f"void {lo}_(MPI_Fint *info, MPI_Fint *ierror) {{",
                "  MPI_Info c_info = MPI_INFO_NULL;",
                f"  *ierror = {C}(0, nullptr, &c_info);",
                "  if (*ierror == MPI_SUCCESS) *info = MPI_Info_c2f(c_info);", "}"]
    if name == "MPI_Buffer_detach":
        # Fortran's buffer_addr is a choice argument the call does not set (there are no
        # pointers to return it in): the address goes to a local.
        return [f"void {lo}_(void *, MPI_Fint *size, MPI_Fint *ierror) {{",
                "  void *addr = nullptr;", f"  *ierror = {C}(&addr, size);", "}"]
    if name in attr_get:
        obj, conv, vtype = attr_get[name]
        return [f"void {lo}_({obj}, MPI_Fint *keyval, {vtype} *attribute_val, MPI_Fint *flag, "
                "MPI_Fint *ierror) {",
                "  void *value = nullptr;",
                "  const int c_key = fortran::attr_key(*keyval);",
                f"  *ierror = {C}({conv}, c_key, &value, flag);",
                f"  if (*ierror == MPI_SUCCESS && *flag) *attribute_val = "
                f"static_cast<{vtype}>(fortran::attr_value(c_key, value));", "}"]
    if name in attr_set:
        obj, conv, vtype = attr_set[name]
        return [f"void {lo}_({obj}, MPI_Fint *keyval, {vtype} *attribute_val, MPI_Fint *ierror) {{",
                f"  *ierror = {C}({conv}, *keyval, reinterpret_cast<void *>("
                "static_cast<MPI_Aint>(*attribute_val)));", "}"]
    sys.exit(f"gen_fortran.py: no special binding for {name}")


def generate_cpp(funcs, all_functions):
    out = [
        "// GENERATED by tools/gen_fortran.py from include/mpi.h.in: do not edit. The C functions",
        "// gfortran calls for the MPI routines of mpif.h and the `mpi` module (see the script).",
        '#include "mpi/errors.hpp"',
        '#include "mpi/fortran.hpp"',
        "",
        "#include <mpi.h>",
        "",
        "#include <cstddef>",
        "#include <string>",
        "",
        "using namespace ampi::mpi;",
        "",
        "// The int handles are passed to C as they are in arrays: they must be Fortran integers.",
    ]
    for h in HANDLES:
        if h != "MPI_File":
            out.append(f"static_assert(sizeof({h}) == sizeof(MPI_Fint));")
    out += ['extern "C" {', ""]
    count = 0
    for f in funcs:
        name = f.name
        for prefix in ("", "p"):
            if name in SPECIAL:
                out += special_bindings(name, prefix)
                out.append("")
                continue
            b = bind(f)
            if name in UNSUPPORTED or b.unbound:
                # Arguments are not read: the call raises the error naming the function.
                # The arguments are not read (hidden string lengths, if any, follow ierror).
                unused = ", ".join(["void *"] * len(f.params) + ["MPI_Fint *ierror"])
                out.append(f"void {prefix}{name.lower()}_({unused}) {{")
                out.append("  // Not callable from Fortran yet (see tools/gen_fortran.py).")
                out.append(f'  *ierror = unsupported("{name} (Fortran)");')
                out.append("}")
                out.append("")
                continue
            out.append(c_prototype(name, b, prefix) + " {")
            out += ["  " + x for x in body(b, prefix.upper() + name)]
            out.append("}")
            out.append("")
        count += 1
    out.append('} // extern "C"')
    out.append("")
    out.append(generate_f08_shims(all_functions))
    return "\n".join(out) + "\n", count


# ---- Constants -------------------------------------------------------------------------------------


def constants(root):
    """(name, integer value) for every integer constant of mpi.h that Fortran has."""
    text = (root / HEADER).read_text()
    values = {}
    order = []
    for m in re.finditer(r"^#define\s+(MPI_\w+)\s+(.+?)\s*(?:/\*.*)?$", text, flags=re.M):
        name, value = m.group(1), m.group(2).strip()
        if name.startswith("MPI_T_") or "*" in value or name in ("MPI_FILE_NULL",):
            continue
        v = re.fullmatch(r"\(\(MPI_\w+\)\s*(-?(?:0x[0-9a-fA-F]+|\d+))\)", value)
        if v:
            value = v.group(1)
        value = value.strip("()")
        if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", value):
            values[name] = int(value, 0)
            order.append(name)
        elif value in values:
            values[name] = values[value]
            order.append(name)
    for line in (root / BUILTIN_TYPES).read_text().splitlines():
        m = re.match(r"AMPI_BUILTIN_TYPE\((\w+),\s*(\d+),", line)
        if m:
            values[m.group(1)] = 0x4C000000 | int(m.group(2))
            order.append(m.group(1))
    for alias, target in (("MPI_LONG_LONG", "MPI_LONG_LONG_INT"),
                          ("MPI_C_COMPLEX", "MPI_C_FLOAT_COMPLEX")):
        values[alias] = values[target]
        order.append(alias)
    for key in ATTR_KEYS:
        values[key] += 1
    values["MPI_FILE_NULL"] = 0
    order.append("MPI_FILE_NULL")
    fortran_only = [("MPI_STATUS_SIZE", 6), ("MPI_SOURCE", 1), ("MPI_TAG", 2), ("MPI_ERROR", 3),
                    ("MPI_ADDRESS_KIND", 8), ("MPI_OFFSET_KIND", 8), ("MPI_COUNT_KIND", 8),
                    ("MPI_INTEGER_KIND", 4)]
    for name, v in fortran_only:
        values[name] = v
    seen = set()
    result = [(n, values[n]) for n, _ in fortran_only]
    seen.update(n for n, _ in fortran_only)
    for n in order:
        if n not in seen:
            seen.add(n)
            result.append((n, values[n]))
    return result


# The sentinels: (Fortran declaration, COMMON block).
SENTINELS = [
    ("INTEGER MPI_BOTTOM", "MPI_FORTRAN_BOTTOM", "MPI_BOTTOM"),
    ("INTEGER MPI_IN_PLACE", "MPI_FORTRAN_IN_PLACE", "MPI_IN_PLACE"),
    ("INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)", "MPI_FORTRAN_ST_IGNORE", "MPI_STATUS_IGNORE"),
    ("INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)", "MPI_FORTRAN_STS_IGNORE",
     "MPI_STATUSES_IGNORE"),
    ("INTEGER MPI_ERRCODES_IGNORE(1)", "MPI_FORTRAN_ERRCODES_IGN", "MPI_ERRCODES_IGNORE"),
    ("INTEGER MPI_UNWEIGHTED(1)", "MPI_FORTRAN_UNWEIGHTED", "MPI_UNWEIGHTED"),
    ("INTEGER MPI_WEIGHTS_EMPTY(1)", "MPI_FORTRAN_WEIGHTS_EMPTY", "MPI_WEIGHTS_EMPTY"),
    ("CHARACTER*1 MPI_ARGV_NULL(1)", "MPI_FORTRAN_ARGV_NULL", "MPI_ARGV_NULL"),
    ("CHARACTER*1 MPI_ARGVS_NULL(1,1)", "MPI_FORTRAN_ARGVS_NULL", "MPI_ARGVS_NULL"),
]


def declarations(consts, indent):
    """Constant and COMMON declarations valid in fixed and free form (columns 7-72)."""
    out = []
    for name, v in consts:
        out.append(f"{indent}INTEGER {name}")
        out.append(f"{indent}PARAMETER ({name}={v})")
    for decl, block, var in SENTINELS:
        out.append(f"{indent}{decl}")
        out.append(f"{indent}COMMON /{block}/ {var}")
        out.append(f"{indent}SAVE /{block}/")
    for line in out:
        if len(line) > 72:
            sys.exit(f"gen_fortran.py: line too long for fixed form: {line}")
    return out


def generate_mpif(consts, funcs):
    ind = "      "
    out = [
        "! mpif.h -- ampi's Fortran header: GENERATED by tools/gen_fortran.py from",
        "! include/mpi.h.in, do not edit. Valid as fixed-form and as free-form source.",
        "! The sentinels (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, ...) are COMMON",
        "! blocks the library recognizes by address, in every rank's copy.",
    ]
    out += declarations(consts, ind)
    out.append(f"{ind}DOUBLE PRECISION MPI_WTIME, MPI_WTICK")
    out.append(f"{ind}DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK")
    out.append(f"{ind}EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK")
    out.append(f"{ind}INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD")
    out.append(f"{ind}INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_DIFF")
    out.append(f"{ind}EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF")
    out += [f"{ind}EXTERNAL {fn}" for fn in ATTR_FNS]
    return "\n".join(out) + "\n"


# ---- The mpi module --------------------------------------------------------------------------------


def f_decl(f, p, params):
    """The Fortran declaration lines of parameter p (an explicit interface), or None."""
    n, base, stars = p.name, p.base, p.stars
    if base in HANDLES:
        return [f"INTEGER :: {n}" + ("(*)" if p.arrays else "")]
    if base in ("int", "MPI_Fint"):
        t = "LOGICAL" if n in LOGICAL_NAMES else "INTEGER"
        if p.arrays == "[][3]":
            return [f"INTEGER :: {n}(3,*)"]
        return [f"{t} :: {n}" + ("(*)" if p.arrays else "")]
    if base in WIDE:
        return [f"INTEGER(KIND={WIDE[base]}) :: {n}" + ("(*)" if p.arrays else "")]
    if base == "MPI_Status":
        return [f"INTEGER :: {n}(MPI_STATUS_SIZE" + (",*)" if p.arrays else ")")]
    if base == "void" and stars == 1:
        if n in ADDRESS_OUT:
            return [f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {n}",
                    f"INTEGER(KIND=MPI_ADDRESS_KIND) :: {n}"]
        return [f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {n}", f"REAL, DIMENSION(*) :: {n}"]
    if base == "char" and stars == 1:
        return [f"CHARACTER(LEN=*) :: {n}"]
    if base.endswith("_function") or base.endswith("_fn") or base.startswith("MPI_User_function"):
        return [f"EXTERNAL :: {n}"]
    return None


def special_interface(name):
    if name == "MPI_Init":
        return ["SUBROUTINE MPI_INIT(ierror)", "INTEGER :: ierror"]
    if name == "MPI_Init_thread":
        return ["SUBROUTINE MPI_INIT_THREAD(required, provided, ierror)",
                "INTEGER :: required, provided, ierror"]
    if name in ("MPI_Wtime", "MPI_Wtick"):
        return [f"DOUBLE PRECISION FUNCTION {name.upper()}()"]
    if name in ("MPI_Aint_add", "MPI_Aint_diff"):
        return [f"INTEGER(KIND=MPI_ADDRESS_KIND) FUNCTION {name.upper()}(a, b)",
                "INTEGER(KIND=MPI_ADDRESS_KIND) :: a, b"]
    if name == "MPI_Pcontrol":
        return ["SUBROUTINE MPI_PCONTROL(level, ierror)", "INTEGER :: level, ierror"]
    if name == "MPI_Info_create_env":
        return ["SUBROUTINE MPI_INFO_CREATE_ENV(info, ierror)", "INTEGER :: info, ierror"]
    if name == "MPI_Buffer_detach":
        return ["SUBROUTINE MPI_BUFFER_DETACH(buffer_addr, size, ierror)",
                "!GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer_addr",
                "REAL, DIMENSION(*) :: buffer_addr", "INTEGER :: size, ierror"]
    if name == "MPI_Grequest_start":
        return ["SUBROUTINE MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra_state, request, "
                "ierror)", "EXTERNAL :: query_fn, free_fn, cancel_fn",
                "INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state", "INTEGER :: request, ierror"]
    if name in KEYVAL_CREATE:
        kind = "INTEGER" if KEYVAL_CREATE[name][2] else "INTEGER(KIND=MPI_ADDRESS_KIND)"
        return [f"SUBROUTINE {name.upper()}(copy_fn, delete_fn, keyval, extra_state, ierror)",
                "EXTERNAL :: copy_fn, delete_fn", "INTEGER :: keyval, ierror",
                f"{kind} :: extra_state"]
    obj = {"Comm": "comm", "Win": "win", "Type": "datatype", "Attr": "comm"}[name[4:].split("_")[0]]
    kind = "INTEGER" if name.startswith("MPI_Attr") else "INTEGER(KIND=MPI_ADDRESS_KIND)"
    if name.endswith("get_attr") or name == "MPI_Attr_get":
        return [f"SUBROUTINE {name.upper()}({obj}, keyval, attribute_val, flag, ierror)",
                f"INTEGER :: {obj}, keyval, ierror", f"{kind} :: attribute_val", "LOGICAL :: flag"]
    return [f"SUBROUTINE {name.upper()}({obj}, keyval, attribute_val, ierror)",
            f"INTEGER :: {obj}, keyval, ierror", f"{kind} :: attribute_val"]


def wrap(line, indent):
    """Free-form continuation lines of at most 100 columns."""
    out = []
    line = indent + line
    while len(line) > 100:
        cut = line.rfind(",", 0, 98) + 1
        out.append(line[:cut] + " &")
        line = indent + "    " + line[cut:].lstrip()
    out.append(line)
    return out


def generate_module(consts, funcs):
    out = [
        "! mpi.f90 -- ampi's `mpi` module: GENERATED by tools/gen_fortran.py from include/mpi.h.in,",
        "! do not edit. Constants and sentinel COMMON blocks as in mpif.h, and an explicit interface",
        "! for each routine (choice buffers accept any type through NO_ARG_CHECK).",
        "MODULE mpi",
        "  IMPLICIT NONE",
    ]
    out += declarations(consts, "  ")
    out += [f"  EXTERNAL :: {fn}" for fn in ATTR_FNS]
    out.append("  INTERFACE")
    for f in funcs:
        name = f.name
        if name in UNSUPPORTED:
            continue
        if name in SPECIAL:
            lines = special_interface(name)
            head, decls = lines[0], lines[1:]
        else:
            params = [Param(d) for d in f.params]
            decls = []
            ok = True
            for p in params:
                d = f_decl(f, p, params)
                if d is None:
                    ok = False
                    break
                decls += d
            if not ok:
                continue
            names = [p.name for p in params] + ["ierror"]
            head = f"SUBROUTINE {name.upper()}({', '.join(names)})"
            decls.append("INTEGER :: ierror")
        end = "END FUNCTION" if "FUNCTION" in head else "END SUBROUTINE"
        out += wrap(head, "    ")
        out.append("      IMPORT")
        out.append("      IMPLICIT NONE")
        out += ["      " + d for d in decls]
        out.append(f"    {end}")
    out.append("  END INTERFACE")
    out.append("END MODULE mpi")
    return "\n".join(out) + "\n"


# ---- The mpi_f08 module ----------------------------------------------------------------------------
#
# Every routine of mpi_f08 is a module procedure, MPI_<Name>_f08 (MPI_<Name>_f08ts when it has
# choice buffers, the standard's names; large-count ones _c_f08 / _c_f08ts), and PMPI_ twins, under
# the generic names MPI_<Name> / PMPI_<Name>. The procedure converts nothing itself: the handle
# types are BIND(C) wrappers of one INTEGER and TYPE(MPI_Status) holds the six integers of an
# INTEGER status array, so the arguments go by reference, as they are, to the bindings of the `mpi`
# module (mpi_<name>_, through a BIND(C) interface); ierror becomes optional. A routine with choice
# buffers (TYPE(*), DIMENSION(..): the C side receives a CFI descriptor) calls instead a C shim,
# mpi_<name>_f08ts_, generated below into the same C++ file: it turns each descriptor into an
# address (a non-contiguous array section is packed into a temporary and, for a buffer the call may
# write, unpacked after it: fortran::Choice) and calls mpi_<name>_. Nonblocking, persistent,
# split-collective and one-sided calls (and MPI_Buffer_attach, MPI_Win_create/attach) use the
# buffer after they return: a non-contiguous section is refused there with MPI_ERR_BUFFER, and
# MPI_SUBARRAYS_SUPPORTED is .FALSE.

F08_TYPES = ["MPI_Comm", "MPI_Datatype", "MPI_Group", "MPI_Request", "MPI_Op", "MPI_Win",
             "MPI_File", "MPI_Info", "MPI_Errhandler", "MPI_Message"]
KIND_BYTES = {"MPI_ADDRESS_KIND": 8, "MPI_OFFSET_KIND": 8, "MPI_COUNT_KIND": 8}
# Calls that use a choice buffer after they return (the address must stay valid).
DEFERRED_NAMES = {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op",
                  "MPI_Compare_and_swap", "MPI_Rput", "MPI_Rget", "MPI_Raccumulate",
                  "MPI_Rget_accumulate", "MPI_Win_create", "MPI_Win_attach", "MPI_Buffer_attach"}
# Calls whose choice argument is a location, not a buffer: its first element's address.
ADDRESS_NAMES = {"MPI_Get_address", "MPI_Address", "MPI_Win_detach"}


def base_name(name):
    return name[:-2] if name.endswith("_c") else name


def choice_mode(name):
    b = base_name(name)
    if b in ADDRESS_NAMES:
        return "address"
    if (b in DEFERRED_NAMES or re.match(r"MPI_I[a-z]", b) or b.startswith("MPI_File_i")
            or b.endswith("_init") or b.endswith("_begin") or b.endswith("_end")):
        return "deferred"
    return None  # in or inout, from the parameter's constness


def is_choice(p):
    return p.base == "void" and p.stars == 1 and p.name not in ADDRESS_OUT


def f08_functions(functions):
    """The functions of mpi_f08: those of the mpi module and their large-count (_c) forms."""
    out = []
    for f in functions.values():
        n = f.name
        if not n.startswith("MPI_") or gen_unsupported.is_callback(n) or n.startswith("MPI_T_"):
            continue
        if n.endswith("_c2f") or n.endswith("_f2c") or n.endswith("_c2f08") or n.endswith("_f082c"):
            continue
        out.append(f)
    return out


def f08_param(p):
    """(dummy declaration, interface declaration, actual argument, hidden length or None,
    Fortran type signature for distinguishing overloads)."""
    n, base = p.name, p.base
    dim = "(*)" if p.arrays else ""
    intent_in = ", INTENT(IN)" if (p.stars == 0 or p.const) else ""
    if base in HANDLES:
        t = f"TYPE({base})"
        return (f"{t}{intent_in} :: {n}{dim}", f"{t} :: {n}{dim}", n, None, t + dim)
    if base in ("int", "MPI_Fint"):
        if p.arrays == "[][3]":
            return (f"INTEGER{intent_in} :: {n}(3,*)", f"INTEGER(C_INT) :: {n}(3,*)", n, None, "I4(2)")
        if n in LOGICAL_NAMES:
            return (f"LOGICAL{intent_in} :: {n}{dim}", f"LOGICAL :: {n}{dim}", n, None, "L" + dim)
        return (f"INTEGER{intent_in} :: {n}{dim}", f"INTEGER(C_INT) :: {n}{dim}", n, None, "I4" + dim)
    if base in WIDE:
        k = WIDE[base]
        return (f"INTEGER(KIND={k}){intent_in} :: {n}{dim}", f"INTEGER(KIND={k}) :: {n}{dim}", n,
                None, f"I{KIND_BYTES[k]}{dim}")
    if base == "MPI_Status":
        return (f"TYPE(MPI_Status){intent_in} :: {n}{dim}", f"TYPE(MPI_Status) :: {n}{dim}", n, None,
                "S" + dim)
    if base == "void" and p.stars == 1:
        if n in ADDRESS_OUT:
            return (f"TYPE(C_PTR) :: {n}", f"TYPE(C_PTR) :: {n}", n, None, "P")
        intent = ", INTENT(IN)" if p.const else ""
        return (f"TYPE(*), DIMENSION(..){intent} :: {n}", f"TYPE(*), DIMENSION(..){intent} :: {n}",
                n, None, None)
    if base == "char" and p.stars == 1:
        return (f"CHARACTER(LEN=*){intent_in} :: {n}", f"CHARACTER(KIND=C_CHAR) :: {n}(*)", n,
                n, "C")
    if base.endswith("_function") or base.endswith("_fn") or base.startswith("MPI_User_function"):
        return (f"EXTERNAL :: {n}", f"TYPE(C_FUNPTR), VALUE :: {n}", f"C_FUNLOC({n})", None, "F")
    return None


def f08_unsupported_param(p):
    """The dummy declaration of a parameter of a routine not callable from Fortran yet."""
    n, base = p.name, p.base
    if base == "void":
        return f"INTEGER(KIND=MPI_ADDRESS_KIND) :: {n}"
    if base == "char" and p.stars == 2:
        return f"CHARACTER(LEN=*) :: {n}(*)"
    if base == "char" and p.stars == 3:
        return f"CHARACTER(LEN=*) :: {n}(count,*)"
    d = f08_param(p)
    return d[0] if d else f"EXTERNAL :: {n}"


class F08:
    """One routine of mpi_f08: its specific names, dummies and the call it makes."""

    def __init__(self, f):
        self.f = f
        self.params = [Param(d) for d in f.params if d != "..."]
        self.choice = [p for p in self.params if is_choice(p)]
        large = f.name.endswith("_c")
        suffix = ("_c" if large else "") + ("_f08ts" if self.choice else "_f08")
        self.specific = base_name(f.name) + suffix
        self.generic = base_name(f.name)
        self.signature = None
        self.unsupported = f.name in UNSUPPORTED


def f08_routine(r, prefix):
    """The Fortran text of one module procedure (prefix "" or "P")."""
    f, name = r.f, r.f.name
    P = prefix
    spec = P + r.specific
    ifname = f"ampi_{P.lower()}b_{name[4:].lower()}"
    dummies = [p.name for p in r.params] + ["ierror"]
    head = f"SUBROUTINE {spec}({', '.join(dummies)})"
    decls, actuals, lens, iface = [], [], [], []
    if r.unsupported:
        decls = [f08_unsupported_param(p) for p in r.params]
        body = [f"CALL ampi_f08_unsupported(\"{name}\" // C_NULL_CHAR, ierr)"]
        out = wrap(head, "  ")
        out += ["    " + d for d in decls]
        out += ["    INTEGER, OPTIONAL, INTENT(OUT) :: ierror", "    INTEGER :: ierr"]
        out += ["    " + b for b in body]
        out += ["    IF (PRESENT(ierror)) ierror = ierr", f"  END SUBROUTINE {spec}"]
        return out, []
    for p in r.params:
        d, i, a, ln, _ = f08_param(p)
        decls.append(d)
        iface.append(i)
        actuals.append(a)
        if ln:
            lens.append(ln)
    cname = f"{P.lower()}{name.lower()}_" + ("f08ts_" if r.choice else "")
    iargs = [p.name for p in r.params] + ["ierror"] + [f"{x}_len" for x in lens]
    ifc = wrap(f"SUBROUTINE {ifname}({', '.join(iargs)}) BIND(C, NAME=\"{cname}\")", "    ")
    ifc += ["      IMPORT", "      IMPLICIT NONE"]
    ifc += ["      " + x for x in iface]
    ifc.append("      INTEGER(C_INT) :: ierror")
    ifc += [f"      INTEGER(C_SIZE_T), VALUE :: {x}_len" for x in lens]
    ifc.append(f"    END SUBROUTINE {ifname}")
    call = actuals + ["ierr"] + [f"LEN({x}, KIND=C_SIZE_T)" for x in lens]
    out = wrap(head, "  ")
    out += ["    " + d for d in decls]
    out += ["    INTEGER, OPTIONAL, INTENT(OUT) :: ierror", "    INTEGER :: ierr"]
    out += wrap(f"CALL {ifname}({', '.join(call)})", "    ")
    out += ["    IF (PRESENT(ierror)) ierror = ierr", f"  END SUBROUTINE {spec}"]
    return out, ifc


# The routines whose Fortran form differs from the C one: (dummies, declarations, interface of the
# binding called, the call). {P} is "" or "P", {p} "" or "p".
F08_SPECIAL = {
    "MPI_Init": ("ierror", [], "SUBROUTINE {b}(ierror) BIND(C, NAME=\"{p}mpi_init_\")",
                 ["INTEGER(C_INT) :: ierror"], "CALL {b}(ierr)"),
    "MPI_Init_thread": ("required, provided, ierror",
                        ["INTEGER, INTENT(IN) :: required", "INTEGER, INTENT(OUT) :: provided"],
                        "SUBROUTINE {b}(required, provided, ierror) BIND(C, NAME=\"{p}mpi_init_thread_\")",
                        ["INTEGER(C_INT) :: required, provided, ierror"],
                        "CALL {b}(required, provided, ierr)"),
    "MPI_Info_create_env": ("info, ierror", ["TYPE(MPI_Info) :: info"],
                            "SUBROUTINE {b}(info, ierror) BIND(C, NAME=\"{p}mpi_info_create_env_\")",
                            ["TYPE(MPI_Info) :: info", "INTEGER(C_INT) :: ierror"],
                            "CALL {b}(info, ierr)"),
    # buffer_addr receives the attached buffer's address (the mpi module's form cannot).
    "MPI_Buffer_detach": ("buffer_addr, size, ierror",
                          ["TYPE(C_PTR), INTENT(OUT) :: buffer_addr", "INTEGER, INTENT(OUT) :: size"],
                          "INTEGER(C_INT) FUNCTION {b}(buffer_addr, size) BIND(C, NAME=\"{P}MPI_Buffer_detach\")",
                          ["TYPE(C_PTR) :: buffer_addr", "INTEGER(C_INT) :: size"],
                          "ierr = {b}(buffer_addr, size)"),
}
for _n, (_kind, _xt, _mpi1) in KEYVAL_CREATE.items():
    _k = "INTEGER" if _mpi1 else "INTEGER(KIND=MPI_ADDRESS_KIND)"
    F08_SPECIAL[_n] = ("copy_fn, delete_fn, keyval, extra_state, ierror",
                       ["EXTERNAL :: copy_fn, delete_fn", "INTEGER, INTENT(OUT) :: keyval",
                        f"{_k}, INTENT(IN) :: extra_state"],
                       f"SUBROUTINE {{b}}(copy_fn, delete_fn, keyval, extra_state, ierror) "
                       f"BIND(C, NAME=\"{{p}}{_n.lower()}_\")",
                       ["TYPE(C_FUNPTR), VALUE :: copy_fn, delete_fn", "INTEGER(C_INT) :: keyval, ierror",
                        f"{_k} :: extra_state"],
                       "CALL {b}(C_FUNLOC(copy_fn), C_FUNLOC(delete_fn), keyval, extra_state, ierr)")
F08_SPECIAL["MPI_Grequest_start"] = (
    "query_fn, free_fn, cancel_fn, extra_state, request, ierror",
    ["EXTERNAL :: query_fn, free_fn, cancel_fn",
     "INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: extra_state",
     "TYPE(MPI_Request), INTENT(OUT) :: request"],
    "SUBROUTINE {b}(query_fn, free_fn, cancel_fn, extra_state, request, ierror) "
    "BIND(C, NAME=\"{p}mpi_grequest_start_\")",
    ["TYPE(C_FUNPTR), VALUE :: query_fn, free_fn, cancel_fn",
     "INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state", "TYPE(MPI_Request) :: request",
     "INTEGER(C_INT) :: ierror"],
    "CALL {b}(C_FUNLOC(query_fn), C_FUNLOC(free_fn), C_FUNLOC(cancel_fn), extra_state, request, ierr)")
for _n, _o, _t in (("MPI_Comm_get_attr", "comm", "MPI_Comm"), ("MPI_Win_get_attr", "win", "MPI_Win"),
                   ("MPI_Type_get_attr", "datatype", "MPI_Datatype"), ("MPI_Attr_get", "comm", "MPI_Comm")):
    _k = "INTEGER" if _n == "MPI_Attr_get" else "INTEGER(KIND=MPI_ADDRESS_KIND)"
    F08_SPECIAL[_n] = (f"{_o}, keyval, attribute_val, flag, ierror",
                       [f"TYPE({_t}), INTENT(IN) :: {_o}", "INTEGER, INTENT(IN) :: keyval",
                        f"{_k}, INTENT(OUT) :: attribute_val", "LOGICAL, INTENT(OUT) :: flag"],
                       f"SUBROUTINE {{b}}({_o}, keyval, attribute_val, flag, ierror) "
                       f"BIND(C, NAME=\"{{p}}{_n.lower()}_\")",
                       [f"TYPE({_t}) :: {_o}", "INTEGER(C_INT) :: keyval, ierror", f"{_k} :: attribute_val",
                        "LOGICAL :: flag"],
                       f"CALL {{b}}({_o}, keyval, attribute_val, flag, ierr)")
for _n, _o, _t in (("MPI_Comm_set_attr", "comm", "MPI_Comm"), ("MPI_Win_set_attr", "win", "MPI_Win"),
                   ("MPI_Type_set_attr", "datatype", "MPI_Datatype"), ("MPI_Attr_put", "comm", "MPI_Comm")):
    _k = "INTEGER" if _n == "MPI_Attr_put" else "INTEGER(KIND=MPI_ADDRESS_KIND)"
    F08_SPECIAL[_n] = (f"{_o}, keyval, attribute_val, ierror",
                       [f"TYPE({_t}), INTENT(IN) :: {_o}", "INTEGER, INTENT(IN) :: keyval",
                        f"{_k}, INTENT(IN) :: attribute_val"],
                       f"SUBROUTINE {{b}}({_o}, keyval, attribute_val, ierror) "
                       f"BIND(C, NAME=\"{{p}}{_n.lower()}_\")",
                       [f"TYPE({_t}) :: {_o}", "INTEGER(C_INT) :: keyval, ierror", f"{_k} :: attribute_val"],
                       f"CALL {{b}}({_o}, keyval, attribute_val, ierr)")


def f08_special(name, prefix):
    """(module procedure text, interface text, specific name) of a routine of F08_SPECIAL and of
    the functions (MPI_Wtime, MPI_Wtick, MPI_Aint_add, MPI_Aint_diff, MPI_Pcontrol)."""
    P, p = prefix, prefix.lower()
    spec = f"{P}{name}_f08"
    b = f"ampi_{p}b_{name[4:].lower()}"
    if name in ("MPI_Wtime", "MPI_Wtick"):
        proc = [f"  DOUBLE PRECISION FUNCTION {spec}()", f"    {spec} = {b}()", f"  END FUNCTION {spec}"]
        ifc = [f"    REAL(C_DOUBLE) FUNCTION {b}() BIND(C, NAME=\"{p}{name.lower()}_\")",
               "      IMPORT", f"    END FUNCTION {b}"]
        return proc, ifc, spec
    if name in ("MPI_Aint_add", "MPI_Aint_diff"):
        a, c = ("base", "disp") if name == "MPI_Aint_add" else ("addr1", "addr2")
        proc = [f"  INTEGER(KIND=MPI_ADDRESS_KIND) FUNCTION {spec}({a}, {c})",
                f"    INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: {a}, {c}",
                f"    {spec} = {b}({a}, {c})", f"  END FUNCTION {spec}"]
        ifc = [f"    INTEGER(KIND=MPI_ADDRESS_KIND) FUNCTION {b}(a, c) BIND(C, NAME=\"{p}{name.lower()}_\")",
               "      IMPORT", "      INTEGER(KIND=MPI_ADDRESS_KIND) :: a, c", f"    END FUNCTION {b}"]
        return proc, ifc, spec
    if name == "MPI_Pcontrol":
        proc = [f"  SUBROUTINE {spec}(level)", "    INTEGER, INTENT(IN) :: level",
                "    INTEGER :: ierr", f"    CALL {b}(level, ierr)", f"  END SUBROUTINE {spec}"]
        ifc = [f"    SUBROUTINE {b}(level, ierror) BIND(C, NAME=\"{p}mpi_pcontrol_\")", "      IMPORT",
               "      INTEGER(C_INT) :: level, ierror", f"    END SUBROUTINE {b}"]
        return proc, ifc, spec
    dummies, decls, ihead, idecls, call = F08_SPECIAL[name]
    proc = [f"  SUBROUTINE {spec}({dummies})"] + ["    " + d for d in decls]
    proc += ["    INTEGER, OPTIONAL, INTENT(OUT) :: ierror", "    INTEGER :: ierr",
             "    " + call.format(b=b), "    IF (PRESENT(ierror)) ierror = ierr", f"  END SUBROUTINE {spec}"]
    end = "END FUNCTION" if "FUNCTION" in ihead else "END SUBROUTINE"
    ifc = wrap(ihead.format(b=b, p=p, P=P), "    ") + ["      IMPORT"]
    ifc += ["      " + d for d in idecls] + [f"    {end} {b}"]
    return proc, ifc, spec


def handle_constants(root, consts):
    """{constant name: handle type} for the handle constants of mpi.h."""
    text = (root / HEADER).read_text()
    types = {}
    for m in re.finditer(r"^#define\s+(MPI_\w+)\s+\(\((MPI_\w+)\)", text, flags=re.M):
        if m.group(2) in HANDLES:
            types[m.group(1)] = m.group(2)
    for line in (root / BUILTIN_TYPES).read_text().splitlines():
        m = re.match(r"AMPI_BUILTIN_TYPE\((\w+),", line)
        if m:
            types[m.group(1)] = "MPI_Datatype"
    types["MPI_LONG_LONG"] = types["MPI_C_COMPLEX"] = "MPI_Datatype"
    return types


def generate_f08(root, consts, functions):
    htypes = handle_constants(root, consts)
    out = [
        "! mpi_f08.f90 -- ampi's `mpi_f08` module: GENERATED by tools/gen_fortran.py from",
        "! include/mpi.h.in, do not edit. The handle types, TYPE(MPI_Status), the constants, and a",
        "! module procedure per routine that calls the `mpi` module's binding (see the script).",
        "MODULE mpi_f08",
        "  USE, INTRINSIC :: ISO_C_BINDING",
        "  IMPLICIT NONE",
    ]
    for t in F08_TYPES:
        out += [f"  TYPE, BIND(C) :: {t}", "    INTEGER :: MPI_VAL", f"  END TYPE {t}"]
    out += ["  ! The six integers of an INTEGER status array (MPI_F08_status in mpi.h).",
            "  TYPE, BIND(C) :: MPI_Status",
            "    INTEGER :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
            "    INTEGER :: ampi_cancelled, ampi_count_lo, ampi_count_hi",
            "  END TYPE MPI_Status"]
    for name, v in consts:
        if name in htypes:
            out.append(f"  TYPE({htypes[name]}), PARAMETER :: {name} = {htypes[name]}({v})")
        else:
            out.append(f"  INTEGER, PARAMETER :: {name} = {v}")
    out += ["  LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .FALSE.",
            "  LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE.",
            "  INTEGER, PARAMETER :: MPI_F08_STATUS_SIZE = 6"]
    # The sentinels: the same COMMON blocks as mpif.h and the mpi module (recognized by address).
    for decl, block, var in SENTINELS:
        if "STATUS_IGNORE" in var:
            decl = f"TYPE(MPI_Status) :: {var}"
        elif "STATUSES_IGNORE" in var:
            decl = f"TYPE(MPI_Status) :: {var}(1)"
        out += [f"  {decl}", f"  COMMON /{block}/ {var}", f"  SAVE /{block}/"]
    out += [f"  EXTERNAL :: {fn}" for fn in ATTR_FNS]
    out.append("  INTERFACE OPERATOR(==)")
    out += [f"    MODULE PROCEDURE ampi_eq_{t[4:].lower()}" for t in F08_TYPES]
    out += ["  END INTERFACE", "  INTERFACE OPERATOR(/=)"]
    out += [f"    MODULE PROCEDURE ampi_ne_{t[4:].lower()}" for t in F08_TYPES]
    out.append("  END INTERFACE")

    routines = [F08(f) for f in f08_functions(functions)]
    by_name = {r.f.name: r for r in routines}
    specials = SPECIAL | {"MPI_Pcontrol"}
    procs, ifaces, generics = [], [], {}
    for r in routines:
        for prefix in ("", "P"):
            if r.f.name in specials:
                proc, ifc, spec = f08_special(r.f.name, prefix)
            else:
                proc, ifc = f08_routine(r, prefix)
                spec = prefix + r.specific
            procs += proc
            ifaces += ifc
            generics.setdefault(prefix + r.generic, []).append((r, spec))
    out.append("  INTERFACE")
    out += ifaces
    out += ["    SUBROUTINE ampi_f08_unsupported(name, ierror) BIND(C, NAME=\"mpi_f08_unsupported_\")",
            "      IMPORT", "      CHARACTER(KIND=C_CHAR) :: name(*)", "      INTEGER(C_INT) :: ierror",
            "    END SUBROUTINE ampi_f08_unsupported", "  END INTERFACE"]
    for gname, specs in generics.items():
        names = [specs[0][1]]
        for r, spec in specs[1:]:
            # A large-count form joins the generic name only where gfortran can tell it from the
            # other (some argument of another type or kind: not MPI_Type_get_extent_c, whose
            # MPI_Count arguments are 8-byte integers as MPI_Aint's are).
            if distinguishable(specs[0][0], r):
                names.append(spec)
        out.append(f"  INTERFACE {gname}")
        out += wrap(f"MODULE PROCEDURE {', '.join(names)}", "    ")
        out.append(f"  END INTERFACE {gname}")
    # The interfaces of the bindings stay public (ampi_b_*, ampi_pb_*): gfortran warns about
    # PRIVATE procedures with binding labels.
    out.append("CONTAINS")
    # MPI_F_sync_reg: a call the compiler cannot see into (the program is compiled apart from
    # this module), so it must assume `buf` changed: registers are reloaded after it (RMA windows
    # read directly, buffers of nonblocking calls).
    for P in ("", "P"):
        out += [f"  SUBROUTINE {P}MPI_F_sync_reg(buf)", "    TYPE(*), DIMENSION(..) :: buf",
                f"  END SUBROUTINE {P}MPI_F_sync_reg"]
    for t in F08_TYPES:
        s = t[4:].lower()
        for op, fn in (("==", "eq"), ("/=", "ne")):
            out += [f"  ELEMENTAL LOGICAL FUNCTION ampi_{fn}_{s}(a, b)",
                    f"    TYPE({t}), INTENT(IN) :: a, b",
                    f"    ampi_{fn}_{s} = a%MPI_VAL {op} b%MPI_VAL",
                    f"  END FUNCTION ampi_{fn}_{s}"]
    out += procs
    out.append("END MODULE mpi_f08")
    return "\n".join(out) + "\n", len(routines)


def signature(r):
    sig = []
    for p in r.params:
        d = f08_param(p)
        sig.append(d[4] if d else None)
    return sig


def distinguishable(a, b):
    if a.f.name in SPECIAL or b.f.name in SPECIAL or a.unsupported or b.unsupported:
        return False
    sa, sb = signature(a), signature(b)
    if len(sa) != len(sb):
        return True
    return any(x is not None and y is not None and x != y for x, y in zip(sa, sb))


def generate_f08_shims(functions):
    """The C++ shims of the mpi_f08 routines with choice buffers (mpi_<name>_f08ts_), and the one
    that raises MPI_ERR_UNSUPPORTED_OPERATION for the routines not callable from Fortran yet."""
    out = ["#if AMPI_FORTRAN_CFI",
           "// mpi_f08: the descriptors of the choice buffers become addresses (fortran::Choice).",
           'extern "C" {',
           "void mpi_f08_unsupported_(const char *name, MPI_Fint *ierror) {",
           "  *ierror = unsupported((std::string(name) + \" (Fortran)\").c_str());",
           "}", ""]
    for f in f08_functions(functions):
        name = f.name
        if name in SPECIAL or name in UNSUPPORTED:
            continue
        params = [Param(d) for d in f.params]
        choice = [p for p in params if is_choice(p)]
        if not choice:
            continue
        b = bind(f)
        mode = choice_mode(name)
        for prefix in ("", "p"):
            args, call, pre = [], [], []
            for p, a in zip(params, b.args):
                if is_choice(p):
                    m = mode or ("in" if p.const else "inout")
                    args.append(f"CFI_cdesc_t *{p.name}")
                    pre.append(f'fortran::Choice c_{p.name}({p.name}, fortran::Choice::{m}, "{name}", '
                               f'"{p.name}", ierror);')
                    pre.append(f"if (!c_{p.name}) return;")
                    call.append(f"c_{p.name}.get()")
                else:
                    args.append(a)
                    call.append(p.name)
            lens = [x.split()[-1] for x in b.lens]
            out.append(f"void {prefix}{name.lower()}_f08ts_({', '.join(args + ['MPI_Fint *ierror'] + b.lens)}) {{")
            out += ["  " + x for x in pre]
            out.append(f"  {prefix}{name.lower()}_({', '.join(call + ['ierror'] + lens)});")
            out.append("}")
            out.append("")
    out += ['} // extern "C"', "#endif"]
    return "\n".join(out) + "\n"


def write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=ROOT)
    parser.add_argument("--cpp", type=pathlib.Path)
    parser.add_argument("--mpif", type=pathlib.Path)
    parser.add_argument("--module", type=pathlib.Path)
    parser.add_argument("--f08", type=pathlib.Path, help="the mpi_f08 module's source")
    parser.add_argument("--list", action="store_true", help="print the bound and unbound functions")
    args = parser.parse_args()
    root = args.root.resolve()
    functions, _ = gen_unsupported.parse_header(root / HEADER)
    funcs = fortran_functions(functions)
    consts = constants(root)
    if args.list:
        for f in funcs:
            b = None if f.name in SPECIAL else bind(f)
            state = ("special" if b is None else "unsupported" if f.name in UNSUPPORTED
                     else f"unbound: {b.unbound}" if b.unbound else "bound")
            print(f"{f.name}: {state}")
    if args.cpp:
        text, _ = generate_cpp(f08_functions(functions), functions)
        write_if_changed(args.cpp, text)
    if args.mpif:
        write_if_changed(args.mpif, generate_mpif(consts, funcs))
    if args.module:
        write_if_changed(args.module, generate_module(consts, funcs))
    if args.f08:
        write_if_changed(args.f08, generate_f08(root, consts, functions)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
