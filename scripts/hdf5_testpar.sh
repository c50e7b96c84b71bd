#!/bin/bash
# scripts/hdf5_testpar.sh [build-dir] [work-dir] — a real MPI-IO client: Debian's own parallel
# HDF5, from its source package (apt-get source hdf5), configured with our mpicc and
# --enable-parallel, then its testpar programs run under ampirun: with 4 virtual ranks in one
# process and with 4 ranks over 2 processes (--vp counts the job's ranks). Prints one line per
# program and run (PASS/FAIL) and the pass count; exits non-zero if any failed. Takes long (the HDF5 build): CTest label `hdf5`,
# not in the default CI run.
#
# The source package comes through apt's ordinary client. When the system's apt configuration
# has no deb-src entry, a temporary one is made in the work folder from the system's own `deb`
# entries (the same archive host and suites; nothing is written outside the work folder), and
# apt-get is pointed at it with -o options. The work folder (default: a fresh one under /tmp) is
# kept, so a second run reuses the build; HDF5_KEEP=0 removes it at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
B=$(cd "${1:-build}" && pwd)
W=${2:-${HDF5_WORK:-/tmp/ampi_hdf5}}
mkdir -p "$W"
W=$(cd "$W" && pwd)
log() { echo "hdf5_testpar: $*"; }

# ---- the source ----------------------------------------------------------------------------
SRC=$(find "$W" -maxdepth 1 -type d -name 'hdf5-*' | head -1)
if [ -z "$SRC" ]; then
  APTOPT=()
  if ! apt-get source --print-uris hdf5 >/dev/null 2>&1; then
    mkdir -p "$W/apt/lists/partial" "$W/apt/parts"
    # deb-src entries from the system's deb entries (deb822 .sources files and one-line lists).
    : > "$W/apt/src.list"
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] && sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f" >> "$W/apt/src.list"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      awk 'BEGIN{RS=""} /Types:[^\n]*deb/ {
             uri=""; suites=""; comps=""; sb="";
             n=split($0, L, "\n");
             for (i=1;i<=n;i++) {
               if (L[i] ~ /^URIs:/) {sub(/^URIs:[ \t]*/, "", L[i]); uri=L[i]}
               if (L[i] ~ /^Suites:/) {sub(/^Suites:[ \t]*/, "", L[i]); suites=L[i]}
               if (L[i] ~ /^Components:/) {sub(/^Components:[ \t]*/, "", L[i]); comps=L[i]}
               if (L[i] ~ /^Signed-By:/) {sub(/^Signed-By:[ \t]*/, "", L[i]); sb=L[i]}
             }
             m=split(suites, S, " ");
             for (j=1;j<=m;j++) printf "deb-src [signed-by=%s] %s %s %s\n", sb, uri, S[j], comps
           }' "$f" >> "$W/apt/src.list"
    done
    APTOPT=(-o "Dir::Etc::SourceList=$W/apt/src.list" -o "Dir::Etc::SourceParts=$W/apt/parts"
            -o "Dir::State::Lists=$W/apt/lists")
    log "no deb-src in apt's configuration: using $(wc -l < "$W/apt/src.list") derived entries"
    apt-get "${APTOPT[@]}" update -qq
  fi
  (cd "$W" && apt-get "${APTOPT[@]}" source --download-only hdf5 >/dev/null &&
     dpkg-source --no-check -x ./hdf5_*.dsc >/dev/null)
  SRC=$(find "$W" -maxdepth 1 -type d -name 'hdf5-*' | head -1)
fi
log "source: $SRC"

# ---- the build ------------------------------------------------------------------------------
BLD=$W/build
if [ ! -f "$BLD/testpar/.built" ]; then
  mkdir -p "$BLD"
  (cd "$BLD" && CC="$B/bin/mpicc" "$SRC/configure" --enable-parallel --disable-fortran \
     --disable-cxx --disable-hl --disable-tools --without-szlib --disable-shared \
     --enable-build-mode=production > "$W/configure.log" 2>&1) ||
    { log "configure failed (see $W/configure.log)"; tail -30 "$W/configure.log"; exit 1; }
  # The library, the test library, then testpar's programs by name (make's build-check-p would
  # also run them, with the system's mpiexec).
  (cd "$BLD" && make -j"$(nproc)" -C src > "$W/make.log" 2>&1 &&
     make -j"$(nproc)" -C test libh5test.la >> "$W/make.log" 2>&1 &&
     make -j"$(nproc)" -C testpar $(sed -n 's/^TEST_PROG_PARA *= *//p' "$SRC/testpar/Makefile.am") \
       >> "$W/make.log" 2>&1) ||
    { log "build failed (see $W/make.log)"; tail -30 "$W/make.log"; exit 1; }
  touch "$BLD/testpar/.built"
fi

# ---- the tests ------------------------------------------------------------------------------
cd "$BLD/testpar"
# testpar's own list (TEST_PROG_PARA of its Makefile.am), in its order: t_pshutdown leaves the
# file t_prestart reads.
PROGS=$(sed -n 's/^TEST_PROG_PARA *= *//p' "$SRC/testpar/Makefile.am")
pass=0; fail=0; failed=""
for layout in "1 4" "2 4"; do
  set -- $layout
  for p in $PROGS; do
    if timeout "${HDF5_TIMEOUT:-600}" "$B/bin/ampirun" -np "$1" --vp "$2" "./$p" > "$W/$p.np$1.vp$2.log" 2>&1; then
      echo "PASS $p np$1 vp$2"; pass=$((pass + 1))
    else
      echo "FAIL $p np$1 vp$2 (log: $W/$p.np$1.vp$2.log)"; fail=$((fail + 1)); failed="$failed $p.np$1.vp$2"
    fi
  done
done
log "$pass passed, $fail failed${failed:+:$failed}"
[ "${HDF5_KEEP:-1}" = 0 ] && rm -rf "$W"
[ "$fail" -eq 0 ]
