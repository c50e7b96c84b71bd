#!/bin/sh
# tests/api/check_exports.sh — checks that a built libampi.so exports every function that
# mpi.h declares (each MPI_ function, its PMPI_ twin, the predefined callbacks) and no MPI 4
# session function (MPI_Session_* / PMPI_Session_*).
#
# Usage: check_exports.sh path/to/libampi.so path/to/mpi.h (the generated one, <build>/include/mpi.h)
# Prints the missing (and forbidden) names; exits 0 when there are none, 1 when there are, 2 on a
# usage or tool error.
set -eu

if [ "$#" -ne 2 ]; then
  echo "usage: $0 LIBAMPI_SO MPI_H" >&2
  exit 2
fi
lib=$1
header=$2
for f in "$lib" "$header"; do
  if [ ! -r "$f" ]; then
    echo "$0: cannot read $f" >&2
    exit 2
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Function names declared in the header: strip comments and preprocessor lines, cut the rest
# into declarations at ';', drop typedefs, and keep the identifier before the first '(' of each
# declaration that is an MPI_ or PMPI_ name.
awk '
  { text = text $0 "\n" }
  END {
    # Remove /* ... */ comments.
    out = ""
    while ((i = index(text, "/*")) > 0) {
      out = out substr(text, 1, i - 1) " "
      rest = substr(text, i + 2)
      j = index(rest, "*/")
      if (j == 0) { text = ""; break }
      text = substr(rest, j + 2)
    }
    text = out text
    # Remove // comments and preprocessor lines (with their continuations).
    n = split(text, lines, "\n")
    code = ""
    cont = 0
    for (k = 1; k <= n; k++) {
      line = lines[k]
      sub(/\/\/.*/, "", line)
      if (cont || line ~ /^[ \t]*#/) {
        cont = (line ~ /\\[ \t]*$/)
        continue
      }
      code = code " " line
    }
    m = split(code, decls, ";")
    for (k = 1; k <= m; k++) {
      d = decls[k]
      sub(/^[ \t{}]+/, "", d)
      gsub(/extern[ \t]+"C"[ \t]*\{/, " ", d)
      sub(/^[ \t{}]+/, "", d)
      if (d ~ /^typedef[ \t]/) continue
      p = index(d, "(")
      if (p == 0) continue
      head = substr(d, 1, p - 1)
      sub(/[ \t]+$/, "", head)
      if (match(head, /[A-Za-z_][A-Za-z0-9_]*$/) == 0) continue
      name = substr(head, RSTART)
      if (name ~ /^P?MPI_/) print name
    }
  }
' "$header" | sort -u >"$tmp/declared"

if [ ! -s "$tmp/declared" ]; then
  echo "$0: found no MPI function declarations in $header" >&2
  exit 2
fi

# Defined dynamic symbols of the library, without symbol versions.
if ! nm -D --defined-only "$lib" >"$tmp/nm"; then
  echo "$0: nm failed on $lib" >&2
  exit 2
fi
awk 'NF >= 2 { name = $NF; sub(/@.*/, "", name); print name }' "$tmp/nm" | sort -u >"$tmp/exported"

status=0

comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
  echo "$lib does not export $(wc -l <"$tmp/missing") function(s) declared in $header:"
  sed 's/^/  /' "$tmp/missing"
  status=1
fi

grep -E '^P?MPI_Session_' "$tmp/exported" >"$tmp/forbidden" || true
if [ -s "$tmp/forbidden" ]; then
  echo "$lib exports MPI 4 session function(s), which ampi (MPI 3.1) must not:"
  sed 's/^/  /' "$tmp/forbidden"
  status=1
fi

if [ "$status" -eq 0 ]; then
  echo "$lib exports all $(wc -l <"$tmp/declared") functions declared in $header"
fi
exit "$status"
