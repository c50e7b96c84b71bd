#!/usr/bin/env python3
"""Generates src/mpi/unsupported.cpp: a stub for every MPI function ampi does not implement yet.

Reads the prototypes of include/mpi.h.in (mpi.h's template; the build only fills in datatype
handles, never prototypes) and, for each int-returning MPI_<Name> that is neither
listed in src/mpi/implemented.txt nor defined in src/mpi/interop.cpp (the names in that file's
AMPI_PMPI_ALIAS lines) nor a large-count function of src/mpi/bigcount.txt (tools/gen_bigcount.py;
its `stub` lines excepted), writes

    extern "C" int PMPI_<Name>(<parameter types, unnamed>) {
      return ampi::mpi::unsupported("MPI_<Name>");
    }
    AMPI_PMPI_ALIAS(MPI_<Name>)

Never stubbed: functions that do not return int (MPI_Wtime, MPI_Aint_add, the *_c2f/*_f2c
converters) and the predefined callbacks (MPI_COMM_NULL_COPY_FN, ...): src/mpi/interop.cpp owns
them. MPI_T_* stubs do not go through ampi::mpi::unsupported, because the tool interface must not
invoke error handlers and may be used before MPI_Init: MPI_T_init_thread returns
MPI_T_ERR_CANNOT_INIT and every other MPI_T_* function MPI_T_ERR_NOT_INITIALIZED, which is what a
conforming library says when the interface could not be initialized.

The output is passed through clang-format (the repository's .clang-format) when clang-format is on
PATH, and written only when its content changes, so running the script again is a no-op.

Usage:
    tools/gen_unsupported.py            regenerate src/mpi/unsupported.cpp
    tools/gen_unsupported.py --check    only check: print the names in implemented.txt that
                                        mpi.h does not declare (typos); exit 1 if there are any
"""

import argparse
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = "include/mpi.h.in"  # the template of mpi.h: every prototype, as installed
IMPLEMENTED = "src/mpi/implemented.txt"
INTEROP = "src/mpi/interop.cpp"
OUTPUT = "src/mpi/unsupported.cpp"

# Words that can end a parameter declaration without being its name.
TYPE_WORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "const",
    "volatile", "struct", "enum", "union", "_Bool", "bool",
}


class Function:
    def __init__(self, ret, name, params):
        self.ret = ret  # return type, whitespace-normalized
        self.name = name  # MPI_... or PMPI_...
        self.params = params  # list of parameter declarations, whitespace-normalized

    def signature(self):
        return (self.ret, tuple(self.params))


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def strip_preprocessor(text):
    out = []
    continued = False
    for line in text.splitlines():
        is_directive = continued or line.lstrip().startswith("#")
        continued = is_directive and line.rstrip().endswith("\\")
        if not is_directive:
            out.append(line)
    return "\n".join(out)


def split_params(params):
    """Splits a parameter list at its top-level commas."""
    parts, depth, current = [], 0, ""
    for c in params:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += c
    parts.append(current)
    parts = [" ".join(p.split()) for p in parts]
    if parts == ["void"] or parts == [""]:
        return []
    return parts


def parse_header(path):
    """Returns ({name: Function} for every MPI_/PMPI_ prototype, set of typedef names)."""
    text = strip_preprocessor(strip_comments(path.read_text()))
    text = re.sub(r'extern\s+"C"\s*\{', " ", text)
    while re.search(r"\{[^{}]*\}", text):  # struct bodies
        text = re.sub(r"\{[^{}]*\}", " ", text)
    typedefs = set()
    functions = {}
    for statement in text.split(";"):
        statement = " ".join(statement.split()).strip("{} ")
        if statement.startswith("typedef"):
            # typedef int F(...);  typedef void (*F)(...);  typedef struct s *T;
            m = re.search(r"\b(\w+)\s*\(", statement) or re.search(r"\(\s*\*\s*(\w+)\s*\)", statement)
            m = m or re.search(r"(\w+)\s*$", statement)
            if m:
                typedefs.add(m.group(1))
            continue
        m = re.fullmatch(r"(?:extern\s+)?([A-Za-z_][\w\s\*]*?)\s*\b(P?MPI_\w+)\s*\((.*)\)", statement)
        if not m:
            continue
        ret, name, params = m.group(1), m.group(2), m.group(3)
        ret = re.sub(r"\s*\*\s*", " *", " ".join(ret.split())).strip()
        if name in functions:
            sys.exit(f"gen_unsupported.py: {path}: {name} is declared twice")
        functions[name] = Function(ret, name, split_params(params))
    return functions, typedefs


def unnamed(param, typedefs):
    """The parameter declaration `param` without its name: 'const int ranks[]' -> 'const int[]'."""
    if param == "...":
        return param
    m = re.fullmatch(r"(.*?)\b([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)", param)
    if not m:
        sys.exit(f"gen_unsupported.py: cannot parse parameter '{param}'")
    prefix, name, arrays = m.group(1).rstrip(), m.group(2), m.group(3).replace(" ", "")
    if name in TYPE_WORDS or name in typedefs or not prefix:
        return param  # no name to remove
    return prefix + arrays


def read_names(path):
    names = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0]
        names += line.split()
    return names


def interop_names(path):
    if not path.exists():
        return set()
    return set(re.findall(r"^\s*AMPI_PMPI_ALIAS\((MPI_\w+)\)", path.read_text(), flags=re.M))


def is_callback(name):
    """The predefined callbacks are spelled in capitals (MPI_COMM_DUP_FN, MPI_CONVERSION_FN_NULL)."""
    return re.fullmatch(r"MPI_[A-Z0-9_]+", name) is not None


def stub_body(name):
    if name == "MPI_T_init_thread":
        return "return MPI_T_ERR_CANNOT_INIT;"
    if name.startswith("MPI_T_"):
        return "return MPI_T_ERR_NOT_INITIALIZED;"
    return f'return ampi::mpi::unsupported("{name}");'


def generate(functions, typedefs, skip):
    stubs = [
        f
        for f in functions.values()
        if f.name.startswith("MPI_") and f.ret == "int" and not is_callback(f.name)
        and f.name not in skip
    ]
    out = [
        "// src/mpi/unsupported.cpp — GENERATED by tools/gen_unsupported.py from include/mpi.h.in and",
        "// src/mpi/implemented.txt: do not edit. Every int-returning MPI function that ampi does not",
        "// implement yet: MPI_<Name> raises MPI_ERR_UNSUPPORTED_OPERATION through",
        "// ampi::mpi::unsupported (MPI_T_* functions return MPI_T error codes instead, since the tool",
        "// interface must not invoke error handlers). To implement a function, add its name to",
        "// src/mpi/implemented.txt, define PMPI_<Name> elsewhere and re-run the script.",
        f"// {len(stubs)} stubs.",
        "",
        '#include "mpi/errors.hpp"',
        "",
        "#include <mpi.h>",
        "",
    ]
    for f in stubs:
        params = ", ".join(unnamed(p, typedefs) for p in f.params)
        out += [
            f'extern "C" int P{f.name}({params}) {{',
            f"  {stub_body(f.name)}",
            "}",
            f"AMPI_PMPI_ALIAS({f.name})",
            "",
        ]
    return "\n".join(out).rstrip("\n") + "\n", len(stubs)


def clang_format(text, root, output):
    exe = shutil.which("clang-format")
    if exe is None:
        print("gen_unsupported.py: clang-format not found, output left unformatted", file=sys.stderr)
        return text
    result = subprocess.run(
        [exe, "--style=file", f"--assume-filename={root / output}"],
        input=text,
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    )
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="print the names of implemented.txt that mpi.h lacks; write nothing")
    parser.add_argument("--root", type=pathlib.Path, default=ROOT, help="repository root")
    parser.add_argument("--no-format", action="store_true", help="do not run clang-format")
    args = parser.parse_args()
    root = args.root.resolve()

    functions, typedefs = parse_header(root / HEADER)
    declared = {n for n in functions if n.startswith("MPI_")}

    # Every MPI_ function but the predefined callbacks has a PMPI_ twin with the same signature.
    for name in sorted(declared):
        if is_callback(name):
            continue
        twin = functions.get("P" + name)
        if twin is None:
            sys.exit(f"gen_unsupported.py: {HEADER}: {name} has no P{name}")
        if twin.signature() != functions[name].signature():
            sys.exit(f"gen_unsupported.py: {HEADER}: P{name} and {name} differ in signature")

    implemented = read_names(root / IMPLEMENTED)
    unknown = sorted({n for n in implemented if n not in declared})
    interop = interop_names(root / INTEROP)
    for name in sorted(interop & set(implemented)):
        print(f"gen_unsupported.py: warning: {name} is in {IMPLEMENTED} but {INTEROP} defines it",
              file=sys.stderr)

    if args.check:
        for name in unknown:
            print(name)
        return 1 if unknown else 0
    for name in unknown:
        print(f"gen_unsupported.py: warning: {IMPLEMENTED}: {name} is not declared in {HEADER}",
              file=sys.stderr)

    # The large-count functions of src/mpi/bigcount.txt (tools/gen_bigcount.py), but its `stub` lines.
    import gen_bigcount  # noqa: E402  (imports this module: only at run time)

    skip = set(implemented) | interop | gen_bigcount.implemented_names(root)
    text, count = generate(functions, typedefs, skip)
    if not args.no_format:
        text = clang_format(text, root, OUTPUT)
    path = root / OUTPUT
    if path.exists() and path.read_text() == text:
        print(f"{OUTPUT}: up to date ({count} stubs)")
    else:
        path.write_text(text)
        print(f"{OUTPUT}: written ({count} stubs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
