#!/bin/sh
# tests/tools/wrapper_test.sh CASE BINDIR SRCDIR WORKDIR [NVCC]
# Tests of the compiler wrappers BINDIR/mpicc and BINDIR/mpicxx (and BINDIR/ampirun to run what
# they build). SRCDIR is tests/tools in the source tree; WORKDIR is emptied first.
# CASE: show | args | compile_link | depfile | preprocess | shared | libtool | archive_main | nvcc
# Exit status: 0 pass, 1 fail, 77 skipped (nvcc not found).
# shellcheck disable=SC2317,SC2046,SC2016,SC2015
# (SC2317: the case_* functions are called indirectly; SC2046: $(link_flags_lines) is split on
# purpose, the build prefix has no spaces in these tests.)
set -u
[ $# -ge 4 ] || { echo "usage: $0 CASE BINDIR SRCDIR WORKDIR [NVCC]" >&2; exit 2; }
case_name=$1
bindir=$(cd -P -- "$2" && pwd -P) || exit 1
srcdir=$(cd -P -- "$3" && pwd -P) || exit 1
work=$4
nvcc=${5-}

prefix=$(cd -P -- "$bindir/.." && pwd -P)
mpicc=$bindir/mpicc
mpicxx=$bindir/mpicxx
ampirun=$bindir/ampirun
# A program run without ampirun has one rank; do not let the caller's environment change that.
unset AMPI_VP AMPI_STACK_SIZE AMPI_CC AMPI_CXX OMPI_CC OMPI_CXX MPICH_CC MPICH_CXX LD_LIBRARY_PATH

rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
# run CMD...: print and run it, output shown with a "| " prefix; returns its status.
run() {
  printf '$'
  printf ' %s' "$@"
  printf '\n'
  "$@" >run.out 2>&1
  run_rc=$?
  sed -n '1,40s/^/| /p' run.out
  run_lines=$(wc -l <run.out)
  [ "$run_lines" -le 40 ] || echo "| ... ($((run_lines - 40)) more lines)"
  return "$run_rc"
}
# must CMD...: run, and fail the test when it fails.
must() {
  run "$@" || fail "command failed (status $run_rc): $*"
}
# same DESCRIPTION ACTUAL EXPECTED
same() {
  if [ "$2" = "$3" ]; then
    echo "ok: $1"
  else
    fail "$1"
    echo "   got:      [$2]"
    echo "   expected: [$3]"
  fi
}
# has_line FILE FIXED-STRING: a line of FILE is exactly the string
has_line() {
  grep -Fxq -e "$2" "$1"
}
finish() {
  if [ "$failed" = 0 ]; then
    echo PASS
  fi
  exit "$failed"
}

# hello_check OUTPUT N: OUTPUT holds "hello from rank R of N" for each R in 0..N-1, once.
hello_check() {
  hc_r=0
  while [ "$hc_r" -lt "$2" ]; do
    hc_n=$(grep -c -e "^hello from rank $hc_r of $2\$" "$1")
    [ "$hc_n" = 1 ] || fail "expected one 'hello from rank $hc_r of $2' line, found $hc_n"
    hc_r=$((hc_r + 1))
  done
  hc_n=$(grep -c -e '^hello from rank' "$1")
  [ "$hc_n" = "$2" ] || fail "expected $2 hello lines, found $hc_n"
}

# The link flags, one per line, as the wrapper adds them for a program (from --showme:link; the
# build prefix contains no spaces in these tests).
link_flags_lines() {
  "$mpicc" --showme:link | tr ' ' '\n'
}

# A fake compiler that records its arguments, one per line, in $work/log.
make_logcc() {
  cat >"$work/logcc" <<'EOF'
#!/bin/sh
: >"$LOGCC_FILE"
for a do printf '%s\n' "$a" >>"$LOGCC_FILE"; done
exit 0
EOF
  chmod +x "$work/logcc"
  LOGCC_FILE=$work/log
  export LOGCC_FILE
}

# expect_log DESCRIPTION LINE...: the fake compiler received exactly these arguments.
expect_log() {
  el_desc=$1
  shift
  : >expected.log
  for el_a do printf '%s\n' "$el_a" >>expected.log; done
  if cmp -s expected.log "$work/log"; then
    echo "ok: $el_desc"
  else
    fail "$el_desc: the compiler got other arguments"
    diff expected.log "$work/log" | sed 's/^/   /'
  fi
}
log_has_no_link_flags() {
  if grep -Eq -e '^-lampi$|libampi_start\.a$|--wrap=' "$work/log"; then
    fail "$1: link flags were added"
    sed 's/^/   /' "$work/log"
  else
    echo "ok: $1: no link flags"
  fi
}

case_show() {
  cc_cmd=$("$mpicc" --showme:command)
  cxx_cmd=$("$mpicxx" --showme:command)
  [ -n "$cc_cmd" ] || fail "mpicc --showme:command printed nothing"
  [ -n "$cxx_cmd" ] || fail "mpicxx --showme:command printed nothing"
  compile=$("$mpicc" --showme:compile)
  link=$("$mpicc" --showme:link)
  same "--showme:compile" "$compile" "-I$prefix/include -fPIC"
  case " $link " in
    " -L$prefix/lib -Wl,-rpath,$prefix/lib "*"-Wl,--wrap=main "*"$prefix/lib/libampi_start.a -lampi ")
      echo "ok: --showme:link: $link"
      ;;
    *) fail "--showme:link: unexpected [$link]" ;;
  esac
  same "-show" "$("$mpicc" -show)" "$cc_cmd $compile $link"
  same "-showme" "$("$mpicc" -showme)" "$cc_cmd $compile $link"
  same "--showme" "$("$mpicc" --showme)" "$cc_cmd $compile $link"
  same "mpicxx -show" "$("$mpicxx" -show)" "$cxx_cmd $compile $link"
  same "mpicxx --showme:link" "$("$mpicxx" --showme:link)" "$link"
  same "-showme:compile (one dash)" "$("$mpicc" -showme:compile)" "$compile"
  same "-showme:link (one dash)" "$("$mpicc" -showme:link)" "$link"
  same "--showme:incdirs" "$("$mpicc" --showme:incdirs)" "$prefix/include"
  same "--showme:libdirs" "$("$mpicc" --showme:libdirs)" "$prefix/lib"
  same "--showme:libs" "$("$mpicc" --showme:libs)" "ampi"
  case $("$mpicc" --showme:version) in
    *ampi*) echo "ok: --showme:version" ;;
    *) fail "--showme:version does not name ampi" ;;
  esac
  same "-compile_info" "$("$mpicc" -compile_info)" "$cc_cmd $compile"
  same "-compile-info" "$("$mpicc" -compile-info)" "$cc_cmd $compile"
  same "-link_info" "$("$mpicc" -link_info)" "$cc_cmd $compile $link"
  same "-link-info" "$("$mpicxx" -link-info)" "$cxx_cmd $compile $link"
  same "-show -c" "$("$mpicc" -show -c foo.c -o foo.o)" "$cc_cmd $compile -c foo.c -o foo.o"
  same "-show with a link" "$("$mpicc" foo.o -show -o foo)" "$cc_cmd $compile foo.o -o foo $link"
  same "-show -shared" "$("$mpicc" -show -shared -fPIC a.o -o liba.so)" \
    "$cc_cmd $compile -shared -fPIC a.o -o liba.so -L$prefix/lib -Wl,-rpath,$prefix/lib -lampi"
  same "-show quotes arguments" "$("$mpicc" -show -c 'a b.c' -DX='"q"')" \
    "$cc_cmd $compile -c \"a b.c\" '-DX=\"q\"'"
  if "$mpicc" --showme:nonsense >/dev/null 2>&1; then
    fail "--showme:nonsense succeeded"
  else
    echo "ok: --showme:nonsense is refused"
  fi

  # Compiler overrides.
  same "AMPI_CC" "$(AMPI_CC='fakecc --flag' "$mpicc" -compile_info)" "fakecc --flag $compile"
  same "OMPI_CC" "$(OMPI_CC=occ "$mpicc" --showme:command)" "occ"
  same "MPICH_CC" "$(MPICH_CC=mcc "$mpicc" --showme:command)" "mcc"
  same "AMPI_CC before OMPI_CC" "$(AMPI_CC=acc OMPI_CC=occ "$mpicc" --showme:command)" "acc"
  same "AMPI_CXX" "$(AMPI_CXX=axx AMPI_CC=acc "$mpicxx" --showme:command)" "axx"
  same "OMPI_CXX" "$(OMPI_CXX=oxx "$mpicxx" --showme:command)" "oxx"
  same "MPICH_CXX" "$(MPICH_CXX=mxx "$mpicxx" --showme:command)" "mxx"

  # The prefix is found through symbolic links (absolute, relative, chained) and PATH.
  same "mpic++ (link in bin)" "$("$bindir/mpic++" -show)" "$("$mpicxx" -show)"
  mkdir -p links/a links/b
  ln -s "$mpicc" links/a/abs
  ln -s ../a/abs links/b/rel
  same "absolute symlink" "$(links/a/abs --showme:incdirs)" "$prefix/include"
  same "chained relative symlink" "$(links/b/rel --showme:libdirs)" "$prefix/lib"
  same "found in PATH" "$(PATH="$bindir:$PATH" mpicc --showme:incdirs)" "$prefix/include"
  same "run with sh" "$(sh "$mpicc" --showme:incdirs)" "$prefix/include"
}

case_args() {
  make_logcc
  inc=-I$prefix/include
  printf '%s\n' '-DFROM_RSP=1 "x y.c"' >objs.rsp

  AMPI_CC=$work/logcc "$mpicc" -c 'a b.c' -o 'x y.o' -DMSG='"hello world"' -Wl,-z,now \
    '' '$HOME' '*' -x c++ @objs.rsp
  expect_log "compile: arguments unchanged, in order" "$inc" -fPIC -c 'a b.c' -o 'x y.o' \
    -DMSG='"hello world"' -Wl,-z,now '' '$HOME' '*' -x c++ @objs.rsp

  OMPI_CC=$work/logcc "$mpicc" 'a b.o' -o 'my prog' -Wl,--as-needed -lm
  expect_log "link: program flags appended" "$inc" -fPIC 'a b.o' -o 'my prog' -Wl,--as-needed -lm \
    $(link_flags_lines)
  MPICH_CXX=$work/logcc "$mpicxx" x.o -o x
  expect_log "mpicxx link" "$inc" -fPIC x.o -o x $(link_flags_lines)
  AMPI_CXX=$work/logcc "$mpicxx" -x c++ a.c -o a
  expect_log "-x c++ is ended before the link inputs" "$inc" -fPIC -x c++ a.c -o a -x none \
    $(link_flags_lines)
  AMPI_CXX=$work/logcc "$mpicxx" -xc++ a.c -x none b.o -o a
  expect_log "-x none already in effect" "$inc" -fPIC -xc++ a.c -x none b.o -o a $(link_flags_lines)

  AMPI_CC=$work/logcc "$mpicc" -shared -fPIC a.o -o liba.so
  expect_log "-shared: only -L, rpath, -lampi" "$inc" -fPIC -shared -fPIC a.o -o liba.so \
    "-L$prefix/lib" "-Wl,-rpath,$prefix/lib" -lampi

  for mode in -c -S -E -M -MM -fsyntax-only; do
    AMPI_CC=$work/logcc "$mpicc" "$mode" hello.c
    expect_log "$mode" "$inc" -fPIC "$mode" hello.c
  done
  AMPI_CC=$work/logcc "$mpicc" -MT x -MD -MP -MF dep.d -c hello.c -o hello.o
  expect_log "-MT -MD -MP -MF -c" "$inc" -fPIC -MT x -MD -MP -MF dep.d -c hello.c -o hello.o
  AMPI_CC=$work/logcc "$mpicc" -MD -MF dep.d hello.c -o hello
  expect_log "-MD -MF with a link" "$inc" -fPIC -MD -MF dep.d hello.c -o hello $(link_flags_lines)
  AMPI_CC=$work/logcc "$mpicc" -MF -c hello.c
  expect_log "the value of -MF is not an option" "$inc" -fPIC -MF -c hello.c $(link_flags_lines)
  AMPI_CXX=$work/logcc "$mpicxx" -x c++ -E - </dev/null
  expect_log "-x c++ -E - (stdin)" "$inc" -fPIC -x c++ -E -
  for query in --version -dumpversion -dumpfullversion -dumpmachine -print-prog-name=ld \
    -print-search-dirs -print-libgcc-file-name --help; do
    AMPI_CC=$work/logcc "$mpicc" "$query"
    expect_log "$query: passed alone" "$query"
  done
  AMPI_CXX=$work/logcc "$mpicxx" -v
  log_has_no_link_flags "-v alone"
  AMPI_CC=$work/logcc "$mpicc"
  expect_log "no arguments" "$inc" -fPIC
  AMPI_CC=$work/logcc "$mpicc" -v hello.c
  expect_log "-v with a source links" "$inc" -fPIC -v hello.c $(link_flags_lines)

  printf '%s\n' "-O2 -c" '"hello.c"' >compile.rsp
  AMPI_CC=$work/logcc "$mpicc" @compile.rsp -o hello.o
  expect_log "response file holding -c" "$inc" -fPIC @compile.rsp -o hello.o
  printf '%s\n' "-shared a.o" >shared.rsp
  AMPI_CC=$work/logcc "$mpicc" @shared.rsp -o liba.so
  expect_log "response file holding -shared" "$inc" -fPIC @shared.rsp -o liba.so \
    "-L$prefix/lib" "-Wl,-rpath,$prefix/lib" -lampi
}

case_compile_link() {
  must "$mpicc" -Wall -c "$srcdir/hello_mpi.c" -o hello.o
  must "$mpicc" hello.o -o hello_c
  must "$ampirun" --vp 3 ./hello_c
  hello_check run.out 3
  # Run without ampirun (one rank) and without LD_LIBRARY_PATH: the rpath finds libampi.so.
  must ./hello_c
  hello_check run.out 1
  must readelf -d hello_c
  grep -Eq 'NEEDED.*\[libampi\.so' run.out || fail "hello_c does not need libampi.so"
  grep -Eq "(RPATH|RUNPATH).*$prefix/lib" run.out || fail "hello_c has no rpath to $prefix/lib"
  must nm hello_c
  grep -q ' T __wrap_main$' run.out || fail "hello_c has no __wrap_main from libampi_start.a"

  # C++: the same source compiled as C++, compile and link in one step and in two.
  must "$mpicxx" -x c++ -c "$srcdir/hello_mpi.c" -o hello_cxx.o
  must "$mpicxx" hello_cxx.o -o hello_cxx
  must "$ampirun" --vp 2 ./hello_cxx
  hello_check run.out 2
  must "$mpicxx" -x c++ "$srcdir/hello_mpi.c" -x none -o "hello one step"
  must "$ampirun" --vp 4 "./hello one step"
  hello_check run.out 4
  # Without "-x none": the wrapper must keep -x c++ from applying to libampi_start.a.
  must "$mpicxx" -x c++ "$srcdir/hello_mpi.c" -o hello_x
  must "$ampirun" --vp 2 ./hello_x
  hello_check run.out 2
}

case_depfile() {
  must "$mpicc" -MT x -MD -MP -MF dep.d -c "$srcdir/hello_mpi.c" -o hello.o
  [ -f hello.o ] || fail "no hello.o"
  [ -f dep.d ] || fail "no dep.d"
  [ -e a.out ] && fail "a link happened (a.out exists)"
  if [ -f dep.d ]; then
    sed 's/^/| /' dep.d
    grep -q '^x:' dep.d || fail "dep.d does not start with target x"
    grep -Fq "$prefix/include/mpi.h" dep.d || fail "dep.d does not list $prefix/include/mpi.h"
    has_line dep.d "$prefix/include/mpi.h:" || fail "dep.d has no -MP phony target for mpi.h"
  fi
  # The Ninja/Makefile generators' spelling, for C++.
  mkdir -p obj
  must "$mpicxx" -x c++ -MD -MT obj/hello.o -MF obj/hello.o.d -o obj/hello.o -c "$srcdir/hello_mpi.c"
  [ -f obj/hello.o.d ] && grep -Fq "$prefix/include/mpi.h" obj/hello.o.d ||
    fail "obj/hello.o.d missing or without mpi.h"
  # -MMD with a link: the dependency file is written and the program is linked.
  must "$mpicc" -MMD -MF linked.d "$srcdir/hello_mpi.c" -o linked
  [ -f linked.d ] || fail "no linked.d"
  must "$ampirun" --vp 2 ./linked
  hello_check run.out 2
}

case_preprocess() {
  must "$mpicc" -E "$srcdir/hello_mpi.c"
  grep -q 'MPI_Init' run.out || fail "-E output has no MPI_Init"
  grep -Fq "$prefix/include/mpi.h" run.out || fail "-E output does not come from $prefix/include/mpi.h"
  grep -Eq 'undefined reference|cannot find|ld returned|linker input file unused' run.out &&
    fail "-E got link flags"
  [ -e a.out ] && fail "-E linked a.out"
  must "$mpicc" -M "$srcdir/hello_mpi.c"
  grep -q 'linker input file unused' run.out && fail "-M got link flags"
  grep -q '^hello_mpi.o:' run.out || fail "-M printed no rule"
  grep -Fq "$prefix/include/mpi.h" run.out || fail "-M does not list mpi.h"
  must "$mpicc" -MM "$srcdir/hello_mpi.c"
  grep -Fq "$prefix/include/mpi.h" run.out || fail "-MM does not list mpi.h"
  must "$mpicc" -fsyntax-only "$srcdir/hello_mpi.c"
  must "$mpicc" -S "$srcdir/hello_mpi.c" -o hello.s
  grep -q 'MPI_Init' hello.s || fail "-S output does not call MPI_Init"
  printf '#include <mpi.h>\nint ampi_probe_version = MPI_VERSION;\n' >stdin.c
  printf '$ mpicxx -x c++ -E - < stdin.c\n'
  "$mpicxx" -x c++ -E - <stdin.c >run.out 2>&1 || fail "mpicxx -x c++ -E - failed"
  grep -Eq 'int ampi_probe_version = [0-9]+;' run.out || fail "-E - did not expand MPI_VERSION"
  [ -e a.out ] && fail "a.out appeared"
  return 0
}

write_plugin_sources() {
  cat >plugin.c <<'EOF'
#include <mpi.h>
int plugin_rank(void) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
EOF
  cat >app.c <<'EOF'
#include <mpi.h>
#include <stdio.h>
int plugin_rank(void);
int main(int argc, char **argv) {
  int size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("hello from rank %d of %d\n", plugin_rank(), size);
  MPI_Finalize();
  return 0;
}
EOF
}

case_shared() {
  write_plugin_sources
  must "$mpicc" -shared -fPIC plugin.c -o libplugin.so
  must nm libplugin.so
  grep -q '__wrap_main' run.out && fail "libplugin.so contains __wrap_main"
  grep -q '__real_main' run.out && fail "libplugin.so refers to __real_main"
  must nm -D libplugin.so
  grep -q '__wrap_main' run.out && fail "libplugin.so exports __wrap_main"
  must readelf -d libplugin.so
  grep -Eq 'NEEDED.*\[libampi\.so' run.out || fail "libplugin.so does not need libampi.so"
  # A program using the library.
  must "$mpicc" app.c -L. -lplugin -Wl,-rpath,"$work" -o app
  must "$ampirun" --vp 3 ./app
  hello_check run.out 3
}

case_libtool() {
  # The commands libtool issues for a shared+static library and a program using it.
  write_plugin_sources
  mkdir -p .libs .deps
  # libtool's configure-time probes: answered by the underlying compiler.
  cc_cmd=$("$mpicc" --showme:command)
  for probe in -print-prog-name=ld -print-search-dirs -dumpmachine; do
    # shellcheck disable=SC2086
    same "$probe" "$("$mpicc" "$probe" 2>&1)" "$($cc_cmd "$probe" 2>&1)"
  done
  must "$mpicc" -DHAVE_CONFIG_H -I. -g -O2 -MT plugin.lo -MD -MP -MF .deps/plugin.Tpo -c plugin.c \
    -fPIC -DPIC -o .libs/plugin.o
  must "$mpicc" -DHAVE_CONFIG_H -I. -g -O2 -MT plugin.lo -MD -MP -MF .deps/plugin.Tpo -c plugin.c \
    -o plugin.o
  must mv -f .deps/plugin.Tpo .deps/plugin.Plo
  grep -Fq "$prefix/include/mpi.h" .deps/plugin.Plo || fail ".deps/plugin.Plo does not list mpi.h"
  must "$mpicc" -shared -fPIC -DPIC .libs/plugin.o -g -O2 -Wl,-soname -Wl,libplugin.so.0 \
    -o .libs/libplugin.so.0.0.0
  (cd .libs && ln -sf libplugin.so.0.0.0 libplugin.so.0 && ln -sf libplugin.so.0.0.0 libplugin.so)
  must ar cr .libs/libplugin.a plugin.o
  must ranlib .libs/libplugin.a
  must nm .libs/libplugin.so.0.0.0
  grep -q '__wrap_main' run.out && fail "the libtool shared library contains __wrap_main"
  must "$mpicc" -DHAVE_CONFIG_H -I. -g -O2 -MT app.o -MD -MP -MF .deps/app.Tpo -c -o app.o app.c
  must "$mpicc" -g -O2 -o .libs/app app.o ./.libs/libplugin.so -Wl,-rpath -Wl,"$work/.libs"
  must "$ampirun" --vp 2 .libs/app
  hello_check run.out 2
  # -static-libtool-libs style: the archive.
  must "$mpicc" -g -O2 -o app_static app.o .libs/libplugin.a
  must "$ampirun" --vp 3 ./app_static
  hello_check run.out 3
}

case_archive_main() {
  # main kept in a static library and the program's own code in an object, as MPICH's test suite
  # links every test (its main, from librun_mpitests.a, calls the test's renamed main). With
  # --wrap=main nothing asked for main while the archive was read: "undefined reference to main".
  printf '%s\n' 'int run(int argc, char **argv);' \
    'int main(int argc, char **argv) { return run(argc, argv); }' >runner.c
  printf '%s\n' '#include <mpi.h>' '#include <stdio.h>' 'int run(int argc, char **argv) {' \
    '  int rank = -1, size = 0;' '  MPI_Init(&argc, &argv);' \
    '  MPI_Comm_rank(MPI_COMM_WORLD, &rank);' '  MPI_Comm_size(MPI_COMM_WORLD, &size);' \
    '  printf("hello from rank %d of %d\n", rank, size);' '  MPI_Finalize();' '  return 0;' \
    '}' >body.c
  must "$mpicc" -c runner.c -o runner.o
  must ar cr librunner.a runner.o
  must "$mpicc" -c body.c -o body.o
  must "$mpicc" -o from_archive body.o librunner.a
  must "$ampirun" --vp 3 ./from_archive
  hello_check run.out 3
  # The same with the archive named by -L/-l.
  must "$mpicc" -o from_archive_l body.o -L. -lrunner
  must "$ampirun" --vp 2 ./from_archive_l
  hello_check run.out 2
}

case_nvcc() {
  if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
    echo "SKIP: nvcc not found"
    exit 77
  fi
  # One step: nvcc preprocesses, compiles and links through mpicxx.
  must "$nvcc" -ccbin "$mpicxx" -o hello_nvcc "$srcdir/hello_nvcc.cu"
  must "$ampirun" --vp 2 ./hello_nvcc
  for r in 0 1; do
    has_line run.out "hello from nvcc rank $r of 2" || fail "no hello line from rank $r"
  done
  must readelf -d hello_nvcc
  grep -Eq 'NEEDED.*\[libampi\.so' run.out || fail "hello_nvcc does not need libampi.so"
  # Separate compile and link, and a dependency query.
  must "$nvcc" -ccbin "$mpicxx" -c "$srcdir/hello_nvcc.cu" -o hello_nvcc.o
  must "$nvcc" -ccbin "$mpicxx" hello_nvcc.o -o hello_nvcc2
  must "$ampirun" --vp 3 ./hello_nvcc2
  [ "$(grep -c '^hello from nvcc rank [0-2] of 3$' run.out)" = 3 ] || fail "expected 3 hello lines"
  must "$nvcc" -ccbin "$mpicxx" -M "$srcdir/hello_nvcc.cu"
  grep -Fq "$prefix/include/mpi.h" run.out || fail "nvcc -M does not list mpi.h"
}

case $case_name in
  show | args | compile_link | depfile | preprocess | shared | libtool | archive_main | nvcc)
    "case_$case_name"
    ;;
  *)
    echo "unknown case '$case_name'" >&2
    exit 2
    ;;
esac
finish
