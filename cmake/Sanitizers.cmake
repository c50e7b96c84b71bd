# cmake/Sanitizers.cmake — AMPI_SANITIZE: builds everything in this tree (the library, ampirun,
# libampi_start.a, the tests, examples and benchmarks) with GCC/Clang sanitizers, and gives every
# CTest test the run-time settings the sanitizers need. In a build without sanitizers, defines the
# valgrind memcheck tests instead (label `valgrind`, when valgrind is installed).
#
#   cmake -S . -B build-asan -G Ninja -DAMPI_SANITIZE=address,undefined
#   ctest --test-dir build-asan -j2 -LE soak --output-on-failure
#
# AMPI_SANITIZE: empty or OFF (no sanitizer), or a comma-separated list of address, undefined,
# thread (thread excludes address). `address,undefined` is what CI runs (scripts/test.sh).
# `thread` builds, but ThreadSanitizer is not told about the ranks' context switches
# (src/ult/scheduler.cpp announces them to ASan only) and the uninstrumented libpmix/UCX threads
# give it false reports: MPI programs with several ranks crash under it. The valgrind tests are
# the second tool instead.
#
# Included from the top-level CMakeLists.txt before add_subdirectory(src), so add_compile_options
# and add_link_options reach every target of the tree.
#
# Run-time settings (ASAN_OPTIONS, LSAN_OPTIONS, UBSAN_OPTIONS, TSAN_OPTIONS, LDFLAGS) are put into
# the environment of ctest itself by a file that ctest reads before any test
# (<build>/AmpiSanitizerEnvironment.cmake, a TEST_INCLUDE_FILES of every directory), so every test
# and every process it starts inherits them; settings already in the caller's environment come
# after ours, and win. To run a program of a sanitizer build by hand, set the same, e.g.
#   ASAN_OPTIONS=detect_stack_use_after_return=0:handle_segv=0 \
#   LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp build-asan/bin/ampirun --vp 4 prog
#
# Leaks: LeakSanitizer reports every leak of ours and fails the test; scripts/lsan.supp hides only
# leaks inside the uninstrumented system libraries (libpmix).
include_guard(GLOBAL)

# The flags that link a program with the sanitizers' run-time (empty without sanitizers): an MPI
# program must be linked with them to load a sanitized libampi.so (src/CMakeLists.txt adds them to
# AMPI_PROGRAM_LINK_OPTIONS, which the compiler wrappers mpicc/mpicxx use).
set(AMPI_SANITIZE_LINK_FLAGS "")

string(TOLOWER "${AMPI_SANITIZE}" _ampi_san)
string(REPLACE " " "" _ampi_san "${_ampi_san}")

# ---- without sanitizers: valgrind memcheck tests -----------------------------------------------
# valgrind.<program>.vp<V>: single-process MPI test programs of tests/mpi run directly (no
# ampirun, so no PMIx or UCX) with AMPI_VP=V ranks under memcheck (scripts/valgrind.sh); any
# invalid access, use of uninitialised memory or definite/indirect leak fails the test. About a
# second each; they run with the default suite.
function(_ampi_valgrind_tests)
  if(NOT AMPI_BUILD_TESTS OR NOT AMPI_VALGRIND)
    return()
  endif()
  foreach(program IN ITEMS p2p_basic p2p_nonblocking p2p_wildcards p2p_modes collectives comms
                           token_ring errors init_finalize exit_after_finalize p2p_large_many)
    if(NOT TARGET ${program})
      continue()
    endif()
    foreach(vp IN ITEMS 1 8)
      add_test(NAME valgrind.${program}.vp${vp}
               COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/valgrind.sh $<TARGET_FILE:${program}>)
      set_tests_properties(valgrind.${program}.vp${vp} PROPERTIES
                           LABELS valgrind TIMEOUT 120 SKIP_RETURN_CODE 77
                           ENVIRONMENT "AMPI_VP=${vp}")
    endforeach()
  endforeach()
endfunction()

if(_ampi_san STREQUAL "" OR _ampi_san MATCHES "^(off|no|false|0|none)$")
  find_program(AMPI_VALGRIND valgrind)
  mark_as_advanced(AMPI_VALGRIND)
  cmake_language(DEFER CALL _ampi_valgrind_tests)
  return()
endif()

# ---- sanitizers --------------------------------------------------------------------------------
string(REPLACE "," ";" _ampi_san_list "${_ampi_san}")
list(REMOVE_ITEM _ampi_san_list "")
list(REMOVE_DUPLICATES _ampi_san_list)
foreach(_s IN LISTS _ampi_san_list)
  if(NOT _s MATCHES "^(address|undefined|thread)$")
    message(FATAL_ERROR "AMPI_SANITIZE: unknown sanitizer '${_s}' "
                        "(expected empty, OFF, or a list of address, undefined, thread)")
  endif()
endforeach()
if("thread" IN_LIST _ampi_san_list AND "address" IN_LIST _ampi_san_list)
  message(FATAL_ERROR "AMPI_SANITIZE: thread cannot be combined with address")
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" OR NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  message(FATAL_ERROR "AMPI_SANITIZE needs GCC or Clang")
endif()
list(JOIN _ampi_san_list "," _ampi_san)
if("thread" IN_LIST _ampi_san_list)
  message(WARNING "AMPI_SANITIZE=${_ampi_san}: the ranks' context switches are not announced to "
                  "ThreadSanitizer; MPI programs with more than one rank crash under it")
endif()

# Compile and link flags, for C and C++ (not for CUDA sources, which nvcc compiles).
set(AMPI_SANITIZE_COMPILE_FLAGS -fsanitize=${_ampi_san} -fno-omit-frame-pointer)
if("undefined" IN_LIST _ampi_san_list)
  # A UBSan finding ends the program with a failure, so the test fails.
  list(APPEND AMPI_SANITIZE_COMPILE_FLAGS -fno-sanitize-recover=undefined)
endif()
set(AMPI_SANITIZE_LINK_FLAGS -fsanitize=${_ampi_san})
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${AMPI_SANITIZE_COMPILE_FLAGS}>")
add_link_options("$<$<LINK_LANGUAGE:C,CXX>:${AMPI_SANITIZE_LINK_FLAGS}>")
message(STATUS "AMPI_SANITIZE: building with -fsanitize=${_ampi_san}")

# The run-time settings, written to a file that ctest reads first (see the top of this file).
set(_ampi_san_env_file ${PROJECT_BINARY_DIR}/AmpiSanitizerEnvironment.cmake)
string(CONCAT _ampi_san_env
       "# Generated by cmake/Sanitizers.cmake (AMPI_SANITIZE=${_ampi_san}): the sanitizers' run-time\n"
       "# settings, put into the environment of ctest, and so of every test, before any test runs.\n"
       "# Read once per ctest run (each test directory includes it).\n"
       "if(\"\$ENV{AMPI_SANITIZER_ENVIRONMENT}\" STREQUAL \"${_ampi_san_env_file}\")\n"
       "  return()\n"
       "endif()\n"
       "set(ENV{AMPI_SANITIZER_ENVIRONMENT} \"${_ampi_san_env_file}\")\n")
# _ampi_san_setenv(VAR SEPARATOR VALUE): VAR = VALUE, followed by the caller's VAR if it has one.
macro(_ampi_san_setenv var sep value)
  string(APPEND _ampi_san_env
         "if(DEFINED ENV{${var}} AND NOT \"\$ENV{${var}}\" STREQUAL \"\")\n"
         "  set(ENV{${var}} \"${value}${sep}\$ENV{${var}}\")\n"
         "else()\n"
         "  set(ENV{${var}} \"${value}\")\n"
         "endif()\n")
endmacro()

# A project that finds ampi with find_package(MPI) gets the wrappers' libraries but not their
# -fsanitize flags (FindMPI keeps only -Wl, -L, -l and library paths), and a sanitized libampi.so
# needs the sanitizers' run-time in the program: the projects that tests configure (the
# find_package test of tests/tools) link with these flags through LDFLAGS, as a user would.
string(JOIN " " _ampi_san_ldflags ${AMPI_SANITIZE_LINK_FLAGS})
_ampi_san_setenv(LDFLAGS " " "${_ampi_san_ldflags}")

if("address" IN_LIST _ampi_san_list)
  # detect_stack_use_after_return=0: fake stacks (use-after-return detection) do not follow the
  # ranks' stack switches. The switches themselves are announced to ASan by
  # src/ult/scheduler.cpp (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber).
  # handle_segv=0: SIGSEGV stays the program's (the library's stack-overflow report, UCX's
  # handler), so a crashing process still dies of the signal as the failure tests expect
  # (failure_modes.crash: status 139). Every access ASan instruments is still checked; only a
  # fault outside them (a wild pointer into unmapped memory) loses ASan's report, not its failure.
  _ampi_san_setenv(ASAN_OPTIONS ":"
    "detect_stack_use_after_return=0:detect_leaks=1:handle_segv=0:check_initialization_order=1:strict_init_order=1")
endif()
if("address" IN_LIST _ampi_san_list)
  _ampi_san_setenv(LSAN_OPTIONS ":"
                   "suppressions=${PROJECT_SOURCE_DIR}/scripts/lsan.supp:print_suppressions=0")
endif()
if("undefined" IN_LIST _ampi_san_list)
  _ampi_san_setenv(UBSAN_OPTIONS ":" "print_stacktrace=1:halt_on_error=1")
endif()
if("thread" IN_LIST _ampi_san_list)
  _ampi_san_setenv(TSAN_OPTIONS ":" "halt_on_error=0:second_deadlock_stack=1")
endif()
file(CONFIGURE OUTPUT ${_ampi_san_env_file} CONTENT "${_ampi_san_env}" @ONLY)
# Every directory with tests reads it, so that ctest run in a subdirectory of the build gets the
# settings too (added at the end of the top directory, when all directories are known).
function(_ampi_sanitizer_environment dir)
  set_property(DIRECTORY ${dir} APPEND PROPERTY TEST_INCLUDE_FILES ${_ampi_san_env_file})
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _ampi_sanitizer_environment(${sub})
  endforeach()
endfunction()
cmake_language(DEFER CALL _ampi_sanitizer_environment ${PROJECT_SOURCE_DIR})

# ---- sanitizer-only tests (label `sanitizer`) --------------------------------------------------
# scripts/sanitizer/canary.c commits one error per run in a rank; the test checks, through
# tests/mpi/expect_run.sh, that the job fails and that the sanitizer names the error and the
# function (see canary.c), and that a clean run stays quiet. They prove the build is armed: ASan
# knows the rank stacks, UBSan stops the program, LeakSanitizer reports our leaks.
function(_ampi_sanitizer_tests)
  if(NOT AMPI_BUILD_TESTS)
    return()
  endif()
  set(cases)
  if("address" IN_LIST _ampi_san_list)
    list(APPEND cases
         "heap|AddressSanitizer: heap-buffer-overflow|#0 [^ ]+ in canary_heap_overflow "
         "stack|AddressSanitizer: stack-buffer-overflow|#0 [^ ]+ in canary_stack_overflow |located in stack of thread T0 at offset [0-9]+ in frame"
         "free|AddressSanitizer: heap-use-after-free|#0 [^ ]+ in canary_use_after_free "
         "leak|LeakSanitizer: detected memory leaks|#1 [^ ]+ in canary_leak ")
  endif()
  if("undefined" IN_LIST _ampi_san_list)
    list(APPEND cases "overflow|runtime error: signed integer overflow|canary.c:[0-9]+")
  endif()
  if(NOT cases)
    return()
  endif()
  set(expect ${PROJECT_SOURCE_DIR}/tests/mpi/expect_run.sh)
  set(ampirun ${PROJECT_BINARY_DIR}/bin/ampirun)
  add_executable(sanitizer_canary ${PROJECT_SOURCE_DIR}/scripts/sanitizer/canary.c)
  target_link_libraries(sanitizer_canary PRIVATE ampi::program)
  set_target_properties(sanitizer_canary PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF
                        RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/sanitizer)
  foreach(case IN LISTS cases)
    string(REPLACE "|" ";" case "${case}")
    list(POP_FRONT case name)
    set(checks -S -E "NOT REACHED")
    foreach(regex IN LISTS case)
      list(APPEND checks -e "${regex}")
    endforeach()
    add_test(NAME sanitizer.${name}
             COMMAND sh ${expect} ${checks} -- ${ampirun} -np 1 --vp 4
                     $<TARGET_FILE:sanitizer_canary> ${name})
    set_tests_properties(sanitizer.${name} PROPERTIES LABELS sanitizer TIMEOUT 60)
  endforeach()
  # No error: a clean run, ended by exit() in a deep frame of every rank, stays quiet.
  add_test(NAME sanitizer.none
           COMMAND sh ${expect} -s 0 -o "^ok canary none \\(4 ranks\\)$" -E "Sanitizer|runtime error"
                   -- ${ampirun} -np 1 --vp 4 $<TARGET_FILE:sanitizer_canary> none)
  set_tests_properties(sanitizer.none PROPERTIES LABELS sanitizer TIMEOUT 60)
endfunction()
# At the end of the top directory: ampi::program, ampirun and enable_testing() exist by then.
cmake_language(DEFER CALL _ampi_sanitizer_tests)
