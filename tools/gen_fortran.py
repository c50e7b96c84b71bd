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
    Functions whose Fortran form needs callbacks with Fortran calling conventions (attribute copy
    and delete functions, generalized requests, data representations) or arrays of Fortran strings
    (MPI_Comm_spawn*) raise MPI_ERR_UNSUPPORTED_OPERATION from Fortran, naming the call.
  * --mpif FILE: mpif.h, written so that it is valid fixed-form and free-form source: constants as
    PARAMETERs, the sentinels in COMMON blocks, the types of the functions.
  * --module FILE: the source of the `mpi` module (free form): the same constants and COMMON
    blocks, and an explicit interface for every routine, choice buffers declared with gfortran's
    `!GCC$ ATTRIBUTES NO_ARG_CHECK` so that they accept any type, kind and rank.

The C++ output is written only when its content changes (so the build does not recompile it).
No mpi_f08 module (yet).

Usage:
    tools/gen_fortran.py --cpp OUT.cpp --mpif OUT/mpif.h --module OUT/mpi.f90
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
           "MPI_Win_set_attr", "MPI_Type_set_attr", "MPI_Attr_put"}
# Callbacks called with Fortran conventions, or arrays of Fortran strings: not bound (yet).
UNSUPPORTED = {"MPI_Comm_create_keyval", "MPI_Type_create_keyval", "MPI_Win_create_keyval",
               "MPI_Keyval_create", "MPI_Grequest_start", "MPI_Register_datarep",
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
        elif base.endswith("_function") or base.endswith("_fn") or base == "MPI_User_function":
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


def generate_cpp(funcs):
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
    if base.endswith("_function") or base.endswith("_fn") or base == "MPI_User_function":
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
        text, _ = generate_cpp(funcs)
        write_if_changed(args.cpp, text)
    if args.mpif:
        write_if_changed(args.mpif, generate_mpif(consts, funcs))
    if args.module:
        write_if_changed(args.module, generate_module(consts, funcs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
