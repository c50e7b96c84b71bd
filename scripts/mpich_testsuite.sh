#!/usr/bin/env bash
# The external check of issue 20: builds MPICH's own test suite (test/mpi, C only) with our mpicc
# and with Open MPI's, runs its testlists with all ranks in one process (ampirun -np 1 --vp N) and
# over two processes (ampirun -np 2 --vp N), and prints the share of testlist lines that passed.
# Not part of CI (it takes an hour or more on a 2-core machine); nothing is built inside the repo.
#
# Usage: scripts/mpich_testsuite.sh [ampi|ompi|all] [one|two|both]
#   AMPI_BUILD   the ampi build to test (default: <repo>/build)
#   MPICH_SRC    MPICH's source (default /work/ext/mpich-src, cloned from MPICH_GIT if absent;
#                only read, its test/mpi is copied)
#   OUT_ROOT     where the suite is built and run (default /work/ext/mpich-tests-fixes)
#   DIRS         the test directories (default: the 11 C ones below)
#   TIMEOUT      seconds per test line (default 60; MPICH's default of 180 makes a hang costly)
#   RERUN        a tap file of an earlier run: run again only its "not ok" lines (every testlist
#                line of that program and process count), into result-<impl>-<layout>-rerun.tap;
#                scripts/mpich_tap_merge.py folds the reruns into the full run's figure
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
IMPL=${1:-all}
LAYOUT=${2:-both}
AMPI_BUILD=${AMPI_BUILD:-$REPO/build}
MPICH_SRC=${MPICH_SRC:-/work/ext/mpich-src}
MPICH_GIT=${MPICH_GIT:-/work/.mirror/pmodels+mpich/repo}
OUT_ROOT=${OUT_ROOT:-/work/ext/mpich-tests-fixes}
DIRS=${DIRS:-attr coll comm datatype errhan group info init pt2pt rma topo}
TIMEOUT=${TIMEOUT:-60}
JOBS=${JOBS:-2}

for tool in autoconf automake libtoolize perl python3; do
    command -v "$tool" >/dev/null || {
        echo "missing $tool: apt-get install autoconf automake libtool perl python3" >&2
        exit 1
    }
done

# MPICH's source: a sparse clone is enough (test/mpi, confdb, maint).
if [ ! -d "$MPICH_SRC/test/mpi" ]; then
    tmp="$MPICH_SRC.tmp.$$"
    git clone -q --no-checkout "$MPICH_GIT" "$tmp"
    git -C "$tmp" sparse-checkout set test/mpi confdb maint
    git -C "$tmp" checkout -q
    mv -n "$tmp" "$MPICH_SRC"
fi

# A private copy of test/mpi, generated once (autogen writes into its tree).
SRC="$OUT_ROOT/src"
if [ ! -f "$SRC/configure" ]; then
    mkdir -p "$SRC"
    cp -a "$MPICH_SRC/test/mpi/." "$SRC/"
    cp -a "$MPICH_SRC/confdb" "$SRC/confdb"
    cp -a "$MPICH_SRC/confdb" "$SRC/dtpools/confdb"
    cp -a "$MPICH_SRC/maint/version.m4" "$SRC/version.m4"
    (cd "$SRC" && ./autogen.sh) >"$OUT_ROOT/autogen.log" 2>&1 || {
        echo "autogen failed: $OUT_ROOT/autogen.log" >&2
        exit 1
    }
fi

# The mpiexec each layout uses. runtests calls "$MPIEXEC -n NP program args" and exports
# MPIEXEC_TIMEOUT; the wrapper enforces it, since neither launcher reads that variable.
make_launchers() {
    local dir=$1
    mkdir -p "$dir"
    # LD_LIBRARY_PATH: the programs carry a RUNPATH to the library of the build that compiled
    # them; this makes them load $AMPI_BUILD's, so one compiled suite tests any build.
    cat >"$dir/mpiexec-ampi-one" <<EOF
#!/bin/sh
np=\$2; shift 2
export LD_LIBRARY_PATH="$AMPI_BUILD/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec timeout -k 5 \${MPIEXEC_TIMEOUT:-$TIMEOUT} "$AMPI_BUILD/bin/ampirun" --bind-to none -np 1 --vp "\$np" "\$@"
EOF
    cat >"$dir/mpiexec-ampi-two" <<EOF
#!/bin/sh
np=\$2; shift 2
export LD_LIBRARY_PATH="$AMPI_BUILD/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
p=2; [ "\$np" -lt 2 ] && p=1
exec timeout -k 5 \${MPIEXEC_TIMEOUT:-$TIMEOUT} "$AMPI_BUILD/bin/ampirun" --bind-to none -np "\$p" --vp "\$np" "\$@"
EOF
    cat >"$dir/mpiexec-ompi" <<EOF
#!/bin/sh
np=\$2; shift 2
exec timeout -k 5 \${MPIEXEC_TIMEOUT:-$TIMEOUT} mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -np "\$np" "\$@"
EOF
    chmod +x "$dir"/mpiexec-*
}

build_suite() { # impl cc
    local impl=$1 cc=$2 b="$OUT_ROOT/$1"
    if [ ! -f "$b/Makefile" ]; then
        mkdir -p "$b"
        # MPICC, not CC: test/mpi's configure sets CC=$MPICC and, when MPICC is unset, looks for
        # "mpicc" on PATH (Open MPI's /usr/bin/mpicc here), so CC alone built the "ampi" suite with
        # Open MPI's compiler and its programs ran as Open MPI singletons under ampirun.
        (cd "$b" && "$SRC/configure" CC="$cc" MPICC="$cc" --disable-fortran --disable-cxx --disable-dtpools \
            --disable-spawn --disable-ft-tests --enable-strictmpi --disable-perftest) \
            >"$OUT_ROOT/configure-$impl.log" 2>&1 || {
            echo "configure failed: $OUT_ROOT/configure-$impl.log" >&2
            exit 1
        }
    fi
    # -k: a test that does not compile (a missing MPI-4 call) is a failed line, not a stop.
    make -C "$b/util" -j"$JOBS" >"$OUT_ROOT/make-$impl.log" 2>&1
    for d in $DIRS; do
        make -C "$b/$d" -k -j"$JOBS" >>"$OUT_ROOT/make-$impl.log" 2>&1 || true
    done
}

# testlist.rerun in each directory: the lines of testlist whose program and process count failed
# in the tap file $RERUN ("not ok N - ./dir/program np # ..."); the directories listed in DIRS.
rerun_lists() { # build-dir list-name
    local b=$1 list=$2 d
    for d in $DIRS; do
        : >"$b/$d/$list"
        # (grep finds nothing in a directory without failures: not an error under pipefail)
        { grep "^not ok .* - \./$d/" "$RERUN" || true; } |
            sed -E 's/^not ok [0-9]+ - \.\/[^/]+\/([^ ]+) ([0-9]+).*/\1 \2/' | sort -u |
            while read -r prog np; do
                awk -v p="$prog" -v n="$np" '$1 == p && $2 == n' "$b/$d/testlist" >>"$b/$d/$list"
            done
    done
}

run_suite() { # impl layout mpiexec
    local impl=$1 layout=$2 mpiexec=$3 b="$OUT_ROOT/$1"
    local tap="$OUT_ROOT/result-$impl-$layout${RERUN:+-rerun}.tap" list=testlist
    if [ -n "${RERUN:-}" ]; then
        list=testlist.rerun-$layout # one per layout: both may run at once
        rerun_lists "$b" "$list"
    fi
    local testdirs
    testdirs=$(echo $DIRS | tr ' ' ',')
    # runtests is a plain script of the source tree (configure no longer writes one into the
    # build). MPITEST_RUN_INDIVIDUAL: one launch per line, not MPICH's batch mode that runs a
    # directory's tests inside one MPI_Init. -strict skips the lines marked strict=false (MPICH
    # extensions), as --enable-strictmpi skipped building them.
    (cd "$b" && MPITEST_RUN_INDIVIDUAL=1 MPITEST_TIMEOUT=$TIMEOUT MPIEXEC_TIMEOUT=$TIMEOUT \
        "$SRC/runtests" -srcdir="$b" -tests="$list" -testdirs="$testdirs" -mpiexec="$mpiexec" \
        -strict -tapfile="$tap" >"$OUT_ROOT/run-$impl-$layout${RERUN:+-rerun}.log" 2>&1) || true
    local ok notok
    # A skipped line is written "ok ... # SKIP reason": not a pass, and not counted at all.
    ok=$(grep '^ok ' "$tap" | grep -vc '# SKIP' || true)
    notok=$(grep -c '^not ok ' "$tap" || true)
    printf '%s %s%s: %d of %d lines passed (%.1f%%)\n' "$impl" "$layout" "${RERUN:+ (rerun)}" "$ok" "$((ok + notok))" \
        "$(echo "100 * $ok / ($ok + $notok)" | bc -l)" | tee -a "$OUT_ROOT/summary.txt"
}

make_launchers "$OUT_ROOT/bin"
if [ "$IMPL" = ampi ] || [ "$IMPL" = all ]; then
    build_suite ampi "$AMPI_BUILD/bin/mpicc"
    if [ "$LAYOUT" = one ] || [ "$LAYOUT" = both ]; then
        run_suite ampi one "$OUT_ROOT/bin/mpiexec-ampi-one"
    fi
    if [ "$LAYOUT" = two ] || [ "$LAYOUT" = both ]; then
        run_suite ampi two "$OUT_ROOT/bin/mpiexec-ampi-two"
    fi
fi
if [ "$IMPL" = ompi ] || [ "$IMPL" = all ]; then
    build_suite ompi mpicc.openmpi
    run_suite ompi procs "$OUT_ROOT/bin/mpiexec-ompi"
fi
